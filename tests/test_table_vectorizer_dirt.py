"""TableVectorizer on dirty tables: the plan of a 34-column messy table, and one
regression test per way a real file used to lose information silently."""

from __future__ import annotations

import tracemalloc
import warnings
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest

from autocat import SuspiciousColumnWarning, TableVectorizer
from autocat._dataframe import column_values


def messy_table(n=200, seed=0):
    """34 columns, each dirty in its own way (the plan below says how)."""
    rng = np.random.default_rng(seed)

    def pick(pool):
        return [pool[i] for i in rng.integers(0, len(pool), n)]

    ages = rng.integers(20, 90, n).astype(str).astype(object)
    ages[rng.random(n) < 0.05] = "unknown"
    over = rng.integers(20, 90, n).astype(str).astype(object)
    over[rng.random(n) < 0.05] = ">90"
    dollars = [f"${v:,.2f}" for v in rng.uniform(10, 5000, n)]
    days = (
        np.datetime64("2001-01-01T00:00")
        + rng.integers(0, 5000, n) * np.timedelta64(1, "D")
        + rng.integers(0, 24 * 60, n) * np.timedelta64(1, "m")
    )
    stamps = pd.DatetimeIndex(days)
    lists = pick([[1, 2], [3], [], [1, 2, 3], ["a", "b"]])
    columns = {
        "age": ages,
        "age_capped": over,
        "price": dollars,
        "fee_eur": pick([f"€{v}" for v in range(5, 60)]),
        "rate": [f"{v:.1f}%" for v in rng.uniform(0, 40, n)],
        "balance": pick(
            [
                "(1,234)",
                "2,500",
                "(17)",
                "310",
                "4,100",
                "(950)",
                "12",
                "88",
                "1,000",
                "(3)",
                "77",
            ]
        ),
        "amount": pick([Decimal(f"{v}.25") for v in range(40)]),
        "salary": [f"{v:,}" for v in rng.integers(20_000, 200_000, n)],
        "zip": pick([f"{v:05d}" for v in rng.integers(1000, 99999, 25)]),
        "code": pick(["0123", "123", "00123", "0456", "456"]),
        "Unnamed: 0": np.arange(n),
        "order_id": np.cumsum(rng.integers(1, 5, n)) + 10_000,
        "uuid": [f"u-{rng.integers(0, 2**40):x}" for _ in range(n)],
        "comment": [
            f"call back {i} about the {pick(['red', 'blue'])[0]} parcel"
            for i in range(n)
        ],
        "pickup": stamps.strftime("%m/%d/%Y %I:%M %p"),
        "dropoff": stamps.strftime("%Y/%m/%d %H:%M"),
        "booked": stamps.strftime("%d.%m.%Y %H:%M"),
        "sent": stamps.strftime("%a, %d %b %Y %H:%M:%S +0000"),
        "period": stamps.strftime("%b %Y"),
        "created": stamps.strftime("%Y-%m-%d"),
        "opens": pick(["08:00", "09:30", "10:15", "21:37"]),
        "tags": lists,
        "attrs": pick([{"a": 1}, {"b": 2}, {}]),
        "vector": pick([np.array([1, 2]), np.array([3]), np.array([0.5, 1.5])]),
        "mixed": pick([1, 2, "two", "three", 4.5]),
        "is_member": pick([True, False]),
        "country_all": ["US"] * n,
        "nothing": [None] * n,
        "country": pick(["NA", "US", "FR", "DE", "None"]),
        "grade": pick(list("ABCDE")),
        "employer": pick([f"Employer {i}" for i in range(80)]),
        "height": rng.normal(170, 10, n),
        "children": rng.integers(0, 5, n),
        "score_text": pick(["1.5", "2", "n/a", "", "3.25", "4"]),
    }
    return pd.DataFrame(columns)


