"""Factorise columns into compact integer codes, and gather rows back from codes.

Both encoders and the table vectorizer work on the distinct values of a column and
gather rows afterwards. For columns of Python objects, :func:`pandas.factorize`
hashes and compares every row's string, which dominates the encoding time of large
columns. Rows that hold the *same object* are equal, and columns read or built by
pandas and numpy often repeat objects, so :func:`factorize_values` first groups rows
by object identity (a compiled hash table over machine pointers) and only then
compares the few distinct objects by value. The result is that of a plain
factorisation, with ``int32`` codes: 4 bytes per row is all the per-row memory that
encoding a column needs besides its output.

Arrow-backed strings (pandas' default ``str`` dtype) are factorised by Arrow's
hash table, without a Python object per row. Every stage
proportional to the rows (the hash tables, the remapping of codes and the row
gather) runs on ``n_jobs`` threads over contiguous chunks of rows: each chunk is
factorised alone, then the chunks' distinct values, in chunk order, are merged
(Arrow strings on the threads too: :func:`_merge_dictionaries`). A value's first
appearance overall is its first appearance in the first chunk that holds it, so
codes and uniques are those of a serial factorisation, bit for bit, whatever
``n_jobs``.
"""

from __future__ import annotations

import ctypes
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pandas as pd
from joblib import effective_n_jobs
from numba import njit

