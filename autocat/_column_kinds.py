"""Pure rules that decide the kind of a column, and why.

Everything here works on the distinct values of one column (a 1-D numpy array)
and a few counts, never on a dataframe, so that the rules are tested alone and
cost time in the number of distinct values, not rows. :class:`TableVectorizer`
calls :func:`decide` once per column at ``fit`` and records the
:class:`Decision`; ``transform`` replays the recorded conversion. How strings
are read (numbers, dates, times) lives in ``autocat._parsing``, which text is an
identifier or free text in ``autocat._text_kinds``; their functions are re-exported
here.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from autocat._parsing import (
    DECIMAL_COMMA,
    UNIT,
    date_share,
    detect_date_format,
    detect_time_format,
    is_missing,
    is_number,
    parse_dates,
    parse_numbers,
    parse_times,
    sample_then_all,
    stringify,
    unit_share,
)
from autocat._text_kinds import (
    MIN_ID_ROWS,
    WORD_LETTERS,
    identifier_reason,
    is_free_text,
    unique_text_reason,
)

__all__ = [
    "FAMILIES",
    "KINDS",
    "MOSTLY_DATES",
    "MOSTLY_NUMBERS",
    "WORD_LETTERS",
    "Decision",
    "SuspiciousColumnWarning",
    "as_numbers",
    "decide",
    "decimal_comma",
    "detect_date_format",
    "detect_time_format",
    "identifier_reason",
    "index_reason",
    "is_free_text",
    "leading_zero_code",
    "number_code",
    "number_share",
    "number_table",
    "number_tokens",
    "parse_dates",
    "parse_numbers",
    "parse_times",
    "stringify",
    "unique_text_reason",
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

# A string written with a leading zero before another digit ("02134", "007"): a
# code whose zeros a number would lose.
_LEADING_ZERO = re.compile(r"\s*[+-]?0\d")
_DIGIT = re.compile(r"\d")
_LETTER = re.compile(r"[^\W\d_]")
# A column pandas wrote from an unnamed index ("Unnamed: 0") or a reset index.
_INDEX_NAME = re.compile(r"Unnamed: \d+|index|level_\d+", re.IGNORECASE)
# Numbers with non-numeric tokens: at most this many distinct tokens, and at most
# this share of the distinct values.
_MAX_TOKENS = 5
_MAX_TOKEN_SHARE = 0.1
# A column of text with at least this share of distinct values that read as
# numbers keeps them as numbers too (``Decision.as_number``): a majority.
MOSTLY_NUMBERS = 0.5
# Likewise, a column of text with at least this share of distinct values that
# read as dates in one format keeps them as dates too, as days since 1970.
MOSTLY_DATES = 0.5


class SuspiciousColumnWarning(UserWarning):
    """A column predicts the target suspiciously well on its own.

    :class:`TableVectorizer` warns with this category at ``fit`` when a column,
    read alone, orders the target almost perfectly (see
    :func:`autocat._column_kinds.neighbour_score`): it is often a copy of the
    target, a value recorded after the outcome, or a row index of a table sorted
    by the target. Check the column, then drop it or silence the warning with
    ``warnings.filterwarnings("ignore", category=SuspiciousColumnWarning)``.

    Examples
    --------
    >>> from autocat import SuspiciousColumnWarning
    >>> issubclass(SuspiciousColumnWarning, UserWarning)
    True
    """


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
        The date or time format (``strptime`` codes, or ``'ISO8601'``); for
        numbers, ``None`` or :data:`~autocat._parsing.DECIMAL_COMMA`; for text
        with ``as_number``, the format of its dates, if they are dates.
    tokens : tuple of str, default=()
        For a column of numbers: the non-numeric strings seen at fit (``"unknown"``,
        ``">90"``), read as missing; the column then also gets a missing
        indicator output.
    as_number : bool, default=False
        For a column of codes written as numbers (``"02134"``, ``"136A"`` among
        ``"1"`` to ``"204"``): besides its text encoding, the column gets one
        more output, ``<name>_number``, the code read as a number (``NaN`` where
        it is not one), so that a tree may use their order where it means
        something (ZIP codes follow geography) and ignore it where it does not.
        With a date ``fmt`` (text of which most values are dates, beside
        ranges or remarks), the output is ``<name>_date``, the days since
        1970-01-01 of the values that read as dates (``NaN`` for the others).
    identifier : bool, default=False
        Whether the column is an identifier code (:func:`identifier_reason`),
        dropped or, with ``drop_identifiers='indexes'``, kept as text.
    """

    kind: str
    reason: str
    conversion: str | None = None
    fmt: str | None = None
    tokens: tuple[str, ...] = ()
    as_number: bool = False
    identifier: bool = False


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
    name: str = "",
    dayfirst: bool = False,
    date_format: str | None = None,
    drop_identifiers: bool | str = True,
) -> Decision:
    """Decide the kind of a column from its storage family and distinct values.

    Rules, in order: no value, or one value and no missing value, is
    ``'dropped'``; datetimes are ``'datetime'``; numbers are ``'numeric'``
    unless :func:`index_reason` finds a row index; strings that read as numbers
    (see :func:`number_tokens`: money, percentages, thousands separators, a few
    non-numeric tokens) are ``'numeric'`` unless some value is a code
    (:func:`number_code`: a leading zero, or a token of digits and letters),
    and then text that keeps its value as a number too (``as_number``);
    strings that read as times or
    dates are ``'datetime'``; other values are text, which keeps its values
    as numbers (or as dates) too when most read as such, ``'dropped'`` when
    :func:`identifier_reason` finds an identifier, otherwise low- or
    high-cardinality by their number of distinct values.

    Parameters
    ----------
    family : str
        One of :data:`FAMILIES`: how the column is stored.
    uniques : ndarray of shape (n_distinct,)
        The distinct non-missing values, in order of first appearance.
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
    name : str, default=''
        The column's name (a saved index is named ``'Unnamed: 0'``).
    dayfirst : bool, default=False
        Read dates whose day/month order is ambiguous day first.
    date_format : str or None, default=None
        A ``strptime`` format given for this column: its values are read as
        dates with it, whatever they look like.
    drop_identifiers : bool or 'indexes', default=True
        Whether row indexes and identifiers are ``'dropped'``; ``'indexes'``
        drops row indexes and keeps identifier codes as text. Either way an
        identifier code's decision says ``identifier=True``.

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
    >>> zips = decide("string", np.array(["02134", "2134"], dtype=object), 0, 2)
    >>> zips.reason
    "codes with leading zeros (e.g. '02134') read as text and as numbers; 2 distinct \
values <= 30"
    >>> zips.as_number
    True
    """
    n_distinct = len(uniques)
    if n_distinct == 0:
        if drop_missing:
            return Decision("dropped", "all values missing")
        return Decision("numeric", "all values missing, kept as NaN", "number")
    if n_distinct == 1 and n_missing == 0 and n_rows > 1 and drop_constant:
        return Decision("dropped", f"constant: single value {_short(uniques[0])}")
    if date_format is not None and family not in ("datetime", "time"):
        return Decision(
            "datetime", f"dates ({date_format}, given)", "date", date_format
        )
    if family in ("numeric", "boolean"):
        why = index_reason(name, uniques, n_missing, n_rows)
        if family == "numeric" and drop_identifiers and why is not None:
            return Decision("dropped", why)
        return Decision(family, f"{family} values kept as float")
    if family == "datetime":
        return Decision("datetime", "datetime values encoded by parts")
    if family == "time":
        return Decision("datetime", "times of day encoded by parts", "time")
    if family == "object":
        types = {type(v) for v in uniques}
        if types <= {bool, np.bool_}:
            return Decision("boolean", "object column of booleans", "number")
        if all(is_number(v) for v in uniques):
            numbers = np.asarray([float(v) for v in uniques])
            why = index_reason(name, numbers, n_missing, n_rows)
            if drop_identifiers and why is not None:
                return Decision("dropped", why)
            return Decision("numeric", "object column of numbers", "number")
        if all(isinstance(v, dt.date | np.datetime64) for v in uniques):
            # datetime, date, pd.Timestamp: their str is ISO 8601
            return Decision("datetime", "object column of dates", "date", "ISO8601")
        if all(isinstance(v, dt.time) for v in uniques):
            fmt = detect_time_format(stringify(uniques))
            if fmt is not None:
                return Decision("datetime", "object column of times", "time", fmt)
    code = None
    is_text, unit, unit_part = False, "", 0.0
    if family != "categorical":
        is_text = all(isinstance(v, str) for v in uniques)
        tokens = number_tokens(uniques) if parse_numbers else None
        code = None if tokens is None else number_code(uniques, tokens)
        if tokens is not None and code is None:
            numbers = _read_numbers(uniques)
            why = index_reason(name, numbers, n_missing, n_rows)
            if drop_identifiers and not tokens and why is not None:
                return Decision("dropped", why)
            reason = (
                "strings read as numbers" if is_text else "numbers and numeric strings"
            )
            if tokens:
                shown = ", ".join(repr(t) for t in tokens)
                reason += (
                    f"; non-numeric value(s) {shown} read as missing, with a missing "
                    "indicator"
                )
            return Decision("numeric", reason, "number", tokens=tokens)
        if is_text and parse_numbers and code is None and decimal_comma(uniques):
            return Decision(
                "numeric",
                "strings read as numbers with a decimal comma",
                "number",
                DECIMAL_COMMA,
            )
        if is_text and parse_numbers and code is None:
            unit, unit_part = unit_share(uniques)
        if unit_part == 1.0:
            numbers = _read_numbers(uniques, UNIT + unit)
            why = index_reason(name, numbers, n_missing, n_rows)
            if drop_identifiers and why is not None:
                return Decision("dropped", why)
            reason = f"numbers in {unit!r} read as numbers"
            return Decision("numeric", reason, "number", UNIT + unit)
        if is_text:
            if parse_times:
                fmt = detect_time_format(uniques)
                if fmt is not None:
                    return Decision("datetime", f"times of day ({fmt})", "time", fmt)
            if parse_dates:
                found = detect_date_format(uniques, dayfirst=dayfirst)
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
    as_number = code is not None
    if code is not None:
        leading = _LEADING_ZERO.match(code)
        written = "with leading zeros" if leading else "of digits and letters"
        prefix += f"codes {written} (e.g. {code!r}) read as text and as numbers; "
    elif family != "categorical" and parse_numbers:
        share = number_share(uniques)
        if share >= MOSTLY_NUMBERS:
            as_number = True
            numbers = round(share * n_distinct)
            prefix += (
                f"{numbers} of {n_distinct} distinct values are numbers: read as "
                "text and as numbers; "
            )
    extra_fmt = None
    if is_text and not as_number and unit_part >= MOSTLY_NUMBERS:
        as_number, extra_fmt = True, UNIT + unit
        prefix += (
            f"{round(unit_part * n_distinct)} of {n_distinct} distinct values are "
            f"numbers in {unit!r}: read as text and as numbers; "
        )
    if is_text and parse_dates and not as_number:
        fmt, share = date_share(uniques, dayfirst=dayfirst)
        if share >= MOSTLY_DATES:
            as_number, extra_fmt = True, fmt
            prefix += (
                f"{round(share * n_distinct)} of {n_distinct} distinct values are "
                f"dates ({fmt}): read as text and as days since 1970; "
            )
    why = identifier_reason(uniques, n_missing, n_rows)
    identifier = why is not None and extra_fmt is None
    if identifier and drop_identifiers is True:
        return Decision("dropped", prefix + why, identifier=True)
    if identifier and drop_identifiers == "indexes":  # their parts may tell much
        prefix += f"{why}, kept (drop_identifiers='indexes'); "
    kind, sign = "low_cardinality", "<="
    if n_distinct > cardinality_threshold:
        kind, sign = "high_cardinality", ">"
    return Decision(
        kind,
        f"{prefix}{n_distinct} distinct values {sign} {cardinality_threshold}",
        conversion,
        extra_fmt,
        as_number=as_number,
        identifier=identifier,
    )


