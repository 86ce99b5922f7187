"""A bounded per-process cache of min-hash rows of distinct strings, for partitions."""

from __future__ import annotations

import sys
import threading
from collections.abc import Hashable, Iterator, Sequence
from contextlib import contextmanager
from itertools import repeat

import numpy as np

__all__ = ["EncodingCache", "active_cache", "caching", "clear"]

# Bytes counted for each entry besides its string object, its float32 row and its
# recorded size: the dict slot (hash, key, value; tables are at most 2/3 full and
# grow by doubling) and the int object of the row number.
_ENTRY_OVERHEAD = 128


class _Store:
    """The entries of one key: string -> row of ``block``, oldest rows first."""

    def __init__(self, width: int, dtype: np.dtype) -> None:
        self.rows: dict[str, int] = {}
        self.block = np.empty((0, width), dtype=dtype)
        self.sizes = np.empty(0, dtype=np.int64)  # bytes of each entry's string
        self.n = 0  # rows used
        self.string_bytes = 0  # sum of sizes[:n]

    @property
    def row_bytes(self) -> int:
        return self.block.shape[1] * self.block.itemsize + self.sizes.itemsize

    @property
    def nbytes(self) -> int:
        return len(self.block) * self.row_bytes + self.string_bytes

    def resize(self, capacity: int, first: int = 0) -> None:
        """Keep rows ``first:n`` as rows ``0:n - first`` of a block of ``capacity``."""
        kept = self.n - first
        block = np.empty((capacity, self.block.shape[1]), self.block.dtype)
        block[:kept] = self.block[first : self.n]
        sizes = np.empty(capacity, np.int64)
        sizes[:kept] = self.sizes[first : self.n]
        if first:
            self.rows = {s: r - first for s, r in self.rows.items() if r >= first}
        self.block, self.sizes, self.n = block, sizes, kept
        self.string_bytes = int(sizes[:kept].sum())

    def append(
        self, strings: Sequence[str], values: np.ndarray, sizes: np.ndarray
    ) -> None:
        """Write entries into free rows (the caller made room)."""
        stop = self.n + len(strings)
        self.block[self.n : stop] = values
        self.sizes[self.n : stop] = sizes
        self.rows.update(zip(strings, range(self.n, stop), strict=True))
        self.n = stop
        self.string_bytes += int(sizes.sum())


