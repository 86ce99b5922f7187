from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from autocat import DatetimeEncoder, TableVectorizer
from autocat._datetime import WEEKDAY_DAYS, encode_nanoseconds


def test_parts_match_pandas_over_four_centuries():
    rng = np.random.default_rng(0)
    ns = rng.integers(-(2**62), 2**62, size=5_000)
    index = pd.DatetimeIndex(ns.view("datetime64[ns]"))
    out = encode_nanoseconds(
        ns, ["year", "month", "day", "hour", "minute", "second"], add_epoch=False
    )
    np.testing.assert_array_equal(out[:, 0], index.year)
    np.testing.assert_array_equal(out[:, 1], index.month)
    np.testing.assert_array_equal(out[:, 2], index.day)
    np.testing.assert_array_equal(out[:, 3], index.hour)
    np.testing.assert_array_equal(out[:, 4], index.minute)
    np.testing.assert_allclose(
        out[:, 5], index.second + index.microsecond / 1e6, atol=1e-5
    )
    np.testing.assert_array_equal(out[:, 6], index.day_of_week)


def test_auto_components_follow_the_data():
    dates = pd.DataFrame({"d": pd.to_datetime(["2020-01-01", "2021-06-30"])})
    encoder = DatetimeEncoder().fit(dates)
    assert encoder.components_ == [["year", "month", "day"]]
    with_seconds = pd.DataFrame({"d": pd.to_datetime(["2020-01-01 00:00:05", None])})
    assert DatetimeEncoder().fit(with_seconds).components_ == [
        ["year", "month", "day", "second"]
    ]


def test_explicit_components_and_flags():
    df = pd.DataFrame({"d": pd.to_datetime(["2020-01-01 10:20:30"])})
    encoder = DatetimeEncoder(
        components=["hour", "year"], add_weekday=False, add_epoch=False,
        add_time_of_day=True,
    ).fit(df)  # fmt: skip
    assert encoder.get_feature_names_out().tolist() == [
        "d_year",
        "d_hour",
        "d_time_of_day",
    ]
    np.testing.assert_array_equal(encoder.transform(df), [[2020, 10, 37230]])


def test_bad_components():
    with pytest.raises(ValueError, match="'components' parameter"):
        DatetimeEncoder(components=["week"]).fit(pd.DataFrame({"d": ["2020-01-01"]}))


def test_missing_gives_nan_and_epoch_is_seconds():
    df = pd.DataFrame({"d": pd.to_datetime(["1970-01-02", None])})
    out = DatetimeEncoder().fit_transform(df)
    assert out[0, -1] == 86_400
    assert np.isnan(out[1]).all()


def test_strings_use_the_fitted_format():
    train = pd.DataFrame({"d": ["09/12/1986", "10/31/2001"]})
    encoder = DatetimeEncoder().fit(train)
    assert encoder.formats_ == ["%m/%d/%Y"]
    out = encoder.transform(pd.DataFrame({"d": ["12/25/2010", "garbage", None]}))
    assert out[0, :3].tolist() == [2010, 12, 25]
    assert np.isnan(out[1:]).all()


def test_numbers_are_epoch_seconds():
    encoder = DatetimeEncoder(add_weekday=False).fit(
        np.array([[0.0], [86_400.0 * 366]])
    )
    assert encoder.formats_ == ["unix_seconds"]
    np.testing.assert_array_equal(
        encoder.transform(np.array([[86_400.0 * 366]])), [[1971, 1, 2, 86_400 * 366]]
    )


def test_non_dates_are_rejected_with_the_column_name():
    with pytest.raises(TypeError, match=r"column 'job'.*Convert it first"):
        DatetimeEncoder().fit(pd.DataFrame({"job": ["Police Officer", "Clerk"]}))


def test_datetime_column_turned_numeric_at_transform():
    encoder = DatetimeEncoder().fit(pd.DataFrame({"d": pd.to_datetime(["2020-01-01"])}))
    with pytest.raises(TypeError, match="held datetimes at fit"):
        encoder.transform(pd.DataFrame({"d": [1.0]}))


def test_time_zones_are_converted_to_utc(df_module):
    utc = pd.Series(pd.to_datetime(["2020-01-01 12:00", "2020-06-01 08:00"]))
    local = utc.dt.tz_localize("UTC").dt.tz_convert("Europe/Paris")
    frame = pd.DataFrame({"d": local})
    if df_module.__name__ == "polars":
        frame = df_module.from_pandas(frame)
    out = DatetimeEncoder().fit_transform(frame)
    expected = DatetimeEncoder().fit_transform(pd.DataFrame({"d": utc}))
    np.testing.assert_array_equal(out, expected)


def test_polars_dates_and_times():
    pl = pytest.importorskip("polars")
    import datetime as dt

    frame = pl.DataFrame(
        {
            "day": [dt.date(2020, 1, 2), None],
            "at": [dt.time(21, 37), dt.time(8, 5, 10)],
        }
    )
    encoder = DatetimeEncoder(components="auto").fit(frame)
    out = encoder.transform(frame)
    names = encoder.get_feature_names_out().tolist()
    assert names[:3] == ["day_year", "day_month", "day_day"]
    assert out[0, :3].tolist() == [2020, 1, 2]
    assert np.isnan(out[1, :3]).all()
    at_hour = names.index("at_hour")
    assert out[:, at_hour].tolist() == [21, 8]