def number_tokens(uniques: np.ndarray) -> tuple[str, ...] | None:
    """Return the non-numeric strings of a column of numbers, or None.

    The rule: a column is numbers when every distinct value reads as a number or
    a missing token (see :func:`parse_numbers`), except at most 5 distinct
    strings that make up at most 10% of the distinct values (so one stray
    ``"unknown"`` needs 10 distinct values or more), and at least one value is a
    number. The thresholds count distinct values, not rows, so that a frequent
    token (``"n/a"`` on half the rows) does not change the decision.

    Parameters
    ----------
    uniques : ndarray of shape (n_distinct,)
        The distinct non-missing values.

    Returns
    -------
    tuple of str or None
        ``()`` when every value reads, the tokens in order of first appearance
        when the rule holds, ``None`` when the column is not numbers.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._column_kinds import number_tokens
    >>> ages = np.array([str(a) for a in range(20, 80)] + ["unknown"], dtype=object)
    >>> number_tokens(ages)
    ('unknown',)
    >>> number_tokens(np.array(["1", "2", "many"], dtype=object)) is None
    True
    """
    n_distinct = len(uniques)
    limit = min(_MAX_TOKENS, int(_MAX_TOKEN_SHARE * n_distinct))
    for part in sample_then_all(uniques):
        numbers, ok = parse_numbers(part)
        if (~ok).sum() > limit:
            return None
    bad = uniques[~ok]
    if not all(isinstance(v, str) for v in bad) or not np.isfinite(numbers).any():
        return None
    return tuple(bad)


