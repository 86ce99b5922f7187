"""How the strings of a column are read: numbers, money, dates and times.

Pure functions on 1-D numpy arrays of distinct values, used by the kind rules in
``autocat._column_kinds`` at fit and replayed by the encoders at transform.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from numbers import Real
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "DECIMAL_COMMA",
    "MISSING_TOKENS",
    "QUARTERS",
    "UNIT",
    "date_share",
    "detect_date_format",
    "detect_time_format",
    "is_missing",
    "is_missing_token",
    "is_number",
    "parse_dates",
    "parse_numbers",
    "parse_times",
    "sample_then_all",
    "stringify",
    "unit_share",
]

# Strings that mean "no value" inside a column of numbers, dates or times (compared
# stripped and lower-cased). They are only read as missing once the rest of the
# column is known to hold numbers, dates or times.
MISSING_TOKENS = frozenset({"", "nan", "na", "n/a", "null", "none", "-", "?"})

# A mantissa with at least one digit ("12", "1,234.5", "3.", ".5"), then an optional
# exponent: "E250" is a code, not a number. Around it: an optional sign, a currency
# symbol before or after, a trailing percent sign, or accounting parentheses for
# negative amounts ("(1,234)").
_NUMBER = re.compile(
    r"(?P<open>\()?(?P<sign>[+-])?(?P<pre>[$\u20ac\u00a3\u00a5])?\s?(?P<sign2>[+-])?"
    r"(?P<num>(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)"
    r"\s?(?P<post>[$\u20ac\u00a3\u00a5%])?(?P<close>\))?",
    re.ASCII,
)
# The format of numbers written with a decimal comma and dots (or nothing)
# between thousands, as much of Europe writes them: "1.234,5", "94,71".
DECIMAL_COMMA = "decimal comma"
# The format of numbers followed by a unit ("142 min", "16 GB", "2.0L"): this
# prefix, then the unit (lower-cased).
UNIT = "unit "
_UNIT_VALUE = re.compile(
    r"(?P<num>[-+]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+))"
    r"\s*(?P<unit>(?:°|[^\W\d_])[^\d]{0,15})"
)
_DIGITS = re.compile(r"\d[\d.,]*")
_COMMA_BODY = re.compile(r"(?:\d{1,3}(?:\.\d{3})+|\d+)(?:,\d+)?")
_HAS_DIGIT = re.compile(r"\d")
_TIME = re.compile(
    r"(?P<h>\d{1,2}):(?P<m>\d{2})(?::(?P<s>\d{2})(?P<f>\.\d{1,9})?)?"
    r"(?:\s?(?P<p>[AaPp][Mm]))?"
)
_ISO = re.compile(
    r"\d{4}-\d{2}(?:-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?"
    r"(?:Z|[+-]\d{2}(?::?\d{2})?)?)?)?"
)

# What a date written in one of the formats below holds somewhere: three
# numbers joined by "/", "-" or ".", ISO 8601's year and month, its basic form,
# or a month's name.
_DATE_HINT = re.compile(
    r"\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}|\d{4}-\d{2}|\d{8}T\d{4}"
    r"|(?i:\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b)"
)

# The format recorded for quarters ("2019 Q3", "2019-Q3", "Q3 2019", "2019q3"),
# read as the quarter's first day.
QUARTERS = "quarters"
_QUARTER = re.compile(
    r"(?P<year>\d{4})\s?[-/ ]?\s?[Qq](?P<quarter>[1-4])"
    r"|[Qq](?P<quarter2>[1-4])\s?[-/ ]?\s?(?P<year2>\d{4})"
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
    # a two-digit year with a time, as spreadsheets export timestamps ("8/6/20 18:57")
    "%m/%d/%y %H:%M",
    "%m/%d/%y %H:%M:%S",
    "%d/%m/%y %H:%M",
    "%d/%m/%y %H:%M:%S",
    "%m/%d/%Y %I:%M %p",
    "%m/%d/%Y %I:%M:%S %p",
    "%d/%m/%Y %I:%M %p",
    "%d/%m/%Y %I:%M:%S %p",
    "%Y/%m/%d %H:%M",
    "%Y/%m/%d %H:%M:%S",
    "%d.%m.%Y %H:%M",
    "%d.%m.%Y %H:%M:%S",
    # dashes with a time of day, as spreadsheets export them ("20-10-10 8:32");
    # a two-digit year only with a time, so that codes such as "3-1-0" stay text
    "%m-%d-%Y %H:%M",
    "%m-%d-%Y %H:%M:%S",
    "%d-%m-%Y %H:%M",
    "%d-%m-%Y %H:%M:%S",
    "%m-%d-%y %H:%M",
    "%m-%d-%y %H:%M:%S",
    "%d-%m-%y %H:%M",
    "%d-%m-%y %H:%M:%S",
    "%d %b %Y",
    "%d %B %Y",
    "%b %d, %Y",
    "%B %d, %Y",
    "%b %d %Y",
    "%d-%b-%Y",
    "%d-%b-%y",
    "%b %Y",
    "%B %Y",
    "%Y %b",
    "%Y %B",
    "%A, %B %d, %Y",
    "%b %d, %Y %I:%M %p",
    "%B %d, %Y %I:%M %p",
    "%Y.%m.%d",
    # a "UTC" suffix, as BigQuery and many logs export timestamps
    "%Y-%m-%d %H:%M:%S UTC",
    "%Y-%m-%d %H:%M:%S.%f UTC",
    "%Y-%m-%d %H:%M UTC",
    # C's asctime, and Twitter's created_at with its offset before the year
    "%a %b %d %H:%M:%S %Y",
    "%a %b %d %H:%M:%S %z %Y",
    # ISO 8601's basic form (no separators), as exports and APIs write
    # timestamps ("20141013T000000"); the "T" keeps 8-digit numbers out. The
    # form without seconds comes first: strptime would read "T1005" as 10:00:05.
    "%Y%m%dT%H%M",
    "%Y%m%dT%H%M%S",
    "%Y%m%dT%H%M%SZ",
    # RFC 2822, as e-mail headers and RSS feeds write dates
    "%a, %d %b %Y %H:%M:%S %z",
    "%a, %d %b %Y %H:%M:%S GMT",
    "%d %b %Y %H:%M:%S %z",
)
_AMBIGUOUS_PAIRS = {
    "%m/%d/%Y": "%d/%m/%Y",
    "%m-%d-%Y": "%d-%m-%Y",
    "%m/%d/%y": "%d/%m/%y",
    "%m/%d/%y %H:%M": "%d/%m/%y %H:%M",
    "%m/%d/%y %H:%M:%S": "%d/%m/%y %H:%M:%S",
    "%m/%d/%Y %H:%M": "%d/%m/%Y %H:%M",
    "%m/%d/%Y %H:%M:%S": "%d/%m/%Y %H:%M:%S",
    "%m/%d/%Y %I:%M %p": "%d/%m/%Y %I:%M %p",
    "%m/%d/%Y %I:%M:%S %p": "%d/%m/%Y %I:%M:%S %p",
    "%m-%d-%Y %H:%M": "%d-%m-%Y %H:%M",
    "%m-%d-%Y %H:%M:%S": "%d-%m-%Y %H:%M:%S",
    "%m-%d-%y %H:%M": "%d-%m-%y %H:%M",
    "%m-%d-%y %H:%M:%S": "%d-%m-%y %H:%M:%S",
}
_DAY_FIRST_PAIRS = {day: month for month, day in _AMBIGUOUS_PAIRS.items()}
# Values tried before committing to a format on every distinct value.
_SAMPLE = 200


def is_number(value: Any) -> bool:
    return isinstance(value, Real | np.number | Decimal) and not isinstance(
        value, bool | np.bool_
    )


def is_missing_token(values: np.ndarray) -> np.ndarray:
    """Return which values are strings that mean "no value" (:data:`MISSING_TOKENS`).

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._parsing import is_missing_token
    >>> is_missing_token(np.array(["2020-01-01", " ", "N/A", None], dtype=object))
    array([False,  True,  True, False])
    """
    return np.fromiter(
        (isinstance(v, str) and v.strip().lower() in MISSING_TOKENS for v in values),
        dtype=bool,
        count=len(values),
    )


def _present_if(values: np.ndarray, test: Any) -> np.ndarray | None:
    """``values`` without missing tokens if ``test`` holds on them, else None.

    ``test`` runs on a sample first, so that most columns are rejected without a
    pass over all their values. At least one value must be left.
    """
    head = values[:_SAMPLE]
    if not test(head[~is_missing_token(head)]):
        return None
    present: np.ndarray = values[~is_missing_token(values)]
    if not len(present) or not test(present):
        return None
    return present


def _all_times(values: np.ndarray) -> bool:
    return all(isinstance(v, str) and _TIME.fullmatch(v.strip()) for v in values)


def _may_be_dates(values: np.ndarray) -> bool:
    return all(
        isinstance(v, str) and 6 <= len(v.strip()) <= 40 and _HAS_DIGIT.search(v)
        for v in values
    )


def sample_then_all(values: np.ndarray) -> list[np.ndarray]:
    """Return a small sample first, to reject most columns cheaply, then all."""
    if len(values) <= _SAMPLE:
        return [values]
    return [values[:_SAMPLE], values]


def parse_numbers(
    values: np.ndarray, number_format: str | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Read numbers, numeric strings and missing tokens as float64.

    Strings may have surrounding white space, thousands separators (``"121,511"``),
    exponents, a sign, a currency symbol (``$``, ``€``, ``£``, ``¥``) before or
    after the number, accounting parentheses for a negative amount
    (``"(1,234)"`` is -1234) and a trailing ``%``. A percentage keeps its written
    number: ``"12.3%"`` reads 12.3, on the scale of a column written ``"12.3"``.
    ``decimal.Decimal`` values read as floats. :data:`MISSING_TOKENS` (``""``,
    ``"NA"``, ``"?"``...) and missing values give ``NaN``.

    Parameters
    ----------
    values : ndarray of shape (n,)
        Strings, numbers or missing values.
    number_format : {None, DECIMAL_COMMA}, default=None
        With :data:`DECIMAL_COMMA`, strings are written ``"1.234,5"``: a comma
        before the decimals, dots (or nothing) between thousands; a string with
        any other dot (``"12.5"``) is unreadable.

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
    >>> parse_numbers(np.array(["$1,234.50", "12.3%", "(1,000)"]))[0].tolist()
    [1234.5, 12.3, -1000.0]
    >>> parse_numbers(np.array(["1.234,5", "94,71 €", "12.5"]), "decimal comma")
    (array([1234.5 ,   94.71,     nan]), array([ True,  True, False]))
    """
    numbers = np.full(len(values), np.nan)
    ok = np.ones(len(values), dtype=bool)
    for i, value in enumerate(values):
        if isinstance(value, str):
            text = value.strip()
            if text.lower() in MISSING_TOKENS:
                continue
            number = _read_number(text, number_format)
            if number is None:
                ok[i] = False
            else:
                numbers[i] = number
        elif is_number(value) or isinstance(value, bool | np.bool_):
            numbers[i] = float(value)
        elif value is None or value is pd.NA or value is pd.NaT:
            continue
        else:
            ok[i] = False
    return numbers, ok


