"""Factorise a column into integer codes and its distinct values as ``str``.

Both encoders work on the distinct values of a column and gather rows afterwards.
For columns of Python objects, :func:`pandas.factorize` hashes and compares every
row's string, which dominates the encoding time of large columns. Rows that hold
the *same object* are equal, and columns read or built by pandas and numpy often
repeat objects, so :func:`factorize_strings` first groups rows by object identity
(a factorisation of machine integers) and only then compares the few distinct
objects by value. The result is the same as a plain factorisation.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["factorize_strings"]


def factorize_strings(values: Any, column: str) -> tuple[np.ndarray, list[str]]:
    """Return ``(codes, strings)`` for one column.

    Parameters
    ----------
    values : 1-D array-like or Series
        The column. Missing values are ``None``, ``NaN``, ``pd.NA`` and ``NaT``.
    column : str
        The column's name, used in error messages.

    Returns
    -------
    codes : ndarray of intp
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
    if isinstance(values, pd.Series) and values.dtype == object:
        values = values.to_numpy()
    elif not isinstance(values, np.ndarray | pd.Series):
        values = np.asarray(values, dtype=object)
    if isinstance(values, np.ndarray) and values.dtype == object:
        codes, uniques = _factorize_objects(values)
    else:
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
    strings = uniques.tolist()  # fast for Arrow-backed strings, unlike iteration
    if all(type(value) is str for value in strings):
        # callers write into the codes; pandas may hand back a read-only view
        return codes if codes.flags.writeable else codes.copy(), strings
    _reject_bytes(strings, column)
    # 1, 1.0 and True hash equal in Python; their str() must stay distinct.
    objects = np.asarray(values, dtype=object)
    missing = pd.isna(objects)
    as_text = np.where(missing, None, objects.astype(str))
    codes, uniques = pd.factorize(as_text, use_na_sentinel=True)
    return codes, list(uniques)


def _factorize_objects(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Factorise objects by identity first, then the distinct objects by value."""
    n = values.shape[0]
    if n == 0:
        return np.empty(0, dtype=np.intp), np.empty(0, dtype=object)
    contiguous = np.ascontiguousarray(values)
    # The object pointers of `contiguous` (kept alive below), as machine integers.
    pointers = np.ctypeslib.as_array(
        (ctypes.c_ssize_t * n).from_address(contiguous.ctypes.data)
    )
    by_identity, distinct_pointers = pd.factorize(pointers)
    first = np.empty(len(distinct_pointers), dtype=np.intp)
    first[by_identity[::-1]] = np.arange(n - 1, -1, -1)
    codes, uniques = pd.factorize(contiguous[first], use_na_sentinel=True)
    return codes[by_identity], uniques


def _reject_bytes(values: list[Any], column: str) -> None:
    for value in values:
        if isinstance(value, bytes | bytearray):
            raise TypeError(
                f"Column {column!r} holds bytes values, e.g. {bytes(value[:20])!r}; "
                "autocat encodes text. Decode them first, e.g. "
                "df[col].str.decode('utf-8')."
            )
