from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest

from autocat._column_kinds import (
    KINDS,
    as_numbers,
    decide,
    detect_date_format,
    detect_time_format,
    identifier_reason,
    index_reason,
    leading_zero_code,
    number_code,
    number_tokens,
    parse_dates,
    parse_numbers,
    parse_times,
    stringify,
)
from autocat._leaks import neighbour_score
from autocat._parsing import DECIMAL_COMMA


def _obj(*values):
    return np.array(values, dtype=object)


def test_kind_names_are_the_public_contract():
    assert KINDS == (
        "numeric",
        "boolean",
        "datetime",
        "low_cardinality",
        "high_cardinality",
        "text",
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
        ["3-1-0", "10-2-11", "1-1-1"],  # dashed triples without a time: codes
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


@pytest.mark.parametrize("token", ["", " ", "n/a", "-", "NULL", "?"])
def test_missing_tokens_leave_dates_and_times_dates_and_times(token):
    dates = _obj("2020-03-01", token, "2021-12-31", "2019-07-04")
    assert detect_date_format(dates) == ("ISO8601", "")
    assert decide("string", dates, 0, 4).kind == "datetime"
    assert np.isnat(parse_dates(dates, "ISO8601")).tolist() == [0, 1, 0, 0]
    times = _obj("21:37", token, "08:05")
    assert detect_time_format(times) == "%H:%M"
    assert decide("string", times, 0, 3).conversion == "time"
    # a token is no date on its own, and other words still break the format
    assert detect_date_format(_obj(token, "-")) is None
    assert detect_date_format(_obj("2020-03-01", "soon")) is None
    assert detect_time_format(_obj("21:37", "late")) is None


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


# ---------------------------------------------------------------- dirty numbers


def _ages(*tokens):
    return _obj(*[str(a) for a in range(20, 90)], *tokens)


@pytest.mark.parametrize("token", ["unknown", ">90", "n/a?", "see notes"])
def test_numbers_with_a_stray_token_are_numeric_with_the_token_named(token):
    decision = decide("string", _ages(token), 0, 200)
    assert decision.kind == "numeric"
    assert decision.conversion == "number"
    assert decision.tokens == (token,)
    assert repr(token) in decision.reason
    assert "missing indicator" in decision.reason


def test_token_rule_counts_distinct_values():
    # 10 distinct values allow 1 token (10%); 9 allow none
    ten = _obj(*[str(i) for i in range(1, 10)], "unknown")
    assert number_tokens(ten) == ("unknown",)
    assert number_tokens(ten[1:]) is None
    # at most 5 tokens, however many numbers
    many = _obj(*[str(i) for i in range(1000)], *[f"t{i}" for i in range(6)])
    assert number_tokens(many) is None
    assert number_tokens(many[:-1]) == tuple(f"t{i}" for i in range(5))
    assert number_tokens(_obj("1", "2")) == ()
    assert number_tokens(_obj("NA", "?")) is None  # no number at all


def test_missing_tokens_are_not_stray_tokens():
    assert decide("string", _ages("NA", "null", "-"), 0, 100).tokens == ()


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("$1,234.50", 1234.5),
        ("-$12", -12.0),
        ("$-12", -12.0),
        ("€12", 12.0),
        ("12 €", 12.0),
        ("£3.5", 3.5),
        ("(1,234)", -1234.0),
        ("($5.25)", -5.25),
        ("12.3%", 12.3),
        ("-0.5%", -0.5),
        ("1,000,000", 1e6),
    ],
)
def test_money_percentages_and_thousands_read_as_numbers(text, number):
    numbers, ok = parse_numbers(_obj(text))
    assert ok.all()
    assert numbers[0] == number


@pytest.mark.parametrize(
    ("text", "number"),
    [("94,71", 94.71), ("1.264,03", 1264.03), ("-3,5", -3.5), ("12,5 %", 12.5),
     ("€ 1.000,00", 1000.0), ("7", 7.0), ("1.234.567", 1234567.0)],
)  # fmt: skip
def test_decimal_comma_numbers_read_with_their_format(text, number):
    numbers, ok = parse_numbers(_obj(text), DECIMAL_COMMA)
    assert ok.all() and numbers[0] == pytest.approx(number)


@pytest.mark.parametrize("text", ["12.5", "1,2,3", "1.23,4", ",5", "1.2345,6"])
def test_decimal_comma_format_refuses_other_dots_and_commas(text):
    assert not parse_numbers(_obj(text), DECIMAL_COMMA)[1].any()


