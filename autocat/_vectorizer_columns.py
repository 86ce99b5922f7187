"""What TableVectorizer keeps about each column, and the helpers that read one column.

``Column`` is what ``fit`` learnt about an input column (its kind, its encoder,
its output names); ``Encoded`` is one column's encoding before the output matrix
is assembled. The functions check a column's storage against its fitted kind,
read its distinct values as the kind says (:func:`convert_values`), encode them
(:func:`encode_values`), gather rows from them, name an encoder's outputs and
keep every output name unique (:func:`unique_outputs`).
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import threading
import warnings
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from sklearn.preprocessing import OneHotEncoder, TargetEncoder

from autocat._categorical import CategoryCodes
from autocat._column_kinds import (
    Decision,
    SuspiciousColumnWarning,
    parse_dates,
    parse_numbers,
    parse_times,
    stringify,
)
from autocat._dataframe import (
    check_time_zone,
    column_family,
    dtype_name,
    series_values,
    to_float,
)
from autocat._datetime import DatetimeEncoder, weekday_note
from autocat._factorize import take_rows
from autocat._leaks import sample_rows, suspicious_columns
from autocat._minhash import MinHashEncoder
from autocat._parsing import UNIT, is_missing_token
from autocat._text import TextEncoder

if TYPE_CHECKING:
    from collections.abc import Iterator

#: Joins, in a column's reason, why the rules would drop it and how it is
#: encoded instead, when every column would be dropped (``TableVectorizer``
#: then keeps them all, so that a model after it has columns to fit on).
KEPT_WHEN_ALL_DROPPED = "; kept, as every column would be dropped: "
_NS_PER_DAY = 86_400 * 10**9


@dataclass
class Column:
    """What fit learned about one input column (private, one per column)."""

    name: str
    dtype: str
    family: str
    decision: Decision
    n_distinct: int
    missing_share: float
    transformer: Any = None
    outputs: tuple[str, ...] = ()
    tz_aware: bool | None = None  # datetime storage at fit: time-zone aware?
    near_unique: bool = False  # near-unique text, dropped or not


@dataclass
class Encoded:
    """One column ready to be written: a float block, or a table and row codes."""

    block: np.ndarray | None = None
    table: np.ndarray | None = None
    codes: np.ndarray | None = None
    source: Any = None  # numeric passthrough: the column itself
    values: np.ndarray | None = None  # distinct values as read (numbers, dates)
    number: np.ndarray | None = None  # codes read as numbers, one per row


def code_numbers(
    codes: np.ndarray, uniques: np.ndarray, fmt: str | None = None
) -> np.ndarray:
    """Return each row's code read as a number (``NaN`` where it is not one).

    The extra output of a column whose decision says ``as_number``: with a
    unit ``fmt`` (:data:`~autocat._parsing.UNIT`), the numbers in that unit;
    with a date ``fmt``, the days since 1970-01-01 of the values that read as
    dates. Missing rows (code -1) take the ``NaN`` appended after the distinct
    values.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._vectorizer_columns import code_numbers
    >>> uniques = np.array(["02134", "o2465", "60601"], dtype=object)
    >>> code_numbers(np.array([0, 1, 2, -1]), uniques).tolist()
    [2134.0, nan, 60601.0, nan]
    >>> dates = np.array(["1970-01-11", "1970-01-02 - 1970-01-09"], dtype=object)
    >>> code_numbers(np.array([0, 1, -1]), dates, "ISO8601").tolist()
    [10.0, nan, nan]
    """
    if fmt is None or fmt.startswith(UNIT):
        numbers = parse_numbers(uniques, fmt)[0]
    else:
        dates = parse_dates(stringify(uniques), fmt)
        numbers = dates.astype(np.int64) / _NS_PER_DAY
        numbers[np.isnat(dates)] = np.nan
    return np.append(numbers, np.nan).astype(np.float32)[codes]


def extra_output(name: str, decision: Decision) -> str:
    """Return the name of the output an ``as_number`` decision adds to a column."""
    dated = decision.fmt is not None and not decision.fmt.startswith(UNIT)
    return f"{name}_date" if dated else f"{name}_number"


def column_state(column: Column) -> dict[str, Any]:
    state = dict(vars(column))
    decision = column.decision
    state["decision"] = (decision.kind, decision.reason, decision.conversion,
                         decision.fmt, decision.tokens, decision.as_number)  # fmt: skip
    return state


def column_from_state(state: dict[str, Any]) -> Column:
    return Column(**{**state, "decision": Decision(*state["decision"])})


def check_storage(state: Column, column: Any, family: str) -> None:
    """Raise a TypeError when a column's storage contradicts its fitted kind."""
    kind = state.decision.kind
    if kind in ("numeric", "boolean", "datetime") and (
        family in ("numeric", "boolean", "datetime", "time")
        and (kind == "datetime") != (family in ("datetime", "time"))
    ):
        raise TypeError(
            f"Column {state.name!r} was {kind} at fit ({state.dtype}) but is "
            f"{dtype_name(column)} at transform. Pass the column with its fit "
            "type, or refit."
        )
    if state.tz_aware is not None and family == "datetime":
        check_time_zone(state.name, state.dtype, state.tz_aware, column)


