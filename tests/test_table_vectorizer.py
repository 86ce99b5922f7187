from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from xgboost import XGBRegressor

from autocat import DatetimeEncoder, MinHashEncoder, TableVectorizer, TextEncoder
from autocat._column_kinds import KINDS
from autocat._vectorizer_columns import gather


def _messy_frame(n: int = 120, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "num": rng.normal(size=n),
            "count": rng.integers(0, 5, size=n),
            "flag": rng.random(n) > 0.5,
            "when": pd.date_range("2020-01-01", periods=n, freq="D"),
            "low": rng.choice(["a", "b", "c"], n),
            "high": [f"job title {i % 40}" for i in range(n)],
            "money": [f"{int(v):,}" for v in rng.integers(500, 200_000, n)],
            "us_date": [
                f"{1 + i % 12:02d}/{1 + i % 28:02d}/19{50 + i % 40}" for i in range(n)
            ],
            "clock": [f"{i % 24:02d}:{i % 60:02d}:00" for i in range(n)],
            "const": ["same"] * n,
            "empty": [None] * n,
        }
    )


EXPECTED_KINDS = {
    "num": "numeric",
    "count": "numeric",
    "flag": "boolean",
    "when": "datetime",
    "low": "low_cardinality",
    "high": "high_cardinality",
    "money": "numeric",
    "us_date": "datetime",
    "clock": "datetime",
    "const": "dropped",
    "empty": "dropped",
}


def test_routes_every_kind():
    df = _messy_frame()
    vectorizer = TableVectorizer()
    out = vectorizer.fit_transform(df)
    assert vectorizer.column_kinds_ == EXPECTED_KINDS
    assert out.dtype == np.float32
    names = vectorizer.get_feature_names_out()
    assert out.shape == (len(df), len(names))
    assert isinstance(vectorizer.transformers_["high"], MinHashEncoder)
    assert isinstance(vectorizer.transformers_["low"], OneHotEncoder)
    assert isinstance(vectorizer.transformers_["when"], DatetimeEncoder)
    assert vectorizer.transformers_["num"] == "passthrough"
    assert vectorizer.transformers_["const"] == "drop"
    assert vectorizer.input_to_outputs_["const"] == []
    assert vectorizer.input_to_outputs_["low"] == ["low_a", "low_b", "low_c"]
    assert len(vectorizer.input_to_outputs_["high"]) == 30
    flat = [n for outputs in vectorizer.input_to_outputs_.values() for n in outputs]
    assert flat == names.tolist()


def test_fit_transform_equals_fit_then_transform():
    df = _messy_frame()
    vectorizer = TableVectorizer()
    np.testing.assert_array_equal(
        vectorizer.fit_transform(df), clone(vectorizer).fit(df).transform(df)
    )


def test_numeric_passthrough_keeps_nan():
    df = pd.DataFrame({"x": [1.5, np.nan, 3.0], "b": pd.array([True, None, False])})
    out = TableVectorizer().fit_transform(df)
    np.testing.assert_array_equal(out, [[1.5, 1.0], [np.nan, np.nan], [3.0, 0.0]])


def test_strings_read_as_numbers():
    df = pd.DataFrame({"salary": ["121,511", " 42 ", "3.5", "NA"]})
    vectorizer = TableVectorizer().fit(df)
    assert vectorizer.column_kinds_ == {"salary": "numeric"}
    out = vectorizer.transform(df)
    np.testing.assert_array_equal(out[:, 0], [121511.0, 42.0, 3.5, np.nan])


def test_dates_and_times_are_parsed():
    df = pd.DataFrame(
        {
            "hired": ["09/12/1986", "10/31/2001", "01/02/2015"],
            "at": ["21:37:00", "08:05:10", "00:00:30"],
        }
    )
    vectorizer = TableVectorizer().fit(df)
    assert vectorizer.column_kinds_ == {"hired": "datetime", "at": "datetime"}
    assert vectorizer.input_to_outputs_["at"] == [
        "at_hour", "at_minute", "at_second", "at_time_of_day",
    ]  # fmt: skip
    out = pd.DataFrame(
        vectorizer.transform(df), columns=vectorizer.get_feature_names_out()
    )
    assert out["hired_year"].tolist() == [1986, 2001, 2015]
    assert out["hired_month"].tolist() == [9, 10, 1]
    assert out["at_time_of_day"].tolist() == [21 * 3600 + 37 * 60, 8 * 3600 + 310, 30]