# Infinities as Python and pandas write them; autocat's checks then name them.
_INFINITIES = {"inf": np.inf, "+inf": np.inf, "-inf": -np.inf, "infinity": np.inf,
               "+infinity": np.inf, "-infinity": -np.inf}  # fmt: skip


def _read_number(text: str, number_format: str | None = None) -> float | None:
    infinity = _INFINITIES.get(text.lower())
    if infinity is not None:
        return float(infinity)
    if number_format is not None and number_format.startswith(UNIT):
        found = _UNIT_VALUE.fullmatch(text)
        if found is None:  # a number written without the unit reads as one
            return _read_number(text)
        if _unit_of(found) != number_format[len(UNIT) :]:
            return None
        return float(found["num"].replace(",", ""))
    if number_format == DECIMAL_COMMA:  # "1.234,5" -> "1234.5"
        digits = _DIGITS.search(text)
        if digits is None or not _COMMA_BODY.fullmatch(digits.group()):
            return None
        body = digits.group().replace(".", "").replace(",", ".")
        text = text[: digits.start()] + body + text[digits.end() :]
    found = _NUMBER.fullmatch(text)
    if found is None:
        return None
    sign, sign2, pre, post = found["sign"], found["sign2"], found["pre"], found["post"]
    if (found["open"] is None) != (found["close"] is None):
        return None
    if (sign and sign2) or (pre and post) or (found["open"] and (sign or sign2)):
        return None
    if post and post != "%" and found["open"] is None and (sign2 or pre):
        return None
    number = float(found["num"].replace(",", ""))
    if found["open"] or "-" in (sign or "") + (sign2 or ""):
        number = -number
    return number