def test_a_column_written_with_decimal_commas_is_numeric():
    # as a European CSV (";" separated) writes it; the usual reading takes a
    # comma for a thousands separator, so "94,71" was a string
    values = _obj("94,71", "1.264,03", "7", "12,5")
    decision = decide("string", values, 0, 4)
    assert (decision.kind, decision.fmt) == ("numeric", DECIMAL_COMMA)
    assert "decimal comma" in decision.reason
    # one value that is not written so ("12.5") keeps the column as text
    assert decide("string", _obj("94,71", "12.5", "7"), 0, 3).kind != "numeric"
    # groups of three after the comma read as thousands, as before
    assert decide("string", _obj("1,264", "2,500"), 0, 2).fmt is None
    np.testing.assert_allclose(as_numbers(values), [94.71, 1264.03, 7, 12.5])


def test_decimal_values_are_numbers():
    values = _obj(Decimal("1.10"), Decimal("2.25"), Decimal("NaN"))
    numbers, ok = parse_numbers(values)
    assert ok.all()
    np.testing.assert_array_equal(numbers, [1.1, 2.25, np.nan])
    assert decide("object", values[:2], 0, 2).kind == "numeric"


@pytest.mark.parametrize(
    "codes",
    [("02134", "2134", "90210"), ("0123", "123", "00123"), ("007", "42", "12")],
)
def test_codes_with_leading_zeros_stay_text(codes):
    decision = decide("string", _obj(*codes), 0, 3)
    assert decision.kind == "low_cardinality"
    assert decision.conversion == "text"
    assert "leading zeros" in decision.reason


def test_leading_zero_rule():
    assert leading_zero_code(_obj("12", " 0012 ")) == " 0012 "
    assert leading_zero_code(_obj("0", "0.5", "-0.25", "10", 7)) is None


def test_a_token_of_digits_and_letters_makes_numbers_codes():
    # Galton's families are "1" to "204" and "136A": read as numbers, the
    # order of the families meant nothing and "136A" was lost as missing.
    families = _obj(*[str(i) for i in range(1, 205)], "136A")
    decision = decide("string", families, 0, 898)
    assert decision.kind == "high_cardinality"
    assert decision.conversion == "text"
    assert decision.reason.startswith(
        "codes of digits and letters (e.g. '136A') read as text and as numbers; "
    )
    assert decision.as_number
    # missing markers have no digit, and a digit alone is no code
    ages = _obj(*[str(i) for i in range(20, 80)], "unknown", "n/a")
    assert decide("string", ages, 0, 100).kind == "numeric"
    assert number_code(ages, ("unknown", "n/a")) is None
    assert number_code(_obj(*[str(i) for i in range(60)], "90+"), ("90+",)) is None
    assert number_code(_obj("1", "2", "B1"), ("B1",)) == "B1"


def test_a_target_with_a_code_token_is_not_read_as_numbers():
    from autocat._target import tokens_as_missing

    flats = _obj(*[str(v) for v in range(1, 41)], "12b")
    assert tokens_as_missing(flats, "flat", "auto") is flats
    numbers = _obj(*[str(v) for v in range(1, 41)], "unknown")
    assert np.isnan(tokens_as_missing(numbers, "price", "auto")[-1])


# ----------------------------------------------------- indexes and identifiers


def test_index_rules():
    shuffled = np.random.default_rng(0).permutation(100).astype(float)
    assert "0..99" in index_reason("x", shuffled, 0, 100)
    assert "saved row index" in index_reason(
        "Unnamed: 0", np.arange(0, 300, 3.0), 0, 100
    )
    increasing = np.cumsum(np.arange(1, 101)).astype(float)
    assert "increasing" in index_reason("id", increasing, 0, 100)
    # no rule: too few rows, a missing value, repeats, fractions, no order
    assert index_reason("id", np.arange(49.0), 0, 49) is None
    assert index_reason("id", np.arange(100.0), 1, 101) is None
    assert index_reason("id", np.arange(99.0), 0, 100) is None
    assert index_reason("id", np.arange(100.0) + 0.5, 0, 100) is None
    assert index_reason("id", increasing[::-1].copy(), 0, 100) is None


def test_index_columns_are_dropped_unless_asked():
    decision = decide("numeric", np.arange(100.0), 0, 100, name="Unnamed: 0")
    assert decision.kind == "dropped"
    assert decision.reason.startswith("index-like")
    kept = decide("numeric", np.arange(100.0), 0, 100, drop_identifiers=False)
    assert kept.kind == "numeric"
    # an index saved as text is read as numbers, then found
    as_text = _obj(*[str(i) for i in range(100)])
    assert decide("string", as_text, 0, 100).kind == "dropped"


