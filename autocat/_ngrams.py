"""Character n-grams of strings, shared by the min-hash and Gamma-Poisson encoders.

Both encoders see a string through the same lens: lower-cased, runs of white space
collapsed to one space, one space of padding on each side, then every run of ``n``
consecutive characters for ``n`` in ``ngram_range``. The helpers here normalise and
pack many strings into one array of code points that the numba kernels walk without
creating a Python object per n-gram.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from numbers import Integral
from typing import Any

import numpy as np
from numba import njit

__all__ = [
    "NgramVocabulary",
    "char_ngrams",
    "count_ngrams",
    "hash_keys",
    "normalize",
    "pack_normalized",
    "pack_strings",
    "utf8_encode_gram",
]


def normalize(string: str) -> str:
    """Return ``string`` as the encoders see it before cutting it into n-grams.

    Lower-case it, collapse runs of white space into one space and pad one space
    on each side.

    Parameters
    ----------
    string : str
        The value to normalise.

    Returns
    -------
    str
        The normalised, padded string.

    Examples
    --------
    >>> from autocat._ngrams import normalize
    >>> normalize("  Police   OFFICER ")
    ' police officer '
    """
    return " " + " ".join(string.lower().split()) + " "


def check_ngram_range(ngram_range: Any, estimator_name: str) -> None:
    """Raise a ``ValueError`` unless ``ngram_range`` is ``(min_n, max_n)``, valid.

    Parameters
    ----------
    ngram_range : object
        The value of an encoder's ``ngram_range`` parameter.
    estimator_name : str
        Named in the error message.
    """
    if (
        len(ngram_range) != 2
        or not all(isinstance(n, Integral) for n in ngram_range)
        or not 1 <= ngram_range[0] <= ngram_range[1]
    ):
        raise ValueError(
            f"The 'ngram_range' parameter of {estimator_name} must be a tuple "
            "(min_n, max_n) of integers with 1 <= min_n <= max_n. Got "
            f"{ngram_range!r} instead."
        )


def char_ngrams(string: str, ngram_range: tuple[int, int] = (2, 4)) -> set[str]:
    """Return the set of character n-grams of ``string`` (reference implementation).

    This is the definition that the compiled kernels implement; it is slow and
    meant for tests, documentation and interpretation, not for encoding columns.

    Parameters
    ----------
    string : str
        The value to cut into n-grams. It is normalised first (see :func:`normalize`).
    ngram_range : tuple of int, default=(2, 4)
        Smallest and largest ``n``, both included.

    Returns
    -------
    set of str
        The distinct n-grams.

    Examples
    --------
    >>> from autocat._ngrams import char_ngrams
    >>> sorted(char_ngrams("Ab", (2, 3)))
    [' a', ' ab', 'ab', 'ab ', 'b ']
    """
    padded = normalize(string)
    low, high = ngram_range
    return {
        padded[i : i + n]
        for n in range(low, high + 1)
        for i in range(len(padded) - n + 1)
    }


def pack_strings(strings: Iterable[str]) -> tuple[np.ndarray, np.ndarray]:
    """Normalise strings and pack their code points into one flat array.

    Parameters
    ----------
    strings : iterable of str
        The values to pack.

    Returns
    -------
    codepoints : ndarray of uint32
        The code points of every normalised string, one after the other. Lone
        surrogates, which Python strings may hold, are kept as their code point.
    offsets : ndarray of int64 of shape (n_strings + 1,)
        String ``i`` occupies ``codepoints[offsets[i]:offsets[i + 1]]``.

    Examples
    --------
    >>> from autocat._ngrams import pack_strings
    >>> codepoints, offsets = pack_strings(["Hi", "é"])
    >>> offsets.tolist()
    [0, 4, 7]
    >>> "".join(map(chr, codepoints))
    ' hi  é '
    """
    # normalize() inlined: this runs once per distinct value of every column
    normalized: Sequence[str] = [
        " " + " ".join(s.lower().split()) + " " for s in strings
    ]
    offsets = np.zeros(len(normalized) + 1, dtype=np.int64)
    np.cumsum([len(s) for s in normalized], out=offsets[1:])
    # "surrogatepass" keeps lone surrogates (legal in Python strings) instead of failing
    raw = "".join(normalized).encode("utf-32-le", "surrogatepass")
    codepoints = np.frombuffer(raw, dtype=np.uint32)
    return codepoints, offsets


@njit(cache=True, nogil=True, inline="always")
def _is_space(cp):  # pragma: no cover - compiled
    """``chr(cp).isspace()``, the white space of ``str.split()``."""
    if cp <= 0x20:
        return cp == 0x20 or 0x09 <= cp <= 0x0D or 0x1C <= cp <= 0x1F
    if cp < 0x85:
        return False
    return (
        cp == 0x85 or cp == 0xA0 or cp == 0x1680 or 0x2000 <= cp <= 0x200A
        or cp == 0x2028 or cp == 0x2029 or cp == 0x202F or cp == 0x205F
        or cp == 0x3000
    )  # fmt: skip


@njit(cache=True, nogil=True)
def _collapse_space(raw, n_strings):  # pragma: no cover - compiled
    """Pad and collapse white space of NUL-separated strings (see normalize)."""
    out = np.empty(raw.shape[0] + 2 * n_strings + 2, dtype=np.uint32)
    offsets = np.zeros(n_strings + 1, dtype=np.int64)
    write = 0
    k = 0
    for i in range(n_strings):
        out[write] = 32
        write += 1
        pending = False  # a space to write before the next non-space character
        while k < raw.shape[0] and raw[k] != 0:
            cp = raw[k]
            k += 1
            if _is_space(cp):
                pending = write > offsets[i] + 1
            else:
                if pending:
                    out[write] = 32
                    write += 1
                    pending = False
                out[write] = cp
                write += 1
        k += 1  # the separator
        out[write] = 32
        write += 1
        offsets[i + 1] = write
    return out[:write], offsets


def pack_normalized(strings: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    r"""Return exactly :func:`pack_strings`' output, faster on many strings.

    Lower-cases all strings in one call on their NUL-joined text (a NUL is
    neither cased nor case-ignorable, so each string lower-cases as it would
    alone, final sigma included), then collapses white space and pads in one
    compiled pass. Falls back to :func:`pack_strings` when a string holds a NUL.

    Parameters
    ----------
    strings : sequence of str
        The values to pack.

    Returns
    -------
    codepoints, offsets : ndarray
        As :func:`pack_strings`.

    Examples
    --------
    >>> from autocat._ngrams import pack_normalized, pack_strings
    >>> strings = ["  Police\tOFFICER ", "", "ΟΔΟΣ"]
    >>> [a.tolist() for a in pack_normalized(strings)] == [
    ...     a.tolist() for a in pack_strings(strings)]
    True
    """
    text = "\x00".join(strings)
    if text.count("\x00") != max(len(strings) - 1, 0):
        return pack_strings(strings)
    raw = np.frombuffer(text.lower().encode("utf-32-le", "surrogatepass"), np.uint32)
    return _collapse_space(raw, len(strings))


@njit(cache=True, nogil=True, inline="always")
def utf8_encode_gram(codepoints, start, n, buffer):  # pragma: no cover - compiled
    """Write the UTF-8 bytes of ``codepoints[start:start + n]`` into ``buffer``.

    Returns the number of bytes written; ``buffer`` must hold ``4 * n`` bytes.
    Surrogate code points are written as three bytes, like Python's
    ``"surrogatepass"`` error handler.
    """
    size = 0
    for position in range(start, start + n):
        cp = codepoints[position]
        if cp < 0x80:
            buffer[size] = cp
            size += 1
        elif cp < 0x800:
            buffer[size] = 0xC0 | (cp >> 6)
            buffer[size + 1] = 0x80 | (cp & 0x3F)
            size += 2
        elif cp < 0x10000:
            buffer[size] = 0xE0 | (cp >> 12)
            buffer[size + 1] = 0x80 | ((cp >> 6) & 0x3F)
            buffer[size + 2] = 0x80 | (cp & 0x3F)
            size += 3
        else:
            buffer[size] = 0xF0 | (cp >> 18)
            buffer[size + 1] = 0x80 | ((cp >> 12) & 0x3F)
            buffer[size + 2] = 0x80 | ((cp >> 6) & 0x3F)
            buffer[size + 3] = 0x80 | (cp & 0x3F)
            size += 4
    return size


_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


@njit(cache=True, nogil=True, inline="always")
def _gram_key(codepoints, start, n):  # pragma: no cover - compiled
    """64-bit key of ``codepoints[start:start + n]``: FNV-1a, then a mixer.

    The mixer (the splitmix64 finaliser) spreads every input bit over the low bits
    too, so that ``key % n_buckets`` is a good hashing-trick bucket.
    """
    h = _FNV_OFFSET
    for position in range(start, start + n):
        h = (h ^ np.uint64(codepoints[position])) * _FNV_PRIME
    return _mix(h, n)


@njit(cache=True, nogil=True, inline="always")
def _mix(h, n):  # pragma: no cover - compiled
    """Finish the key of an n-gram whose FNV-1a hash so far is ``h``."""
    h = (h ^ np.uint64(n)) * _FNV_PRIME
    h ^= h >> np.uint64(30)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(27)
    h *= np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    return h


@njit(cache=True, nogil=True)
def _count_packed(codepoints, offsets, ngram_min, ngram_max):  # pragma: no cover
    n_strings = offsets.shape[0] - 1
    bounds = np.zeros(n_strings + 1, dtype=np.int64)
    longest = 0
    for i in range(n_strings):
        length = offsets[i + 1] - offsets[i]
        size = 0
        for n in range(ngram_min, ngram_max + 1):
            size += max(0, length - n + 1)
        bounds[i + 1] = bounds[i] + size
        longest = max(longest, size)
    keys = np.empty(bounds[n_strings], dtype=np.uint64)
    counts = np.empty(bounds[n_strings], dtype=np.float64)
    indptr = np.zeros(n_strings + 1, dtype=np.int64)
    buffer = np.empty(longest, dtype=np.uint64)
    write = 0
    for i in range(n_strings):
        start = offsets[i]
        stop = offsets[i + 1]
        size = 0
        for n in range(ngram_min, ngram_max + 1):
            for position in range(start, stop - n + 1):
                buffer[size] = _gram_key(codepoints, position, n)
                size += 1
        grams = np.sort(buffer[:size])
        # run-length encode the sorted keys; `write` never passes bounds[i + 1]
        for k in range(size):
            if k > 0 and grams[k] == grams[k - 1]:
                counts[write - 1] += 1.0
            else:
                keys[write] = grams[k]
                counts[write] = 1.0
                write += 1
        indptr[i + 1] = write
    return indptr, keys[:write], counts[:write]


def count_ngrams(
    strings: Iterable[str], ngram_range: tuple[int, int] = (2, 4)
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Count the character n-grams of each string, identified by 64-bit keys.

    The n-grams are those of :func:`char_ngrams`; each distinct n-gram is
    identified by a 64-bit hash of its code points rather than by a vocabulary,
    so that counts of separate chunks of data can be merged without a shared
    dictionary (two distinct n-grams share a key with probability about
    ``2**-64`` per pair). One compiled pass over :func:`pack_strings`' packed
    code points; no Python object per n-gram.

    Parameters
    ----------
    strings : iterable of str
        The values to count.
    ngram_range : tuple of int, default=(2, 4)
        Smallest and largest ``n``, both included.

    Returns
    -------
    indptr : ndarray of int64 of shape (n_strings + 1,)
        String ``i`` has the n-grams ``keys[indptr[i]:indptr[i + 1]]``.
    keys : ndarray of uint64
        The distinct n-gram keys of each string, in increasing order.
    counts : ndarray of float64
        How many times each n-gram occurs in its string.

    Examples
    --------
    >>> from autocat._ngrams import count_ngrams
    >>> indptr, keys, counts = count_ngrams(["aaa", "ab"], (2, 2))
    >>> indptr.tolist()
    [0, 3, 6]
    >>> sorted(counts[:3].tolist())  # ' a', 'aa' (twice), 'a '
    [1.0, 1.0, 2.0]
    """
    codepoints, offsets = pack_strings(strings)
    low, high = ngram_range
    return _count_packed(codepoints, offsets, low, high)


