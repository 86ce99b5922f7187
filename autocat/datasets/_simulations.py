"""The paper's simulated dirty categories (appendix A: multi-label and typos)."""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

from autocat._sklearn_compat import Interval, StrOptions, validate_params

__all__ = ["ANIMALS", "make_dirty_categories", "recovery_nmi"]

ANIMALS = (
    "chicken", "eagle", "giraffe", "horse", "leopard", "lion", "tiger", "turtle",
)  # fmt: skip
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


@validate_params(
    {
        "kind": [StrOptions({"multilabel", "typos"})],
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "categories": [list, tuple, None],
        "poisson_mean": [Interval(Real, 0, None, closed="left")],
        "typo_rate": [Interval(Real, 0, 1, closed="both")],
        "n_misspellings": [Interval(Integral, 1, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def make_dirty_categories(
    kind: str = "multilabel",
    n_samples: int = 1_000,
    random_state: Any = None,
    *,
    categories: Sequence[str] | None = None,
    poisson_mean: float = 1.0,
    typo_rate: float = 0.1,
    n_misspellings: int = 15,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Simulate a dirty categorical column with known latent categories.

    The two simulations of Cerda & Varoquaux (2020), section 4.1.1 and appendix
    A, on 8 animal names (chicken, eagle, giraffe, horse, leopard, lion, tiger,
    turtle):

    - ``'multilabel'``: each entry concatenates ``k + 2`` distinct categories
      separated by spaces, ``k ~ Poisson(poisson_mean)`` (capped at the number of
      categories), e.g. ``'horse eagle lion'``. No entry holds a single category,
      which makes recovery harder.
    - ``'typos'``: each entry is one category, drawn uniformly; a fraction
      ``typo_rate`` of entries is replaced by one of ``n_misspellings``
      misspellings of its category (a missing, swapped, inserted or replaced
      character, e.g. ``'tiegr'``, ``'ttiger'``), drawn once per call.

    Parameters
    ----------
    kind : {'multilabel', 'typos'}, default='multilabel'
        Which simulation.
    n_samples : int, default=1000
        Number of entries.
    random_state : int, RandomState instance or None, default=None
        Seeds every draw.
    categories : sequence of str, default=None
        The latent categories; by default the 8 animals.
    poisson_mean : float, default=1.0
        Mean of ``k`` for ``'multilabel'``: entries hold ``2 + poisson_mean``
        categories on average.
    typo_rate : float, default=0.1
        Fraction of misspelled entries for ``'typos'``.
    n_misspellings : int, default=15
        Distinct misspellings drawn per category for ``'typos'``.

    Returns
    -------
    X : DataFrame of shape (n_samples, 1)
        The dirty column, named ``'category'``.
    Y : DataFrame of int8 of shape (n_samples, n_categories)
        ``Y[c][i] = 1`` when entry ``i`` holds (a spelling of) category ``c``;
        one column per category, in the order of ``categories``.

    See Also
    --------
    autocat.GammaPoissonEncoder : Recovers such latent categories.

    Examples
    --------
    >>> from autocat.datasets import make_dirty_categories
    >>> X, Y = make_dirty_categories("multilabel", n_samples=3, random_state=0)
    >>> X["category"].tolist()
    ['horse lion eagle giraffe', 'lion giraffe horse', 'giraffe lion tiger']
    >>> Y.sum(axis=1).tolist()
    [4, 3, 3]
    >>> X, Y = make_dirty_categories("typos", n_samples=1000, random_state=0)
    >>> X["category"].nunique(), int(Y.to_numpy().sum())
    (69, 1000)
    """
    rng = check_random_state(random_state)
    names = list(ANIMALS if categories is None else categories)
    if len(set(names)) != len(names) or len(names) < 2:
        raise ValueError(
            "make_dirty_categories needs at least 2 distinct categories; got "
            f"categories={names!r}."
        )
    n_cat = len(names)
    Y = np.zeros((n_samples, n_cat), dtype=np.int8)
    if kind == "multilabel":
        sizes = np.minimum(rng.poisson(poisson_mean, n_samples) + 2, n_cat)
        entries = []
        for i, size in enumerate(sizes):
            chosen = rng.choice(n_cat, size=size, replace=False)
            Y[i, chosen] = 1
            entries.append(" ".join(names[c] for c in chosen))
    else:
        truth = rng.randint(n_cat, size=n_samples)
        Y[np.arange(n_samples), truth] = 1
        entries = [names[c] for c in truth]
        spellings = [_misspellings(name, n_misspellings, rng) for name in names]
        for i in np.flatnonzero(rng.random_sample(n_samples) < typo_rate):
            candidates = spellings[truth[i]]
            entries[i] = candidates[rng.randint(len(candidates))]
    X = pd.DataFrame({"category": pd.Series(entries, dtype=object)})
    return X, pd.DataFrame(Y, columns=names)


def _misspellings(word: str, n: int, rng: np.random.RandomState) -> list[str]:
    """``n`` distinct one-edit misspellings of ``word`` (fewer if none are left)."""
    found: dict[str, None] = {}
    for _ in range(100 * n):
        if len(found) == n:
            break
        position = rng.randint(len(word))
        letter = _LETTERS[rng.randint(len(_LETTERS))]
        operation = rng.randint(4)
        if operation == 0 and len(word) > 1:  # missing character
            typo = word[:position] + word[position + 1 :]
        elif operation == 1 and position + 1 < len(word):  # swapped characters
            typo = (
                word[:position]
                + word[position + 1]
                + word[position]
                + word[position + 2 :]
            )
        elif operation == 2:  # inserted character
            typo = word[:position] + letter + word[position:]
        else:  # replaced character
            typo = word[:position] + letter + word[position + 1 :]
        if typo != word:
            found[typo] = None
    return list(found)


def recovery_nmi(encoding: Any) -> float:
    """Normalised mutual information between latent categories and an encoding.

    The paper's recovery measure (section 4.1.1): ``encoding`` holds the encoding
    of each latent category's name (one row per category); its absolute values,
    with rows l1-normalised and divided by the number of rows, form a joint
    distribution ``P(category, dimension)`` and
    ``NMI = 2 I / (H(category) + H(dimension))``. A one-to-one (permuted
    identity) encoding scores 1, a constant one 0.

    Parameters
    ----------
    encoding : array-like of shape (n_categories, n_dimensions)
        The encoding of the category names.

    Returns
    -------
    float
        The NMI, in [0, 1].

    See Also
    --------
    make_dirty_categories : The simulations this measure is used on.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat.datasets._simulations import recovery_nmi
    >>> round(recovery_nmi(np.eye(4)[[2, 0, 3, 1]]), 3)
    1.0
    >>> round(recovery_nmi(np.ones((4, 3))), 3)
    0.0
    """
    P = np.abs(np.asarray(encoding, dtype=np.float64))
    sums = P.sum(axis=1, keepdims=True)
    P = np.where(sums > 0, P / np.where(sums > 0, sums, 1.0), 1.0 / P.shape[1])
    P /= P.shape[0]
    rows, cols = P.sum(axis=1), P.sum(axis=0)
    nonzero = P > 0
    outer = np.outer(rows, cols)
    mutual = float((P[nonzero] * np.log(P[nonzero] / outer[nonzero])).sum())

    def entropy(p: np.ndarray) -> float:
        p = p[p > 0]
        return float(-(p * np.log(p)).sum())

    denominator = entropy(rows) + entropy(cols)
    return 0.0 if denominator == 0 else max(0.0, 2.0 * mutual / denominator)