def test_low_cardinality_unknown_category_gives_zeros():
    train = pd.DataFrame({"c": ["a", "b", "a", "c"]})
    vectorizer = TableVectorizer().fit(train)
    out = vectorizer.transform(pd.DataFrame({"c": ["b", "zzz", None]}))
    np.testing.assert_array_equal(out, [[0, 1, 0], [0, 0, 0], [0, 0, 0]])


def test_cardinality_threshold_switches_encoder():
    df = pd.DataFrame({"c": [f"v{i}" for i in range(10)]})
    assert TableVectorizer().fit(df).column_kinds_["c"] == "low_cardinality"
    vectorizer = TableVectorizer(cardinality_threshold=5, n_components=8).fit(df)
    assert vectorizer.column_kinds_["c"] == "high_cardinality"
    assert vectorizer.transform(df).shape == (10, 8)


def test_polars_gives_same_values_as_pandas():
    pl = pytest.importorskip("polars")
    df = _messy_frame()
    expected = TableVectorizer().fit_transform(df)
    vectorizer = TableVectorizer()
    got = vectorizer.fit_transform(pl.from_pandas(df))
    assert vectorizer.column_kinds_ == EXPECTED_KINDS
    np.testing.assert_array_equal(got, expected)


def test_params_are_plain_and_reach_sub_estimators():
    vectorizer = TableVectorizer(high_cardinality=MinHashEncoder(n_components=8))
    params = vectorizer.get_params(deep=True)
    assert params["high_cardinality__n_components"] == 8
    vectorizer.set_params(high_cardinality__n_components=4, cardinality_threshold=2)
    df = pd.DataFrame({"c": ["a", "b", "c", "a"]})
    out = clone(vectorizer).fit_transform(df)
    assert out.shape == (4, 4)
    # the instance given is cloned, never fitted in place
    assert not hasattr(vectorizer.high_cardinality, "n_features_in_")


def test_invalid_params_are_reported():
    df = pd.DataFrame({"c": ["a"]})
    with pytest.raises(ValueError, match="'high_cardinality' parameter"):
        TableVectorizer(high_cardinality="hashing").fit(df)
    with pytest.raises(ValueError, match="'cardinality_threshold' parameter"):
        TableVectorizer(cardinality_threshold=-1).fit(df)


def test_custom_encoders_for_every_kind():
    from sklearn.preprocessing import OrdinalEncoder, StandardScaler

    df = _messy_frame()
    vectorizer = TableVectorizer(
        low_cardinality=OrdinalEncoder(),
        high_cardinality=OrdinalEncoder(),
        numeric=StandardScaler(),
        datetime=DatetimeEncoder(add_epoch=False, add_weekday=False),
    )
    out = vectorizer.fit_transform(df)
    assert vectorizer.input_to_outputs_["low"] == ["low"]
    assert vectorizer.input_to_outputs_["when"] == [
        "when_year",
        "when_month",
        "when_day",
    ]
    assert abs(out[:, 0].mean()) < 1e-6  # scaled "num"
    np.testing.assert_array_equal(out, vectorizer.transform(df))


def test_gamma_poisson_option():
    from autocat import GammaPoissonEncoder

    df = pd.DataFrame({"c": [f"value {i % 45} of {i % 7}" for i in range(300)]})
    vectorizer = TableVectorizer(high_cardinality="gamma_poisson", n_components=3)
    out = vectorizer.fit_transform(df)
    encoder = vectorizer.transformers_["c"]
    assert isinstance(encoder, GammaPoissonEncoder)
    assert encoder.get_params()["n_components"] == 3
    assert out.shape == (300, 3)
    # the distinct-value path gives what the encoder gives on every row
    np.testing.assert_array_equal(out, encoder.transform(df.astype(object)))
    assert vectorizer.input_to_outputs_["c"] == encoder.get_feature_names_out().tolist()
    np.testing.assert_array_equal(out, vectorizer.transform(df))
    np.testing.assert_array_equal(out, clone(vectorizer).fit_transform(df))


