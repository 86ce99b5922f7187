import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor

import mmh3
import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from autocat import MinHashEncoder
from autocat._ngrams import char_ngrams

TITLES = [
    "Police Officer III",
    "police officer  II",
    "Bus Operator",
    "Manager, Property",
    "Café Crème",
    "東京都 Officer",
    "",
    "   ",
    "x",
]


def reference_encoding(string, n_components=30, ngram_range=(2, 4)):
    """The documented definition, written with mmh3 and Python sets."""
    if string == "":
        return np.zeros(n_components, dtype=np.float32)
    grams = char_ngrams(string, ngram_range)
    mins = [
        min(mmh3.hash(g, j, signed=False) for g in grams) for j in range(n_components)
    ]
    return (np.array(mins) / (2**32 - 1)).astype(np.float32)


def test_matches_the_documented_definition():
    frame = pd.DataFrame({"title": TITLES})
    out = MinHashEncoder().fit_transform(frame)
    assert out.dtype == np.float32 and out.shape == (len(TITLES), 30)
    for row, title in zip(out, TITLES, strict=True):
        np.testing.assert_array_equal(row, reference_encoding(title))


def test_empty_string_gives_zeros_and_whitespace_does_not():
    out = MinHashEncoder().fit_transform(pd.DataFrame({"a": ["", "   "]}))
    assert (out[0] == 0).all()
    assert (out[1] > 0).all()


def test_string_with_no_ngram_gives_zeros():
    out = MinHashEncoder(ngram_range=(5, 6)).fit_transform([["a"], ["abcdef"]])
    assert (out[0] == 0).all() and (out[1] > 0).all()


def test_identical_to_skrub_murmur():
    skrub = pytest.importorskip("skrub")
    values = pd.Series(TITLES * 2 + ["Fire/Rescue Captain", "Ünïcödé"], name="t")
    ours = MinHashEncoder(n_components=12).fit_transform(values.to_frame())
    theirs = skrub.MinHashEncoder(n_components=12, hashing="murmur").fit_transform(
        values
    )
    np.testing.assert_array_equal(ours, np.asarray(theirs, dtype=np.float32))


def test_minmax_is_min_then_max_over_the_same_seeds():
    out = MinHashEncoder(n_components=8, minmax=True).fit_transform([["Bus Operator"]])
    grams = char_ngrams("Bus Operator")
    mins = [min(mmh3.hash(g, j, signed=False) for g in grams) for j in range(4)]
    maxs = [max(mmh3.hash(g, j, signed=False) for g in grams) for j in range(4)]
    expected = (np.array(mins + maxs) / (2**32 - 1)).astype(np.float32)
    np.testing.assert_array_equal(out[0], expected)


def test_minmax_needs_even_n_components():
    with pytest.raises(ValueError, match=r"must be even.*n_components=7; use 8"):
        MinHashEncoder(n_components=7, minmax=True).fit([["a"]])


@pytest.mark.parametrize("ngram_range", [(0, 2), (3, 2), (2,), ("a", "b")])
def test_invalid_ngram_range(ngram_range):
    with pytest.raises(ValueError, match="ngram_range"):
        MinHashEncoder(ngram_range=ngram_range).fit([["a"]])


def test_invalid_handle_missing_is_rejected():
    with pytest.raises(ValueError, match="handle_missing"):
        MinHashEncoder(handle_missing="drop").fit([["a"]])


@pytest.mark.parametrize("missing", [None, np.nan, pd.NA, pd.NaT])
def test_handle_missing_modes(missing):
    frame = pd.DataFrame({"title": pd.Series(["Bus Operator", missing], dtype=object)})
    zero = MinHashEncoder(n_components=4).fit_transform(frame)
    assert (zero[1] == 0).all() and (zero[0] > 0).all()
    nan = MinHashEncoder(n_components=4, handle_missing="nan").fit_transform(frame)
    assert np.isnan(nan[1]).all() and nan.dtype == np.float32
    np.testing.assert_array_equal(nan[0], zero[0])
    encoder = MinHashEncoder(handle_missing="error").fit(frame)
    with pytest.raises(ValueError, match=r"Column 'title' has 1 missing value.*row 1"):
        encoder.transform(frame)


def test_all_missing_column():
    frame = pd.DataFrame({"empty": [None, None, None]})
    out = MinHashEncoder(n_components=3).fit_transform(frame)
    np.testing.assert_array_equal(out, np.zeros((3, 3), dtype=np.float32))


