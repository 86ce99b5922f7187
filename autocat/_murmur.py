"""Exact MurmurHash3_x86_32 kernels, bit-identical to :func:`mmh3.hash`.

MurmurHash3 mixes each 4-byte block of the key into the running hash. The mixing of
a block into a *key word* (multiply, rotate, multiply) does not depend on the seed,
so :func:`minhash_strings` computes the key words of an n-gram once and then runs
only the seed-dependent part for each of the ``n_seeds`` seeds, in a loop that the
compiler vectorises. That, and never materialising an n-gram as a Python object,
is where the encoder's speed comes from.

Every step is truncated to ``uint32`` (numba computes integers at 64 bits): the
compiler then keeps the seed loops in 32-bit lanes, twice as many per vector
register as 64-bit ones, which made the kernel 1.3 times as fast. The n-grams of an
ASCII string are read in place from its code points rather than written out as
UTF-8 first: 1.6 times as fast in all, at d = 30 on dirty strings.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from autocat._ngrams import utf8_encode_gram

__all__ = ["minhash_strings", "murmurhash3_32"]

_U32 = np.uint32
_C1 = _U32(0xCC9E2D51)
_C2 = _U32(0x1B873593)
_N = _U32(0xE6546B64)
_F1 = _U32(0x85EBCA6B)
_F2 = _U32(0xC2B2AE35)
_FIVE = _U32(5)
_UINT32_MAX = 4294967295.0


@njit(cache=True, nogil=True, inline="always")
def _rotl(x, r):  # pragma: no cover - compiled
    return _U32(_U32(x << _U32(r)) | _U32(x >> _U32(32 - r)))


@njit(cache=True, nogil=True, inline="always")
def _key_word(k):  # pragma: no cover - compiled
    """Seed-independent mixing of one little-endian 4-byte block (or the tail)."""
    k = _U32(k * _C1)
    k = _rotl(k, 15)
    return _U32(k * _C2)


@njit(cache=True, nogil=True, inline="always")
def _mix_block(h, word):  # pragma: no cover - compiled
    h = _rotl(_U32(h ^ word), 13)
    return _U32(_U32(h * _FIVE) + _N)


@njit(cache=True, nogil=True, inline="always")
def _finalize(h, length):  # pragma: no cover - compiled
    h = _U32(h ^ length)
    h = _U32(h ^ (h >> _U32(16)))
    h = _U32(h * _F1)
    h = _U32(h ^ (h >> _U32(13)))
    h = _U32(h * _F2)
    return _U32(h ^ (h >> _U32(16)))


@njit(cache=True, nogil=True, inline="always")
def _key_words(data, start, size, words):  # pragma: no cover - compiled
    """Fill ``words`` with the key words of ``data[start:start + size]``.

    Returns the tail word. ``data`` holds bytes: a buffer of UTF-8, or code points
    that are all below 0x80 (an ASCII code point is its own UTF-8 byte, so the
    n-grams of an ASCII string are read in place, without a copy).
    """
    n_blocks = size >> 2
    for b in range(n_blocks):
        at = start + 4 * b
        k = (
            _U32(data[at])
            | (_U32(data[at + 1]) << _U32(8))
            | (_U32(data[at + 2]) << _U32(16))
            | (_U32(data[at + 3]) << _U32(24))
        )
        words[b] = _key_word(_U32(k))
    tail = size & 3
    k = _U32(0)
    base = start + 4 * n_blocks
    if tail == 3:
        k = _U32(k ^ (_U32(data[base + 2]) << _U32(16)))
    if tail >= 2:
        k = _U32(k ^ (_U32(data[base + 1]) << _U32(8)))
    if tail >= 1:
        k = _U32(k ^ _U32(data[base]))
        return _key_word(k)
    # no tail: XOR-ing 0 into the hash is a no-op, which lets callers skip the branch
    return _U32(0)


@njit(cache=True, nogil=True)
def murmurhash3_32(data, seed):  # pragma: no cover - compiled
    """MurmurHash3_x86_32 of the bytes ``data`` (uint8 array), unsigned.

    Equal to ``mmh3.hash(bytes(data), seed, signed=False)``.
    """
    size = data.shape[0]
    words = np.empty(size // 4 + 1, dtype=np.uint32)
    tail_word = _key_words(data, 0, size, words)
    h = _U32(seed)
    for b in range(size >> 2):
        h = _mix_block(h, words[b])
    return _finalize(_U32(h ^ tail_word), _U32(size))


@njit(cache=True, nogil=True)
def minhash_strings(
    codepoints,
    offsets,
    first,
    last,
    ngram_min,
    ngram_max,
    n_seeds,
    minmax,
    out,
    to_unit=False,
):  # pragma: no cover - compiled
    """Min-hash (and max-hash) of the packed strings ``first`` to ``last - 1``.

    For string ``i`` and seed ``j``, ``out[i, j]`` is the minimum over the string's
    character n-grams ``g`` of ``murmurhash3_32(utf8(g), seed=j)``; with ``minmax``,
    ``out[i, n_seeds + j]`` is the maximum. A string with no n-gram (shorter than
    ``ngram_min``) gets zeros. Repeated n-grams do not change a minimum,
    so the kernel walks every n-gram occurrence and needs no set.

    Parameters
    ----------
    codepoints, offsets : ndarray
        Normalised strings as returned by :func:`autocat._ngrams.pack_strings`.
    first, last : int
        The range of strings to hash (threads share one ``out``).
    ngram_min, ngram_max : int
        The n-gram lengths, both included.
    n_seeds : int
        Seeds ``0 .. n_seeds - 1``.
    minmax : bool
        Also write the maxima.
    out : ndarray of shape (n_strings, n_seeds * (1 + minmax))
        Written in place: uint32 hashes, or with ``to_unit`` float32 hashes divided
        by ``2**32 - 1`` (in float64, then rounded, as numpy would).
    to_unit : bool, default=False
        Scale the hashes to [0, 1].
    """
    buffer = np.empty(4 * ngram_max, dtype=np.uint8)
    words = np.empty(ngram_max + 1, dtype=np.uint32)
    seeds = np.arange(n_seeds).astype(np.uint32)
    low = np.empty(n_seeds, dtype=np.uint32)
    high = np.empty(n_seeds, dtype=np.uint32)
    for i in range(first, last):
        start = offsets[i]
        stop = offsets[i + 1]
        low[:] = _U32(0xFFFFFFFF)
        high[:] = 0
        if stop - start < ngram_min:
            low[:] = 0  # no n-gram at all: zeros, like the empty string
        ascii_only = True
        for position in range(start, stop):
            if codepoints[position] >= 0x80:
                ascii_only = False
                break
        for n in range(ngram_min, ngram_max + 1):
            for position in range(start, stop - n + 1):
                if ascii_only:
                    size = n
                    tail_word = _key_words(codepoints, position, n, words)
                else:
                    size = utf8_encode_gram(codepoints, position, n, buffer)
                    tail_word = _key_words(buffer, 0, size, words)
                n_blocks = size >> 2
                length = _U32(size)
                # Straight-line seed loops for the common (ASCII) cases so that they
                # vectorise; the general loop handles long multi-byte n-grams.
                if n_blocks == 0:
                    for j in range(n_seeds):
                        h = _finalize(_U32(seeds[j] ^ tail_word), length)
                        low[j] = min(low[j], h)
                        high[j] = max(high[j], h)
                elif n_blocks == 1:
                    w0 = words[0]
                    for j in range(n_seeds):
                        h = _U32(_mix_block(seeds[j], w0) ^ tail_word)
                        h = _finalize(h, length)
                        low[j] = min(low[j], h)
                        high[j] = max(high[j], h)
                else:
                    for j in range(n_seeds):
                        h = seeds[j]
                        for b in range(n_blocks):
                            h = _mix_block(h, words[b])
                        h = _finalize(_U32(h ^ tail_word), length)
                        low[j] = min(low[j], h)
                        high[j] = max(high[j], h)
        for j in range(n_seeds):
            if to_unit:
                out[i, j] = np.float64(low[j]) / _UINT32_MAX
            else:
                out[i, j] = low[j]
        if minmax:
            for j in range(n_seeds):
                if to_unit:
                    out[i, n_seeds + j] = np.float64(high[j]) / _UINT32_MAX
                else:
                    out[i, n_seeds + j] = high[j]