def test_gamma_poisson_missing_module_is_explained(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "autocat._gamma_poisson", None)
    df = pd.DataFrame({"c": [f"value {i}" for i in range(40)]})
    with pytest.raises(ImportError, match="high_cardinality='minhash'"):
        TableVectorizer(high_cardinality="gamma_poisson").fit(df)


def test_describe_is_the_plan():
    df = _messy_frame()
    vectorizer = TableVectorizer().fit(df)
    plan = vectorizer.describe()
    assert plan.columns.tolist() == [
        "column", "dtype", "kind", "n_distinct", "missing_share", "transformer",
        "n_outputs", "reason",
    ]  # fmt: skip
    assert plan["column"].tolist() == df.columns.tolist()
    assert plan.set_index("column")["kind"].to_dict() == EXPECTED_KINDS
    row = plan.set_index("column").loc["empty"]
    assert (row["missing_share"], row["reason"]) == (1.0, "all values missing")
    assert plan["n_outputs"].sum() == len(vectorizer.get_feature_names_out())
    assert plan.set_index("column").loc["high", "transformer"] == "MinHashEncoder"
    assert "constant" in plan.set_index("column").loc["const", "reason"]


def test_set_output(df_module):
    df = _messy_frame(20)
    name = df_module.__name__
    vectorizer = TableVectorizer().set_output(transform=name)
    out = vectorizer.fit_transform(df)
    assert type(out).__module__.split(".")[0] == name
    assert list(out.columns) == vectorizer.get_feature_names_out().tolist()
    np.testing.assert_array_equal(
        np.asarray(out), TableVectorizer().fit_transform(df).astype(np.float32)
    )


def test_numpy_with_names_gives_the_same_values():
    df = pd.DataFrame({"x": [1.5, 2.5, np.nan], "s": ["a", "b", "a"]})
    expected = TableVectorizer().fit_transform(df)
    records = np.array(
        [(1.5, "a"), (2.5, "b"), (np.nan, "a")], dtype=[("x", "f8"), ("s", "U3")]
    )
    vectorizer = TableVectorizer()
    np.testing.assert_array_equal(vectorizer.fit_transform(records), expected)
    assert vectorizer.get_feature_names_out().tolist() == ["x", "s_a", "s_b"]
    plain = np.array([[1.5, "a"], [2.5, "b"], [np.nan, "a"]], dtype=object)
    np.testing.assert_array_equal(TableVectorizer().fit_transform(plain), expected)


def test_pandas_string_flavours_agree():
    values = ["a", "b", None, "a"] + [f"v{i}" for i in range(40)]
    expected = TableVectorizer().fit_transform(
        pd.DataFrame({"c": pd.Series(values, dtype=object)})
    )
    for dtype in ["str", "string", "string[pyarrow]", "category"]:
        df = pd.DataFrame({"c": pd.Series(values, dtype=dtype)})
        np.testing.assert_array_equal(TableVectorizer().fit_transform(df), expected)


def test_n_jobs_does_not_change_the_output():
    df = _messy_frame()
    np.testing.assert_array_equal(
        TableVectorizer(n_jobs=2).fit_transform(df), TableVectorizer().fit_transform(df)
    )
    vectorizer = TableVectorizer().fit(df)
    vectorizer.set_params(n_jobs=2)
    np.testing.assert_array_equal(
        vectorizer.transform(df), TableVectorizer().fit_transform(df)
    )


def test_missing_and_extra_columns_are_named():
    df = _messy_frame(10)
    vectorizer = TableVectorizer().fit(df)
    with pytest.raises(ValueError, match=r"yet now missing:\n- high\n- low\n"):
        vectorizer.transform(df.drop(columns=["low", "high"]))
    with pytest.raises(ValueError, match=r"unseen at fit time:\n- surprise\n"):
        vectorizer.transform(df.assign(surprise=1))
    with pytest.raises(ValueError, match="same order"):
        vectorizer.transform(df[df.columns[::-1]])