def test_columns_are_encoded_separately_and_named():
    frame = pd.DataFrame({"a": ["x", "y"], "b": ["y", "x"]})
    encoder = MinHashEncoder(n_components=3).fit(frame)
    out = encoder.transform(frame)
    np.testing.assert_array_equal(out[:, :3], out[::-1, 3:])
    assert encoder.get_feature_names_out().tolist() == [
        "a_0", "a_1", "a_2", "b_0", "b_1", "b_2",
    ]  # fmt: skip


def test_numpy_input_gets_default_names():
    encoder = MinHashEncoder(n_components=2).fit(np.array([["a", "b"]], dtype=object))
    assert encoder.get_feature_names_out().tolist() == ["x0_0", "x0_1", "x1_0", "x1_1"]


def test_same_values_from_pandas_polars_and_numpy(df_module):
    data = {"title": TITLES, "division": TITLES[::-1]}
    frame = df_module.DataFrame(data)
    from_frame = MinHashEncoder().fit_transform(frame)
    from_numpy = MinHashEncoder().fit_transform(np.array(pd.DataFrame(data)))
    np.testing.assert_array_equal(from_frame, from_numpy)


def test_set_output_polars():
    polars = pytest.importorskip("polars")
    frame = polars.DataFrame({"title": TITLES})
    out = (
        MinHashEncoder(n_components=2)
        .set_output(transform="polars")
        .fit_transform(frame)
    )
    assert isinstance(out, polars.DataFrame)
    assert out.columns == ["title_0", "title_1"]


def test_pandas_string_and_categorical_dtypes():
    expected = MinHashEncoder().fit_transform(pd.DataFrame({"t": TITLES}, dtype=object))
    for dtype in ["str", "category", "string[pyarrow]"]:
        frame = pd.DataFrame({"t": pd.Series(TITLES, dtype=dtype)})
        np.testing.assert_array_equal(MinHashEncoder().fit_transform(frame), expected)


def test_n_jobs_does_not_change_the_output():
    values = np.array([[f"value number {i}"] for i in range(5_000)], dtype=object)
    one = MinHashEncoder(n_components=8).fit_transform(values)
    two = MinHashEncoder(n_components=8, n_jobs=2).fit_transform(values)
    assert one.tobytes() == two.tobytes()


def test_fit_learns_only_the_schema():
    encoder = MinHashEncoder().fit(pd.DataFrame({"a": ["x"] * 1000}))
    learned = {k for k in vars(encoder) if k.endswith("_") and not k.startswith("_")}
    assert learned == {"n_features_in_", "feature_names_in_"}
    assert len(pickle.dumps(encoder)) < 1_000


def test_one_dimensional_input_is_rejected():
    with pytest.raises(ValueError, match=r"expects a 2-D input.*reshape\(-1, 1\)"):
        MinHashEncoder().fit(np.array(["a", "b"], dtype=object))
    with pytest.raises(ValueError, match=r"1-D Series named 'title'.*to_frame"):
        MinHashEncoder().fit(pd.Series(["a"], name="title"))


def test_sparse_input_is_rejected():
    from scipy import sparse

    with pytest.raises(TypeError, match="sparse"):
        MinHashEncoder().fit(sparse.csr_matrix(np.ones((2, 2))))


def test_wrong_number_of_columns_at_transform():
    encoder = MinHashEncoder().fit(np.array([["a", "b"]], dtype=object))
    with pytest.raises(ValueError, match="features"):
        encoder.transform(np.array([["a"]], dtype=object))


def test_renamed_columns_at_transform():
    encoder = MinHashEncoder().fit(pd.DataFrame({"a": ["x"]}))
    with pytest.raises(ValueError, match="feature names"):
        encoder.transform(pd.DataFrame({"b": ["x"]}))


def test_unfitted_use():
    with pytest.raises(NotFittedError):
        MinHashEncoder().transform([["a"]])
    with pytest.raises(NotFittedError):
        MinHashEncoder().get_feature_names_out()


def test_bytes_are_rejected():
    with pytest.raises(TypeError, match=r"Column 'x0' holds bytes values"):
        MinHashEncoder().fit_transform(np.array([[b"abc"]], dtype=object))


def test_mixed_types_are_encoded_as_their_str():
    out = MinHashEncoder().fit_transform(
        pd.DataFrame({"v": pd.Series([1, "1", 1.0, True, "True"], dtype=object)})
    )
    np.testing.assert_array_equal(out[0], out[1])
    np.testing.assert_array_equal(out[3], out[4])
    assert not np.array_equal(out[0], out[2]) and not np.array_equal(out[0], out[3])
    np.testing.assert_array_equal(out[2], reference_encoding("1.0"))