__all__ = ["factorize_strings", "factorize_values", "take_rows"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
# Below this many rows per thread, threads cost more than they save.
_MIN_ROWS_PER_THREAD = 65_536
_ARROW_STRINGS = ("string", "large_string")


def _code_dtype(n_rows: int) -> type[np.signedinteger]:
    return np.int32 if n_rows < 2**31 - 1 else np.int64


def factorize_values(values: Any, n_jobs: int | None = None) -> tuple[np.ndarray, Any]:
    """Return ``(codes, uniques)`` of a 1-D column, like :func:`pandas.factorize`.

    Parameters
    ----------
    values : 1-D ndarray or Series
        The column. Missing values (``None``, ``NaN``, ``pd.NA``, ``NaT``) get the
        code ``-1``.
    n_jobs : int, default=None
        Threads over chunks of rows for object and Arrow string columns (``None``
        means 1, ``-1`` all cores). The result does not depend on it.

    Returns
    -------
    codes : ndarray of int32
        ``uniques[codes[i]]`` is row ``i`` (int64 beyond 2**31 rows).
    uniques : ndarray, Index or Categorical
        The distinct non-missing values, in order of first appearance.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._factorize import factorize_values
    >>> codes, uniques = factorize_values(np.array(["b", None, "a", "b"], dtype=object))
    >>> codes.tolist(), uniques.tolist()
    ([0, -1, 1, 0], ['b', 'a'])
    """
    if isinstance(values, pd.Series) and values.dtype == object:
        values = values.to_numpy()
    if isinstance(values, np.ndarray) and values.dtype == object:
        return _factorize_objects(values, n_jobs)
    if isinstance(values, pd.Series) and _arrow_strings(values) is not None:
        return _factorize_arrow(values, n_jobs)
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    return codes.astype(_code_dtype(len(codes))), uniques


def factorize_strings(
    values: Any, column: str, n_jobs: int | None = None
) -> tuple[np.ndarray, list[str]]:
    """Return ``(codes, strings)`` for one column of text.

    Parameters
    ----------
    values : 1-D array-like or Series
        The column. Missing values are ``None``, ``NaN``, ``pd.NA`` and ``NaT``.
    column : str
        The column's name, used in error messages.
    n_jobs : int, default=None
        Threads over chunks of rows; the result does not depend on it.

    Returns
    -------
    codes : ndarray of int32
        ``strings[codes[i]]`` is row ``i`` as a string; ``-1`` marks a missing value.
    strings : list of str
        The distinct values. Values that are not strings become ``str(value)``, so
        ``1``, ``1.0`` and ``True`` stay distinct (``"1"``, ``"1.0"``, ``"True"``)
        while ``1`` and ``"1"`` merge.

    Raises
    ------
    TypeError
        If the column holds ``bytes``, whose ``str`` is rarely what was meant.

    Examples
    --------
    >>> from autocat._factorize import factorize_strings
    >>> codes, strings = factorize_strings(["b", None, "a", "b", 1.5], "col")
    >>> codes.tolist(), strings
    ([0, -1, 1, 0, 2], ['b', 'a', '1.5'])
    """
    if not isinstance(values, np.ndarray | pd.Series):
        values = np.asarray(values, dtype=object)
    codes, uniques = factorize_values(values, n_jobs)
    strings = uniques.tolist()  # fast for Arrow-backed strings, unlike iteration
    if all(type(value) is str for value in strings):
        return codes, strings
    _reject_bytes(strings, column)
    # 1, 1.0 and True hash equal in Python; their str() must stay distinct.
    objects = np.asarray(values, dtype=object)
    missing = pd.isna(objects)
    codes, uniques = factorize_values(_as_strings(objects, missing), n_jobs)
    return codes, uniques.tolist()


def _as_strings(objects: np.ndarray, missing: np.ndarray) -> np.ndarray:
    """Each row's ``str`` (None where missing), one string object per distinct value.

    Memory is 8 bytes per row plus the distinct strings, unlike
    ``objects.astype(str)``, which allocates rows x the longest value. Values are
    told apart by type too, so ``1``, ``1.0`` and ``True`` keep their own ``str``.
    """
    out = np.empty(len(objects), dtype=object)
    seen: dict[tuple[type, Any], str] = {}
    for i, value in enumerate(objects):
        if missing[i]:
            continue
        try:
            key = (type(value), value)
            text = seen.get(key)
            if text is None:
                text = seen[key] = str(value)
        except TypeError:  # unhashable: a list, a dict, an array
            text = str(value)
        out[i] = text
    return out


def _chunks(n: int, n_jobs: int | None) -> np.ndarray:
    """Bounds of the contiguous row chunks that threads work on."""
    n_threads = min(effective_n_jobs(n_jobs), max(1, n // _MIN_ROWS_PER_THREAD))
    return np.linspace(0, n, n_threads + 1).astype(np.int64)


def _run(function: Any, bounds: np.ndarray) -> list[Any]:
    """``[function(start, stop) for each chunk]``, on one thread per chunk."""
    pairs = list(zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True))
    return _map(lambda pair: function(*pair), pairs)


def _map(function: Any, items: list[Any]) -> list[Any]:
    """``[function(item) for item in items]``, on one thread per item."""
    if len(items) == 1:
        return [function(items[0])]
    with ThreadPoolExecutor(len(items)) as pool:
        return list(pool.map(function, items))


def _merge_chunks(
    codes: np.ndarray,
    bounds: np.ndarray,
    local_firsts: list[np.ndarray],
    merge: Any,
) -> np.ndarray:
    """Turn chunk-local codes into global ones; return the global first rows.

    ``merge(rows)`` factorises the candidate rows ``rows`` (increasing) and
    returns ``(codes of rows, positions in rows of the distinct values)``.
    """
    candidates = np.concatenate(
        [firsts + start for firsts, start in zip(local_firsts, bounds, strict=False)]
    )
    merged, positions = merge(candidates)
    offsets = np.concatenate([[0], np.cumsum([len(f) for f in local_firsts])])

    def remap(start: int, stop: int) -> None:
        chunk = int(np.searchsorted(bounds, start, side="right")) - 1
        _remap(codes[start:stop], merged[offsets[chunk] : offsets[chunk + 1]])

    _run(remap, bounds)
    return candidates[positions]


def _factorize_objects(
    values: np.ndarray, n_jobs: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Factorise objects by identity first, then the distinct objects by value."""
    n = values.shape[0]
    codes = np.empty(n, dtype=_code_dtype(n))
    if n == 0:
        return codes, np.empty(0, dtype=object)
    contiguous = np.ascontiguousarray(values)
    # The object pointers of `contiguous` (alive until we return), as integers.
    pointers = np.ctypeslib.as_array(
        (ctypes.c_ssize_t * n).from_address(contiguous.ctypes.data)
    )
    bounds = _chunks(n, n_jobs)
    local_firsts = _run(
        lambda start, stop: _identity_codes(pointers[start:stop], codes[start:stop]),
        bounds,
    )

    def merge(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # identity across chunks, then the distinct objects by value
        by_identity = np.empty(len(rows), dtype=codes.dtype)
        positions = _identity_codes(pointers[rows], by_identity)
        by_value, _ = pd.factorize(contiguous[rows[positions]], use_na_sentinel=True)
        by_value = by_value.astype(codes.dtype)
        mapped = by_value[by_identity]
        mapped[by_identity < 0] = -1
        # codes rank first appearances: np.unique's first indices are in order
        found, first = np.unique(by_value, return_index=True)
        return mapped, positions[first[found >= 0]]

    first_rows = _merge_chunks(codes, bounds, local_firsts, merge)
    _, uniques = pd.factorize(contiguous[first_rows], use_na_sentinel=True)
    return codes, uniques


def _arrow_strings(values: pd.Series) -> Any:
    """Return the pyarrow array of an Arrow-backed string Series, else None."""
    array = getattr(values.array, "_pa_array", None)
    if array is None or str(array.type) not in _ARROW_STRINGS:
        return None
    return array


def _factorize_arrow(
    values: pd.Series, n_jobs: int | None = None
) -> tuple[np.ndarray, Any]:
    """Factorise Arrow strings with Arrow's own hash table, one per chunk of rows.

    Arrow's ``dictionary_encode`` numbers values in order of first appearance and
    releases the GIL, so chunks run on threads; the chunks' dictionaries are then
    merged by one more ``dictionary_encode``.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    array = _arrow_strings(values).combine_chunks()
    n = len(array)
    codes = np.empty(n, dtype=_code_dtype(n))
    bounds = _chunks(n, n_jobs)

    def encode(start: int, stop: int) -> Any:
        encoded = pc.dictionary_encode(array.slice(start, stop - start))
        indices = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False)
        codes[start:stop] = indices
        return encoded.dictionary

    dictionaries = _run(encode, bounds)
    if len(dictionaries) == 1:
        uniques = dictionaries[0]
    else:
        mapping, uniques = _merge_dictionaries(
            pa.concat_arrays(dictionaries), len(dictionaries), codes.dtype
        )
        offsets = np.concatenate([[0], np.cumsum([len(d) for d in dictionaries])])

        def remap(start: int, stop: int) -> None:
            chunk = int(np.searchsorted(bounds, start, side="right")) - 1
            _remap(codes[start:stop], mapping[offsets[chunk] : offsets[chunk + 1]])

        _run(remap, bounds)
    return codes, pd.Index(pd.array(uniques, dtype=values.dtype))


def _merge_dictionaries(
    strings: Any, n_threads: int, dtype: Any
) -> tuple[np.ndarray, Any]:
    """Factorise the chunks' concatenated dictionaries on ``n_threads`` threads.

    With many distinct values, the chunks' dictionaries together hold nearly as
    many strings as the rows: merged by one hash table, they would make the
    factorisation serial again. Each string goes to a partition by a hash of
    its bytes; each partition is factorised alone (equal strings share one),
    in the order of the concatenation; the distinct values are then ranked by
    their first position in it, as one hash table would number them.

    Returns the code of each of ``strings`` and the distinct strings.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(strings)
    _, offsets, data = strings.buffers()
    offset_type = np.int64 if str(strings.type) == "large_string" else np.int32
    offsets = np.frombuffer(offsets, dtype=offset_type)[strings.offset :]
    data = np.frombuffer(data or b"", dtype=np.uint8)
    partition = np.empty(n, dtype=np.int64)
    bounds = np.linspace(0, n, n_threads + 1).astype(np.int64)
    _run(lambda a, b: _partitions(offsets, data, a, b, n_threads, partition), bounds)

    def factorise(part: int) -> tuple[np.ndarray, np.ndarray, Any, np.ndarray]:
        rows = np.flatnonzero(partition == part)
        encoded = pc.dictionary_encode(strings.take(rows))
        local = encoded.indices.to_numpy().astype(np.int64)
        firsts = rows[_first_positions(local, len(encoded.dictionary))]
        return rows, local, encoded.dictionary, firsts

    parts = _map(factorise, list(range(n_threads)))
    firsts = np.concatenate([p[3] for p in parts])
    order = np.argsort(firsts, kind="stable")
    rank = np.empty(len(order), dtype=dtype)
    rank[order] = np.arange(len(order), dtype=dtype)
    mapping = np.empty(n, dtype=dtype)
    start = 0
    for rows, local, dictionary, _ in parts:
        mapping[rows] = rank[start + local]
        start += len(dictionary)
    uniques = pa.concat_arrays([p[2] for p in parts]).take(order)
    return mapping, uniques


@njit(cache=True, nogil=True, inline="always")
def _slot(key, shift):  # pragma: no cover - compiled
    """Fibonacci hashing of a pointer into a table of 2**(64 - shift) slots."""
    return np.int64((np.uint64(key) * _GOLDEN) >> np.uint64(shift))


@njit(cache=True, nogil=True)
def _identity_codes(pointers, codes):  # pragma: no cover - compiled
    """Write in ``codes`` the rank of first appearance of each row's pointer.

    Returns the row of each distinct pointer's first appearance. Open addressing
    with linear probing; the table doubles when half full.
    """
    capacity = 1024
    shift = 54  # 64 - log2(capacity)
    keys = np.zeros(capacity, dtype=np.int64)  # 0 never is an object's address
    ranks = np.empty(capacity, dtype=np.int64)
    first_rows = np.empty(256, dtype=np.int64)
    n_distinct = 0
    for i in range(pointers.shape[0]):
        key = pointers[i]
        mask = capacity - 1
        slot = _slot(key, shift)
        while keys[slot] != 0 and keys[slot] != key:
            slot = (slot + 1) & mask
        if keys[slot] == key:
            codes[i] = ranks[slot]
            continue
        keys[slot] = key
        ranks[slot] = n_distinct
        codes[i] = n_distinct
        if n_distinct == first_rows.shape[0]:
            grown = np.empty(2 * n_distinct, dtype=np.int64)
            grown[:n_distinct] = first_rows
            first_rows = grown
        first_rows[n_distinct] = i
        n_distinct += 1
        if 2 * n_distinct > capacity:
            capacity *= 2
            shift -= 1
            old_keys, old_ranks = keys, ranks
            keys = np.zeros(capacity, dtype=np.int64)
            ranks = np.empty(capacity, dtype=np.int64)
            for j in range(old_keys.shape[0]):
                if old_keys[j] != 0:
                    slot = _slot(old_keys[j], shift)
                    while keys[slot] != 0:
                        slot = (slot + 1) & (capacity - 1)
                    keys[slot] = old_keys[j]
                    ranks[slot] = old_ranks[j]
    return first_rows[:n_distinct]


@njit(cache=True, nogil=True)
def _partitions(offsets, data, start, stop, n_partitions, out):  # pragma: no cover
    """Write in ``out`` the partition of strings ``start:stop`` (FNV-1a of bytes)."""
    for i in range(start, stop):
        h = np.uint64(0xCBF29CE484222325)
        for j in range(offsets[i], offsets[i + 1]):
            h = (h ^ np.uint64(data[j])) * np.uint64(0x100000001B3)
        h ^= h >> np.uint64(29)
        out[i] = np.int64(h % np.uint64(n_partitions))


@njit(cache=True, nogil=True)
def _first_positions(codes, n_codes):  # pragma: no cover - compiled
    """Return the position of each code's first appearance in ``codes``."""
    first = np.full(n_codes, -1, dtype=np.int64)
    for i in range(codes.shape[0]):
        if first[codes[i]] < 0:
            first[codes[i]] = i
    return first


@njit(cache=True, nogil=True)
def _remap(codes, mapping):  # pragma: no cover - compiled
    for i in range(codes.shape[0]):
        if codes[i] >= 0:
            codes[i] = mapping[codes[i]]


@njit(cache=True, nogil=True)
def _take_rows(table, codes, out):  # pragma: no cover - compiled
    missing = table.shape[0] - 1
    width = table.shape[1]
    for i in range(codes.shape[0]):
        row = codes[i] if codes[i] >= 0 else missing
        for j in range(width):
            out[i, j] = table[row, j]


def take_rows(
    table: np.ndarray, codes: np.ndarray, out: np.ndarray, n_jobs: int | None = None
) -> None:
    """Write ``table[codes[i]]`` into ``out[i]``; code ``-1`` takes the last row.

    The row gather of every encoder: ``out`` may be a column slice of a larger
    matrix, and no per-row index array is allocated.

    Parameters
    ----------
    table : ndarray of shape (n_distinct + 1, width)
        One row per distinct value, then the row of a missing value.
    codes : ndarray of int of shape (n_rows,)
        As returned by :func:`factorize_values`.
    out : ndarray of shape (n_rows, width)
        Written in place.
    n_jobs : int, default=None
        Threads over chunks of rows (``None`` means 1, ``-1`` all cores).

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._factorize import take_rows
    >>> table = np.array([[1.0], [2.0], [0.0]], dtype=np.float32)
    >>> out = np.empty((3, 1), dtype=np.float32)
    >>> take_rows(table, np.array([1, -1, 0]), out)
    >>> out.ravel().tolist()
    [2.0, 0.0, 1.0]
    """
    _run(
        lambda start, stop: _take_rows(table, codes[start:stop], out[start:stop]),
        _chunks(codes.shape[0], n_jobs),
    )


def _reject_bytes(values: list[Any], column: str) -> None:
    for value in values:
        if isinstance(value, bytes | bytearray):
            raise TypeError(
                f"Column {column!r} holds bytes values, e.g. {bytes(value[:20])!r}; "
                "autocat encodes text. Decode them first, e.g. "
                "df[col].str.decode('utf-8')."
            )
