from __future__ import annotations

import numpy as np
import pytest

from autocat._column_kinds import (
    KINDS,
    decide,
    detect_date_format,
    detect_time_format,
    parse_dates,
    parse_numbers,
    parse_times,
    stringify,
)


def _obj(*values):
    return np.array(values, dtype=object)


def test_kind_names_are_the_public_contract():
    assert KINDS == (
        "numeric",
        "boolean",
        "datetime",
        "low_cardinality",
        "high_cardinality",
        "dropped",
    )


@pytest.mark.parametrize(
    ("family", "uniques", "n_missing", "kind"),
    [
        ("numeric", np.array([1.0, 2.0]), 0, "numeric"),
        ("boolean", np.array([0.0, 1.0]), 3, "boolean"),
        (
            "datetime",
            np.array(["2020-01-01", "2021-01-01"], "datetime64[ns]"),
            0,
            "datetime",
        ),
        ("time", np.array([1, 2], "datetime64[ns]"), 0, "datetime"),
        ("string", _obj("a", "b"), 0, "low_cardinality"),
        ("categorical", _obj(*[f"v{i}" for i in range(31)]), 0, "high_cardinality"),
        ("object", _obj(True, False), 0, "boolean"),
        ("object", _obj(1, 2.5), 0, "numeric"),
        ("string", _obj(), 10, "dropped"),
        ("numeric", np.array([4.0]), 0, "dropped"),
    ],
)
def test_decide_kind(family, uniques, n_missing, kind):
    assert decide(family, uniques, n_missing, 10).kind == kind


def test_constant_with_missing_values_is_kept():
    # missingness of an otherwise constant column is information
    decision = decide("string", _obj("yes"), 4, 10)
    assert decision.kind == "low_cardinality"
    assert decide("numeric", np.array([1.0]), 4, 10).kind == "numeric"


def test_single_row_is_not_called_constant():
    assert decide("numeric", np.array([1.0]), 0, 1).kind == "numeric"


def test_drop_rules_are_parameters():
    assert decide("string", _obj("a"), 0, 5, drop_constant=False).kind == (
        "low_cardinality"
    )
    decision = decide("string", _obj(), 5, 5, drop_missing=False)
    assert decision.kind == "numeric"
    assert decision.conversion == "number"


def test_threshold_boundary():
    thirty = _obj(*[f"v{i}" for i in range(30)])
    assert decide("string", thirty, 0, 50).kind == "low_cardinality"
    assert decide("string", thirty, 0, 50, cardinality_threshold=29).kind == (
        "high_cardinality"
    )


def test_categorical_numbers_stay_categories():
    decision = decide("categorical", _obj("1", "2", "3"), 0, 3)
    assert decision.kind == "low_cardinality"


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (["121,511", " 42 ", "3.5"], [121511.0, 42.0, 3.5]),
        (["-1e3", "+7", ".5"], [-1000.0, 7.0, 0.5]),
        (["1,234,567.25", "NA", "?"], [1234567.25, np.nan, np.nan]),
    ],
)
def test_parse_numbers(values, expected):
    numbers, ok = parse_numbers(_obj(*values))
    assert ok.all()
    np.testing.assert_array_equal(numbers, expected)


@pytest.mark.parametrize(
    "bad", ["3,5", "12,34", "1.2.3", "abc", "1 000", "$5%", "(-5)", "$$5", "(5"]
)
def test_parse_numbers_rejects(bad):
    _, ok = parse_numbers(_obj(bad))
    assert not ok.any()


def test_numbers_need_one_real_number():
    assert decide("string", _obj("NA", "?"), 0, 5).kind == "low_cardinality"


def test_numeric_strings_and_parse_flag():
    decision = decide("string", _obj("1", "2"), 0, 2)
    assert (decision.kind, decision.conversion) == ("numeric", "number")
    off = decide("string", _obj("1", "2"), 0, 2, parse_numbers=False)
    assert off.kind == "low_cardinality"


def test_mixed_object_numbers_and_numeric_strings():
    decision = decide("object", _obj(1, "2,000", 3.5), 0, 3)
    assert decision.kind == "numeric"


def test_mixed_object_is_read_as_text():
    decision = decide("object", _obj(1, "a", 2.5), 0, 3)
    assert decision.kind == "low_cardinality"
    assert decision.conversion == "text"
    assert "float, int, str" in decision.reason


