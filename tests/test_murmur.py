import mmh3
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from autocat._murmur import minhash_strings, murmurhash3_32
from autocat._ngrams import char_ngrams, pack_strings

# Any Unicode scalar value, surrogates excluded (they cannot be UTF-8 encoded).
unicode_text = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=40)


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=64), seed=st.integers(0, 2**32 - 1))
def test_murmurhash3_matches_mmh3_on_bytes(data, seed):
    array = np.frombuffer(data, dtype=np.uint8)
    assert murmurhash3_32(array, seed) == mmh3.hash(data, seed, signed=False)


@settings(max_examples=200, deadline=None)
@given(text=unicode_text, seed=st.integers(0, 2**32 - 1))
def test_murmurhash3_matches_mmh3_on_unicode(text, seed):
    data = text.encode("utf-8")
    array = np.frombuffer(data, dtype=np.uint8)
    assert murmurhash3_32(array, seed) == mmh3.hash(text, seed, signed=False)


def _reference_minhash(string, n_seeds, ngram_range=(2, 4)):
    grams = char_ngrams(string, ngram_range)
    if not grams:
        return np.zeros(n_seeds), np.zeros(n_seeds)
    hashes = np.array(
        [[mmh3.hash(g, seed, signed=False) for seed in range(n_seeds)] for g in grams]
    )
    return hashes.min(axis=0), hashes.max(axis=0)


@settings(max_examples=150, deadline=None)
@given(
    strings=st.lists(unicode_text, min_size=1, max_size=5),
    ngram_range=st.sampled_from([(2, 4), (1, 1), (3, 3), (1, 5)]),
)
def test_minhash_kernel_matches_reference_on_random_unicode(strings, ngram_range):
    _check_kernel(strings, ngram_range, n_seeds=7)


def _check_kernel(strings, ngram_range, n_seeds):
    """The kernel's minima and maxima equal those of mmh3 over the n-grams."""
    codepoints, offsets = pack_strings(strings)
    out = np.zeros((len(strings), 2 * n_seeds), dtype=np.uint32)
    minhash_strings(
        codepoints, offsets, 0, len(strings), *ngram_range, n_seeds, True, out
    )
    for row, string in zip(out, strings, strict=True):
        low, high = _reference_minhash(string, n_seeds, ngram_range)
        np.testing.assert_array_equal(row[:n_seeds], low)
        np.testing.assert_array_equal(row[n_seeds:], high)


def test_minhash_kernel_writes_only_its_range():
    codepoints, offsets = pack_strings(["first", "second", "third"])
    out = np.zeros((3, 4), dtype=np.uint32)
    minhash_strings(codepoints, offsets, 1, 2, 2, 4, 4, False, out)
    assert (out[0] == 0).all() and (out[2] == 0).all()
    assert (out[1] > 0).all()


@settings(max_examples=150, deadline=None)
@given(
    strings=st.lists(
        st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=40),
        min_size=1,
        max_size=5,
    ),
    ngram_range=st.sampled_from([(2, 4), (1, 1), (3, 3), (1, 9)]),
)
def test_minhash_kernel_matches_reference_on_ascii(strings, ngram_range):
    # ASCII strings take a path that reads the n-grams' bytes from the code
    # points directly; n-grams of up to 9 bytes cover two full blocks and a tail
    _check_kernel(strings, ngram_range, n_seeds=5)
