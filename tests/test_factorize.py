import numpy as np
import pandas as pd
import pytest

from autocat._factorize import factorize_strings, factorize_values, take_rows


def test_same_result_as_pandas_on_repeated_objects(rng):
    pool = np.array([f"value {i}" for i in range(50)] + [None, np.nan], dtype=object)
    values = pool[rng.integers(0, len(pool), size=2_000)]
    codes, strings = factorize_strings(values, "col")
    expected_codes, expected_uniques = pd.factorize(values, use_na_sentinel=True)
    np.testing.assert_array_equal(codes, expected_codes)
    assert strings == list(expected_uniques)


def test_equal_strings_in_distinct_objects_merge():
    values = np.array(["ab", "".join(["a", "b"]), "c"], dtype=object)
    assert values[0] is not values[1]
    codes, strings = factorize_strings(values, "col")
    assert codes.tolist() == [0, 0, 1] and strings == ["ab", "c"]


def test_mixed_types_keep_their_str():
    codes, strings = factorize_strings([1, 1.0, True, "1", None, pd.NA], "col")
    assert [strings[c] if c >= 0 else None for c in codes] == [
        "1",
        "1.0",
        "True",
        "1",
        None,
        None,
    ]


@pytest.mark.parametrize("dtype", ["str", "category", "string[pyarrow]"])
def test_pandas_extension_dtypes(dtype):
    series = pd.Series(["b", None, "a", "b"], dtype=dtype)
    codes, strings = factorize_strings(series, "col")
    assert codes.tolist() == [0, -1, 1, 0] and strings == ["b", "a"]


def test_non_contiguous_column():
    frame = np.array([["a", "x"], ["b", "y"], ["a", "z"]], dtype=object)
    codes, strings = factorize_strings(frame[:, 0], "col")
    assert codes.tolist() == [0, 1, 0] and strings == ["a", "b"]


def test_empty_column():
    codes, strings = factorize_strings(np.array([], dtype=object), "col")
    assert codes.size == 0 and strings == []


def test_bytes_are_rejected_with_the_column_name():
    with pytest.raises(TypeError, match=r"Column 'name' holds bytes values.*decode"):
        factorize_strings(["ok", b"raw"], "name")


def test_many_distinct_objects_grow_the_identity_table(rng):
    # more than 512 distinct objects: the compiled hash table doubles several times
    pool = np.array([f"v{i}" for i in range(5_000)] + [None], dtype=object)
    values = pool[rng.integers(0, len(pool), size=20_000)]
    codes, uniques = factorize_values(values)
    expected_codes, expected_uniques = pd.factorize(values, use_na_sentinel=True)
    assert codes.dtype == np.int32
    np.testing.assert_array_equal(codes, expected_codes)
    assert uniques.tolist() == expected_uniques.tolist()


def test_take_rows_writes_a_strided_slice_and_missing_rows():
    table = np.arange(6, dtype=np.float32).reshape(3, 2)  # last row: missing
    out = np.full((4, 5), -1.0, dtype=np.float32)
    take_rows(table, np.array([1, -1, 0, 1], dtype=np.int32), out[:, 1:3])
    np.testing.assert_array_equal(out[:, 1:3], table[[1, 2, 0, 1]])
    assert (out[:, [0, 3, 4]] == -1).all()


@pytest.fixture
def small_chunks(monkeypatch):
    """Threads split even tiny columns, so that the chunked paths run in tests."""
    import autocat._factorize

    monkeypatch.setattr(autocat._factorize, "_MIN_ROWS_PER_THREAD", 7)


