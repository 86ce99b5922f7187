"""The search's row splits: folds that train on every class, rows to stop boosting."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["STOP_FRACTION", "inner_split", "inner_splits", "make_splits"]

# Share of a fold's training rows that choose the number of trees (never scored).
STOP_FRACTION = 0.2


def _check_cv_rows(n_splits: int, largest: int, what: str) -> None:
    if n_splits > largest:
        raise ValueError(
            f"cv={n_splits} folds need at least {n_splits} {what}, got {largest}. "
            "Pass a smaller cv."
        )


def make_splits(
    X: Any, y: np.ndarray, task: str, cv: Any, random_state: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Return cross-validation folds that train on every class.

    Regression uses shuffled ``KFold``. Classification stratifies the classes
    with at least 2 rows (shuffled ``StratifiedKFold``) and puts the rows of
    classes with one row in every fold's training part and in no validation
    part: they are trained on, never validated on. Stratification leaves at
    most ``ceil(n / cv)`` of a class's ``n >= 2`` rows in one validation part,
    so every training part holds every class, as XGBoost needs. A splitter
    passed as ``cv`` is used as is, except that single-row classes move to
    training; a fold whose training part still lacks a class is an error.

    A validation part may lack classes (a class with fewer rows than folds):
    accuracy is still defined; probabilistic and multiclass AUC metrics are
    scored with ``labels=`` by :func:`autocat._ensemble.fold_scorer`; a binary
    ranking metric on a fold without positives is undefined, which scores
    pooled over the folds' predictions avoid.

    Parameters
    ----------
    X : pandas.DataFrame or None
        The features, only passed to a splitter's ``split``.
    y : ndarray of shape (n_samples,)
        Float values, or class codes ``0 .. k-1``.
    task : {'regression', 'binary', 'multiclass'}
        The task.
    cv : int or scikit-learn splitter
        Number of folds, or a splitter with ``split(X, y)``.
    random_state : int
        Seeds the shuffling: the same arguments give the same folds.

    Returns
    -------
    list of (train, valid)
        Sorted row-index arrays, one pair per fold.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._splits import make_splits
    >>> y = np.array([0, 0, 0, 1, 1, 1, 2])  # class 2 has one row
    >>> folds = make_splits(None, y, "multiclass", 3, random_state=0)
    >>> [6 in train for train, _ in folds], [6 in valid for _, valid in folds]
    ([True, True, True], [False, False, False])
    """
    y = np.asarray(y)
    rows = np.arange(len(y))
    rare = np.zeros(len(y), dtype=bool)
    if task != "regression":
        rare = np.bincount(y)[y] < 2
    if hasattr(cv, "split"):
        X = rows[:, None] if X is None else X
        splits = [(np.asarray(a), np.asarray(b)) for a, b in cv.split(X, y)]
    elif task == "regression":
        _check_cv_rows(int(cv), len(y), "rows")
        kfold = KFold(int(cv), shuffle=True, random_state=random_state)
        splits = list(kfold.split(rows))
    else:
        common = rows[~rare]
        _check_cv_rows(int(cv), int(np.bincount(y).max()), "rows in some class")
        stratified = StratifiedKFold(int(cv), shuffle=True, random_state=random_state)
        with warnings.catch_warnings():
            # Fewer rows than folds in a class is fine: see the docstring.
            warnings.filterwarnings("ignore", "The least populated class", UserWarning)
            splits = [
                (common[a], common[b]) for a, b in stratified.split(common, y[common])
            ]
    folds = []
    for i, (train, valid) in enumerate(splits):
        train = np.union1d(train, rows[rare])
        valid = np.setdiff1d(valid, rows[rare])
        if task != "regression":
            absent = np.setdiff1d(y, y[train])
            if len(absent):
                raise ValueError(
                    f"fold {i} of cv={cv!r} trains on no row of class codes "
                    f"{absent[:10].tolist()}: XGBoost needs every class in training. "
                    "Use a stratified splitter, or an int cv."
                )
        folds.append((train, valid))
    return folds