def test_identifier_rules():
    ids = _obj(*[f"C{i:06d}-{i % 7}" for i in range(100)])
    assert decide("string", ids, 0, 100).kind == "dropped"
    assert "identifier-like" in decide("string", ids, 0, 100).reason
    # 95%: 95 distinct values in 100 rows are near-unique, 94 are not
    assert identifier_reason(ids[:95], 5, 105) is not None
    assert identifier_reason(ids[:94], 0, 100) is None
    # free text (spaces) is kept, and so is anything under 50 rows
    text = _obj(*[f"a long note {i}" for i in range(100)])
    assert decide("string", text, 0, 100).kind == "high_cardinality"
    assert identifier_reason(ids[:49], 0, 49) is None
    assert decide("string", ids, 0, 100, drop_identifiers=False).kind == (
        "high_cardinality"
    )


# ------------------------------------------------------------ neighbour score


def test_neighbour_score_regression():
    rng = np.random.default_rng(0)
    x = rng.normal(size=2000)
    assert neighbour_score(x, 3 * x + 1, classification=False) > 0.99
    # half the variance explained: far from the threshold
    noisy = x + rng.normal(size=2000)
    assert 0.3 < neighbour_score(x, noisy, classification=False) < 0.7
    assert abs(neighbour_score(x, rng.normal(size=2000), classification=False)) < 0.1
    assert neighbour_score(x, np.ones(2000), classification=False) == 0.0


def test_neighbour_score_classes_and_ties():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 3000)
    assert neighbour_score(y.astype(float), y, classification=True) > 0.99
    assert abs(neighbour_score(rng.normal(size=3000), y, classification=True)) < 0.1
    # ties are shuffled: a constant column says nothing even on sorted rows
    assert abs(neighbour_score(np.zeros(3000), np.sort(y), classification=True)) < 0.1
    x = np.where(rng.random(3000) < 0.5, np.nan, y.astype(float))
    assert neighbour_score(x, y, classification=True) > 0.99  # NaN rows skipped


@pytest.mark.parametrize("n_values", [3, 50, 10_000])
def test_neighbour_score_orders_ties_as_a_seeded_lexsort(n_values):
    # The reference: rows sorted by x, ties by a seeded random rank, in one
    # np.lexsort; the score is then the documented formula.
    rng = np.random.default_rng(n_values)
    x = rng.integers(0, n_values, 3000).astype(float)
    x[:40] = np.nan
    y = x + rng.normal(scale=n_values / 4, size=3000)
    keep = ~np.isnan(x)
    xs, ys = x[keep], y[keep]
    ranks = np.random.default_rng(0).permutation(len(xs))
    order = np.lexsort((ranks, xs))
    ordered = ys[order]
    spread = ((ys - ys.mean()) ** 2).sum()
    expected = 1 - (np.diff(ordered) ** 2).sum() / (2 * spread)
    assert neighbour_score(x, y, classification=False) == pytest.approx(expected)
    codes = (y > np.nanmedian(y)).astype(int)
    neighbours = codes[keep][order]
    agree = (neighbours[1:] == neighbours[:-1]).mean()
    shares = np.bincount(codes[keep]) / keep.sum()
    chance = (shares**2).sum()
    assert neighbour_score(x, codes, classification=True) == pytest.approx(
        (agree - chance) / (1 - chance)
    )


# ------------------------------------------------------------ more date forms