def test_type_change_between_fit_and_transform():
    df = pd.DataFrame(
        {
            "a": [1.0, 2.0, 3.0],
            "d": pd.to_datetime(["2020-01-01"] * 2 + [None]),
            "s": ["x", "y", "x"],
        }
    )
    vectorizer = TableVectorizer().fit(df)
    # numbers as strings (e.g. read from CSV another way) are read again
    as_text = df.assign(a=["1", "2,000", "3"], d=["2020-01-01", "2021-01-01", None])
    out = vectorizer.transform(as_text)
    assert out[:, 0].tolist() == [1.0, 2000.0, 3.0]
    assert out[1, 1] == 2021
    with pytest.warns(UserWarning, match="Column 'a' was read as numbers.*'oops'"):
        out = vectorizer.transform(as_text.assign(a=["1", "oops", "3"]))
    assert np.isnan(out[1, 0])
    with pytest.raises(TypeError, match="Column 'a' was numeric at fit"):
        vectorizer.transform(df.assign(a=df["d"]))
    with pytest.raises(TypeError, match="Column 'd' was datetime at fit"):
        vectorizer.transform(df.assign(d=[1.0, 2.0, 3.0]))
    # a string column that turns numeric is read as text: 1 is not a category
    np.testing.assert_array_equal(
        vectorizer.transform(df.assign(s=[1, 2, 1]))[:, -2:], np.zeros((3, 2))
    )


def test_mixed_type_object_columns():
    df = pd.DataFrame(
        {
            "m": pd.Series([1, "a", 2.5, None, "a", 1], dtype=object),
            "n": pd.Series([1, "2,000", 3.5, None, 4, 5], dtype=object),
        }
    )
    vectorizer = TableVectorizer().fit(df)
    assert vectorizer.column_kinds_ == {"m": "low_cardinality", "n": "numeric"}
    # two of its three values are numbers: they are kept as numbers too
    assert vectorizer.input_to_outputs_["m"] == ["m_1", "m_2.5", "m_a", "m_number"]
    assert "read as text" in vectorizer.describe()["reason"][0]
    out = vectorizer.transform(df)
    np.testing.assert_array_equal(out[:, 0], [1, 0, 0, 0, 0, 1])
    np.testing.assert_array_equal(out[:, 3], [1, np.nan, 2.5, np.nan, np.nan, 1])
    np.testing.assert_array_equal(out[:, 4], [1, 2000, 3.5, np.nan, 4, 5])


def test_duplicate_and_non_string_column_names():
    duplicated = pd.DataFrame([[1, 2], [3, 4]], columns=["a", "a"])
    with pytest.raises(ValueError, match=r"unique column names; \['a'\]"):
        TableVectorizer().fit(duplicated)
    clash = pd.DataFrame([[1, 2], [3, 4]], columns=[1, "1"])
    with pytest.raises(ValueError, match="after conversion to str"):
        TableVectorizer().fit(clash)
    numbered = pd.DataFrame({0: [1.0, 2.0], 1: ["a", "b"]})
    vectorizer = TableVectorizer().fit(numbered)
    assert not hasattr(vectorizer, "feature_names_in_")
    assert vectorizer.column_kinds_ == {"0": "numeric", "1": "low_cardinality"}
    assert vectorizer.get_feature_names_out().tolist() == ["0", "1_a", "1_b"]
    with pytest.raises(ValueError, match="yet now missing"):
        vectorizer.transform(numbered.rename(columns={1: 2}))