def test_huge_string_matches_the_definition():
    huge = "".join(chr(0x41 + (i * 7919) % 0x3000) for i in range(100_000))
    out = MinHashEncoder(n_components=3).fit_transform([[huge]])
    np.testing.assert_array_equal(out[0], reference_encoding(huge, 3))


def test_works_inside_a_pipeline():
    pipe = make_pipeline(MinHashEncoder(n_components=5), FunctionTransformer())
    assert pipe.fit_transform(pd.DataFrame({"a": TITLES})).shape == (len(TITLES), 5)


words = st.text(alphabet="abcdefghij ", min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(left=words, right=words)
def test_equal_coordinates_estimate_the_jaccard_similarity(left, right):
    a, b = char_ngrams(left), char_ngrams(right)
    jaccard = len(a & b) / len(a | b)
    out = MinHashEncoder(n_components=256).fit_transform([[left], [right]])
    estimate = np.mean(out[0] == out[1])
    # each coordinate is a Bernoulli(jaccard): std <= 1 / (2 sqrt(256)) = 0.031
    assert abs(estimate - jaccard) <= 0.16


def test_jaccard_estimate_is_unbiased():
    rng = np.random.default_rng(0)
    alphabet = np.array(list("abcdef "))
    strings = [
        "".join(rng.choice(alphabet, size=rng.integers(3, 12))) for _ in range(400)
    ]
    out = MinHashEncoder(n_components=256).fit_transform([[s] for s in strings])
    errors = []
    for i in range(0, 400, 2):
        a, b = char_ngrams(strings[i]), char_ngrams(strings[i + 1])
        errors.append(np.mean(out[i] == out[i + 1]) - len(a & b) / len(a | b))
    # mean of 200 errors, each with std <= 0.031: |bias| well under 0.01
    assert abs(np.mean(errors)) < 0.01


@settings(max_examples=60, deadline=None)
@given(inner=st.text(min_size=1, max_size=20), outer=st.text(max_size=20))
def test_inclusion_of_ngrams_gives_smaller_coordinates(inner, outer):
    assume(inner.strip())
    container = inner + " " + outer
    assert char_ngrams(inner) <= char_ngrams(container)
    out = MinHashEncoder(n_components=64).fit_transform([[inner], [container]])
    assert (out[1] <= out[0]).all()


def _encode_in_child(values):
    return MinHashEncoder(n_components=16).fit_transform(values).tobytes()


def test_same_bytes_in_a_spawned_process():
    values = [[t] for t in TITLES]
    here = _encode_in_child(values)
    # A process pool, not multiprocessing.Pool: a child that dies (it cannot
    # import this module) fails the test instead of hanging it
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=context) as pool:
        there = pool.submit(_encode_in_child, values).result(timeout=600)
    assert here == there


def test_thread_safe_transform():
    from concurrent.futures import ThreadPoolExecutor

    encoder = MinHashEncoder().fit(pd.DataFrame({"a": TITLES}))
    frames = [pd.DataFrame({"a": TITLES[i:] + TITLES[:i]}) for i in range(8)]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(encoder.transform, frames))
    for i, result in enumerate(results):
        np.testing.assert_array_equal(result, encoder.transform(frames[i]))


@pytest.mark.parametrize("dtype", ["category", "str", "string[pyarrow]", object])
def test_missing_values_in_every_string_dtype(dtype):
    frame = pd.DataFrame({"t": pd.Series(["a", None, "b", None], dtype=dtype)})
    out = MinHashEncoder(n_components=2, handle_missing="nan").fit_transform(frame)
    assert np.isnan(out[[1, 3]]).all() and np.isfinite(out[[0, 2]]).all()


def test_n_jobs_gives_the_same_bytes_on_every_stage(monkeypatch):
    import autocat._factorize
    import autocat._minhash

    # split factorisation, hashing and gather even on this small table
    monkeypatch.setattr(autocat._factorize, "_MIN_ROWS_PER_THREAD", 16)
    monkeypatch.setattr(autocat._minhash, "_MIN_VALUES_PER_THREAD", 8)
    rng = np.random.default_rng(0)
    pool = [f"Officer {i} grade {i % 7}" for i in range(120)] + [None, ""]
    frame = pd.DataFrame(
        {
            "a": [pool[j] for j in rng.integers(0, len(pool), 2_000)],
            "b": pd.Series(
                [pool[j] for j in rng.integers(0, len(pool), 2_000)], dtype=object
            ),
        }
    )
    serial = MinHashEncoder(n_components=8).fit_transform(frame)
    for n_jobs in (2, 3, -1):
        out = MinHashEncoder(n_components=8, n_jobs=n_jobs).fit_transform(frame)
        assert out.tobytes() == serial.tobytes()