@pytest.mark.parametrize("dtype", ["str", "string[pyarrow]", object])
@pytest.mark.parametrize("n_jobs", [2, 3, 8])
def test_threads_over_chunks_give_pandas_result(rng, small_chunks, dtype, n_jobs):
    # values first seen in a late chunk, repeated across chunks, missing values,
    # the empty string and distinct objects holding equal strings
    pool = [f"v{i}" for i in range(40)] + ["", None]
    values = [pool[j] for j in rng.integers(0, len(pool), size=500)]
    values += ["late", "".join(["la", "te"]), None, "v1"]
    series = pd.Series(values, dtype=dtype)
    expected_codes, expected_uniques = pd.factorize(series, use_na_sentinel=True)
    codes, uniques = factorize_values(series, n_jobs=n_jobs)
    assert codes.dtype == np.int32
    np.testing.assert_array_equal(codes, expected_codes)
    assert list(uniques) == list(expected_uniques)
    if dtype is not object:  # Arrow strings keep their dtype, as with pandas
        assert uniques.dtype == expected_uniques.dtype


@pytest.mark.parametrize("large", [False, True])
@pytest.mark.parametrize("n_jobs", [2, 8])
def test_chunk_dictionaries_merge_on_threads_to_pandas_result(
    rng, small_chunks, large, n_jobs
):
    # most values distinct, so the chunks' dictionaries are nearly as long as
    # the rows and are merged by partitions of their hashes; non-ASCII bytes,
    # the empty string, missing values, 32- and 64-bit offsets, and a slice
    # whose Arrow array starts past its buffers' first value
    import pyarrow as pa

    pool = [f"{prefix}{i}" for i in range(300) for prefix in ("é", "日本", "x")]
    values = [pool[j] for j in rng.integers(0, len(pool), size=1_200)]
    values[5:9] = ["", None, "", "é0"]
    dtype = pd.ArrowDtype(pa.large_string()) if large else "str"
    series = pd.Series(values, dtype=dtype).iloc[3:]
    expected_codes, expected_uniques = pd.factorize(
        series.astype(object), use_na_sentinel=True
    )
    codes, uniques = factorize_values(series, n_jobs=n_jobs)
    np.testing.assert_array_equal(codes, expected_codes)
    assert list(uniques) == list(expected_uniques)
    assert uniques.dtype == series.dtype


def test_two_distinct_values_leave_most_merge_partitions_empty(small_chunks):
    series = pd.Series(["b", "a"] * 200, dtype="str")
    codes, uniques = factorize_values(series, n_jobs=8)
    np.testing.assert_array_equal(codes, [0, 1] * 200)
    assert list(uniques) == ["b", "a"]


def test_every_row_distinct_object_threads(rng, small_chunks):
    # distinct objects everywhere (no identity shortcut) and a missing first row
    values = np.array(
        [None] + [str(int(v)) for v in rng.integers(0, 30, size=300)], dtype=object
    )
    expected_codes, expected_uniques = pd.factorize(values, use_na_sentinel=True)
    codes, uniques = factorize_values(values, n_jobs=4)
    np.testing.assert_array_equal(codes, expected_codes)
    assert uniques.tolist() == expected_uniques.tolist()


def test_take_rows_threads_write_the_same_bytes(rng, small_chunks):
    table = rng.random((11, 3)).astype(np.float32)
    codes = rng.integers(-1, 10, size=1_000).astype(np.int32)
    serial = np.empty((1_000, 3), dtype=np.float32)
    take_rows(table, codes, serial)
    threaded = np.empty((1_000, 5), dtype=np.float32)
    take_rows(table, codes, threaded[:, 1:4], n_jobs=4)
    assert threaded[:, 1:4].tobytes() == serial.tobytes()
    np.testing.assert_array_equal(serial, table[np.where(codes < 0, 10, codes)])


def test_mixed_types_cost_memory_per_distinct_value_not_per_row():
    # One long value among 10,000 mixed-type rows: converting every row to a
    # fixed-width string array would take rows x 5,000 characters (200 MB).
    import tracemalloc

    values = np.array([1, 1.0, True, None, "a" * 5000, *range(9995)], dtype=object)
    tracemalloc.start()
    try:
        codes, strings = factorize_strings(values, "mixed")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20, peak
    assert strings[:4] == ["1", "1.0", "True", "a" * 5000]
    assert codes[:5].tolist() == [0, 1, 2, -1, 3]
    assert strings[codes[6]] == "1"  # the int 1 and the row 1 share a string