def hash_keys(keys: np.ndarray, seed: int) -> np.ndarray:
    """Re-hash 64-bit n-gram keys with a seed, for hashing-trick projections.

    Parameters
    ----------
    keys : ndarray of uint64
        Keys from :func:`count_ngrams`.
    seed : int
        Different seeds give independent-looking hashes.

    Returns
    -------
    ndarray of uint64
        The mixed keys.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._ngrams import hash_keys
    >>> keys = np.array([1, 2], dtype=np.uint64)
    >>> bool((hash_keys(keys, 0) != hash_keys(keys, 1)).all())
    True
    """
    with np.errstate(over="ignore"):
        h = keys ^ np.uint64((seed * 0x9E3779B97F4A7C15) % 2**64)
        h = h ^ (h >> np.uint64(30))
        h = h * np.uint64(0xBF58476D1CE4E5B9)
        h = h ^ (h >> np.uint64(27))
        h = h * np.uint64(0x94D049BB133111EB)
        return h ^ (h >> np.uint64(31))


@njit(cache=True, nogil=True, inline="always")
def _find_slot(table_keys, table_ids, key):  # pragma: no cover - compiled
    """Return the slot of ``key`` in the vocabulary table, or its free slot.

    Open addressing with linear probing; the table size is a power of two.
    """
    size = table_keys.shape[0]
    probe = np.int64(key & np.uint64(size - 1))
    while table_ids[probe] >= 0 and table_keys[probe] != key:
        probe = (probe + 1) & (size - 1)
    return probe