def number_share(uniques: np.ndarray) -> float:
    """Return the share of distinct values that read as numbers.

    Judged on the first distinct values when there are many: a column of words
    is rejected there, and one that passes is counted in full.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._column_kinds import number_share
    >>> zips = np.array(["60601", "73132-1531", "No home", "53703"], dtype=object)
    >>> number_share(zips)
    0.5
    """
    share = 0.0
    for part in sample_then_all(uniques):
        share = float(np.isfinite(parse_numbers(part)[0]).mean()) if len(part) else 0.0
        if share < MOSTLY_NUMBERS:
            break
    return share


def decimal_comma(uniques: np.ndarray) -> bool:
    """Return whether strings that do not all read as numbers use a decimal comma.

    Every distinct value must read with :data:`DECIMAL_COMMA` (``"1.234,5"``,
    ``"94,71"``, or a missing token), one at least must hold a comma, and the
    usual reading (a comma between thousands, in groups of three digits) must
    fail on one at least: ``"94,71"``, ``"1264,03"`` are numbers so written,
    while ``"1,264"`` alone reads 1264 as before. Columns of text fail on the
    first distinct values, so the check costs little.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._column_kinds import decimal_comma
    >>> decimal_comma(np.array(["94,71", "1.264,03", "7"], dtype=object))
    True
    >>> decimal_comma(np.array(["94,71", "12.5"], dtype=object))
    False
    >>> decimal_comma(np.array(["1,264", "2,500"], dtype=object))  # thousands
    False
    """
    for part in sample_then_all(uniques):  # text columns fail on the sample
        if not parse_numbers(part, DECIMAL_COMMA)[1].all():
            return False
    has_comma = any(isinstance(v, str) and "," in v for v in uniques)
    return has_comma and not parse_numbers(uniques)[1].all()