def empty_like_kind(state: Column) -> np.ndarray:
    """Return no distinct values, typed as the column's kind reads them."""
    kind = state.decision.kind
    if kind in ("numeric", "boolean"):
        return np.empty(0, dtype=np.float64)
    if kind == "datetime":
        return np.empty(0, dtype="datetime64[ns]")
    return np.empty(0, dtype=object)


def order_values(state: Column, piece: Encoded, rows: np.ndarray) -> Any:
    """Return a float per sampled row that orders it as the column does, or None.

    Numbers and dates by value; text by category codes in a seeded random order,
    so that the order of first appearance (the row order) tells nothing.
    """
    if state.decision.kind == "dropped":
        return None
    if piece.source is not None:
        return to_float(piece.source)[rows]
    if piece.codes is None:
        return None
    codes = piece.codes[rows]
    if piece.values is not None:
        values = piece.values
        if values.dtype.kind == "M":
            values = values.astype("datetime64[ns]").view(np.int64).astype(np.float64)
            values[piece.values != piece.values] = np.nan  # NaT
        table = np.append(values.astype(np.float64), np.nan)
    else:
        n_distinct = int(codes.max(initial=-1)) + 1
        table = np.append(
            np.random.default_rng(0).permutation(n_distinct).astype(np.float64), np.nan
        )
    return table[np.where(codes < 0, len(table) - 1, codes)]


def row_slice(column: Any, start: int, stop: int) -> Any:
    """Rows ``start:stop`` of a pandas, polars or numpy column, without copying."""
    if isinstance(column, pd.Series):
        return column.iloc[start:stop]
    return column[start:stop]


def one_column_frame(name: str, values: np.ndarray) -> pd.DataFrame:
    """Return a one-column pandas frame, the input of every column encoder."""
    return pd.DataFrame({name: values}, copy=False)


def missing_like(uniques: np.ndarray) -> np.ndarray:
    """Return one missing value of the dtype of ``uniques``."""
    if uniques.dtype.kind == "M":
        return np.array(["NaT"], dtype=uniques.dtype)
    if uniques.dtype.kind == "f":
        return np.asarray([np.nan], dtype=uniques.dtype)
    return np.asarray([None], dtype=object)