class EncodingCache:
    """Min-hash rows of distinct strings, exact and bounded in bytes.

    A min-hash row is a pure function of the string and of the encoder's
    ``(n_components, ngram_range, minmax)``, the ``key``: a cached row is the
    row the encoder would compute, bit for bit. Rows are kept in one float32
    block per key, oldest first, strings in a dict from string to row number.

    Parameters
    ----------
    max_bytes : int
        Bound on :attr:`nbytes`: the string objects, the float32 rows (the
        block's allocated capacity) and ``_ENTRY_OVERHEAD + 8`` bytes of dict
        slot, row number and size per string. When adding strings would pass
        it, the cache first drops its other keys and its oldest entries down to
        half the bound; strings beyond the other half are not kept.

    Attributes
    ----------
    nbytes : int
        Bytes held, as counted against ``max_bytes``.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = int(max_bytes)
        self._lock = threading.Lock()
        self._stores: dict[Hashable, _Store] = {}

    @property
    def nbytes(self) -> int:
        return sum(store.nbytes for store in self._stores.values())

    def __len__(self) -> int:
        return sum(len(store.rows) for store in self._stores.values())

    def clear(self) -> None:
        """Drop every entry."""
        with self._lock:
            self._stores.clear()

    def fill(
        self, key: Hashable, strings: Sequence[str], out: np.ndarray
    ) -> np.ndarray:
        """Copy the cached rows of ``strings`` into ``out``; return the others.

        Parameters
        ----------
        key : hashable
            The encoder's parameters that the rows depend on.
        strings : sequence of str
            Distinct strings.
        out : ndarray of float32 of shape (len(strings), width)
            Receives the cached rows; rows of strings not cached are left as
            they are.

        Returns
        -------
        ndarray of int64
            Positions in ``strings`` of the strings not cached, increasing.
        """
        with self._lock:
            store = self._stores.get(key)
            if store is None or not store.rows:
                return np.arange(len(strings), dtype=np.int64)
            found = np.fromiter(
                map(store.rows.get, strings, repeat(-1)), np.int64, len(strings)
            )
            hit = found >= 0
            if hit.any():
                out[hit] = store.block[found[hit]]
        return np.flatnonzero(~hit)

    def add(self, key: Hashable, strings: Sequence[str], values: np.ndarray) -> None:
        """Keep the rows ``values`` of ``strings``, within the bound.

        Parameters
        ----------
        key : hashable
            The encoder's parameters that the rows depend on.
        strings : sequence of str
            Distinct strings absent from the cache (one present is written
            again, as the same row, when two threads hashed it at once).
        values : ndarray of float32 of shape (len(strings), width)
            Their rows.
        """
        if not len(strings) or self.max_bytes <= 0:
            return
        sizes = np.fromiter(map(sys.getsizeof, strings), np.int64, len(strings))
        sizes += _ENTRY_OVERHEAD
        with self._lock:
            store = self._stores.get(key)
            if store is None:
                store = self._stores[key] = _Store(values.shape[1], values.dtype)
            row_bytes = store.row_bytes
            free_rows = len(store.block) - store.n
            grow = max(0, len(strings) - free_rows) * row_bytes
            if self.nbytes + int(sizes.sum()) + grow <= self.max_bytes:
                if grow:  # double where the bound allows, else grow to what is needed
                    spare = (
                        self.max_bytes - self.nbytes - int(sizes.sum())
                    ) // row_bytes
                    needed = store.n + len(strings)
                    store.resize(
                        max(needed, min(2 * len(store.block), spare + len(store.block)))
                    )
                store.append(strings, values, sizes)
                return
            # over the bound: the other keys go, then the oldest entries of this
            # key, down to half the bound; new strings fill the other half
            for other in [k for k in self._stores if k != key]:
                del self._stores[other]
            half = self.max_bytes // 2
            take = int(
                np.searchsorted(np.cumsum(sizes + row_bytes), half, side="right")
            )
            newest_first = store.sizes[: store.n][::-1] + row_bytes
            keep = int(np.searchsorted(np.cumsum(newest_first), half, side="right"))
            store.resize(keep + take, first=store.n - keep)
            store.append(strings[:take], values[:take], sizes[:take])


_cache: EncodingCache | None = None
_depth = 0
_state_lock = threading.Lock()


@contextmanager
def caching(max_bytes: int) -> Iterator[EncodingCache | None]:
    """Let min-hash encodings in this process use the process's cache meanwhile.

    The cache outlives the block, so that the next partition encoded in the
    same worker process finds the strings of the previous ones; it holds at
    most ``max_bytes`` (the last bound given). ``max_bytes=0`` disables it.

    Parameters
    ----------
    max_bytes : int
        Bound of the cache, in bytes.

    Yields
    ------
    EncodingCache or None
        The cache, or None when disabled.
    """
    global _cache, _depth
    if max_bytes <= 0:
        yield None
        return
    with _state_lock:
        if _cache is None:
            _cache = EncodingCache(max_bytes)
        elif _cache.max_bytes != max_bytes:
            with _cache._lock:
                _cache.max_bytes = int(max_bytes)
                if _cache.nbytes > max_bytes:
                    _cache._stores.clear()
        cache = _cache
        _depth += 1
    try:
        yield cache
    finally:
        with _state_lock:
            _depth -= 1


def active_cache() -> EncodingCache | None:
    """Return the process's cache while a :func:`caching` block runs, else None."""
    return _cache if _depth > 0 else None


def clear() -> None:
    """Empty the process's cache (e.g. on each worker: ``client.run(clear)``)."""
    if _cache is not None:
        _cache.clear()