# (column, kind, n_outputs, reason): what describe() must say of messy_table()
EXPECTED_PLAN = [
    (
        "age",
        "numeric",
        2,
        "strings read as numbers; non-numeric value(s) 'unknown' read as "
        "missing, with a missing indicator",
    ),
    (
        "age_capped",
        "numeric",
        2,
        "strings read as numbers; non-numeric value(s) '>90' read as "
        "missing, with a missing indicator",
    ),
    ("price", "numeric", 1, "strings read as numbers"),
    ("fee_eur", "numeric", 1, "strings read as numbers"),
    ("rate", "numeric", 1, "strings read as numbers"),
    ("balance", "numeric", 1, "strings read as numbers"),
    ("amount", "numeric", 1, "object column of numbers"),
    ("salary", "numeric", 1, "strings read as numbers"),
    (
        "zip",
        "low_cardinality",
        26,
        "codes with leading zeros (e.g. '01315') read as text and as numbers; 25 "
        "distinct values <= 30",
    ),
    (
        "code",
        "low_cardinality",
        6,
        "codes with leading zeros (e.g. '0123') read as text and as numbers; 5 "
        "distinct values <= 30",
    ),
    (
        "Unnamed: 0",
        "dropped",
        0,
        "index-like: 'Unnamed: 0' holds 200 distinct integers, a saved row index",
    ),
    (
        "order_id",
        "dropped",
        0,
        "index-like: distinct integers increasing with the rows",
    ),
    (
        "uuid",
        "dropped",
        0,
        "identifier-like: 200 distinct values in 200 rows, codes (no spaces, "
        "few letters)",
    ),
    ("comment", "text", 30, "free text; 200 distinct values > 30"),
    ("pickup", "datetime", 7, "dates (%m/%d/%Y %I:%M %p)"),
    ("dropoff", "datetime", 7, "dates (%Y/%m/%d %H:%M)"),
    ("booked", "datetime", 7, "dates (%d.%m.%Y %H:%M)"),
    ("sent", "datetime", 7, "dates (%a, %d %b %Y %H:%M:%S %z)"),
    ("period", "datetime", 4, "dates (%b %Y); no weekday: a monthly or coarser series"),
    ("created", "datetime", 5, "dates (ISO8601)"),
    ("opens", "datetime", 3, "times of day (%H:%M)"),
    ("tags", "low_cardinality", 5, "5 distinct values <= 30"),
    ("attrs", "low_cardinality", 3, "3 distinct values <= 30"),
    ("vector", "low_cardinality", 3, "3 distinct values <= 30"),
    (
        "mixed",
        "low_cardinality",
        6,
        "values of types float, int, str read as text; 3 of 5 distinct values are "
        "numbers: read as text and as numbers; 5 distinct values <= 30",
    ),
    ("is_member", "boolean", 1, "boolean values kept as float"),
    ("country_all", "dropped", 0, "constant: single value 'US'"),
    ("nothing", "dropped", 0, "all values missing"),
    ("country", "low_cardinality", 5, "5 distinct values <= 30"),
    ("grade", "low_cardinality", 5, "5 distinct values <= 30"),
    ("employer", "high_cardinality", 30, "70 distinct values > 30"),
    ("height", "numeric", 1, "numeric values kept as float"),
    ("children", "numeric", 1, "numeric values kept as float"),
    ("score_text", "numeric", 1, "strings read as numbers"),
]


def test_plan_of_a_messy_table():
    frame = messy_table()
    assert frame.shape[1] == len(EXPECTED_PLAN) >= 30
    vectorizer = TableVectorizer()
    out = vectorizer.fit_transform(frame)
    plan = vectorizer.describe()
    got = zip(
        plan["column"], plan["kind"], plan["n_outputs"], plan["reason"], strict=True
    )
    for row, expected in zip(got, EXPECTED_PLAN, strict=True):
        assert row == expected
    assert out.shape == (200, sum(n for _, _, n, _ in EXPECTED_PLAN))
    # a second batch of the same kind encodes without a warning, same values
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = vectorizer.transform(frame)
    np.testing.assert_array_equal(again, out)


# ------------------------------------------------- one test per reproduction