@njit(cache=True, nogil=True)
def _rehash(table_keys, table_ids, size):  # pragma: no cover - compiled
    new_keys = np.zeros(size, dtype=np.uint64)
    new_ids = np.full(size, -1, dtype=np.int64)
    mask = np.uint64(size - 1)
    for slot in range(table_keys.shape[0]):
        column = table_ids[slot]
        if column >= 0:
            probe = np.int64(table_keys[slot] & mask)
            while new_ids[probe] >= 0:
                probe = (probe + 1) & (size - 1)
            new_keys[probe] = table_keys[slot]
            new_ids[probe] = column
    return new_keys, new_ids


@njit(cache=True, nogil=True)
def _insert_keys(
    codepoints, offsets, first, ngram_min, ngram_max,
    table_keys, table_ids, column_keys, n_columns, limit,
):  # fmt: skip  # pragma: no cover - compiled
    """Add the n-grams of packed strings ``first, first + 1, ...`` to a table.

    The open-addressing table (``table_keys``, ``table_ids``; size a power of
    two, ``-1`` marks an empty slot) maps an n-gram key to its column; new keys
    get the next columns, in order of first appearance. The tables are never
    resized here (which keeps the loop fast): the kernel stops after the string
    that takes the vocabulary past ``limit`` and returns
    ``(next string, n_columns)``; the caller grows the tables and resumes.
    """
    for i in range(first, offsets.shape[0] - 1):
        if n_columns > limit:
            return i, n_columns
        start = offsets[i]
        stop = offsets[i + 1]
        # the n-grams starting at `position`, shortest first, share a hash prefix
        for position in range(start, stop - ngram_min + 1):
            h = _FNV_OFFSET
            for n in range(1, min(ngram_max, stop - position) + 1):
                h = (h ^ np.uint64(codepoints[position + n - 1])) * _FNV_PRIME
                if n < ngram_min:
                    continue
                key = _mix(h, n)
                probe = _find_slot(table_keys, table_ids, key)
                if table_ids[probe] < 0:
                    table_keys[probe] = key
                    table_ids[probe] = n_columns
                    column_keys[n_columns] = key
                    n_columns += 1
    return offsets.shape[0] - 1, n_columns


