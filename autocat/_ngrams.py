"""Character n-grams of strings, shared by the min-hash and Gamma-Poisson encoders.

Both encoders see a string through the same lens: lower-cased, runs of white space
collapsed to one space, one space of padding on each side, then every run of ``n``
consecutive characters for ``n`` in ``ngram_range``. The helpers here normalise and
pack many strings into one array of code points that the numba kernels walk without
creating a Python object per n-gram.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from numba import njit

__all__ = ["char_ngrams", "normalize", "pack_strings", "utf8_encode_gram"]


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