def inner_split(
    train_indices: np.ndarray,
    y: np.ndarray,
    task: str,
    random_state: int,
    fraction: float = 0.2,
) -> tuple[np.ndarray, np.ndarray]:
    """Split a fold's training rows into rows to fit and rows to stop boosting on.

    The early-stopping rows then come from the training part, and the fold's
    validation rows judge a number of trees they did not choose. Classification
    keeps every class in ``fit_idx``: a class with ``n >= 2`` rows gives about
    ``fraction * n`` of them (at most ``n - 1``) to ``stop_idx``, the total
    being ``round(fraction * len(train_indices))`` rows or fewer when small
    classes cannot give them; classes with one row go to ``fit_idx`` only.

    Parameters
    ----------
    train_indices : ndarray of int
        Row indices of the fold's training part.
    y : ndarray of shape (n_samples,)
        The whole target (float values or class codes), indexed by
        ``train_indices``.
    task : {'regression', 'binary', 'multiclass'}
        The task.
    random_state : int
        Seeds the draw: the same arguments give the same split.
    fraction : float, default=0.2
        Share of the rows that go to ``stop_idx`` (at least one row).

    Returns
    -------
    fit_idx, stop_idx : ndarray of int
        Sorted subsets of ``train_indices``. ``stop_idx`` is empty only when no
        class has 2 rows.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._splits import inner_split
    >>> y = np.array([0] * 8 + [1] * 4 + [2])
    >>> fit, stop = inner_split(np.arange(13), y, "multiclass", 0, fraction=0.25)
    >>> np.bincount(y[fit], minlength=3), np.bincount(y[stop], minlength=3)
    (array([6, 3, 1]), array([2, 1, 0]))
    """
    if not 0 < fraction < 1:
        raise ValueError(f"fraction must be in (0, 1), got {fraction!r}.")
    train = np.asarray(train_indices)
    if len(train) < 2:
        raise ValueError(f"inner_split needs at least 2 rows, got {len(train)}.")
    perm = np.random.default_rng(random_state).permutation(train)
    wanted = min(max(1, round(fraction * len(train))), len(train) - 1)
    if task == "regression":
        return np.sort(perm[wanted:]), np.sort(perm[:wanted])
    labels = np.unique(y[perm], return_inverse=True)[1]
    counts = np.bincount(labels)
    caps = np.maximum(counts - 1, 0)
    quota = fraction * counts * (counts >= 2)
    take = np.minimum(np.floor(quota), caps).astype(np.int64)
    wanted = min(wanted, int(caps.sum()))
    while take.sum() < wanted:  # largest remainder first; ties: lowest code
        room = np.where(take < caps, quota - take, -np.inf)
        take[int(np.argmax(room))] += 1
    order = np.argsort(labels, kind="stable")  # by class, permuted within
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.empty(len(perm), dtype=np.int64)
    rank[order] = np.arange(len(perm)) - start[labels[order]]
    stop = rank < take[labels]
    return np.sort(perm[~stop]), np.sort(perm[stop])


def inner_splits(
    splits: Sequence[tuple[np.ndarray, np.ndarray]],
    y: np.ndarray,
    task: str,
    random_state: int,
    fraction: float = STOP_FRACTION,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Split each fold's training part into *fit* and *stop* rows.

    Parameters
    ----------
    splits : sequence of (train, valid) index arrays
        The outer folds.
    y : ndarray
        The target (class codes for classification).
    task : {'regression', 'binary', 'multiclass'}
        The task; see :func:`inner_split`.
    random_state : int
        Seed of the splits (each fold draws its own).
    fraction : float, default=0.2
        Share of the training rows that early stopping watches.

    Returns
    -------
    list of (fit, stop) arrays
        Positions into each fold's ``train`` array (not row indices), sorted.
    """
    out = []
    for fold, (train, _) in enumerate(splits):
        train = np.asarray(train)
        seed = int(np.random.default_rng([random_state, fold]).integers(2**31))
        fit_rows, stop_rows = inner_split(train, y, task, seed, fraction)
        order = np.argsort(train, kind="stable")
        fit = np.sort(order[np.searchsorted(train[order], fit_rows)])
        stop = np.sort(order[np.searchsorted(train[order], stop_rows)])
        out.append((fit, stop))
    return out