@njit(cache=True, nogil=True)
def _count_known(
    codepoints, offsets, ngram_min, ngram_max, table_keys, table_ids, n_columns
):  # pragma: no cover - compiled
    """Count the known n-grams of each packed string, as CSR over columns.

    Unknown n-grams are skipped. ``marker[column] == i`` tells whether string
    ``i`` already has the column, so no sorting is needed.
    """
    n_strings = offsets.shape[0] - 1
    bound = 0
    for i in range(n_strings):
        length = offsets[i + 1] - offsets[i]
        for n in range(ngram_min, ngram_max + 1):
            bound += max(0, length - n + 1)
    cols = np.empty(bound, dtype=np.int32)
    counts = np.empty(bound, dtype=np.float32)
    indptr = np.zeros(n_strings + 1, dtype=np.int64)
    marker = np.full(n_columns, -1, dtype=np.int64)
    where = np.empty(n_columns, dtype=np.int64)
    write = 0
    for i in range(n_strings):
        start = offsets[i]
        stop = offsets[i + 1]
        for position in range(start, stop - ngram_min + 1):
            h = _FNV_OFFSET
            for n in range(1, min(ngram_max, stop - position) + 1):
                h = (h ^ np.uint64(codepoints[position + n - 1])) * _FNV_PRIME
                if n < ngram_min:
                    continue
                key = _mix(h, n)
                probe = _find_slot(table_keys, table_ids, key)
                column = table_ids[probe]
                if column < 0:
                    continue  # unknown n-gram
                if marker[column] == i:
                    counts[where[column]] += np.float32(1.0)
                else:
                    marker[column] = i
                    where[column] = write
                    cols[write] = column
                    counts[write] = np.float32(1.0)
                    write += 1
        indptr[i + 1] = write
    return indptr, cols[:write], counts[:write]