@pytest.mark.parametrize(
    ("values", "fmt"),
    [
        (["2020-03-01", "2021-12-31"], "ISO8601"),
        (["2020-03-01T10:00:00Z", "2020-03-01 11:30:00+01:00"], "ISO8601"),
        (["09/12/1986", "10/31/2001"], "%m/%d/%Y"),
        (["31/12/1986", "10/01/2001"], "%d/%m/%Y"),
        (["31.12.1986", "10.01.2001"], "%d.%m.%Y"),
        (["12 Mar 2010", "1 Jan 2011"], "%d %b %Y"),
        (["Mar 12, 2010", "Jan 1, 2011"], "%b %d, %Y"),
    ],
)
def test_detect_date_format(values, fmt):
    found = detect_date_format(_obj(*values))
    assert found is not None
    assert found[0] == fmt
    assert not np.isnat(parse_dates(_obj(*values), fmt)).any()


def test_ambiguous_day_month_order_is_reported():
    fmt, note = detect_date_format(_obj("01/02/2003", "04/05/2006"))
    assert fmt == "%m/%d/%Y"
    assert "ambiguous" in note
    decision = decide("string", _obj("01/02/2003", "04/05/2006"), 0, 2)
    assert "ambiguous" in decision.reason


@pytest.mark.parametrize(
    "values",
    [
        ["09/12/1986", "1986-09-12"],  # two formats in one column
        ["09/12/1986", "not a date"],
        ["Police Officer", "Bus Operator"],
    ],
)
def test_inconsistent_or_non_dates_are_not_dates(values):
    assert detect_date_format(_obj(*values)) is None
    assert decide("string", _obj(*values), 0, 2).kind != "datetime"


def test_times_of_day():
    values = _obj("21:37:00", "08:05:10", "00:00:30")
    assert detect_time_format(values) == "%H:%M:%S"
    parsed = parse_times(values)
    assert parsed[0] == np.datetime64("1970-01-01T21:37:00", "ns")
    decision = decide("string", values, 0, 3)
    assert (decision.kind, decision.conversion) == ("datetime", "time")
    assert detect_time_format(_obj("9:30 PM", "10:15 AM")) == "%I:%M %p"
    assert detect_time_format(_obj("25:99", "10:15")) is None
    off = decide("string", values, 0, 3, parse_times=False)
    assert off.kind == "low_cardinality"


def test_dates_flag_off():
    values = _obj("2020-03-01", "2021-12-31")
    assert decide("string", values, 0, 2, parse_dates=False).kind == "low_cardinality"


def test_rules_check_every_value_not_only_a_sample():
    # six distinct tokens, all past the first 200 values: more than numbers allow
    values = [f"{i}" for i in range(500)] + [f"oops{i}" for i in range(6)]
    assert decide("string", _obj(*values), 0, 2000).kind == "high_cardinality"
    dates = [f"2020-01-{1 + i % 28:02d}" for i in range(300)] + ["2020-13-45"]
    assert detect_date_format(_obj(*dates)) is None


def test_stringify():
    assert stringify(_obj(1, "a", None, np.nan, 2.5)).tolist() == [
        "1", "a", None, None, "2.5",
    ]  # fmt: skip


def test_times_with_and_without_fractions_and_am_pm():
    values = _obj("21:37:00", "08:05:10.25", "7:05 pm", "12:00 AM")
    assert detect_time_format(values) == "%I:%M:%S.%f %p"
    seconds = parse_times(values).view("int64") / 1e9
    assert seconds.tolist() == [77820.0, 29110.25, 68700.0, 0.0]
    assert np.isnat(parse_times(_obj("13:00 PM", "24:00", "10:61", None))).all()


def test_object_columns_of_dates_and_times():
    import datetime as dt

    import pandas as pd

    dates = _obj(dt.datetime(2020, 1, 2, 10), dt.date(2021, 3, 4), pd.Timestamp("2022"))
    decision = decide("object", dates, 0, 3)
    assert (decision.kind, decision.conversion, decision.fmt) == (
        "datetime", "date", "ISO8601",
    )  # fmt: skip
    times = _obj(dt.time(21, 37), dt.time(8, 5, 10, 500))
    decision = decide("object", times, 0, 2)
    assert (decision.kind, decision.conversion) == ("datetime", "time")


@pytest.mark.parametrize(
    ("text", "is_number"),
    [
        ("12", True), ("1,234.5", True), ("3.", True), (".5", True), ("-1e5", True),
        ("E250", False), ("e5", False), (".", False), ("1,23", False), ("1.2.3", False),
    ],
)  # fmt: skip
def test_number_strings_need_a_mantissa(text, is_number):
    _, ok = parse_numbers(np.array([text], dtype=object))
    assert bool(ok[0]) is is_number