@pytest.mark.parametrize(
    ("values", "fmt", "first"),
    [
        (("10/31/2001 05:00 PM", "01/02/2003 11:30 AM"), "%m/%d/%Y %I:%M %p",
         "2001-10-31T17:00"),
        (("2020/03/01 10:00", "2021/12/31 23:59"), "%Y/%m/%d %H:%M",
         "2020-03-01T10:00"),
        (("01.03.2020 10:00", "31.12.2021 08:15"), "%d.%m.%Y %H:%M",
         "2020-03-01T10:00"),
        # a spreadsheet export: day first (20 is no month), two-digit year
        (("20-10-10 8:32", "05-10-10 22:10", "03-09-09 22:35"), "%d-%m-%y %H:%M",
         "2010-10-20T08:32"),
        (("10-31-2001 17:00:05", "01-02-2003 11:30:00"), "%m-%d-%Y %H:%M:%S",
         "2001-10-31T17:00:05"),
        (("Sun, 01 Mar 2020 10:00:00 +0100", "Tue, 31 Dec 2019 23:00:00 -0000"),
         "%a, %d %b %Y %H:%M:%S %z", "2020-03-01T09:00"),
        (("Mar 2020", "Dec 2021"), "%b %Y", "2020-03-01T00:00"),
        # ISO 8601's basic form, as house-sale and API exports write it
        (("20141013T000000", "20150227T000000"), "%Y%m%dT%H%M%S",
         "2014-10-13T00:00"),
        (("20200301T100501Z", "20211231T235959Z"), "%Y%m%dT%H%M%SZ",
         "2020-03-01T10:05:01"),
        (("20200301T1005", "20211231T2359"), "%Y%m%dT%H%M", "2020-03-01T10:05"),
        (("2020-03-01 10:05:00 UTC", "2021-12-31 23:59:59 UTC"),
         "%Y-%m-%d %H:%M:%S UTC", "2020-03-01T10:05"),
        (("Sun Mar 01 10:05:00 +0100 2020", "Fri Dec 31 23:59:59 +0000 2021"),
         "%a %b %d %H:%M:%S %z %Y", "2020-03-01T09:05"),
        (("Sun Mar 01 10:05:00 2020", "Fri Dec 31 23:59:59 2021"),
         "%a %b %d %H:%M:%S %Y", "2020-03-01T10:05"),
        (("Sunday, March 01, 2020", "Friday, December 31, 2021"), "%A, %B %d, %Y",
         "2020-03-01T00:00"),
        (("Mar 01, 2020 10:05 AM", "Dec 31, 2021 11:59 PM"), "%b %d, %Y %I:%M %p",
         "2020-03-01T10:05"),
        (("2020.03.01", "2021.12.31"), "%Y.%m.%d", "2020-03-01T00:00"),
        # a spreadsheet's timestamps: month first, a two-digit year, a time
        (("8/6/20 18:57", "7/31/20 16:50", "3/11/21 10:28"), "%m/%d/%y %H:%M",
         "2020-08-06T18:57"),
        (("31/7/20 16:50:02", "11/3/21 10:28:00"), "%d/%m/%y %H:%M:%S",
         "2020-07-31T16:50:02"),
        (("1960 Jan", "1960 Feb", "2001 Dec"), "%Y %b", "1960-01-01T00:00"),
        # quarters, as economic series write them: the quarter's first day
        (("1998 Q1", "1998 Q2", "2001Q4"), "quarters", "1998-01-01T00:00"),
        (("Q3 2019", "Q1-2020"), "quarters", "2019-07-01T00:00"),
        # Postgres writes an offset of whole hours without minutes
        (("2020-03-01 10:05:00+01", "2021-12-31 23:59:59-05"), "ISO8601",
         "2020-03-01T09:05"),
        (("March 2020", "December 2021"), "%B %Y", "2020-03-01T00:00"),
    ],
)  # fmt: skip
def test_more_date_forms(values, fmt, first):
    found = detect_date_format(_obj(*values))
    assert found is not None and found[0] == fmt
    parsed = parse_dates(_obj(*values), fmt)
    assert parsed[0] == np.datetime64(first)
    assert decide("string", _obj(*values), 0, 2).kind == "datetime"


def test_dayfirst_and_given_format():
    values = _obj("01/02/2020", "03/04/2021")
    assert decide("string", values, 0, 2).fmt == "%m/%d/%Y"
    decision = decide("string", values, 0, 2, dayfirst=True)
    assert decision.fmt == "%d/%m/%Y"
    assert "day first" in decision.reason
    # unambiguous columns ignore dayfirst
    assert decide("string", _obj("12/31/2020"), 0, 1, dayfirst=True).fmt == ("%m/%d/%Y")
    given = decide("string", _obj("2020|03|01"), 0, 1, date_format="%Y|%m|%d")
    assert (given.kind, given.fmt, given.conversion) == (
        "datetime", "%Y|%m|%d", "date",
    )  # fmt: skip
    assert "given" in given.reason


# ----------------------------------------------------------- targets as text


