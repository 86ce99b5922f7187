"""DatetimeEncoder: dates and times as the numbers a tree model splits on."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from autocat._column_kinds import detect_date_format, parse_dates, parse_numbers
from autocat._dataframe import (
    check_input_names,
    column_family,
    columns_of,
    dtype_name,
    factorize,
    input_names,
    n_rows,
    to_2d,
    to_datetime64,
)
from autocat._sklearn_compat import StrOptions, _fit_context

__all__ = ["WEEKDAY_DAYS", "DatetimeEncoder", "weekday_note"]

_NS_PER_DAY = 86_400 * 10**9
_DATE_PARTS = ("year", "month", "day")
_TIME_PARTS = ("hour", "minute", "second")
_ALL_PARTS = _DATE_PARTS + _TIME_PARTS
#: With ``add_weekday='auto'``, a column of at least this many distinct dates on
#: fewer days of the month (a week's worth) is a periodic series: no weekday.
WEEKDAY_DAYS = 7
#: The format recorded for columns of numbers, read as seconds since the epoch.
UNIX_SECONDS = "unix_seconds"


class DatetimeEncoder(TransformerMixin, BaseEstimator):
    """Encode datetime columns as year, month, day, weekday, time parts and epoch.

    Columns hold datetimes (pandas, polars or numpy; dates and times of day
    too), strings with dates in one format (found at fit), or numbers, read as
    seconds since 1970-01-01 UTC. Each input column gives, in this order: the
    calendar parts chosen by ``components``, the day of the week (Monday is 0)
    as ``add_weekday`` says, the seconds since midnight when ``add_time_of_day``,
    and the seconds since 1970-01-01 UTC when ``add_epoch``. Missing values
    (``NaT``) give ``NaN`` in every output, which XGBoost routes with a learned
    default direction.

    Parameters
    ----------
    components : {'auto', 'time'} or list of str, default='auto'
        Calendar parts among ``'year'``, ``'month'``, ``'day'``, ``'hour'``,
        ``'minute'``, ``'second'``. ``'auto'`` keeps year, month and day, plus
        each time part that is not zero for some training value (so dates
        without a time give no constant hour column). ``'time'`` keeps only the
        time parts, the same way, for columns that hold times of day.
    add_weekday : bool or 'auto', default='auto'
        Add the day of the week, 0 (Monday) to 6. ``'auto'`` adds it unless the
        training dates are a periodic series: at least :data:`WEEKDAY_DAYS`
        distinct dates on fewer than :data:`WEEKDAY_DAYS` days of the month
        (monthly, quarterly or yearly values: the 1st, the 15th, month ends).
        There the weekday is a pseudo-random function of the year and month,
        which trees split on as noise, and no weekly cycle can be seen.
    add_epoch : bool, default=True
        Add the seconds since the Unix epoch, which orders the whole column.
    add_time_of_day : bool, default=False
        Add the seconds since midnight, as one number.

    Attributes
    ----------
    components_ : list of list of str
        The calendar parts kept for each input column.
    weekday_ : list of bool
        Whether each input column gives its day of the week.
    formats_ : list of str or None
        How each input column is read: ``None`` for datetime columns, the date
        format found at fit for strings (``strptime`` codes or ``'ISO8601'``),
        ``'unix_seconds'`` for numbers.
    n_features_in_ : int
        Number of columns seen in :meth:`fit`.
    feature_names_in_ : ndarray of str of shape (n_features_in_,)
        Column names seen in :meth:`fit`, when they are all strings.

    See Also
    --------
    TableVectorizer : Applies this encoder to the datetime columns of a table.

    Notes
    -----
    The parts are computed with integer arithmetic on the nanoseconds since the
    epoch (proleptic Gregorian calendar), in time linear in the number of rows and
    with no Python loop over rows. Time-zone aware values are converted to UTC
    first. Outputs are float32: the epoch in seconds is then exact to about two
    minutes for present-day dates, which is finer than trees split on.

    Examples
    --------
    >>> import pandas as pd
    >>> from autocat import DatetimeEncoder
    >>> hired = ["1986-09-12 08:30", "2001-10-31 17:00", None]
    >>> df = pd.DataFrame({"hired": pd.to_datetime(hired)})
    >>> encoder = DatetimeEncoder().fit(df)
    >>> encoder.get_feature_names_out().tolist()
    ['hired_year', 'hired_month', 'hired_day', 'hired_hour', 'hired_minute',
     'hired_weekday', 'hired_epoch']
    >>> for row in encoder.transform(df)[:, :6].tolist():
    ...     print(row)
    [1986.0, 9.0, 12.0, 8.0, 30.0, 4.0]
    [2001.0, 10.0, 31.0, 17.0, 0.0, 2.0]
    [nan, nan, nan, nan, nan, nan]

    Strings are read with the format found at fit:

    >>> dates = pd.DataFrame({"d": ["09/12/1986", "10/31/2001"]})
    >>> DatetimeEncoder(add_epoch=False).fit(dates).formats_
    ['%m/%d/%Y']
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "components": [StrOptions({"auto", "time"}), list, tuple],
        "add_weekday": ["boolean", StrOptions({"auto"})],
        "add_epoch": ["boolean"],
        "add_time_of_day": ["boolean"],
    }

    def __init__(
        self,
        *,
        components: str | list[str] = "auto",
        add_weekday: bool | str = "auto",
        add_epoch: bool = True,
        add_time_of_day: bool = False,
    ) -> None:
        self.components = components
        self.add_weekday = add_weekday
        self.add_epoch = add_epoch
        self.add_time_of_day = add_time_of_day

    def _check_params(self) -> None:
        if isinstance(self.components, str):
            return
        unknown = [c for c in self.components if c not in _ALL_PARTS]
        if unknown or not self.components:
            raise ValueError(
                "The 'components' parameter of DatetimeEncoder must be 'auto', "
                f"'time' or a non-empty list drawn from {list(_ALL_PARTS)}. Got "
                f"{self.components!r} instead."
            )

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, y: Any = None) -> DatetimeEncoder:
        """Choose the parts to output and the string formats, from ``X``.

        Parameters
        ----------
        X : dataframe or array-like of shape (n_samples, n_features)
            Datetime columns, or strings holding dates in one consistent format.
        y : None
            Ignored.

        Returns
        -------
        self : DatetimeEncoder
            The fitted encoder.
        """
        self._check_params()
        X = to_2d(X, estimator_name=type(self).__name__)
        names = input_names(self, X, reset=True)
        if n_rows(X) == 0:
            raise ValueError(
                f"Found array with 0 sample(s) (shape={X.shape}) while a minimum of "
                "1 is required by DatetimeEncoder."
            )
        self.formats_: list[str | None] = []
        self.components_: list[list[str]] = []
        self.weekday_: list[bool] = []
        for name, column in zip(names, columns_of(X), strict=True):
            fmt = None
            family = column_family(column)
            if family not in ("datetime", "time"):
                fmt = _detect_format(column, family, name)
            self.formats_.append(fmt)
            ns = self._nanoseconds(column, fmt, name)
            valid = ns[ns != np.iinfo(np.int64).min]  # NaT left out
            self.components_.append(self._resolve_components(valid))
            self.weekday_.append(self._resolve_weekday(valid))
        return self

    def _weekdays(self) -> list[bool]:
        # Encoders saved before ``weekday_`` existed took ``add_weekday`` as is.
        if hasattr(self, "weekday_"):
            return self.weekday_
        return [bool(self.add_weekday)] * len(self.components_)

    def _resolve_weekday(self, valid: np.ndarray) -> bool:
        if self.add_weekday != "auto":
            return bool(self.add_weekday)
        dates = np.unique(valid // _NS_PER_DAY)
        if len(dates) < WEEKDAY_DAYS:
            return True
        days_of_month = np.unique(_civil_from_days(dates)[2])
        return len(days_of_month) >= WEEKDAY_DAYS

    def _resolve_components(self, valid: np.ndarray) -> list[str]:
        if not isinstance(self.components, str):
            return [c for c in _ALL_PARTS if c in self.components]
        of_day = valid % _NS_PER_DAY
        present = {
            "hour": bool((of_day // (3600 * 10**9)).any()),
            "minute": bool((of_day // (60 * 10**9) % 60).any()),
            "second": bool((of_day % (60 * 10**9)).any()),
        }
        times = [part for part in _TIME_PARTS if present[part]]
        if self.components == "time":
            return times or ["hour"]
        return [*_DATE_PARTS, *times]

    def _nanoseconds(self, column: Any, fmt: str | None, name: str) -> np.ndarray:
        if fmt is None:
            family = column_family(column)
            if family not in ("datetime", "time"):
                raise TypeError(
                    f"Column {name!r} held datetimes at fit but holds "
                    f"{_describe_values(column)} at transform. Pass datetime values."
                )
            values = to_datetime64(column)
        else:
            codes, uniques = factorize(column)
            if fmt == UNIX_SECONDS:
                parsed = _seconds_to_datetime64(parse_numbers(uniques)[0])
            else:
                parsed = parse_dates(uniques, fmt)
            table = np.append(parsed, np.datetime64("NaT", "ns"))
            values = table[np.where(codes < 0, len(uniques), codes)]
        return values.astype("datetime64[ns]").view(np.int64)

    def transform(self, X: Any) -> np.ndarray:
        """Encode each column into its parts, as float32.

        Parameters
        ----------
        X : dataframe or array-like of shape (n_samples, n_features)
            The columns seen in :meth:`fit`, in the same order.

        Returns
        -------
        ndarray of float32 of shape (n_samples, n_features_out)
            The parts of the first column first; see :meth:`get_feature_names_out`.
        """
        check_is_fitted(self, "components_")
        X = to_2d(X, estimator_name=type(self).__name__)
        names = input_names(self, X, reset=False)
        blocks = []
        weekdays = self._weekdays()
        for index, (name, column) in enumerate(zip(names, columns_of(X), strict=True)):
            ns = self._nanoseconds(column, self.formats_[index], name)
            blocks.append(
                encode_nanoseconds(
                    ns,
                    self.components_[index],
                    add_weekday=weekdays[index],
                    add_epoch=self.add_epoch,
                    add_time_of_day=self.add_time_of_day,
                )
            )
        return np.hstack(blocks) if blocks else np.empty((n_rows(X), 0), np.float32)

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Get the output feature names, ``<column>_<part>``.

        Parameters
        ----------
        input_features : array-like of str, default=None
            Input column names; by default those seen in :meth:`fit`.

        Returns
        -------
        ndarray of str
            One name per output feature.
        """
        check_is_fitted(self, "components_")
        names = check_input_names(self, input_features)
        out = []
        for name, parts, weekday in zip(
            names, self.components_, self._weekdays(), strict=True
        ):
            suffixes = list(parts)
            if weekday:
                suffixes.append("weekday")
            if self.add_time_of_day:
                suffixes.append("time_of_day")
            if self.add_epoch:
                suffixes.append("epoch")
            out.extend(f"{name}_{suffix}" for suffix in suffixes)
        return np.asarray(out, dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.input_tags.two_d_array = True
        tags.transformer_tags.preserves_dtype = []
        return tags


def weekday_note(encoder: Any) -> str:
    """Return what a column's plan adds when ``'auto'`` left its weekday out, or ''.

    Examples
    --------
    >>> import pandas as pd
    >>> from autocat._datetime import DatetimeEncoder, weekday_note
    >>> months = pd.DataFrame({"d": pd.date_range("2000-01-01", periods=24, freq="MS")})
    >>> weekday_note(DatetimeEncoder().fit(months))
    '; no weekday: a monthly or coarser series'
    """
    if (
        isinstance(encoder, DatetimeEncoder)
        and encoder.add_weekday == "auto"
        and not all(encoder._weekdays())
    ):
        return "; no weekday: a monthly or coarser series"
    return ""


def encode_nanoseconds(
    ns: np.ndarray,
    components: list[str],
    *,
    add_weekday: bool = True,
    add_epoch: bool = True,
    add_time_of_day: bool = False,
) -> np.ndarray:
    """Parts of datetimes given as int64 nanoseconds since the epoch (NaT = min).

    Parameters
    ----------
    ns : ndarray of int64 of shape (n,)
        Nanoseconds since 1970-01-01; ``np.iinfo(np.int64).min`` marks NaT.
    components : list of str
        Calendar parts to output, in order.
    add_weekday, add_epoch, add_time_of_day : bool
        Extra outputs, as in :class:`DatetimeEncoder`.

    Returns
    -------
    ndarray of float32 of shape (n, n_outputs)
    """
    missing = ns == np.iinfo(np.int64).min
    days, of_day = np.divmod(ns, _NS_PER_DAY)
    parts: dict[str, np.ndarray] = {}
    if any(c in _DATE_PARTS for c in components):
        parts["year"], parts["month"], parts["day"] = _civil_from_days(days)
    seconds = of_day // 10**9
    parts["hour"] = seconds // 3600
    parts["minute"] = seconds // 60 % 60
    parts["second"] = (of_day % (60 * 10**9)) / 1e9
    columns = [parts[c] for c in components]
    if add_weekday:
        columns.append((days + 3) % 7)  # 1970-01-01 was a Thursday
    if add_time_of_day:
        columns.append(of_day / 1e9)
    if add_epoch:
        columns.append(ns / 1e9)
    out = np.empty((len(ns), len(columns)), dtype=np.float32)
    for j, values in enumerate(columns):
        out[:, j] = values
    out[missing] = np.nan
    return out


def _civil_from_days(days: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Year, month, day of days since 1970-01-01 (H. Hinnant's algorithm)."""
    z = days + 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = np.where(mp < 10, mp + 3, mp - 9)
    year = yoe + era * 400 + (month <= 2)
    return year, month, day


def _describe_values(column: Any) -> str:
    return f"{column_family(column)} values ({dtype_name(column)})"


def _detect_format(column: Any, family: str, name: str) -> str:
    """Return how to read a column that is not stored as datetimes."""
    uniques = factorize(column)[1]
    if family == "numeric" or (len(uniques) and parse_numbers(uniques)[1].all()):
        return UNIX_SECONDS
    strings = uniques[[isinstance(v, str) for v in uniques]]
    found = detect_date_format(strings) if len(strings) == len(uniques) else None
    if found is None:
        raise TypeError(
            "DatetimeEncoder needs datetimes, numbers (seconds since the epoch) "
            f"or date strings in one format; column {name!r} holds "
            f"{_describe_values(column)}, e.g. {uniques[:3].tolist()}. Convert it "
            "first, e.g. pd.to_datetime(df[col], format=...)."
        )
    return found[0]


def _seconds_to_datetime64(seconds: np.ndarray) -> np.ndarray:
    """Return float seconds since the epoch as datetime64[ns]; NaT if out of range."""
    valid = np.isfinite(seconds) & (np.abs(seconds) < 9.2e9)
    ns = np.full(len(seconds), np.iinfo(np.int64).min, dtype=np.int64)
    ns[valid] = np.round(seconds[valid] * 1e9).astype(np.int64)
    return ns.view("datetime64[ns]")
