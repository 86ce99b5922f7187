"""The per-process cache of min-hash rows: exact, bounded, used only when asked."""

from __future__ import annotations

import gc
import sys
import tracemalloc
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest

from autocat import MinHashEncoder, TableVectorizer, _encoding_cache
from autocat._encoding_cache import EncodingCache, active_cache, caching, clear


@pytest.fixture(autouse=True)
def fresh_cache():
    """Each test starts, and leaves the process, with no cache."""
    _encoding_cache._cache = None
    yield
    _encoding_cache._cache = None


def _column(rng, n_rows, n_distinct, first=0):
    values = np.array(
        [f"Officer {i % 13} grade {i} " * (1 + i % 3) for i in range(first, n_distinct)]
        + ["", " ", "ΟΔΟΣ Σ"]
    )
    column = pd.Series(values[rng.integers(0, len(values), n_rows)], dtype=object)
    column[rng.random(n_rows) < 0.05] = None
    return pd.DataFrame({"job": column})


def _bits(array):
    return np.ascontiguousarray(array).view(np.uint32)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"n_components": 8, "minmax": True, "handle_missing": "nan"},
        {"n_components": 5, "ngram_range": (1, 3), "n_jobs": 2},
    ],
)
def test_cached_partitions_are_bit_identical(rng, params):
    encoder = MinHashEncoder(**params)
    parts = [_column(rng, 700, 400) for _ in range(4)]
    encoder.fit(parts[0])
    expected = [encoder.transform(p) for p in parts]
    with caching(2**20) as cache:
        got = [encoder.transform(p) for p in parts]
        assert 0 < len(cache) <= 404  # every distinct string, once
    for want, have in zip(expected, got, strict=True):
        np.testing.assert_array_equal(_bits(have), _bits(want))


def test_encoders_with_other_parameters_do_not_share_rows(rng):
    df = _column(rng, 300, 200)
    encoders = [
        MinHashEncoder(n_components=4).fit(df),
        MinHashEncoder(n_components=6).fit(df),
        MinHashEncoder(n_components=4, ngram_range=(3, 3)).fit(df),
        MinHashEncoder(n_components=4, minmax=True).fit(df),
    ]
    expected = [encoder.transform(df).tobytes() for encoder in encoders]
    with caching(2**20) as cache:
        for _ in range(2):
            got = [encoder.transform(df).tobytes() for encoder in encoders]
            assert got == expected
        assert len(cache._stores) == 4


def test_a_wrong_cached_row_would_change_the_output(rng):
    """The cache is really read under ``caching``, and only there."""
    df = pd.DataFrame({"job": ["nurse", "police officer", "nurse", "bus driver"]})
    encoder = MinHashEncoder(n_components=3).fit(df)
    right = encoder.transform(df)
    with caching(2**20) as cache:
        encoder.transform(df)
        store = next(iter(cache._stores.values()))
        store.block[store.rows["nurse"]] = 7.0  # poison one row
        poisoned = encoder.transform(df)
    np.testing.assert_array_equal(poisoned[[0, 2]], 7.0)
    np.testing.assert_array_equal(poisoned[[1, 3]], right[[1, 3]])
    assert encoder.transform(df).tobytes() == right.tobytes()  # outside: not read


def test_rows_come_back_in_the_order_asked(rng):
    strings = [f"value {i}" for i in range(50)]
    values = rng.random((50, 4)).astype(np.float32)
    cache = EncodingCache(2**20)
    cache.add("key", strings[::2], values[::2])
    order = rng.permutation(50)
    out = np.full((50, 4), -1.0, dtype=np.float32)
    missing = cache.fill("key", [strings[i] for i in order], out)
    cached = order % 2 == 0
    np.testing.assert_array_equal(missing, np.flatnonzero(~cached))
    np.testing.assert_array_equal(out[cached], values[order[cached]])
    np.testing.assert_array_equal(out[~cached], -1.0)
    assert cache.fill("other key", strings, out).tolist() == list(range(50))


def test_the_bound_holds_and_the_newest_strings_stay(rng):
    bound = 200_000
    cache = EncodingCache(bound)
    width = 30
    for batch in range(40):
        strings = [f"batch {batch} value {i} " + "x" * (i % 40) for i in range(97)]
        values = rng.random((97, width)).astype(np.float32)
        missing = cache.fill("key", strings, np.empty((97, width), np.float32))
        cache.add("key", [strings[i] for i in missing], values[missing])
        assert cache.nbytes <= bound
        counted = sum(sys.getsizeof(s) for s in next(iter(cache._stores.values())).rows)
        assert counted <= cache.nbytes
    last = [f"batch 39 value {i} " + "x" * (i % 40) for i in range(97)]
    assert len(cache.fill("key", last, np.empty((97, width), np.float32))) == 0
    assert 0 < len(cache) < 40 * 97  # it evicted, it kept something
    # a batch larger than the bound on its own keeps what fits
    huge = [f"huge {i}" for i in range(5_000)]  # 5,000 x ~300 bytes
    cache.add("key", huge, np.zeros((5_000, width), np.float32))
    assert cache.nbytes <= bound
    assert len(cache.fill("key", huge, np.empty((5_000, width), np.float32))) > 0


def test_the_bound_holds_in_allocated_memory(rng):
    """tracemalloc sees the strings, dicts and arrays the cache keeps alive."""
    bound = 2**20
    encoder = MinHashEncoder(n_components=30).fit(pd.DataFrame({"job": ["a"]}))
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        with caching(bound) as cache:
            for part in range(12):
                df = _column(rng, 3_000, 2_000 * (part + 1), first=2_000 * part)
                encoder.transform(df)
        del df
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert cache.nbytes <= bound
    assert held <= bound * 1.1  # 10% for the interpreter's own bookkeeping
    assert len(cache) > 1_000


def test_threads_share_the_cache_and_get_the_same_bytes(rng):
    parts = [_column(rng, 2_000, 1_500) for _ in range(8)]
    encoder = MinHashEncoder(n_components=6).fit(parts[0])
    expected = [encoder.transform(p).tobytes() for p in parts]

    def encode(part):
        with caching(2**20):
            return encoder.transform(part).tobytes()

    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(encode, parts)) == expected


def test_caching_is_off_outside_the_block_and_with_a_zero_bound():
    assert active_cache() is None
    with caching(0) as cache:
        assert cache is None and active_cache() is None
    with caching(1_000) as cache:
        assert active_cache() is cache
        with caching(1_000):
            assert active_cache() is cache
        assert active_cache() is cache
    assert active_cache() is None
    with caching(500) as again:  # the process's cache, with the last bound
        assert again is cache and cache.max_bytes == 500
    clear()
    assert len(cache) == 0


def test_table_vectorizer_partitions_with_cache_are_bit_identical(rng):
    n = 2_000
    df = pd.DataFrame(
        {
            "job": [f"clerk {i % 300} of unit {i % 300 % 41}" for i in range(n)],
            "dept": rng.choice(["police", "fire"], n),
            "x": rng.normal(size=n),
        }
    )
    vectorizer = TableVectorizer(n_components=8, cardinality_threshold=10).fit(df)
    expected = vectorizer.transform(df)
    with caching(2**20) as cache:
        got = np.vstack(
            [vectorizer.transform(df.iloc[k : k + 500]) for k in range(0, n, 500)]
        )
        assert len(cache) == 300
    np.testing.assert_array_equal(_bits(got), _bits(expected))