def test_generated_output_names_never_repeat_a_users_column_name():
    # min-hash writes city_0, city_1, ...; one-hot writes low_a, ...: a numeric
    # column already named city_0 or low_a keeps its name, the generated output
    # takes the first free suffix; names no other output has stay as they are
    rng = np.random.default_rng(0)
    n = 200
    frame = pd.DataFrame(
        {
            "city": [f"city {i % 40}" for i in range(n)],
            "city_0": rng.normal(size=n),
            "city_0_2": rng.normal(size=n),
            "low": rng.choice(["a", "b"], n),
            "low_a": rng.normal(size=n),
        }
    )
    vectorizer = TableVectorizer().fit(frame)
    names = vectorizer.get_feature_names_out().tolist()
    assert len(set(names)) == len(names)
    outputs = vectorizer.input_to_outputs_
    assert outputs["city"][:3] == ["city_0_3", "city_1", "city_2"]
    assert outputs["city_0"] == ["city_0"] and outputs["city_0_2"] == ["city_0_2"]
    assert outputs["low"] == ["low_a_2", "low_b"] and outputs["low_a"] == ["low_a"]
    # the renamed outputs hold the encoder's values, the users' their own
    out = vectorizer.transform(frame)
    minhash = vectorizer.transformers_["city"].transform(frame[["city"]])
    np.testing.assert_array_equal(out[:, names.index("city_0_3")], minhash[:, 0])
    users = frame[["city_0", "low_a"]].to_numpy(np.float32)
    np.testing.assert_array_equal(out[:, names.index("city_0")], users[:, 0])
    np.testing.assert_array_equal(out[:, names.index("low_a_2")], frame["low"] == "a")
    np.testing.assert_array_equal(out[:, names.index("low_a")], users[:, 1])
    # with pandas output, a model that needs unique names fits after it
    pipeline = make_pipeline(
        TableVectorizer().set_output(transform="pandas"),
        XGBRegressor(n_estimators=3, n_jobs=1),
    )
    pipeline.fit(frame, rng.normal(size=n))
    assert pipeline[-1].get_booster().feature_names == names


def test_empty_frames():
    with pytest.raises(ValueError, match="0 sample"):
        TableVectorizer().fit(pd.DataFrame({"a": pd.Series([], dtype=float)}))
    with pytest.raises(ValueError, match="0 feature"):
        TableVectorizer().fit(pd.DataFrame(index=range(3)))
    vectorizer = TableVectorizer().fit(pd.DataFrame({"a": [1.0, 2.0], "s": ["x", "y"]}))
    empty = {"a": pd.Series([], dtype=float), "s": pd.Series([], dtype=str)}
    out = vectorizer.transform(pd.DataFrame(empty))
    assert out.shape == (0, 3)


def test_single_row():
    one = pd.DataFrame({"a": [1.0], "s": ["x"], "d": ["2020-01-01"]})
    vectorizer = TableVectorizer().fit(one)
    # one row says nothing about constancy: columns are kept
    assert vectorizer.column_kinds_ == {
        "a": "numeric", "s": "low_cardinality", "d": "datetime",
    }  # fmt: skip
    assert vectorizer.transform(one).shape == (1, 7)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_no_column_is_dropped_when_every_column_would_be(n_jobs):
    # a model after the vectorizer needs a column (XGBoost fails with none);
    # within a fold's rows every column may be constant; both passes over the
    # columns run on the vectorizer's threads
    df = pd.DataFrame({"a": [1, 1, 1], "b": [None] * 3})
    vectorizer = TableVectorizer(n_jobs=n_jobs)
    out = vectorizer.fit_transform(df)
    expected = TableVectorizer(drop_constant=False, drop_missing=False)
    np.testing.assert_array_equal(out, expected.fit_transform(df))
    assert out.shape == (3, 2)
    assert vectorizer.column_kinds_ == expected.column_kinds_
    reasons = vectorizer.describe()["reason"]
    assert reasons.iloc[0].startswith("constant: single value")
    assert "kept, as every column would be dropped" in reasons.iloc[0]
    # with one column left, the constant and the empty ones are dropped as usual
    df["c"] = [1.0, 2.0, 3.0]
    assert TableVectorizer().fit(df).column_kinds_ == {
        "a": "dropped", "b": "dropped", "c": "numeric",
    }  # fmt: skip


