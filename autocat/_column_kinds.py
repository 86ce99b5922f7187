"""Pure rules that decide the kind of a column and how its strings are read.

Everything here works on the distinct values of one column (a 1-D numpy array)
and a few counts, never on a dataframe, so that the rules are tested alone and
cost time in the number of distinct values, not rows. :class:`TableVectorizer`
calls :func:`decide` once per column at ``fit`` and records the
:class:`Decision`; ``transform`` replays the recorded conversion.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "FAMILIES",
    "KINDS",
    "Decision",
    "decide",
    "detect_date_format",
    "detect_time_format",
    "is_free_text",
    "parse_dates",
    "parse_numbers",
    "parse_times",
    "stringify",
]

#: The kinds a column can be given, in the order :meth:`TableVectorizer.describe`
#: documents them.
KINDS = (
    "numeric",
    "boolean",
    "datetime",
    "low_cardinality",
    "high_cardinality",
    "text",
    "dropped",
)

#: Storage families reported by ``_dataframe.column_family``.
FAMILIES = (
    "numeric",
    "boolean",
    "datetime",
    "time",
    "string",
    "categorical",
    "object",
    "null",
)

# Strings that mean "no value" inside a column of numbers (compared stripped and
# lower-cased). They are only read as missing once the rest of the column is
# known to hold numbers.
MISSING_TOKENS = frozenset({"", "nan", "na", "n/a", "null", "none", "-", "?"})

# A mantissa with at least one digit ("12", "1,234.5", "3.", ".5"), then an optional
# exponent: "E250" is a code, not a number.
_NUMBER = re.compile(
    r"[+-]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?",
    re.ASCII,
)
_HAS_DIGIT = re.compile(r"\d")
_TIME = re.compile(
    r"(?P<h>\d{1,2}):(?P<m>\d{2})(?::(?P<s>\d{2})(?P<f>\.\d{1,9})?)?"
    r"(?:\s?(?P<p>[AaPp][Mm]))?"
)
_ISO = re.compile(
    r"\d{4}-\d{2}(?:-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?"
    r"(?:Z|[+-]\d{2}:?\d{2})?)?)?"
)

# Candidate formats, most common first. Month-first comes before day-first so
# that a column valid under both (no day above 12) reads as month-first, which
# the decision then reports as ambiguous.
_DATE_FORMATS = (
    "%m/%d/%Y",
    "%d/%m/%Y",
    "%Y/%m/%d",
    "%m-%d-%Y",
    "%d-%m-%Y",
    "%d.%m.%Y",
    "%m/%d/%y",
    "%d/%m/%y",
    "%m/%d/%Y %H:%M",
    "%m/%d/%Y %H:%M:%S",
    "%d/%m/%Y %H:%M",
    "%d/%m/%Y %H:%M:%S",
    "%Y/%m/%d %H:%M:%S",
    "%d %b %Y",
    "%d %B %Y",
    "%b %d, %Y",
    "%B %d, %Y",
    "%b %d %Y",
    "%d-%b-%Y",
    "%d-%b-%y",
)
_AMBIGUOUS_PAIRS = {
    "%m/%d/%Y": "%d/%m/%Y",
    "%m-%d-%Y": "%d-%m-%Y",
    "%m/%d/%y": "%d/%m/%y",
    "%m/%d/%Y %H:%M": "%d/%m/%Y %H:%M",
    "%m/%d/%Y %H:%M:%S": "%d/%m/%Y %H:%M:%S",
}
# Values tried before committing to a format on every distinct value.
_SAMPLE = 200


@dataclass(frozen=True)
class Decision:
    """What :class:`TableVectorizer` does with one column, and why.

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`.
    reason : str
        One sentence a user reads in :meth:`TableVectorizer.describe`.
    conversion : {'number', 'date', 'time', 'text'} or None, default=None
        How values are read before encoding: strings parsed as numbers, as dates
        with ``fmt``, as times of day with ``fmt``, or any value as its ``str``.
        ``None`` keeps the values as stored.
    fmt : str or None, default=None
        The date or time format (``strptime`` codes, or ``'ISO8601'``).
    """

    kind: str
    reason: str
    conversion: str | None = None
    fmt: str | None = None


def decide(
    family: str,
    uniques: np.ndarray,
    n_missing: int,
    n_rows: int,
    *,
    cardinality_threshold: int = 30,
    parse_numbers: bool = True,
    parse_dates: bool = True,
    parse_times: bool = True,
    drop_constant: bool = True,
    drop_missing: bool = True,
) -> Decision:
    """Decide the kind of a column from its storage family and distinct values.

    Parameters
    ----------
    family : str
        One of :data:`FAMILIES`: how the column is stored.
    uniques : ndarray of shape (n_distinct,)
        The distinct non-missing values.
    n_missing : int
        Number of missing values in the column.
    n_rows : int
        Number of rows of the column.
    cardinality_threshold : int, default=30
        String columns with more distinct values are ``'high_cardinality'``.
    parse_numbers, parse_dates, parse_times : bool, default=True
        Whether string columns holding numbers, dates or times of day are read
        as such.
    drop_constant, drop_missing : bool, default=True
        Whether constant columns (one value, no missing) and columns with no
        value at all are ``'dropped'``.

    Returns
    -------
    Decision
        The kind and the reason, with the conversion to replay at transform.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._column_kinds import decide
    >>> decision = decide("string", np.array(["1,200", " 35 "], dtype=object), 0, 2)
    >>> decision.kind, decision.reason, decision.conversion
    ('numeric', 'strings read as numbers', 'number')
    >>> decide("string", np.array(["09/12/1986", "10/31/2001"], dtype=object), 0, 2).fmt
    '%m/%d/%Y'
    """
    n_distinct = len(uniques)
    if n_distinct == 0:
        if drop_missing:
            return Decision("dropped", "all values missing")
        return Decision("numeric", "all values missing, kept as NaN", "number")
    if n_distinct == 1 and n_missing == 0 and n_rows > 1 and drop_constant:
        return Decision("dropped", f"constant: single value {_short(uniques[0])}")
    if family in ("numeric", "boolean"):
        return Decision(family, f"{family} values kept as float")
    if family == "datetime":
        return Decision("datetime", "datetime values encoded by parts")
    if family == "time":
        return Decision("datetime", "times of day encoded by parts", "time")
    if family == "object":
        types = {type(v) for v in uniques}
        if types <= {bool, np.bool_}:
            return Decision("boolean", "object column of booleans", "number")
        if all(_is_number(v) for v in uniques):
            return Decision("numeric", "object column of numbers", "number")
        if all(isinstance(v, dt.date | np.datetime64) for v in uniques):
            # datetime, date, pd.Timestamp: their str is ISO 8601
            return Decision("datetime", "object column of dates", "date", "ISO8601")
        if all(isinstance(v, dt.time) for v in uniques):
            fmt = detect_time_format(stringify(uniques))
            if fmt is not None:
                return Decision("datetime", "object column of times", "time", fmt)
    if family != "categorical":
        is_text = all(isinstance(v, str) for v in uniques)
        if parse_numbers and _all_numbers(uniques):
            reason = (
                "strings read as numbers" if is_text else "numbers and numeric strings"
            )
            return Decision("numeric", reason, "number")
        if is_text:
            if parse_times:
                fmt = detect_time_format(uniques)
                if fmt is not None:
                    return Decision("datetime", f"times of day ({fmt})", "time", fmt)
            if parse_dates:
                found = detect_date_format(uniques)
                if found is not None:
                    fmt, note = found
                    return Decision("datetime", f"dates ({fmt}){note}", "date", fmt)
    conversion = "text"
    prefix = ""
    if family in ("object", "categorical") and not all(
        isinstance(v, str) for v in uniques
    ):
        names = sorted({type(v).__name__ for v in uniques})
        prefix = f"values of types {', '.join(names)} read as text; "
    if n_distinct > cardinality_threshold:
        return Decision(
            "high_cardinality",
            f"{prefix}{n_distinct} distinct values > {cardinality_threshold}",
            conversion,
        )
    return Decision(
        "low_cardinality",
        f"{prefix}{n_distinct} distinct values <= {cardinality_threshold}",
        conversion,
    )


def _short(value: Any) -> str:
    text = repr(value.item() if isinstance(value, np.generic) else value)
    return text if len(text) <= 30 else text[:27] + "..."


def _is_number(value: Any) -> bool:
    return isinstance(value, Real | np.number) and not isinstance(
        value, bool | np.bool_
    )


def _sample_then_all(values: np.ndarray) -> list[np.ndarray]:
    """Return a small sample first, to reject most columns cheaply, then all."""
    if len(values) <= _SAMPLE:
        return [values]
    return [values[:_SAMPLE], values]


def _all_numbers(uniques: np.ndarray) -> bool:
    for part in _sample_then_all(uniques):
        _, ok = parse_numbers(part)
        if not ok.all():
            return False
    return bool(np.isfinite(parse_numbers(uniques)[0]).any())


def parse_numbers(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Read numbers, numeric strings and missing tokens as float64.

    Strings may have surrounding white space, thousands separators (``"121,511"``)
    and exponents; :data:`MISSING_TOKENS` (``""``, ``"NA"``, ``"?"``...) and
    missing values give ``NaN``.

    Parameters
    ----------
    values : ndarray of shape (n,)
        Strings, numbers or missing values.

    Returns
    -------
    numbers : ndarray of float64 of shape (n,)
        The values, ``NaN`` where missing or unreadable.
    ok : ndarray of bool of shape (n,)
        False where a value is neither a number nor missing.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._column_kinds import parse_numbers
    >>> values = np.array(["121,511", " 3.5 ", "NA", "x"], dtype=object)
    >>> numbers, ok = parse_numbers(values)
    >>> numbers.tolist(), ok.tolist()
    ([121511.0, 3.5, nan, nan], [True, True, True, False])
    """
    numbers = np.full(len(values), np.nan)
    ok = np.ones(len(values), dtype=bool)
    for i, value in enumerate(values):
        if isinstance(value, str):
            text = value.strip()
            if text.lower() in MISSING_TOKENS:
                continue
            if _NUMBER.fullmatch(text) and _HAS_DIGIT.search(text):
                numbers[i] = float(text.replace(",", ""))
            else:
                ok[i] = False
        elif _is_number(value) or isinstance(value, bool | np.bool_):
            numbers[i] = float(value)
        elif value is None or value is pd.NA or value is pd.NaT:
            continue
        else:
            ok[i] = False
    return numbers, ok


def detect_time_format(values: np.ndarray) -> str | None:
    """Return the format of strings that all read as times of day, or None.

    Times are ``H:MM``, ``H:MM:SS`` or ``H:MM:SS.fff``, 24-hour or with
    ``AM``/``PM``; the format returned names the widest form seen.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._column_kinds import detect_time_format
    >>> detect_time_format(np.array(["21:37:00", "08:05:10.5"], dtype=object))
    '%H:%M:%S.%f'
    >>> detect_time_format(np.array(["9:30 PM", "10:15 am"], dtype=object))
    '%I:%M %p'
    >>> detect_time_format(np.array(["21:37", "bus"], dtype=object)) is None
    True
    """
    for part in _sample_then_all(values):
        if not all(isinstance(v, str) and _TIME.fullmatch(v.strip()) for v in part):
            return None
    if np.isnat(parse_times(values)).any():
        return None
    matches = [_TIME.fullmatch(v.strip()) for v in values]
    fmt = "%I:%M" if any(m["p"] for m in matches) else "%H:%M"
    if any(m["s"] for m in matches):
        fmt += ":%S"
    if any(m["f"] for m in matches):
        fmt += ".%f"
    return fmt + " %p" if fmt.startswith("%I") else fmt


def parse_times(values: np.ndarray) -> np.ndarray:
    """Read times of day as datetime64[ns] on 1970-01-01, NaT where unreadable.

    Accepts every form :func:`detect_time_format` recognises, whatever the
    format found at fit.
    """
    ns = np.full(len(values), np.iinfo(np.int64).min, dtype=np.int64)
    for i, value in enumerate(values):
        found = _TIME.fullmatch(value.strip()) if isinstance(value, str) else None
        if found is None:
            continue
        hour, minute = int(found["h"]), int(found["m"])
        second = int(found["s"] or 0)
        if found["p"]:
            if not 1 <= hour <= 12:
                continue
            hour = hour % 12 + (12 if found["p"].lower() == "pm" else 0)
        if hour > 23 or minute > 59 or second > 59:
            continue
        nanos = int((found["f"] or ".0")[1:].ljust(9, "0"))
        ns[i] = ((hour * 60 + minute) * 60 + second) * 10**9 + nanos
    return ns.view("datetime64[ns]")


def detect_date_format(values: np.ndarray) -> tuple[str, str] | None:
    """Return the format reading every string as a date, and a note, or None.

    ISO 8601 strings (``"2020-03-01"``, ``"2020-03-01T10:00:00Z"``) come first;
    then common day/month orders. When both month-first and day-first read every
    value, month-first is chosen and the note says so.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._column_kinds import detect_date_format
    >>> detect_date_format(np.array(["09/12/1986", "01/02/2003"], dtype=object))
    ('%m/%d/%Y', '; day/month order ambiguous, month first assumed')
    >>> detect_date_format(np.array(["2020-03-01", "2021-12-31"], dtype=object))
    ('ISO8601', '')
    """
    if not all(
        isinstance(v, str) and 6 <= len(v.strip()) <= 40 and _HAS_DIGIT.search(v)
        for v in values[:_SAMPLE]
    ):
        return None
    if all(_ISO.fullmatch(v.strip()) for v in values):
        if not np.isnat(parse_dates(values, "ISO8601")).any():
            return "ISO8601", ""
        return None
    for fmt in _DATE_FORMATS:
        if all(
            not np.isnat(parse_dates(part, fmt)).any()
            for part in _sample_then_all(values)
        ):
            other = _AMBIGUOUS_PAIRS.get(fmt)
            if other is not None and not np.isnat(parse_dates(values, other)).any():
                return fmt, "; day/month order ambiguous, month first assumed"
            return fmt, ""
    return None


def parse_dates(values: np.ndarray, fmt: str) -> np.ndarray:
    """Read strings as datetime64[ns] with ``fmt``, NaT where unreadable.

    Time-zone aware strings are converted to UTC.
    """
    stripped = pd.Series(
        [v.strip() if isinstance(v, str) else None for v in values], dtype=object
    )
    parsed = pd.to_datetime(stripped, format=fmt, errors="coerce", utc=True)
    return parsed.dt.tz_localize(None).to_numpy("datetime64[ns]")


def stringify(values: np.ndarray) -> np.ndarray:
    """Each non-missing value as its ``str``; missing values stay ``None``.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._column_kinds import stringify
    >>> stringify(np.array([1, "a", None, 2.5], dtype=object)).tolist()
    ['1', 'a', None, '2.5']
    """
    out = np.empty(len(values), dtype=object)
    for i, value in enumerate(values):
        out[i] = None if _is_missing(value) else str(value)
    return out


def _is_missing(value: Any) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float | np.floating) and value != value


# Free text: a high-cardinality column whose values read as sentences or lists.
_WORD = re.compile(r"\w+")
_LIST_SEPARATOR = re.compile(r"[,;|]")
_LETTER = re.compile(r"[^\W\d_]")
#: Distinct values looked at by :func:`is_free_text` (the first ones).
TEXT_SAMPLE = 1_000


def is_free_text(values: np.ndarray, *, min_words: int = 6, min_items: int = 3) -> bool:
    """Return whether string values read as free text or lists, not categories.

    A column is free text when, over its distinct values (the first
    :data:`TEXT_SAMPLE`), the median number of words (runs of letters and
    digits) is at least ``min_words``, or the median number of list items is at
    least ``min_items``: a list is a value split by ``,``, ``;`` or ``|`` into
    items that each hold a letter. Short labels (``"Police Officer III"``),
    codes and coordinates (``"(38.98, -77.09)"``) are not free text;
    ``"english (fluently), spanish (poorly), c++"`` and sentences are.
    :class:`TableVectorizer` asks this of high-cardinality string columns only.

    Parameters
    ----------
    values : ndarray of shape (n,)
        The distinct non-missing values; values that are not strings do not count.
    min_words : int, default=6
        Median words per value from which a column is free text.
    min_items : int, default=3
        Median list items per value from which a column is free text.

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._column_kinds import is_free_text
    >>> is_free_text(np.array(["Police Officer III", "Bus Operator"], dtype=object))
    False
    >>> is_free_text(np.array(["asian, white, other", "black, white, latin"],
    ...                       dtype=object))
    True
    >>> is_free_text(np.array(["Driving motor vehicle on highway without a license",
    ...                        "Failure to obey traffic control device instructions"],
    ...                       dtype=object))
    True
    """
    strings = [v for v in values[:TEXT_SAMPLE] if isinstance(v, str)]
    if not strings:
        return False
    words = np.median([len(_WORD.findall(s)) for s in strings])
    if words >= min_words:
        return True
    items = np.median([_list_items(s) for s in strings])
    return bool(items >= min_items)


def _list_items(value: str) -> int:
    parts = _LIST_SEPARATOR.split(value)
    if len(parts) < 2 or not all(_LETTER.search(part) for part in parts):
        return 1
    return len(parts)