def _unit_of(found: re.Match[str]) -> str:
    return " ".join(found["unit"].lower().split()).rstrip(".")


def unit_share(values: np.ndarray) -> tuple[str, float]:
    """Return the unit most numbers are written with, and the share it reads.

    A value is a number followed by a unit (``"142 min"``, ``"16 GB"``,
    ``"2.0L"``, ``"3 years"``): letters, after the number and a blank or
    not, up to 16 characters without digits. The unit is compared in lower
    case, blanks collapsed and a final dot dropped; the share is of all
    ``values`` (missing tokens left out) that are numbers in that unit or
    numbers without a unit, which read as numbers in it. Returns
    ``('', 0.0)`` when fewer than half the first values start like a number,
    or fewer than half of all are written with the unit.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._parsing import unit_share
    >>> unit_share(np.array(["142 min", "95 min", "2 h", "N/A"], dtype=object))
    ('min', 0.6666666666666666)
    >>> unit_share(np.array(["Bus Operator", "Clerk II"], dtype=object))
    ('', 0.0)
    """
    values = values[~is_missing_token(values)]
    head = values[:_SAMPLE]
    starts = sum(isinstance(v, str) and v.lstrip()[:1] in "0123456789+-." for v in head)
    if not len(head) or starts < 0.5 * len(head):
        return "", 0.0
    units: dict[str, int] = {}
    plain = 0
    for value in values:
        text = value.strip() if isinstance(value, str) else ""
        found = _UNIT_VALUE.fullmatch(text)
        if found is not None:
            unit = _unit_of(found)
            units[unit] = units.get(unit, 0) + 1
        elif _read_number(text) is not None:
            plain += 1
    unit = max(units, key=units.__getitem__, default="")
    if not unit or units[unit] < 0.5 * len(values):  # a few codes among numbers
        return "", 0.0
    return unit, (units[unit] + plain) / len(values)


