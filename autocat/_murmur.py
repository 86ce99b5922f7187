"""Exact MurmurHash3_x86_32 kernels, bit-identical to :func:`mmh3.hash`.

MurmurHash3 mixes each 4-byte block of the key into the running hash. The mixing of
a block into a *key word* (multiply, rotate, multiply) does not depend on the seed,
so :func:`minhash_strings` computes the key words of an n-gram once and then runs
only the seed-dependent part for each of the ``n_seeds`` seeds, in a loop that the
compiler vectorises. That, and never materialising an n-gram as a Python object,
is where the encoder's speed comes from.

All arithmetic is done in ``uint64`` and masked to 32 bits, which keeps numba's
integer typing unambiguous.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from autocat._ngrams import utf8_encode_gram

__all__ = ["minhash_strings", "murmurhash3_32"]

_MASK = np.uint64(0xFFFFFFFF)
_C1 = np.uint64(0xCC9E2D51)
_C2 = np.uint64(0x1B873593)
_N = np.uint64(0xE6546B64)
_F1 = np.uint64(0x85EBCA6B)
_F2 = np.uint64(0xC2B2AE35)
_UINT32_MAX = 4294967295.0


@njit(cache=True, nogil=True, inline="always")
def _rotl(x, r):  # pragma: no cover - compiled
    return ((x << np.uint64(r)) | (x >> np.uint64(32 - r))) & _MASK


@njit(cache=True, nogil=True, inline="always")
def _key_word(k):  # pragma: no cover - compiled
    """Seed-independent mixing of one little-endian 4-byte block (or the tail)."""
    k = (k * _C1) & _MASK
    k = _rotl(k, 15)
    return (k * _C2) & _MASK


@njit(cache=True, nogil=True, inline="always")
def _mix_block(h, word):  # pragma: no cover - compiled
    h ^= word
    h = _rotl(h, 13)
    return (h * np.uint64(5) + _N) & _MASK


@njit(cache=True, nogil=True, inline="always")
def _finalize(h, length):  # pragma: no cover - compiled
    h ^= np.uint64(length)
    h ^= h >> np.uint64(16)
    h = (h * _F1) & _MASK
    h ^= h >> np.uint64(13)
    h = (h * _F2) & _MASK
    h ^= h >> np.uint64(16)
    return h


@njit(cache=True, nogil=True, inline="always")
def _key_words(data, size, words):  # pragma: no cover - compiled
    """Fill ``words`` with the key words of ``data[:size]``; return the tail word."""
    n_blocks = size >> 2
    for b in range(n_blocks):
        k = (
            np.uint64(data[4 * b])
            | (np.uint64(data[4 * b + 1]) << np.uint64(8))
            | (np.uint64(data[4 * b + 2]) << np.uint64(16))
            | (np.uint64(data[4 * b + 3]) << np.uint64(24))
        )
        words[b] = _key_word(k)
    tail = size & 3
    k = np.uint64(0)
    base = 4 * n_blocks
    if tail == 3:
        k ^= np.uint64(data[base + 2]) << np.uint64(16)
    if tail >= 2:
        k ^= np.uint64(data[base + 1]) << np.uint64(8)
    if tail >= 1:
        k ^= np.uint64(data[base])
        return _key_word(k)
    # no tail: XOR-ing 0 into the hash is a no-op, which lets callers skip the branch
    return np.uint64(0)


@njit(cache=True, nogil=True)
def murmurhash3_32(data, seed):  # pragma: no cover - compiled
    """MurmurHash3_x86_32 of the bytes ``data`` (uint8 array), unsigned.

    Equal to ``mmh3.hash(bytes(data), seed, signed=False)``.
    """
    size = data.shape[0]
    words = np.empty(size // 4 + 1, dtype=np.uint64)
    tail_word = _key_words(data, size, words)
    h = np.uint64(seed) & _MASK
    for b in range(size >> 2):
        h = _mix_block(h, words[b])
    h ^= tail_word
    return _finalize(h, size)


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
    words = np.empty(ngram_max + 1, dtype=np.uint64)
    seeds = np.arange(n_seeds).astype(np.uint64)
    low = np.empty(n_seeds, dtype=np.uint64)
    high = np.empty(n_seeds, dtype=np.uint64)
    c5 = np.uint64(5)
    for i in range(first, last):
        start = offsets[i]
        stop = offsets[i + 1]
        low[:] = _MASK
        high[:] = 0
        if stop - start < ngram_min:
            low[:] = 0  # no n-gram at all: zeros, like the empty string
        for n in range(ngram_min, ngram_max + 1):
            for position in range(start, stop - n + 1):
                size = utf8_encode_gram(codepoints, position, n, buffer)
                tail_word = _key_words(buffer, size, words)
                n_blocks = size >> 2
                length = np.uint64(size)
                # Straight-line seed loops for the common (ASCII) cases so that they
                # vectorise; the general loop handles long multi-byte n-grams.
                if n_blocks == 0:
                    for j in range(n_seeds):
                        h = _finalize(seeds[j] ^ tail_word, length)
                        low[j] = min(low[j], h)
                        high[j] = max(high[j], h)
                elif n_blocks == 1:
                    w0 = words[0]
                    for j in range(n_seeds):
                        h = seeds[j] ^ w0
                        h = ((h << np.uint64(13)) | (h >> np.uint64(19))) & _MASK
                        h = ((h * c5 + _N) & _MASK) ^ tail_word
                        h = _finalize(h, length)
                        low[j] = min(low[j], h)
                        high[j] = max(high[j], h)
                else:
                    for j in range(n_seeds):
                        h = seeds[j]
                        for b in range(n_blocks):
                            h = _mix_block(h, words[b])
                        h = _finalize(h ^ tail_word, length)
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
