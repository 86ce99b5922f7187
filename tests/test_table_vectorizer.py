from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.preprocessing import OneHotEncoder

from autocat import DatetimeEncoder, MinHashEncoder, TableVectorizer


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