def test_as_numbers_reads_text_targets():
    np.testing.assert_array_equal(
        as_numbers(_obj("100,235", "$1,234.50", None)), [100235.0, 1234.5, np.nan]
    )
    ints = as_numbers(_obj("1", "0", "1"))
    assert ints.dtype == np.int64
    assert as_numbers(_obj("High", "Low", "None")) is None
    assert as_numbers(_obj("02134", "2134")) is None  # codes are labels
    assert as_numbers(np.array([1.5, 2.5])) is None  # already numbers
    assert as_numbers(_obj("NA", None)) is None


def test_mostly_dates_are_kept_as_dates_only_where_most_values_are_dates():
    dates = [f"{m}/{d}/20{y}" for m in range(1, 13) for d in (3, 17) for y in (10, 11)]
    ranges = ["09/20/2011 - 10/28/2011", "unknown", "12/01/2010-11/21/2011"]
    decision = decide("string", _obj(*dates, *ranges), 0, 100)
    assert decision.kind == "high_cardinality" and decision.as_number
    assert decision.fmt == "%m/%d/%Y"
    assert decision.reason.startswith("48 of 51 distinct values are dates (%m/%d/%Y)")
    # day first when told; a minority of dates, codes and words are text only
    day_first = [f"{d}/{m}/2010" for d in (1, 2) for m in (3, 4)] + ["n.a. yet"]
    assert decide("string", _obj(*day_first), 0, 5, dayfirst=True).fmt == "%d/%m/%Y"
    minority = decide("string", _obj(*dates[:20], *[f"note {i}" for i in range(25)]),
                      0, 45)  # fmt: skip
    assert not minority.as_number and minority.fmt is None
    for text in ([f"A-{i:05d}" for i in range(60)], ["Bus Operator", "Clerk II"]):
        assert not decide("string", _obj(*text), 0, 60).as_number
    # near-unique time stamps are not identifiers, beside a few remarks
    stamps = [f"2020-03-{d:02d}T10:{m:02d}" for d in range(1, 29) for m in range(3)]
    kept = decide("string", _obj(*stamps, "n/k", "soon"), 0, 86)
    assert kept.kind == "high_cardinality" and kept.fmt == "ISO8601"
    assert not decide("string", _obj(*stamps, "n/k", "soon"), 0, 86,
                      parse_dates=False).as_number  # fmt: skip


def test_numbers_with_a_unit_are_numbers_or_text_with_numbers():
    minutes = decide("string", _obj("142 min", "95 min", "1,200 min", "88min."), 0, 4)
    assert (minutes.kind, minutes.conversion, minutes.fmt) == (
        "numeric", "number", "unit min",
    )  # fmt: skip
    assert minutes.reason == "numbers in 'min' read as numbers"
    numbers, ok = parse_numbers(_obj("142 min", "88 MIN", "120", "2 h", "n/a"),
                                "unit min")  # fmt: skip
    np.testing.assert_array_equal(numbers, [142.0, 88.0, 120.0, np.nan, np.nan])
    assert ok.tolist() == [True, True, True, False, True]
    assert decide("string", _obj("16 GB", "8GB", "4 gb"), 0, 3).fmt == "unit gb"
    assert decide("string", _obj("1990s", "2000s", "2010s"), 0, 3).kind == "numeric"
    # most values in one unit: text, and the numbers in that unit beside it
    mixed = decide(
        "string", _obj(*[f"{m} min" for m in range(40)], "2 h", "3 h"), 0, 42
    )
    assert mixed.kind == "high_cardinality" and mixed.as_number
    assert mixed.fmt == "unit min" and mixed.reason.startswith(
        "40 of 42 distinct values are numbers in 'min'"
    )
    # a minority, words with numbers, codes and row numbers with a suffix are not
    for text in (
        [*[f"{m} min" for m in range(10)], *[f"note {i}" for i in range(15)]],
        [f"Item {i}" for i in range(60)],
        [f"{i}x{i + 1}" for i in range(60)],
    ):
        decision = decide("string", _obj(*text), 0, 60)
        assert decision.kind != "numeric" and not decision.as_number
    assert decide("string", _obj(*[f"{i}A" for i in range(60)]), 0, 60).kind == (
        "dropped"
    )
    # a few codes among numbers are not numbers in a unit ("136A" among families
    # "1" to "204"; age bands "01", "23", "46", "7p")
    for codes in (("01", "23", "46", "7p"), ("1", "2", "136A", "3", "4")):
        assert decide("string", _obj(*codes), 0, 5).conversion == "text"
    unparsed = decide("string", _obj("16 GB", "8GB"), 0, 2, parse_numbers=False)
    assert unparsed.kind == "low_cardinality" and not unparsed.as_number