def test_one_stray_token_keeps_the_numbers_in_order():
    rng = np.random.default_rng(0)
    ages = rng.integers(18, 90, 200).astype(str).astype(object)
    ages[7] = "unknown"
    vectorizer = TableVectorizer()
    out = vectorizer.fit_transform(pd.DataFrame({"age": ages}))
    assert vectorizer.input_to_outputs_["age"] == ["age", "age_missing"]
    expected = np.where(ages == "unknown", np.nan, ages).astype(float)
    np.testing.assert_array_equal(out[:, 0], expected.astype(np.float32))
    np.testing.assert_array_equal(out[:, 1], (ages == "unknown").astype(np.float32))
    assert "'unknown'" in vectorizer.describe()["reason"][0]
    # the token seen at fit is expected at transform; a new one warns
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vectorizer.transform(pd.DataFrame({"age": ["unknown", "30", None]}))
    with pytest.warns(UserWarning, match="'refused'"):
        new = vectorizer.transform(pd.DataFrame({"age": ["refused", "30"]}))
    np.testing.assert_array_equal(new, [[np.nan, 1.0], [30.0, 0.0]])
    # numbers stored as numbers at transform still get the indicator
    numeric = vectorizer.transform(pd.DataFrame({"age": [41.0, np.nan]}))
    np.testing.assert_array_equal(numeric, [[41.0, 0.0], [np.nan, 1.0]])


@pytest.mark.parametrize("codes", [["02134", "2134"], ["0123", "123", "00123"]])
def test_codes_with_leading_zeros_do_not_merge(codes):
    frame = pd.DataFrame({"zip": codes * 5})
    vectorizer = TableVectorizer()
    out = vectorizer.fit_transform(frame)
    assert vectorizer.column_kinds_ == {"zip": "low_cardinality"}
    # one indicator per code, then the code read as a number
    assert out.shape[1] == len(codes) + 1
    assert len({tuple(row[:-1]) for row in out}) == len(codes)
    np.testing.assert_array_equal(out[:, -1], [float(code) for code in codes] * 5)


def test_money_percentages_and_decimals_are_numbers():
    frame = pd.DataFrame(
        {
            "price": ["$1,234.50", "$3.00", "$12,000"],
            "rate": ["12.3%", "0.5%", "100%"],
            "amount": [Decimal("1.25"), Decimal("2.50"), None],
        }
    )
    vectorizer = TableVectorizer()
    out = vectorizer.fit_transform(frame)
    assert set(vectorizer.column_kinds_.values()) == {"numeric"}
    np.testing.assert_array_equal(
        out, np.array([[1234.5, 12.3, 1.25], [3, 0.5, 2.5], [12000, 100, np.nan]],
                      dtype=np.float32),
    )  # fmt: skip


def test_more_date_forms_dayfirst_and_given_formats():
    frame = pd.DataFrame(
        {
            "us": ["10/31/2001 05:00 PM", "01/02/2003 11:30 AM"],
            "ambiguous": ["01/02/2020", "03/04/2021"],
            "custom": ["2020|03|01", "2021|12|31"],
        }
    )
    vectorizer = TableVectorizer(dayfirst=True, datetime_format={"custom": "%Y|%m|%d"})
    out = vectorizer.fit_transform(frame)
    assert set(vectorizer.column_kinds_.values()) == {"datetime"}
    names = list(vectorizer.get_feature_names_out())
    row = dict(zip(names, out[0], strict=True))
    assert (row["us_hour"], row["us_day"]) == (17.0, 31.0)
    assert (row["ambiguous_day"], row["ambiguous_month"]) == (1.0, 2.0)
    assert (row["custom_year"], row["custom_month"]) == (2020.0, 3.0)
    month_first = TableVectorizer().fit(frame[["ambiguous"]])
    assert month_first.describe()["reason"][0].endswith("month first assumed")


def test_identifier_and_saved_index_are_dropped_on_target_sorted_rows():
    rng = np.random.default_rng(0)
    n = 300
    y = np.sort(rng.normal(size=n))  # rows sorted by the target
    frame = pd.DataFrame(
        {
            "Unnamed: 0": np.arange(n),
            "customer": [f"CUST-{i:06d}{rng.integers(0, 9)}" for i in range(n)],
            "x": rng.normal(size=n),
        }
    )
    vectorizer = TableVectorizer().fit(frame, y)
    assert vectorizer.column_kinds_ == {
        "Unnamed: 0": "dropped", "customer": "dropped", "x": "numeric",
    }  # fmt: skip
    assert vectorizer.get_feature_names_out().tolist() == ["x"]
    # kept on request, the index is reported as a likely leak
    with pytest.warns(SuspiciousColumnWarning, match="'Unnamed: 0'"):
        TableVectorizer(drop_identifiers=False).fit(frame, y)