def test_transform_does_not_mutate():
    import pickle

    df = _messy_frame()
    vectorizer = TableVectorizer().fit(df)
    before = pickle.dumps(vectorizer)
    vectorizer.transform(df.head(7))
    assert pickle.dumps(vectorizer) == before


@pytest.mark.slow  # starting a spawned interpreter takes ~2 s
def test_deterministic_across_processes():
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    df = _messy_frame(50)
    expected = TableVectorizer().fit_transform(df)
    # a child that dies fails the test (multiprocessing.Pool would hang)
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=context) as pool:
        got = pool.submit(_encode_in_child, df).result(timeout=600)
    assert got == expected.tobytes()


def _encode_in_child(df):
    from autocat import TableVectorizer

    return TableVectorizer().fit_transform(df).tobytes()


def test_million_rows():
    n = 1_000_000
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "x": rng.normal(size=n),
            "c": pd.Series(rng.choice(["a", "b", "c", "d"], n), dtype="category"),
            "d": pd.Series(rng.integers(0, 365, n) * 86_400 * 10**9).astype(
                "datetime64[ns]"
            ),
        }
    )
    vectorizer = TableVectorizer()
    out = vectorizer.fit_transform(df)
    assert out.shape == (n, 1 + 4 + 5)
    np.testing.assert_array_equal(out[:, 0], df["x"].to_numpy(np.float32))
    np.testing.assert_array_equal(out[:, 1:5].sum(axis=1), np.ones(n))


def test_describe_needs_fit():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        TableVectorizer().describe()


def test_polars_categorical_nulls_and_time_zones():
    pl = pytest.importorskip("polars")
    pandas_frame = pd.DataFrame(
        {
            "cat": pd.Series(["x", None, "y", "x"], dtype="category"),
            "n": pd.array([1, None, 3, 4], dtype="Int64"),
            "b": pd.array([True, None, False, True], dtype="boolean"),
            "t": pd.to_datetime(
                ["2020-01-01 10:00", None, "2021-05-03 12:30", "2022-01-01 00:00"]
            )
            .tz_localize("UTC")
            .tz_convert("America/New_York"),
        }
    )
    polars_frame = pl.from_pandas(pandas_frame)
    assert polars_frame["cat"].dtype == pl.Categorical
    expected = TableVectorizer().fit_transform(pandas_frame)
    vectorizer = TableVectorizer()
    np.testing.assert_array_equal(vectorizer.fit_transform(polars_frame), expected)
    assert vectorizer.column_kinds_ == {
        "cat": "low_cardinality", "n": "numeric", "b": "boolean", "t": "datetime",
    }  # fmt: skip
    names = vectorizer.get_feature_names_out().tolist()
    # components of time-zone aware values are those of UTC
    assert expected[0, names.index("t_hour")] == 10


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(st.none(), st.floats(-1e6, 1e6)),
            st.one_of(st.none(), st.sampled_from(["a", "b", "c", " 7 ", "1,000"])),
            st.one_of(st.none(), st.text(alphabet="xyz01 ", max_size=6)),
        ),
        min_size=1,
        max_size=60,
    )
)
def test_properties_on_random_tables(rows):
    df = pd.DataFrame(rows, columns=["f", "s", "t"]).astype({"s": object, "t": object})
    vectorizer = TableVectorizer(cardinality_threshold=5, n_components=4)
    out = vectorizer.fit_transform(df)
    assert out.dtype == np.float32
    assert out.shape == (len(df), len(vectorizer.get_feature_names_out()))
    assert set(vectorizer.column_kinds_.values()) <= set(KINDS)
    np.testing.assert_array_equal(out, vectorizer.transform(df))
    # rows are encoded independently once the decisions are made
    half = df.iloc[::2]
    np.testing.assert_array_equal(vectorizer.transform(half), out[::2])
    assert not np.isinf(out).any()


