from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from autocat import DatetimeEncoder
from autocat._datetime import encode_nanoseconds


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