class NgramVocabulary:
    """A growing vocabulary of n-grams, and n-gram counts over its columns.

    Columns are numbered in order of first appearance; n-grams are identified by
    the 64-bit keys of :func:`count_ngrams`, so a vocabulary can keep growing with
    new chunks of data. Memory: about 40 bytes per n-gram.

    Examples
    --------
    >>> from autocat._ngrams import NgramVocabulary
    >>> vocabulary = NgramVocabulary()
    >>> indptr, cols, counts = vocabulary.count(["aaa", "ab"], (2, 2), grow=True)
    >>> indptr.tolist(), cols.tolist(), counts.tolist()
    ([0, 3, 6], [0, 1, 2, 0, 3, 4], [1.0, 2.0, 1.0, 1.0, 1.0, 1.0])
    >>> vocabulary.count(["ba"], (2, 2), grow=False)[1].tolist()  # only 'a ' known
    [2]
    >>> len(vocabulary)
    5
    """

    def __init__(self) -> None:
        self.table_keys = np.zeros(1024, dtype=np.uint64)
        self.table_ids = np.full(1024, -1, dtype=np.int64)
        self.column_keys = np.zeros(0, dtype=np.uint64)
        self.n_columns = 0

    def __len__(self) -> int:
        return self.n_columns

    def _insert(self, codepoints, offsets, low, high) -> None:
        lengths = np.diff(offsets)
        # new columns one string can add, at most
        per_string = int(lengths.max(initial=0)) * (high - low + 1)
        # compiled for writeable arrays; unpickled ones may be read-only
        if not self.table_keys.flags.writeable:
            self.table_keys = self.table_keys.copy()
            self.table_ids = self.table_ids.copy()
        first = 0
        while first < len(lengths):
            size = self.table_keys.shape[0]
            limit = size // 2 - per_string
            if limit < self.n_columns:  # too full to hold one more string: grow
                self.table_keys, self.table_ids = _rehash(
                    self.table_keys, self.table_ids, 2 * size
                )
                continue
            if self.column_keys.shape[0] < size // 2:
                grown = np.zeros(size // 2, dtype=np.uint64)
                grown[: self.n_columns] = self.column_keys[: self.n_columns]
                self.column_keys = grown
            first, self.n_columns = _insert_keys(
                codepoints, offsets, first, low, high,
                self.table_keys, self.table_ids, self.column_keys,
                self.n_columns, limit,
            )  # fmt: skip

    def keys(self) -> np.ndarray:
        """Return the 64-bit key of each column."""
        return self.column_keys[: self.n_columns]

    def count(
        self, strings: Iterable[str], ngram_range: tuple[int, int], *, grow: bool
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Count the n-grams of ``strings`` as columns of this vocabulary.

        Parameters
        ----------
        strings : iterable of str
            The values to count (see :func:`char_ngrams`).
        ngram_range : tuple of int
            Smallest and largest ``n``, both included.
        grow : bool
            Add unknown n-grams as new columns; otherwise skip them.

        Returns
        -------
        indptr, cols, counts : ndarray of int64, int32, float32
            The counts in CSR form: string ``i`` has ``counts[k]`` occurrences of
            column ``cols[k]`` for ``k`` in ``indptr[i]:indptr[i + 1]``.
        """
        codepoints, offsets = pack_normalized(list(strings))
        low, high = ngram_range
        if grow:
            self._insert(codepoints, offsets, low, high)
        return _count_known(
            codepoints, offsets, low, high,
            self.table_keys, self.table_ids, self.n_columns,
        )  # fmt: skip
