"""Synthetic dirty string columns shared by the benchmark scripts.

``make_dirty_strings`` builds ``n_unique`` distinct values of 2 to 5 words drawn from a
vocabulary of pseudo-words, 5% of them with a typo, and draws ``n_rows`` rows from
them with Zipf-like frequencies; every distinct value appears at least once.
"""

from __future__ import annotations

import numpy as np

_CONSONANTS = [*list("bcdfghjklmnprstvwz"), "ch", "sh", "th", "st", "tr", "pr"]
_VOWELS = [*list("aeiou"), "ea", "io", "ou"]


def make_vocabulary(n_words: int = 2_000, seed: int = 0) -> list[str]:
    """``n_words`` distinct pronounceable pseudo-words of 2 to 4 syllables."""
    rng = np.random.default_rng(seed)
    words: set[str] = set()
    while len(words) < n_words:
        n_syllables = int(rng.integers(2, 5))
        words.add(
            "".join(
                _CONSONANTS[int(rng.integers(len(_CONSONANTS)))]
                + _VOWELS[int(rng.integers(len(_VOWELS)))]
                for _ in range(n_syllables)
            )
        )
    return sorted(words)


def _typo(word: str, rng: np.random.Generator) -> str:
    position = int(rng.integers(len(word)))
    kind = int(rng.integers(4))
    letter = chr(ord("a") + int(rng.integers(26)))
    if kind == 0:  # missing character
        return word[:position] + word[position + 1 :]
    if kind == 1 and position + 1 < len(word):  # swapped characters
        return (
            word[:position] + word[position + 1] + word[position] + word[position + 2 :]
        )
    if kind == 2:  # inserted character
        return word[:position] + letter + word[position:]
    return word[:position] + letter + word[position + 1 :]  # replaced character


def make_dirty_strings(
    n_unique: int = 50_000,
    n_rows: int = 1_000_000,
    n_words: int = 2_000,
    typo_rate: float = 0.05,
    seed: int = 0,
) -> tuple[list[str], np.ndarray]:
    """Return ``(distinct values, rows)``; rows is an object array of Python str."""
    rng = np.random.default_rng(seed)
    vocabulary = make_vocabulary(n_words, seed)
    word_weights = 1.0 / np.arange(1, n_words + 1)
    word_weights /= word_weights.sum()
    distinct: dict[str, None] = {}
    while len(distinct) < n_unique:
        n = int(rng.integers(2, 6))
        words = [vocabulary[i] for i in rng.choice(n_words, size=n, p=word_weights)]
        if rng.random() < typo_rate:
            k = int(rng.integers(n))
            words[k] = _typo(words[k], rng)
        value = " ".join(words)
        if rng.random() < 0.3:
            value = value.title()
        distinct[value] = None
    uniques = list(distinct)
    weights = 1.0 / np.arange(1, n_unique + 1) ** 1.05
    weights /= weights.sum()
    draws = rng.choice(n_unique, size=max(n_rows - n_unique, 0), p=weights)
    indices = np.concatenate([np.arange(min(n_unique, n_rows)), draws])
    rng.shuffle(indices)
    pool = np.asarray(uniques, dtype=object)
    return uniques, pool[indices]


if __name__ == "__main__":
    uniques, rows = make_dirty_strings(n_unique=1_000, n_rows=5_000)
    print(len(uniques), rows.shape, rows[:5].tolist())