def detect_time_format(values: np.ndarray) -> str | None:
    """Return the format of strings that all read as times of day, or None.

    Times are ``H:MM``, ``H:MM:SS`` or ``H:MM:SS.fff``, 24-hour or with
    ``AM``/``PM``; the format returned names the widest form seen. Missing tokens
    (:data:`MISSING_TOKENS`: blanks, ``"n/a"``, ``"-"``...) are left out; at least
    one value must be a time.

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
    >>> detect_time_format(np.array(["21:37", " ", "n/a"], dtype=object))
    '%H:%M'
    """
    present = _present_if(values, _all_times)
    if present is None or np.isnat(parse_times(present)).any():
        return None
    matches = [_TIME.fullmatch(v.strip()) for v in present]
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


def detect_date_format(
    values: np.ndarray, *, dayfirst: bool = False
) -> tuple[str, str] | None:
    """Return the format reading every string as a date, and a note, or None.

    ISO 8601 strings (``"2020-03-01"``, ``"2020-03-01T10:00:00Z"``, an offset
    ``"+01:00"``, ``"+0100"`` or ``"+01"``) come first;
    then common forms: day/month orders with ``/``, ``-`` or ``.``, with times
    (24-hour or ``AM``/``PM``), ``"2020/03/01 10:00"``, month names
    (``"Mar 2020"``, ``"2020 Mar"``, ``"12 March 2020"``,
    ``"Sunday, March 01, 2020"``), a two-digit year with a time
    (``"8/6/20 18:57"``),
    ISO 8601's basic form (``"20200301T100000"``, with a ``Z`` too), a
    ``" UTC"`` suffix (``"2020-03-01 10:00:00 UTC"``), C's ``asctime`` and
    Twitter's ``"Sun Mar 01 10:00:00 +0000 2020"``, quarters (``"2020 Q1"``,
    ``"Q1 2020"``: :data:`QUARTERS`), and RFC 2822 (``"Sun, 01 Mar 2020
    10:00:00 +0100"``, converted to UTC). When both month-first and day-first
    read every value, month-first is chosen (day-first with ``dayfirst=True``)
    and the note says so. Missing tokens (:data:`MISSING_TOKENS`: blanks,
    ``"n/a"``, ``"-"``...) are left out; at least one value must be a date.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._column_kinds import detect_date_format
    >>> detect_date_format(np.array(["09/12/1986", "01/02/2003"], dtype=object))
    ('%m/%d/%Y', '; day/month order ambiguous, month first assumed')
    >>> detect_date_format(np.array(["2020-03-01", "2021-12-31"], dtype=object))
    ('ISO8601', '')
    >>> detect_date_format(np.array(["09/12/1986"], dtype=object), dayfirst=True)
    ('%d/%m/%Y', '; day/month order ambiguous, day first (dayfirst=True)')
    >>> detect_date_format(np.array(["2020-03-01", "", "-"], dtype=object))
    ('ISO8601', '')
    """
    # cheap rejections on a sample, before the missing tokens leave all values
    head = values[:_SAMPLE]
    head = head[~is_missing_token(head)]
    if not len(head):  # the sample held tokens only
        head = values[~is_missing_token(values)][:_SAMPLE]
    if not len(head) or not _may_be_dates(head):
        return None
    iso = all(_ISO.fullmatch(v.strip()) for v in head)
    pairs = _DAY_FIRST_PAIRS if dayfirst else _AMBIGUOUS_PAIRS
    first = head[0].strip()
    candidates = _readers(first, _formats(dayfirst))
    if _QUARTER.fullmatch(first):
        candidates.insert(0, QUARTERS)
    if not iso and not candidates:
        return None
    values = values[~is_missing_token(values)]
    if iso and all(_ISO.fullmatch(v.strip()) for v in values):
        if not np.isnat(parse_dates(values, "ISO8601")).any():
            return "ISO8601", ""
        return None
    for fmt in candidates:
        if all(
            not np.isnat(parse_dates(part, fmt)).any()
            for part in sample_then_all(values)
        ):
            other = pairs.get(fmt)
            if other is not None and not np.isnat(parse_dates(values, other)).any():
                if dayfirst:
                    return fmt, "; day/month order ambiguous, day first (dayfirst=True)"
                return fmt, "; day/month order ambiguous, month first assumed"
            return fmt, ""
    return None