def test_same_output_from_pandas_polars_numpy(df_module):
    values = np.array(["2020-01-01T10:00", "1999-12-31T23:59", "NaT"], "datetime64[ns]")
    expected = DatetimeEncoder().fit_transform(values.reshape(-1, 1))
    frame = df_module.DataFrame({"x0": values})
    np.testing.assert_array_equal(DatetimeEncoder().fit_transform(frame), expected)


def test_set_output_pandas():
    df = pd.DataFrame({"d": pd.to_datetime(["2020-01-01"])})
    out = DatetimeEncoder().set_output(transform="pandas").fit_transform(df)
    assert list(out.columns) == ["d_year", "d_month", "d_day", "d_weekday", "d_epoch"]


def _fitted_weekday(dates, **params) -> list[bool]:
    return DatetimeEncoder(**params).fit(pd.DataFrame({"d": dates})).weekday_


def test_periodic_series_give_no_weekday():
    # At least WEEKDAY_DAYS dates on fewer days of the month: the weekday of the
    # 1st of each month is noise to a tree, and no weekly cycle can be seen.
    monthly = pd.date_range("2000-01-01", periods=48, freq="MS")
    series = {
        "monthly": monthly,
        "quarterly": pd.date_range("2000-01-01", periods=20, freq="QS"),
        "yearly": pd.DatetimeIndex([f"{year}-07-04" for year in range(1950, 1990)]),
        "month ends": monthly - pd.Timedelta(days=1),  # days 28 to 31
        "1st and 15th": pd.date_range("2000-01-01", periods=24, freq="SMS"),
        "seven months": monthly[:WEEKDAY_DAYS],
    }
    for what, dates in series.items():
        assert _fitted_weekday(dates) == [False], what
        encoder = DatetimeEncoder().fit(pd.DataFrame({"d": dates.astype(str)}))
        names = encoder.get_feature_names_out().tolist()
        assert names == ["d_year", "d_month", "d_day", "d_epoch"], what
        assert encoder.transform(pd.DataFrame({"d": ["2001-03-01"]})).shape == (1, 4)


def test_daily_weekly_and_few_dates_keep_the_weekday():
    rng = np.random.default_rng(0)
    births = pd.to_datetime("1960-01-01") + pd.to_timedelta(
        rng.integers(0, 20_000, size=50), unit="D"
    )
    series = {
        "daily": pd.date_range("2020-01-01", periods=30, freq="D"),
        "weekly": pd.date_range("2020-01-06", periods=30, freq="7D"),
        "random days": births,
        "six months": pd.date_range("2000-01-01", periods=WEEKDAY_DAYS - 1, freq="MS"),
    }
    for what, dates in series.items():
        encoder = DatetimeEncoder().fit(pd.DataFrame({"d": dates}))
        assert encoder.weekday_ == [True], what
        out = encoder.set_output(transform="pandas").transform(
            pd.DataFrame({"d": dates})
        )
        np.testing.assert_array_equal(out["d_weekday"], dates.day_of_week)


def test_add_weekday_true_or_false_overrides_the_periodic_rule():
    monthly = pd.date_range("2000-01-01", periods=48, freq="MS")
    daily = pd.date_range("2020-01-01", periods=30, freq="D")
    assert _fitted_weekday(monthly, add_weekday=True) == [True]
    assert _fitted_weekday(daily, add_weekday=False) == [False]
    both = pd.DataFrame({"m": monthly[:30], "d": daily})
    encoder = DatetimeEncoder().fit(both)
    assert encoder.weekday_ == [False, True]
    names = encoder.get_feature_names_out().tolist()
    assert [n for n in names if n.endswith("weekday")] == ["d_weekday"]
    assert encoder.transform(both).shape == (30, len(names))


def test_an_encoder_saved_before_the_periodic_rule_keeps_its_weekday():
    monthly = pd.DataFrame({"d": pd.date_range("2000-01-01", periods=48, freq="MS")})
    encoder = DatetimeEncoder(add_weekday=True).fit(monthly)
    del encoder.weekday_  # as unpickled from a file of an earlier version
    names = encoder.get_feature_names_out().tolist()
    assert names == ["d_year", "d_month", "d_day", "d_weekday", "d_epoch"]
    out = encoder.transform(monthly)
    np.testing.assert_array_equal(out[:, 3], monthly["d"].dt.day_of_week)


def test_the_plan_says_when_a_series_gives_no_weekday():
    frame = pd.DataFrame({
        "month": pd.date_range("2000-01-01", periods=40, freq="MS").astype(str),
        "day": pd.date_range("2000-01-01", periods=40, freq="D").astype(str),
    })  # fmt: skip
    plan = TableVectorizer().fit(frame).describe().set_index("column")
    assert plan.loc["month", "n_outputs"] == 4
    note = "no weekday: a monthly or coarser series"
    assert plan.loc["month", "reason"].endswith(note)
    assert plan.loc["day", "n_outputs"] == 5
    assert "weekday" not in plan.loc["day", "reason"]