def test_warning_for_a_column_that_predicts_the_target_alone():
    rng = np.random.default_rng(0)
    n = 500
    x = rng.normal(size=n)
    y = 2 * x + rng.normal(scale=1.0, size=n)
    frame = pd.DataFrame(
        {
            "x": x,  # a real, strong feature: half the variance
            "y_copy": (y * 100).round(2).astype(str),  # the target, as text
            "label": np.where(y > 0, "high", "low"),
        }
    )
    with pytest.warns(SuspiciousColumnWarning) as caught:
        TableVectorizer().fit(frame, y)
    named = sorted(str(w.message).split("'")[1] for w in caught)
    assert named == ["y_copy"]
    # for classes: a label column equal to the class warns, x does not
    classes = np.where(y > 0, "up", "down")
    with pytest.warns(SuspiciousColumnWarning) as caught:
        TableVectorizer().fit(frame, classes)
    assert sorted(str(w.message).split("'")[1] for w in caught) == ["label", "y_copy"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TableVectorizer().fit(frame[["x"]], y)
        TableVectorizer().fit(frame, None)
        TableVectorizer().fit(frame.head(40), y[:40])  # too few rows to judge


def test_auto_fit_warns_once_about_a_leaking_column(monkeypatch):
    # auto_fit fits a vectorizer with y on every fold of every trial and on all
    # rows: each fit used to warn again, with a slightly different score. It
    # now checks the whole table once, before the first trial; the trials'
    # fits skip the check (a sort of the rows per column: 2 s a fit on a table
    # of 1,400 numeric columns).
    import autocat._vectorizer_columns
    from autocat import auto_fit

    checks = []
    check = autocat._vectorizer_columns.suspicious_columns

    def counted(values, y):
        checks.append(len(y))
        return check(values, y)

    monkeypatch.setattr(autocat._vectorizer_columns, "suspicious_columns", counted)
    rng = np.random.default_rng(0)
    n = 300
    y = rng.normal(size=n)
    frame = pd.DataFrame({"x": rng.normal(size=n), "y_copy": (y * 100).round(2)})
    frame["y"] = y
    warned_by_first_trial = []
    with pytest.warns(SuspiciousColumnWarning) as caught:
        auto_fit(
            frame, "y", n_trials=2, cv=3, n_jobs=1, show_progress=False,
            callbacks=[lambda study, trial: warned_by_first_trial.append(len(caught))],
        )  # fmt: skip
    assert [str(w.message).split("'")[1] for w in caught] == ["y_copy"]
    assert checks == [n] and warned_by_first_trial[0] == 1
    assert caught[0].filename == __file__  # the warning points at the call
    # classes whose labels cannot be sorted are read as classes all the same
    labels = np.array(["up" if value > 0 else 1 for value in y], dtype=object)
    mixed = pd.DataFrame({"x": rng.normal(size=n), "copy": (y > 0).astype(int)})
    mixed["label"] = labels
    with pytest.raises(TypeError, match="cannot be sorted"):
        with pytest.warns(SuspiciousColumnWarning, match="'copy'"):
            auto_fit(mixed, "label", n_trials=1, cv=3, show_progress=False)
    # outside auto_fit, every fit warns, as before
    for _ in range(2):
        with pytest.warns(SuspiciousColumnWarning, match="'y_copy'"):
            TableVectorizer().fit(frame.drop(columns="y"), y)


@pytest.mark.parametrize(
    "cells",
    [
        [[1, 2], [3], [1, 2], []],
        [{"a": 1}, {"b": [2]}, {"a": 1}, {}],
        [np.array([1, 2]), np.array([3]), np.array([1, 2]), np.array([])],
        [{1, 2}, {3}, {1, 2}, set()],
        [[1, 2], "x", None, 3.5],
    ],
)
def test_unhashable_cells_are_encoded_as_their_str(cells):
    frame = pd.DataFrame({"c": pd.Series(cells * 10, dtype=object)})
    as_text = pd.DataFrame(
        {"c": pd.Series([None if v is None else str(v) for v in cells * 10],
                        dtype=object)}
    )  # fmt: skip
    out = TableVectorizer().fit_transform(frame)
    np.testing.assert_array_equal(out, TableVectorizer().fit_transform(as_text))
    high = TableVectorizer(cardinality_threshold=1).fit(frame)
    np.testing.assert_array_equal(
        high.transform(frame),
        TableVectorizer(cardinality_threshold=1).fit_transform(as_text),
    )


def test_mixed_object_column_memory_grows_with_distinct_values():
    # 10,000 rows of mixed types and one 5,000-character value: a fixed-width
    # string array would take rows x 5,000 x 4 bytes = 200 MB
    values = np.empty(10_000, dtype=object)
    for i in range(10_000):
        values[i] = f"v{i % 500}" if i % 3 else i % 700
    values[5] = "x" * 5_000
    frame = pd.DataFrame({"c": values})
    TableVectorizer().fit_transform(frame.head(50))  # compile the kernels first
    tracemalloc.start()
    try:
        out = TableVectorizer().fit_transform(frame)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < out.nbytes + 8 * 2**20, peak


def test_polars_strings_reach_the_encoders_through_arrow():
    pl = pytest.importorskip("polars")
    frame = messy_table().drop(columns=["tags", "attrs", "vector", "mixed", "amount"])
    polars_frame = pl.from_pandas(frame)
    column = column_values(polars_frame, list(frame.columns).index("employer"))
    assert isinstance(column, pd.Series) and column.dtype != object
    expected = TableVectorizer().fit_transform(frame)
    np.testing.assert_array_equal(
        TableVectorizer().fit_transform(polars_frame), expected
    )


# -------------------------------------------------------- drift at predict time


def test_a_column_entirely_missing_at_transform_gives_missing_outputs():
    frame = pd.DataFrame(
        {
            "hired": ["09/12/1986", "10/31/2001", "01/02/2015"],
            "city": ["Paris", "Lyon", "Paris"],
            "salary": ["52,000", "73,500", "61,000"],
            "when": pd.to_datetime(["2020-01-01", "2020-06-01", "2021-01-01"]),
        }
    )
    vectorizer = TableVectorizer().fit(frame)
    missing_row = vectorizer.transform(
        pd.DataFrame({"hired": [None], "city": [None], "salary": [None],
                      "when": pd.to_datetime([None])})
    )  # fmt: skip
    for blank in (np.nan, None):
        # e.g. read_csv gives float64 NaN for a column left blank in a batch
        batch = pd.DataFrame({c: [blank, blank] for c in frame.columns})
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out = vectorizer.transform(batch)
        np.testing.assert_array_equal(out, np.vstack([missing_row, missing_row]))
    names = list(vectorizer.get_feature_names_out())
    assert np.isnan(out[0, names.index("hired_year")])
    assert np.isnan(out[0, names.index("salary")])


def test_time_zone_changes_at_transform():
    stamps = pd.Series(pd.to_datetime(["2020-03-01 10:00", "2021-06-01 12:30"]))
    aware = pd.DataFrame({"t": stamps.dt.tz_localize("UTC")})
    naive = pd.DataFrame({"t": stamps})
    fitted_aware = TableVectorizer().fit(aware)
    with pytest.raises(TypeError, match=r"'t' held time-zone aware .* naive"):
        fitted_aware.transform(naive)
    with pytest.raises(TypeError, match=r"'t' held time-zone naive .* aware"):
        TableVectorizer().fit(naive).transform(aware)
    # another time zone is the same instants, converted
    paris = pd.DataFrame({"t": aware["t"].dt.tz_convert("Europe/Paris")})
    np.testing.assert_array_equal(
        fitted_aware.transform(paris), fitted_aware.transform(aware)
    )


def test_polars_nested_cells_and_null_batches():
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame(
        {
            "tags": [[1, 2], [3], [1, 2], []] * 5,
            "attrs": [{"a": 1}, {"a": 2}, {"a": 1}, {"a": 3}] * 5,
            "day": ["2020-01-01", "2020-02-01", "2021-03-04", "2022-01-01"] * 5,
        }
    )
    vectorizer = TableVectorizer().fit(frame)
    np.testing.assert_array_equal(
        vectorizer.transform(frame), TableVectorizer().fit_transform(frame.to_pandas())
    )
    blank = pl.DataFrame({"tags": [None], "attrs": [None], "day": [None]})
    assert blank.dtypes == [pl.Null] * 3
    out = vectorizer.transform(blank)
    names = list(vectorizer.get_feature_names_out())
    assert np.isnan(out[0, names.index("day_year")])
    assert out[0, names.index("tags_[3]")] == 0.0


def test_model_files_keep_tokens_and_time_zone_awareness():
    from autocat._model_state import check_graph, read_members, write_archive

    ages = [str(a) for a in range(20, 80)] + ["unknown"]
    stamps = pd.to_datetime(["2020-01-01", "2021-01-01"] * 30 + ["2022-01-01"])
    frame = pd.DataFrame({"age": ages, "t": stamps.tz_localize("UTC")})
    fitted = TableVectorizer().fit(frame)
    reader, graph = check_graph(read_members(write_archive(fitted, {}), "f"), "f")
    loaded = reader.build(graph)
    np.testing.assert_array_equal(loaded.transform(frame), fitted.transform(frame))
    with pytest.raises(TypeError, match="naive"):
        loaded.transform(frame.assign(t=stamps))


def test_blanks_among_dates_are_missing_at_fit_and_at_transform():
    # A blank, "n/a" or "-" in a date or time column is a missing value, as in a
    # column of numbers: the column stays a date, and no warning is raised.
    days = [f"2020-01-{day:02d}" for day in range(1, 29)]
    times = [f"{hour}:{minute:02d}" for hour in range(8, 15) for minute in (0, 20)]
    train = pd.DataFrame({"day": [*days, " ", "n/a"], "time": [*times * 2, "", "-"]})
    vectorizer = TableVectorizer().fit(train)
    assert vectorizer.column_kinds_ == {"day": "datetime", "time": "datetime"}
    fitted_without = TableVectorizer().fit(train.iloc[:28])
    new = pd.DataFrame({"day": ["2021-02-03", "", "N/A"], "time": ["9:40", " ", "?"]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for fitted in (vectorizer, fitted_without):
            out = np.asarray(fitted.transform(new))
            assert not np.isnan(out[0]).any() and np.isnan(out[1:]).all()
    # a value of another kind is still reported
    with pytest.warns(UserWarning, match="do not read as such now, e.g. 'soon'"):
        vectorizer.transform(new.assign(day=["soon", "", "2021-02-03"]))


def test_decimal_comma_numbers_are_read_at_fit_and_transform_and_saved():
    from autocat import _model_state as model_state

    train = pd.DataFrame({"price": ["94,71", "1.264,03", "7", "", "12,5"] * 4})
    vectorizer = TableVectorizer().fit(train)
    assert vectorizer.column_kinds_ == {"price": "numeric"}
    got = np.asarray(vectorizer.transform(train))[:5, 0]
    np.testing.assert_allclose(got, [94.71, 1264.03, 7, np.nan, 12.5], rtol=1e-6)
    # at transform, a value in another format is missing, with a warning
    with pytest.warns(UserWarning, match="do not read as such now, e.g. '12.5'"):
        later = vectorizer.transform(pd.DataFrame({"price": ["12.5", "3,25"]}))
    np.testing.assert_allclose(np.asarray(later)[:, 0], [np.nan, 3.25], rtol=1e-6)
    # the format travels in a model file
    data = model_state.write_archive(vectorizer, {})
    members = model_state.read_members(data, "test")
    reader, graph = model_state.check_graph(members, "test")
    loaded = reader.build(graph)
    assert np.array_equal(
        np.asarray(loaded.transform(train)),
        np.asarray(vectorizer.transform(train)),
        equal_nan=True,
    )


def test_a_column_set_to_numeric_by_the_user_keeps_its_decimal_comma():
    frame = pd.DataFrame({"p": ["1,5", "2,25", "3"] * 5})
    vectorizer = TableVectorizer(specific_transformers={"p": "numeric"}).fit(frame)
    np.testing.assert_allclose(np.asarray(vectorizer.transform(frame))[:3, 0],
                               [1.5, 2.25, 3.0], rtol=1e-6)  # fmt: skip


def test_a_column_set_to_numeric_by_the_user_reads_thousands_as_before():
    frame = pd.DataFrame({"p": ["1,264", "2,500", "3"] * 5})
    vectorizer = TableVectorizer(specific_transformers={"p": "numeric"}).fit(frame)
    np.testing.assert_allclose(np.asarray(vectorizer.transform(frame))[:3, 0],
                               [1264.0, 2500.0, 3.0])  # fmt: skip


def test_a_column_of_mostly_dates_keeps_them_as_days_and_its_text():
    # Real date columns hold ranges and remarks beside the dates (a register of
    # data breaches: "09/20/2011 - 10/28/2011"); all dates or none lost them.
    from autocat._model_state import check_graph, read_members, write_archive

    rng = np.random.default_rng(0)
    days = rng.integers(14_000, 16_000, 120)
    written = [pd.Timestamp(int(d), unit="D").strftime("%-m/%-d/%Y") for d in days]
    written[::10] = ["09/20/2011 - 10/28/2011", "ongoing"] * 6
    frame = pd.DataFrame({"breach": written, "n": rng.random(120)})
    vectorizer = TableVectorizer().fit(frame)
    reason = vectorizer.describe().set_index("column").loc["breach", "reason"]
    assert "are dates (%m/%d/%Y): read as text and as days since 1970" in reason
    names = list(vectorizer.get_feature_names_out())
    assert names[-2] == "breach_date" and "breach_number" not in names
    out = vectorizer.transform(frame)[:, -2]
    expected = days.astype(float)
    expected[::10] = np.nan
    np.testing.assert_array_equal(out, expected.astype(np.float32))
    # unseen dates are read at transform; the text encoding is still there
    later = pd.DataFrame({"breach": ["1/2/2030", "gone", None], "n": [0.1] * 3})
    np.testing.assert_array_equal(
        vectorizer.transform(later)[:, -2],
        np.array([(pd.Timestamp("2030-01-02") - pd.Timestamp(0)).days, np.nan, np.nan],
                 dtype=np.float32),
    )  # fmt: skip
    assert vectorizer.transform(frame).shape[1] > 3  # min-hash outputs besides
    reader, graph = check_graph(read_members(write_archive(vectorizer, {}), "f"), "f")
    np.testing.assert_array_equal(
        reader.build(graph).transform(frame), vectorizer.transform(frame)
    )


def test_numbers_with_a_unit_keep_their_order_at_fit_and_transform():
    rng = np.random.default_rng(0)
    minutes = rng.integers(60, 200, 150)
    frame = pd.DataFrame({
        "runtime": [f"{m} min" for m in minutes],
        "memory": rng.choice(["16 GB", "8GB", "32 gb", "n/a"], 150),
    })  # fmt: skip
    vectorizer = TableVectorizer().fit(frame)
    assert list(vectorizer.get_feature_names_out()) == ["runtime", "memory"]
    out = vectorizer.transform(frame)
    np.testing.assert_array_equal(out[:, 0], minutes.astype(np.float32))
    expected = frame["memory"].map({"16 GB": 16, "8GB": 8, "32 gb": 32}).to_numpy()
    np.testing.assert_array_equal(out[:, 1], expected.astype(np.float32))
    later = pd.DataFrame({"runtime": ["95 min", "2 h"], "memory": ["64 GB", "8GB"]})
    with pytest.warns(UserWarning, match="2 h"):
        np.testing.assert_array_equal(
            vectorizer.transform(later), np.array([[95, 64], [np.nan, 8]], np.float32)
        )