def date_share(values: np.ndarray, *, dayfirst: bool = False) -> tuple[str, float]:
    """Return the date format that reads the most strings, and their share.

    For a column of which only some strings are dates (``"09/20/2011"``
    beside ``"09/20/2011 - 10/28/2011"``, ``"ongoing"``), where
    :func:`detect_date_format` finds none. The formats tried are those of
    :func:`detect_date_format` that read one of the first strings with a
    digit and look like dates (a cheap test, which also requires half the
    first strings to look so); the share is of all ``values`` (missing tokens
    left out), and is 0
    with the format ``''`` when none applies. Month-first orders come before
    day-first ones (after them with ``dayfirst=True``) and win a tie.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._parsing import date_share
    >>> values = np.array(["10/16/2009", "9/22/2009", "09/20/2011 - 10/28/2011",
    ...                    "unknown"], dtype=object)
    >>> date_share(values)
    ('%m/%d/%Y', 0.5)
    >>> date_share(np.array(["Bus Operator", "Police Officer II"], dtype=object))
    ('', 0.0)
    """
    values = values[~is_missing_token(values)]
    head = values[:_SAMPLE]
    dated = [v for v in head if isinstance(v, str) and _DATE_HINT.search(v)]
    if len(dated) < 0.5 * len(head) or not dated:  # cheap: most columns end here
        return "", 0.0
    firsts = list(dict.fromkeys(v.strip() for v in dated[:3]))
    candidates = ["ISO8601"] if any(_ISO.fullmatch(v) for v in firsts) else []
    readers = {fmt for v in firsts for fmt in _readers(v, _DATE_FORMATS)}
    candidates += [fmt for fmt in _formats(dayfirst) if fmt in readers]
    if any(_QUARTER.fullmatch(v) for v in firsts):
        candidates.append(QUARTERS)
    best, best_share = "", 0.0
    for fmt in candidates:
        share = float((~np.isnat(parse_dates(head, fmt))).mean())
        if share > best_share:
            best, best_share = fmt, share
    if best and len(values) > len(head):
        best_share = float((~np.isnat(parse_dates(values, best))).mean())
    return best, best_share


