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