def as_numbers(values: np.ndarray) -> np.ndarray | None:
    """Return a column of text holding only numbers as numbers, else None.

    Every non-missing value must read (see :func:`parse_numbers`: money,
    thousands separators, percentages; or all with a decimal comma, see
    :func:`decimal_comma`), none may be a code with a leading zero, and one at
    least must be a number. Objects that are all numbers (``decimal.Decimal``,
    as databases return ``NUMERIC`` columns) read too; booleans do not.
    Integers give int64 when no value is missing, float64 otherwise. Columns
    already numeric give None.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._column_kinds import as_numbers
    >>> as_numbers(np.array(["100,235", "$1,234.50"], dtype=object)).tolist()
    [100235.0, 1234.5]
    >>> as_numbers(np.array(["94,71", "1.264,03"], dtype=object)).tolist()
    [94.71, 1264.03]
    >>> as_numbers(np.array(["1", "0", "1"], dtype=object)).tolist()
    [1, 0, 1]
    >>> as_numbers(np.array(["High", "Low", "None"], dtype=object)) is None
    True
    >>> from decimal import Decimal
    >>> as_numbers(np.array([Decimal("2.50"), Decimal("-1")], dtype=object)).tolist()
    [2.5, -1.0]
    """
    if values.dtype.kind != "O" and values.dtype.kind not in "UST":
        return None
    uniques = pd.unique(values.astype(object))
    present = np.asarray([not is_missing(v) for v in uniques], dtype=bool)
    uniques = uniques[present]
    # Number objects: decimal.Decimal, as databases return NUMERIC columns.
    objects = len(uniques) > 0 and all(is_number(v) for v in uniques)
    texts = any(isinstance(v, str) for v in uniques)
    if not (texts or objects) or leading_zero_code(uniques):
        return None
    number_format = None
    numbers, ok = parse_numbers(uniques)
    if not ok.all() and decimal_comma(uniques):
        number_format = DECIMAL_COMMA
        numbers, ok = parse_numbers(uniques, number_format)
    if not ok.all() or not np.isfinite(numbers).any():
        return None
    out, _ = parse_numbers(values.astype(object), number_format)
    if not np.isfinite(out).all() or (np.mod(out, 1) != 0).any():
        return out  # NaN and infinities stay floats (checks name the infinities)
    if np.abs(out).max() > 2**53:
        return out
    return out.astype(np.int64)