def test_object_columns_of_python_dates_and_times():
    import datetime as dt

    df = pd.DataFrame(
        {
            "d": pd.Series(
                [
                    dt.datetime(2020, 1, 2, 10, 30),
                    dt.date(2021, 3, 4),
                    None,
                    pd.Timestamp("2022-05-06 00:00", tz="Europe/Paris"),
                ],
                dtype=object,
            ),
            "t": pd.Series(
                [dt.time(21, 37), dt.time(8, 5, 10, 500_000), None, dt.time(0, 0)],
                dtype=object,
            ),
        }
    )
    vectorizer = TableVectorizer()
    out = pd.DataFrame(
        vectorizer.fit_transform(df), columns=vectorizer.get_feature_names_out()
    )
    assert vectorizer.column_kinds_ == {"d": "datetime", "t": "datetime"}
    assert out["d_year"].tolist()[:2] == [2020, 2021]
    assert out["d_hour"].tolist()[3] == 22  # midnight in Paris is 22:00 UTC
    np.testing.assert_array_equal(out["t_time_of_day"], [77820, 29110.5, np.nan, 0])


def test_strict_user_encoder_sees_missing_values_only_when_there_are_some():
    strict = OneHotEncoder(sparse_output=False)  # handle_unknown="error"
    vectorizer = TableVectorizer(low_cardinality=strict)
    clean = pd.DataFrame({"c": ["a", "b", "a"]})
    np.testing.assert_array_equal(
        vectorizer.fit_transform(clean), [[1, 0], [0, 1], [1, 0]]
    )
    with pytest.raises(ValueError, match="unknown categories"):
        vectorizer.transform(pd.DataFrame({"c": ["a", None, "zzz"]}))


def test_pickle_round_trip():
    import pickle

    df = _messy_frame()
    vectorizer = TableVectorizer().fit(df)
    restored = pickle.loads(pickle.dumps(vectorizer))
    assert restored.column_kinds_ == vectorizer.column_kinds_
    assert restored.describe().equals(vectorizer.describe())
    np.testing.assert_array_equal(restored.transform(df), vectorizer.transform(df))


def test_codes_that_look_like_exponents_stay_strings():
    frame = pd.DataFrame({"code": ["E250", "E150", "12"]})
    vectorizer = TableVectorizer().fit(frame)
    assert vectorizer.column_kinds_["code"] == "low_cardinality"


def test_n_jobs_splits_rows_and_gives_the_same_bytes(monkeypatch):
    import autocat._factorize
    import autocat._table_vectorizer

    # two columns, four threads: each column's rows are split in chunks
    monkeypatch.setattr(autocat._factorize, "_MIN_ROWS_PER_THREAD", 16)
    monkeypatch.setattr(autocat._table_vectorizer, "_MIN_ROWS_PER_CHUNK", 16)
    rng = np.random.default_rng(0)
    n = 1_000
    frame = pd.DataFrame(
        {
            "city": [f"town {i}" for i in rng.integers(0, 80, n)],
            "x": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n)),
            "when": pd.to_datetime("2020-01-01")
            + pd.to_timedelta(rng.integers(0, 900, n), unit="D"),
        }
    )
    serial = TableVectorizer().fit(frame)
    expected = serial.transform(frame)
    for n_jobs in (2, 4):
        out = TableVectorizer(n_jobs=n_jobs).fit(frame).transform(frame)
        assert out.tobytes() == expected.tobytes()


def _check_column_equals_encoder(encoder, vectorizer, train, test, column, missing_at):
    """The vectorizer's outputs of ``column`` equal ``encoder``'s own, fit and
    transform, and the row of a missing value follows ``handle_missing``."""
    fitted = vectorizer.fit_transform(train)
    columns = [
        i
        for i, name in enumerate(vectorizer.get_feature_names_out())
        if name.startswith(f"{column}_")
    ]
    assert len(columns) == encoder.n_components
    missing_row = fitted[missing_at, columns]
    if encoder.handle_missing == "nan":
        assert np.isnan(missing_row).all()
    else:
        assert (missing_row == 0).all()
    reference = clone(encoder).fit(train[[column]])
    np.testing.assert_array_equal(
        fitted[:, columns], reference.transform(train[[column]])
    )
    np.testing.assert_array_equal(
        vectorizer.transform(test)[:, columns], reference.transform(test[[column]])
    )
    return vectorizer, reference