def gather(uniques: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Return row values from distinct values and codes (-1: missing)."""
    table = np.concatenate([uniques, missing_like(uniques)])
    return table[np.where(codes < 0, len(uniques), codes)]


def dense(block: Any) -> np.ndarray:
    if hasattr(block, "toarray"):
        block = block.toarray()
    block = np.asarray(block, dtype=np.float32)
    return block.reshape(len(block), -1)


def output_names(transformer: Any, name: str) -> tuple[str, ...]:
    if hasattr(transformer, "get_feature_names_out"):
        try:
            return tuple(str(n) for n in transformer.get_feature_names_out([name]))
        except (TypeError, ValueError, AttributeError):
            pass
    width = dense(
        transformer.transform(one_column_frame(name, np.asarray([None])))
    ).shape[1]
    return tuple(f"{name}_{j}" for j in range(width))


def warn_unread(state: Column, uniques: np.ndarray, ok: np.ndarray, what: str) -> None:
    if ok.all():
        return
    bad = uniques[~ok]
    warnings.warn(
        f"Column {state.name!r} was read as {what} at fit, but {len(bad)} distinct "
        f"value(s) do not read as such now, e.g. {bad[0]!r}; they are encoded as "
        "missing. Clean the column or refit.",
        UserWarning,
        stacklevel=4,
    )


@dataclass
class _WarningScope:
    """What a warn_once_per_column scope knows: the columns warned about.

    And whether the whole table was checked (:func:`table_checked`).
    """

    warned: set[str]
    table_checked: bool = False


# The scope, and the lock that the threads of a search share to read and add to
# its columns.
_WARNED: contextvars.ContextVar[_WarningScope | None] = contextvars.ContextVar(
    "autocat_warned_columns", default=None
)
_WARNED_LOCK = threading.Lock()


@contextlib.contextmanager
def warn_once_per_column() -> Iterator[None]:
    """Warn about each suspicious column once in this scope, not at every fit.

    :func:`~autocat.auto_fit` fits vectorizers with ``y`` on every fold of every
    trial, on the rescue recipe's sample and on all rows: without the scope, a
    column that leaks the target is reported by each fit, each time with a
    slightly different score. Once :func:`table_checked` says that the whole
    table was checked, later fits in the scope (on its rows) skip the check,
    which costs a sort of the rows per column. Pools that run work for the
    scope must copy the context (:func:`contextvars.copy_context`), as for a
    time budget.
    """
    token = _WARNED.set(_WarningScope(set()))
    try:
        yield
    finally:
        _WARNED.reset(token)


def table_checked() -> None:
    """Say that this scope's whole table was checked for leaking columns.

    The vectorizers fitted later in a :func:`warn_once_per_column` scope then
    skip the check: their rows are the table's, and its columns were each
    warned about, if need be, once. Outside a scope, nothing changes.
    """
    scope = _WARNED.get()
    if scope is not None:
        scope.table_checked = True


def _first_warning(name: str) -> bool:
    """Whether a warning about column ``name`` is the first of its scope."""
    scope = _WARNED.get()
    if scope is None:
        return True
    with _WARNED_LOCK:
        if name in scope.warned:
            return False
        scope.warned.add(name)
        return True


def warn_suspicious(
    columns: list[Column], encoded: list[Encoded], y: Any, n: int
) -> None:
    """Warn about kept columns with a neighbour score of 0.99 or more."""
    scope = _WARNED.get()
    if scope is not None and scope.table_checked:
        return
    y = series_values(y)
    if y.ndim != 1 or len(y) != n:
        return
    rows = sample_rows(n)
    values = {
        state.name: order_values(state, piece, rows)
        for state, piece in zip(columns, encoded, strict=True)
    }
    for name, score in suspicious_columns(values, y[rows]).items():
        if not _first_warning(name):
            continue
        warnings.warn(
            f"Column {name!r} predicts the target almost perfectly on its own "
            f"(neighbour score {score:.3f}, 1 is perfect; see TableVectorizer's "
            "Notes). It may leak the target: a copy of it, a value recorded "
            "after the outcome, or a row index of a table sorted by it. Drop "
            "the column if it is not known at prediction time.",
            SuspiciousColumnWarning,
            stacklevel=5,
        )


# Encoders whose output for a row depends only on that row's value: they encode
# the distinct values of a column once and rows are gathered from that table.
# GammaPoissonEncoder (imported lazily) is one too: see is_row_wise.
ROW_WISE = (
    MinHashEncoder, DatetimeEncoder, OneHotEncoder, TextEncoder, TargetEncoder,
    CategoryCodes,
)  # fmt: skip


def convert_values(
    state: Column, codes: np.ndarray, uniques: np.ndarray, column: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Read distinct values as the decision says; unreadable ones are missing."""
    decision = state.decision
    family = column_family(column)
    if decision.kind in ("numeric", "boolean"):
        numbers, ok = parse_numbers(uniques, decision.fmt)
        if decision.tokens:  # the tokens seen at fit are expected
            ok |= np.isin(uniques, np.asarray(decision.tokens, dtype=object))
        warn_unread(state, uniques, ok, "numbers")
        return codes, numbers
    if decision.kind == "datetime":
        if uniques.dtype.kind == "M":
            return codes, uniques
        strings = stringify(uniques)
        fmt = decision.fmt or "ISO8601"
        if decision.conversion == "time":
            values = parse_times(strings)
        else:
            values = parse_dates(strings, fmt)
        # blanks, "n/a", "-"... are missing, as in columns of numbers
        ok = ~np.isnat(values)
        ok[~ok] = is_missing_token(strings[~ok])
        warn_unread(state, uniques, ok, f"dates ({fmt})")
        return codes, values
    # text: every value is read as its str; distinct values may then merge
    if uniques.dtype.kind == "O" and (
        # a pandas string dtype holds only str: no need to check each value
        isinstance(getattr(column, "dtype", None), pd.StringDtype)
        or all(type(v) is str for v in uniques)
    ):
        return codes, uniques
    if family == "datetime":
        uniques = np.asarray(pd.DatetimeIndex(uniques).astype(str), dtype=object)
    strings = stringify(uniques)
    merged, new_uniques = pd.factorize(strings)
    return np.where(codes < 0, -1, merged[codes]), np.asarray(new_uniques, dtype=object)


def encode_values(state: Column, codes: np.ndarray, uniques: np.ndarray) -> Encoded:
    """Encode distinct values into a table (row-wise encoders) or every row."""
    transformer = state.transformer
    if is_row_wise(transformer):
        # the last row of the table encodes a missing value; it is only asked
        # of the encoder when the column has one (some encoders reject them)
        has_missing = bool((codes < 0).any())
        if (
            isinstance(transformer, MinHashEncoder)
            and uniques.dtype == object
            and not (has_missing and transformer.handle_missing == "error")
        ):
            # distinct strings already: hash them without factorising again
            table = transformer._distinct_table(uniques.tolist())
            return Encoded(table=table, codes=codes)
        if not has_missing and len(uniques) == 0:  # no rows
            width = len(state.outputs) - state.decision.as_number
            table = np.full((1, width), np.nan, dtype=np.float32)
            return Encoded(table=table, codes=codes)
        values = np.concatenate([uniques, missing_like(uniques)])
        table = dense(
            transformer.transform(
                one_column_frame(state.name, values if has_missing else uniques)
            )
        )
        if not has_missing:
            table = np.vstack([table, np.full((1, table.shape[1]), np.nan)])
        return Encoded(table=table.astype(np.float32, copy=False), codes=codes)
    frame = one_column_frame(state.name, gather(uniques, codes))
    return Encoded(block=dense(transformer.transform(frame)))


def map_in_threads(n_jobs: int, function: Any, items: list[Any]) -> list[Any]:
    """Return ``[function(*item) for item in items]``, on up to ``n_jobs`` threads."""
    n_threads = min(n_jobs, max(1, len(items)))
    if n_threads == 1:
        return [function(*item) for item in items]
    # Each task runs in a copy of the caller's context, so it sees its budget.
    context = contextvars.copy_context()
    with ThreadPoolExecutor(n_threads) as pool:
        return list(pool.map(lambda item: context.copy().run(function, *item), items))


def is_row_wise(transformer: Any) -> bool:
    """Return whether ``transformer`` encodes each row from its value alone."""
    if isinstance(transformer, ROW_WISE):
        return True
    gamma_poisson = sys.modules.get("autocat._gamma_poisson")
    return gamma_poisson is not None and isinstance(
        transformer, gamma_poisson.GammaPoissonEncoder
    )


def write_rows(piece: Encoded, start: int, stop: int, target: np.ndarray) -> None:
    """Write rows ``start:stop`` of one column's encoding into ``target``."""
    if piece.number is not None:  # codes as numbers: the last output
        target[:, -1] = piece.number[start:stop]
        target = target[:, :-1]
    if piece.source is not None:
        target[:, 0] = to_float(row_slice(piece.source, start, stop))
    elif piece.table is not None:
        # missing values (code -1) take the table's last row
        take_rows(piece.table, piece.codes[start:stop], target)
    elif piece.block is not None:
        target[:] = piece.block[start:stop]


def unique_outputs(columns: list[Column]) -> None:
    """Rename outputs that share a name, so that every output name is unique.

    Generated names can meet a user's: a column ``city`` min-hashed writes
    ``city_0``, which is also the name of a numeric column ``city_0`` passed
    through. Of the outputs sharing a name, the output of a column under its own
    name keeps it (the user's name), else the first in output order; each other
    takes the smallest suffix ``_2``, ``_3``, ... that no output has. Names that
    no other output has are left as they are.
    """
    counts = Counter(name for c in columns for name in c.outputs)
    if all(count == 1 for count in counts.values()):
        return
    keeper: dict[str, tuple[int, int]] = {}
    for i, c in enumerate(columns):
        for j, name in enumerate(c.outputs):
            if counts[name] > 1 and (name not in keeper or name == c.name):
                keeper[name] = (i, j)
    taken = set(counts)
    for i, c in enumerate(columns):
        outputs = list(c.outputs)
        for j, name in enumerate(outputs):
            if counts[name] == 1 or keeper[name] == (i, j):
                continue
            suffix = 2
            while f"{name}_{suffix}" in taken:
                suffix += 1
            outputs[j] = f"{name}_{suffix}"
            taken.add(outputs[j])
        c.outputs = tuple(outputs)


def plan_frame(columns: list[Column]) -> pd.DataFrame:
    """Return :meth:`TableVectorizer.describe`'s table: one row per column."""
    rows = [
        {
            "column": c.name,
            "dtype": c.dtype,
            "kind": c.decision.kind,
            "n_distinct": c.n_distinct,
            "missing_share": round(c.missing_share, 4),
            "transformer": (
                c.transformer
                if isinstance(c.transformer, str)
                else type(c.transformer).__name__
            ),
            "n_outputs": len(c.outputs),
            "reason": c.decision.reason + weekday_note(c.transformer),
        }
        for c in columns
    ]
    names = ["column", "dtype", "kind", "n_distinct", "missing_share"]
    names += ["transformer", "n_outputs", "reason"]
    return pd.DataFrame(rows, columns=names)
