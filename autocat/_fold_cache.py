"""Encoded fold matrices, which the search's trials with the same vectorizer share."""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import numpy as np

from autocat._search_space import SEARCH_SPACE

if TYPE_CHECKING:
    from collections.abc import Callable

    from autocat._recipe import Recipe

__all__ = ["MAX_COMPONENTS", "EncodingCache", "nested_minhash_columns"]


class EncodingCache:
    """Encoded fold matrices, shared by trials with the same vectorizer.

    Encoding is deterministic given the vectorizer's parameters and the fold,
    so trials that differ only in XGBoost's parameters reuse it. One cache serves
    one table and one set of folds. Thread-safe:
    two trials asking for the same entry at once compute it once. Least recently
    used entries are dropped beyond ``max_bytes``.

    Parameters
    ----------
    max_bytes : int, default=2**30
        Memory budget of the cached matrices.

    Attributes
    ----------
    hits, misses : int
        Lookups served from the cache and encodings computed.
    encode_seconds : float
        Time spent encoding (misses only).
    distinct : dict
        Per fold, the number of distinct values of each string column of its
        training part, which decides what a cardinality threshold changes.
    unique_text : dict
        Per fold, the columns of near-unique text of its training part (see
        ``TableVectorizer(drop_unique_text=...)``) and their kinds, which
        decide whether dropping them changes anything.
    identifier_codes : dict
        Per fold, the columns of identifier codes of its training part (see
        ``TableVectorizer(drop_identifiers=...)``) and their distinct values,
        which decide whether keeping them changes anything.
    """

    def __init__(self, max_bytes: int = 2**30) -> None:
        self.max_bytes = max_bytes
        self.hits = 0
        self.misses = 0
        self.encode_seconds = 0.0
        self._entries: OrderedDict[Any, tuple[Any, Any, float]] = OrderedDict()
        # Per fold: distinct values of each string column of its training part.
        self.distinct: dict[int, dict[str, int]] = {}
        self.unique_text: dict[int, tuple[tuple[str, str], ...]] = {}
        self.identifier_codes: dict[int, tuple[tuple[str, int], ...]] = {}
        self._locks: dict[Any, threading.Lock] = {}
        self._lock = threading.Lock()

    @property
    def hit_rate(self) -> float:
        """Fraction of lookups served from the cache (``nan`` before any)."""
        total = self.hits + self.misses
        return self.hits / total if total else math.nan

    def get(
        self, key: Any, compute: Callable[[], tuple[Any, Any]]
    ) -> tuple[Any, Any, float]:
        """Return ``(X_train, X_valid, seconds to encode)``, computing on a miss."""
        with self._lock:
            key_lock = self._locks.setdefault(key, threading.Lock())
        with key_lock:
            with self._lock:
                if key in self._entries:
                    self.hits += 1
                    self._entries.move_to_end(key)
                    return self._entries[key]
            start = time.perf_counter()
            X_train, X_valid = compute()
            seconds = time.perf_counter() - start
            entry = (X_train, X_valid, seconds)
            with self._lock:
                self.misses += 1
                self.encode_seconds += seconds
                self._entries[key] = entry
                self._evict()
            return entry

    def put(self, key: Any, entry: tuple[Any, Any, float]) -> tuple[Any, Any, float]:
        """Store an encoding computed outside :meth:`get` (counted as a miss)."""
        with self._lock:
            self.misses += 1
            self.encode_seconds += entry[2]
            self._entries.setdefault(key, entry)
            self._evict()
        return entry

    def _evict(self) -> None:
        sizes = {k: _nbytes(v[0]) + _nbytes(v[1]) for k, v in self._entries.items()}
        while len(self._entries) > 1 and sum(sizes.values()) > self.max_bytes:
            oldest, _ = self._entries.popitem(last=False)
            sizes.pop(oldest)


def _nbytes(X: Any) -> int:
    if isinstance(X, tuple):
        return sum(_nbytes(item) for item in X)
    if hasattr(X, "data") and hasattr(X, "indices"):  # scipy sparse
        return int(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes)
    return int(getattr(X, "nbytes", 0))


# The largest encoder dimension of the search space: min-hash trials encode at it.
MAX_COMPONENTS = max(
    max(getattr(spec.distribution, "choices", ()) or (0,))
    for spec in SEARCH_SPACE
    if spec.name == "n_components"
)


def nested_minhash_columns(vectorizer: Any, recipe: Recipe) -> Any:
    """Return ``d -> columns`` selecting a smaller min-hash from a wide encoding.

    Only for min-hash recipes (``None`` otherwise). The blocks cut are those of
    the columns encoded by a :class:`MinHashEncoder` of the wide dimension (high
    cardinality, and free text when it is min-hashed too): coordinate ``j`` of a
    min-hash is the same for every dimension above ``j``.
    """
    if recipe.encoder != "minhash":
        return None
    from autocat._minhash import MinHashEncoder

    blocks = []
    position = 0
    for state in vectorizer._columns:
        width = len(state.outputs)
        # codes read as numbers too: one more output after the min-hash
        extra = int(state.decision.as_number)
        encoder = state.transformer
        minhash = (
            isinstance(encoder, MinHashEncoder)
            and not encoder.minmax
            and encoder.n_components == width - extra == MAX_COMPONENTS
        )
        blocks.append((position, width, extra if minhash else None))
        position += width

    def columns(d: int) -> np.ndarray:
        keep = []
        for start, width, extra in blocks:
            if extra is None:  # not a nested min-hash: every output
                keep.append(np.arange(start, start + width))
                continue
            keep.append(np.arange(start, start + min(d, width - extra)))
            keep.append(np.arange(start + width - extra, start + width))
        return np.concatenate(keep) if keep else np.array([], dtype=np.int64)

    return columns