@pytest.mark.parametrize("handle_missing", ["zero", "nan"])
def test_min_hash_columns_equal_the_encoder_on_the_column(handle_missing):
    # the vectorizer hashes a column's distinct values itself (no second
    # factorisation): its output must stay the encoder's, bit for bit
    values = [f"Job Title {i % 45}" for i in range(90)]
    values[:6] = ["", "   ", "Straße Ωμέγα", None, "  job   TITLE 1 ", "東京 office"]
    train = pd.DataFrame({"title": values, "n": np.arange(90.0)})
    test = pd.DataFrame(
        {"title": ["unseen title", None, "", "job title 3", "Ωμέγα"], "n": 1.0}
    )
    encoder = MinHashEncoder(n_components=6, handle_missing=handle_missing)
    vectorizer, _ = _check_column_equals_encoder(
        encoder, TableVectorizer(high_cardinality=encoder), train, test, "title", 3
    )
    assert vectorizer.column_kinds_["title"] == "high_cardinality"


@pytest.mark.parametrize("handle_missing", ["zero", "nan"])
def test_text_columns_equal_the_encoder_on_the_column(handle_missing):
    # the vectorizer fits a TextEncoder on the distinct values it has already
    # counted (one pass of term counting): same fit and output as the encoder's
    rng = np.random.default_rng(0)
    letters = list("abcdefghijklmnopqrstuvwxyzéß")
    words = ["".join(rng.choice(letters, 5)) for _ in range(60)] + ["Straße", "東京"]
    values = [" ".join(rng.choice(words, 3)) for _ in range(200)]
    values[:4] = [None, "", "   ", "nurse, night shift (part time)"]
    train = pd.DataFrame({"notes": values, "n": np.arange(200.0)})
    test = pd.DataFrame({"notes": ["unseen words here", None, "data nurse"], "n": 1.0})
    encoder = TextEncoder(n_components=5, handle_missing=handle_missing, random_state=3)
    vectorizer, reference = _check_column_equals_encoder(
        encoder,
        TableVectorizer(high_cardinality=encoder, cardinality_threshold=10),
        train,
        test,
        "notes",
        0,
    )
    fitted_encoder = vectorizer.transformers_["notes"]
    assert isinstance(fitted_encoder, TextEncoder)
    assert fitted_encoder.vocabulary_sizes_ == reference.vocabulary_sizes_


@pytest.mark.parametrize(
    "params, message",
    [
        ({"n_components": 0}, "'n_components' parameter of TextEncoder"),
        ({"analyzer": "bad"}, "'analyzer' parameter of TextEncoder"),
    ],
)
def test_an_invalid_text_encoder_is_reported_by_its_own_name(params, message):
    df = pd.DataFrame({"notes": [f"word{i} other{i % 7} thing" for i in range(100)]})
    # the column is read as high-cardinality or as text: both get the encoder
    vectorizer = TableVectorizer(
        text=TextEncoder(**params), high_cardinality=TextEncoder(**params)
    )
    with pytest.raises(ValueError, match=message):
        vectorizer.fit(df)


@pytest.mark.parametrize("unit", ["s", "ms", "ns"])
def test_gathered_dates_keep_their_unit_and_missing_rows_are_nat(unit):
    # NumPy 2.5 deprecates a NaT without a unit; the suite turns warnings into errors
    uniques = np.array(["2020-01-01", "2021-06-30"], dtype=f"datetime64[{unit}]")
    rows = gather(uniques, np.array([1, -1, 0]))
    assert rows.dtype == uniques.dtype
    assert rows[0] == uniques[1] and np.isnat(rows[1]) and rows[2] == uniques[0]


def test_a_complex_column_is_refused_with_what_to_do_before_any_work():
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0], "c": np.array([1 + 2j, 3j, 1.0])})
    fix = r"column 'c' is complex128\. Split it .*\.real and \.imag"
    with pytest.raises(ValueError, match=fix):
        TableVectorizer().fit(df)
    with pytest.raises(ValueError, match=r"array of complex128\. Pass real numbers"):
        TableVectorizer().fit(df.to_numpy())
