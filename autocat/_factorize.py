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
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np
import pandas as pd
from numba import njit

__all__ = ["factorize_strings", "factorize_values", "take_rows"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _code_dtype(n_rows: int) -> type[np.signedinteger]:
    return np.int32 if n_rows < 2**31 - 1 else np.int64


def factorize_values(values: Any) -> tuple[np.ndarray, Any]:
    """Return ``(codes, uniques)`` of a 1-D column, like :func:`pandas.factorize`.

    Parameters
    ----------
    values : 1-D ndarray or Series
        The column. Missing values (``None``, ``NaN``, ``pd.NA``, ``NaT``) get the
        code ``-1``.

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
        return _factorize_objects(values)
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    return codes.astype(_code_dtype(len(codes))), uniques


def factorize_strings(values: Any, column: str) -> tuple[np.ndarray, list[str]]:
    """Return ``(codes, strings)`` for one column of text.

    Parameters
    ----------
    values : 1-D array-like or Series
        The column. Missing values are ``None``, ``NaN``, ``pd.NA`` and ``NaT``.
    column : str
        The column's name, used in error messages.

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
    codes, uniques = factorize_values(values)
    strings = uniques.tolist()  # fast for Arrow-backed strings, unlike iteration
    if all(type(value) is str for value in strings):
        return codes, strings
    _reject_bytes(strings, column)
    # 1, 1.0 and True hash equal in Python; their str() must stay distinct.
    objects = np.asarray(values, dtype=object)
    missing = pd.isna(objects)
    codes, uniques = factorize_values(np.where(missing, None, objects.astype(str)))
    return codes, uniques.tolist()


def _factorize_objects(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
    first_rows = _identity_codes(pointers, codes)
    by_value, uniques = pd.factorize(contiguous[first_rows], use_na_sentinel=True)
    _remap(codes, by_value.astype(codes.dtype))
    return codes, uniques


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
def _remap(codes, mapping):  # pragma: no cover - compiled
    for i in range(codes.shape[0]):
        codes[i] = mapping[codes[i]]


@njit(cache=True, nogil=True)
def _take_rows(table, codes, out):  # pragma: no cover - compiled
    missing = table.shape[0] - 1
    width = table.shape[1]
    for i in range(codes.shape[0]):
        row = codes[i] if codes[i] >= 0 else missing
        for j in range(width):
            out[i, j] = table[row, j]


def take_rows(table: np.ndarray, codes: np.ndarray, out: np.ndarray) -> None:
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
    _take_rows(table, codes, out)


def _reject_bytes(values: list[Any], column: str) -> None:
    for value in values:
        if isinstance(value, bytes | bytearray):
            raise TypeError(
                f"Column {column!r} holds bytes values, e.g. {bytes(value[:20])!r}; "
                "autocat encodes text. Decode them first, e.g. "
                "df[col].str.decode('utf-8')."
            )