def _shape(text: str) -> str:
    """Return ``text`` with runs of digits as ``d``, letters as ``a``, blanks as one.

    Examples
    --------
    >>> _shape("20141013T000000"), _shape("Mar  1, 2020")
    ('dad', 'a d, d')
    """
    text = _LETTERS.sub("a", _DIGIT_RUNS.sub("0", " ".join(text.split())))
    return text.replace("0", "d")


def _format_shape(fmt: str) -> str:
    """Return the :func:`_shape` of the strings ``fmt`` writes."""
    named = re.sub("%[aAbBp]", "x", fmt)  # words
    numbers = re.sub("%[YmdyHMSIf]", "0", named)
    return _shape(numbers.replace("x", "a"))


_DIGIT_RUNS = re.compile(r"\d+")
_LETTERS = re.compile(r"[^\W\d_]+")
_FORMAT_SHAPES = {
    fmt: _format_shape(fmt) for fmt in _DATE_FORMATS + tuple(_DAY_FIRST_PAIRS)
}


def _formats(dayfirst: bool) -> tuple[str, ...]:
    """Return the candidate formats; with dayfirst, day-first twins go first."""
    if not dayfirst:
        return _DATE_FORMATS
    twins = {**_AMBIGUOUS_PAIRS, **_DAY_FIRST_PAIRS}
    return tuple(twins.get(fmt, fmt) for fmt in _DATE_FORMATS)


def _readers(text: str, formats: tuple[str, ...]) -> list[str]:
    """Return the ``formats`` that read ``text``, tried once their shapes agree."""
    shape = _shape(text)
    return [
        fmt
        for fmt in formats
        if ("%z" in fmt or _FORMAT_SHAPES[fmt] == shape) and _reads_as(text, fmt)
    ]


def _reads_as(text: str, fmt: str) -> bool:
    try:
        dt.datetime.strptime(text, fmt)
    except ValueError:
        return False
    return True


def parse_dates(values: np.ndarray, fmt: str) -> np.ndarray:
    """Read strings as datetime64[ns] with ``fmt``, NaT where unreadable.

    Time-zone aware strings are converted to UTC. With ``fmt=QUARTERS``,
    quarters (``"2019 Q3"``) read as their first day.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._parsing import QUARTERS, parse_dates
    >>> quarters = np.array(["2019 Q3", "Q1-2020", "2020"], dtype=object)
    >>> np.datetime_as_string(parse_dates(quarters, QUARTERS), unit="D").tolist()
    ['2019-07-01', '2020-01-01', 'NaT']
    """
    if fmt == QUARTERS:
        return _parse_quarters(values)
    stripped = pd.Series(
        [v.strip() if isinstance(v, str) else None for v in values], dtype=object
    )
    parsed = pd.to_datetime(stripped, format=fmt, errors="coerce", utc=True)
    return parsed.dt.tz_localize(None).to_numpy("datetime64[ns]")


def _parse_quarters(values: np.ndarray) -> np.ndarray:
    months = np.full(len(values), np.iinfo(np.int64).min, dtype=np.int64)
    for i, value in enumerate(values):
        found = _QUARTER.fullmatch(value.strip()) if isinstance(value, str) else None
        if found is not None:
            year = int(found["year"] or found["year2"])
            quarter = int(found["quarter"] or found["quarter2"])
            months[i] = (year - 1970) * 12 + 3 * (quarter - 1)
    return months.view("datetime64[M]").astype("datetime64[ns]")


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
        out[i] = None if is_missing(value) else str(value)
    return out


def is_missing(value: Any) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float | np.floating) and value != value
