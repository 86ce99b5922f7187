from __future__ import annotations

import numpy as np
import pytest

from autocat.datasets import make_dirty_categories
from autocat.datasets._simulations import ANIMALS, _misspellings, recovery_nmi


def _one_edit_away(typo: str, word: str) -> bool:
    if abs(len(typo) - len(word)) > 1 or typo == word:
        return False
    if len(typo) == len(word):
        diff = [i for i in range(len(word)) if typo[i] != word[i]]
        swapped = (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and typo[diff[0]] == word[diff[1]]
            and typo[diff[1]] == word[diff[0]]
        )
        return len(diff) == 1 or swapped
    short, long = sorted([typo, word], key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def test_multilabel(global_random_seed):
    X, Y = make_dirty_categories(
        "multilabel", n_samples=500, random_state=global_random_seed
    )
    assert X.shape == (500, 1) and Y.shape == (500, 8)
    assert list(Y.columns) == list(ANIMALS)
    sizes = Y.sum(axis=1)
    assert sizes.min() >= 2  # k + 2 labels
    assert 2.8 < sizes.mean() < 3.2  # k ~ Poisson(1)
    for value, labels in zip(X["category"], Y.to_numpy(), strict=True):
        words = value.split(" ")
        assert len(set(words)) == len(words) == labels.sum()
        assert {ANIMALS[c] for c in np.flatnonzero(labels)} == set(words)


def test_typos(global_random_seed):
    X, Y = make_dirty_categories(
        "typos", n_samples=2000, random_state=global_random_seed
    )
    assert (Y.sum(axis=1) == 1).all()
    truth = np.asarray(ANIMALS)[Y.to_numpy().argmax(axis=1)]
    values = X["category"].to_numpy()
    typo = values != truth
    assert 0.07 < typo.mean() < 0.13  # 10% of entries, minus typos equal to the word
    for value, word in zip(values[typo], truth[typo], strict=True):
        assert _one_edit_away(value, word), (value, word)
    # at most n_misspellings distinct misspellings per category
    per_category = {word: set(values[typo][truth[typo] == word]) for word in ANIMALS}
    assert max(len(v) for v in per_category.values()) <= 15


def test_all_kinds_of_misspellings():
    rng = np.random.RandomState(0)
    found = _misspellings("leopard", 60, rng)
    kinds = {
        "missing": any(len(t) == 6 for t in found),
        "inserted": any(len(t) == 8 for t in found),
        "swapped": any(sorted(t) == sorted("leopard") for t in found),
        "replaced": any(len(t) == 7 and sorted(t) != sorted("leopard") for t in found),
    }
    assert all(kinds.values()), kinds
    assert len(found) == len(set(found)) == 60


def test_same_seed_same_data():
    first = make_dirty_categories("typos", n_samples=100, random_state=3)
    second = make_dirty_categories("typos", n_samples=100, random_state=3)
    assert first[0].equals(second[0]) and first[1].equals(second[1])


def test_custom_categories():
    X, Y = make_dirty_categories(
        "multilabel", n_samples=10, random_state=0, categories=["a b", "cd", "ef"]
    )
    assert list(Y.columns) == ["a b", "cd", "ef"]
    assert (X["category"].str.count(" ") >= 1).all()  # at least two labels
    with pytest.raises(ValueError, match="at least 2 distinct categories"):
        make_dirty_categories(categories=["x", "x"])


def test_invalid_kind():
    with pytest.raises(ValueError, match="kind"):
        make_dirty_categories("clean")


def test_recovery_nmi():
    rng = np.random.default_rng(0)
    assert recovery_nmi(np.eye(8)[rng.permutation(8)]) == pytest.approx(1.0)
    assert recovery_nmi(np.ones((8, 5))) == pytest.approx(0.0)
    assert recovery_nmi(-np.eye(8)) == pytest.approx(1.0)  # absolute values
    noisy = np.eye(8) + 0.1 * rng.random((8, 8))
    assert 0.5 < recovery_nmi(noisy) < 1.0
    # invariant to rescaling rows and permuting dimensions
    scaled = noisy * rng.random((8, 1))[:, :] * 10
    assert recovery_nmi(scaled[:, ::-1]) == pytest.approx(recovery_nmi(noisy))
