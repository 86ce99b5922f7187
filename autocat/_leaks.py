"""The check for columns that leak the target: each column's neighbour score."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd

__all__ = ["neighbour_score", "sample_rows", "suspicious_columns"]

# Suspicious columns: rows sampled, least rows with a value, score threshold, and
# the most distinct values of a numeric target read as classes.
_LEAK_SAMPLE = 10_000
_LEAK_MIN_ROWS = 50
_LEAK_SCORE = 0.99
_LEAK_MAX_CLASSES = 20


@functools.lru_cache(maxsize=4)
def _shuffled_rows(n: int, random_state: int) -> np.ndarray:
    """Return ``0 .. n-1`` in a seeded random order (read-only: it is shared)."""
    ranks = np.random.default_rng(random_state).permutation(n)
    rows = np.empty_like(ranks)
    rows[ranks] = np.arange(n)  # the row of rank 0 first, as np.lexsort sorts ties
    rows.flags.writeable = False
    return rows


def neighbour_score(
    x: np.ndarray, y: np.ndarray, *, classification: bool, random_state: int = 0
) -> float:
    """How well one column, by itself, orders the target: 1 is perfectly.

    Rows with a value are sorted by ``x`` (ties in a seeded random order) and
    each row's target is compared with its neighbour's. For a regression
    target the score is ``1 - sum((y[i+1] - y[i])**2) / (2 * sum((y - mean)**2))``
    (about the share of the target's variance that the column's order
    explains: 0 for an unrelated column); for classes it is the share of
    neighbours with the same class, rescaled so that chance is 0 and perfect
    agreement is 1. It costs one sort of the rows given.

    Parameters
    ----------
    x : ndarray of float of shape (n,)
        The column's values (or its category codes, shuffled); NaN is skipped.
    y : ndarray of shape (n,)
        The target.
    classification : bool
        Whether ``y`` holds class labels.
    random_state : int, default=0
        Seed of the order of ties.

    Returns
    -------
    float
        The score; ``0.0`` with fewer than 3 rows or a constant target.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._leaks import neighbour_score
    >>> x = np.arange(100.0)
    >>> round(neighbour_score(x, 2 * x, classification=False), 2)
    1.0
    >>> rng = np.random.default_rng(0)
    >>> neighbour_score(rng.normal(size=500), rng.normal(size=500),
    ...                 classification=False) < 0.2
    True
    """
    keep = ~np.isnan(x)
    x, y = x[keep], y[keep]
    if len(x) < 3:
        return 0.0
    # sorted by x, ties in the order of a seeded random permutation: a stable
    # sort of the rows in that order (twice as fast as np.lexsort with ranks)
    shuffled = _shuffled_rows(len(x), random_state)
    y = y[shuffled[np.argsort(x[shuffled], kind="stable")]]
    if classification:
        _, codes = np.unique(y, return_inverse=True)
        shares = np.bincount(codes) / len(codes)
        chance = float((shares**2).sum())
        if chance >= 1.0:
            return 0.0
        agree = float((codes[1:] == codes[:-1]).mean())
        return (agree - chance) / (1.0 - chance)
    y = y.astype(np.float64)
    spread = float(((y - y.mean()) ** 2).sum())
    if spread == 0.0:
        return 0.0
    return 1.0 - float((np.diff(y) ** 2).sum()) / (2.0 * spread)


def sample_rows(n_rows: int) -> np.ndarray:
    """Return the rows the suspicious-column check reads: all, or 10,000 seeded."""
    if n_rows <= _LEAK_SAMPLE:
        return np.arange(n_rows)
    rng = np.random.default_rng(0)
    return np.sort(rng.choice(n_rows, _LEAK_SAMPLE, replace=False))


def suspicious_columns(
    values: dict[str, np.ndarray | None], y: np.ndarray
) -> dict[str, float]:
    """Return the columns that order the target almost perfectly, with scores.

    A column is suspicious when its :func:`neighbour_score` is 0.99 or more on
    at least 50 rows where both it and the target have a value. The target is
    read as classes when it is not numeric or has at most 20 distinct values.

    Parameters
    ----------
    values : dict of str to ndarray of float or None
        For each column, one float per row that orders the rows as the column
        does (NaN where missing); None skips the column.
    y : ndarray of shape (n,)
        The target on the same rows.

    Returns
    -------
    dict of str to float
        The suspicious columns and their score, in the order given.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._leaks import suspicious_columns
    >>> rng = np.random.default_rng(0)
    >>> y = rng.normal(size=200)
    >>> scores = suspicious_columns({"copy": 3 * y, "noise": rng.normal(size=200)}, y)
    >>> list(scores)
    ['copy']
    """
    present = ~pd.isna(y)
    if present.sum() < _LEAK_MIN_ROWS:
        return {}
    y = y[present]
    classification = y.dtype.kind not in "iuf" or len(pd.unique(y)) <= (
        _LEAK_MAX_CLASSES
    )
    found = {}
    for name, x in values.items():
        if x is None:
            continue
        x = np.asarray(x, dtype=np.float64)[present]
        if np.isfinite(x).sum() < _LEAK_MIN_ROWS:
            continue
        score = neighbour_score(x, y, classification=classification)
        if score >= _LEAK_SCORE:
            found[name] = score
    return found