def number_code(uniques: np.ndarray, tokens: tuple[str, ...]) -> str | None:
    """Return a value that makes a column of numbers a column of codes, or None.

    Either a value written with a leading zero (:func:`leading_zero_code`), or
    a non-numeric token (see :func:`number_tokens`) of digits and letters: a
    missing marker (``"n/a"``, ``"unknown"``, ``"-"``) has no digit, while
    ``"136A"`` among ``"1"`` to ``"204"`` is a family, a flat or a part
    numbered as the others are. Codes stay text: their order as numbers means
    nothing, and the token would be lost as missing.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._column_kinds import number_code
    >>> families = np.array([str(i) for i in range(1, 60)] + ["136A"], dtype=object)
    >>> number_code(families, ("136A",))
    '136A'
    >>> number_code(np.array(["1", "2", "n/a"], dtype=object), ("n/a",)) is None
    True
    """
    code = leading_zero_code(uniques)
    if code is not None:
        return code
    for token in tokens:
        if _DIGIT.search(token) and _LETTER.search(token):
            return token
    return None


def leading_zero_code(uniques: np.ndarray) -> str | None:
    """Return a string written with a leading zero (``"02134"``), or None.

    Such a column holds codes (zip codes, product codes, fixed-width IDs):
    read as numbers, ``"02134"`` and ``"2134"`` would merge, so it stays text.
    ``"0"``, ``"0.5"`` and ``"-0.25"`` are numbers, not codes.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._column_kinds import leading_zero_code
    >>> leading_zero_code(np.array(["12", "00123"], dtype=object))
    '00123'
    >>> leading_zero_code(np.array(["0", "0.5", "10"], dtype=object)) is None
    True
    """
    for value in uniques:
        if isinstance(value, str) and _LEADING_ZERO.match(value):
            return value
    return None


def index_reason(
    name: str, numbers: np.ndarray, n_missing: int, n_rows: int
) -> str | None:
    """Return why a column of numbers is a row index, or None.

    A column is a row index when it has at least 50 rows, no missing value,
    integers only, each row a different one, and either its name is one pandas
    gives a saved index (``'Unnamed: 0'``, ``'index'``, ``'level_0'``), or its
    values are consecutive (``0..n-1`` in any order), or they increase with the
    rows (a sequential ID). Such a column says where a row sits in the file, not
    what it is; on a table sorted by the target it leaks the target.

    Parameters
    ----------
    name : str
        The column's name.
    numbers : ndarray of float of shape (n_distinct,)
        The distinct values in order of first appearance.
    n_missing, n_rows : int
        Missing values and rows of the column.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._column_kinds import index_reason
    >>> index_reason("id", np.arange(100.0), 0, 100)
    'index-like: the integers 0..99, each once'
    >>> index_reason("price", np.array([3.0, 1.0] * 50), 0, 100) is None
    True
    """
    if n_missing or len(numbers) != n_rows or n_rows < MIN_ID_ROWS:
        return None
    numbers = np.asarray(numbers, dtype=np.float64)
    if not (np.isfinite(numbers).all() and (np.mod(numbers, 1) == 0).all()):
        return None
    if _INDEX_NAME.fullmatch(name.strip()):
        return (
            f"index-like: {name!r} holds {n_rows} distinct integers, a saved row index"
        )
    low, high = int(numbers.min()), int(numbers.max())
    if high - low == n_rows - 1:
        return f"index-like: the integers {low}..{high}, each once"
    if (np.diff(numbers) > 0).all():
        return "index-like: distinct integers increasing with the rows"
    return None


def number_table(numbers: np.ndarray, *, indicator: bool) -> np.ndarray:
    """Return one float32 row per distinct number, then the missing row.

    With ``indicator``, a second column is 1 where the value is not a number.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._column_kinds import number_table
    >>> number_table(np.array([4.0, np.nan]), indicator=True).tolist()
    [[4.0, 0.0], [nan, 1.0], [nan, 1.0]]
    """
    table = np.append(numbers, np.nan).astype(np.float32).reshape(-1, 1)
    if indicator:
        table = np.hstack([table, np.isnan(table).astype(np.float32)])
    return table


def _short(value: Any) -> str:
    text = repr(value.item() if isinstance(value, np.generic) else value)
    return text if len(text) <= 30 else text[:27] + "..."


def _read_numbers(uniques: np.ndarray, fmt: str | None = None) -> np.ndarray:
    return parse_numbers(uniques, fmt)[0]
