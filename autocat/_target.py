"""Reading the target: its column, its task, its numbers written as text, its codes."""

from __future__ import annotations

import datetime
import difflib
import logging
from typing import Any

import numpy as np
import pandas as pd

from autocat._column_kinds import as_numbers, number_code, number_tokens
from autocat._dataframe import is_pandas, is_polars, series_values, to_pandas
from autocat._parsing import detect_date_format, is_missing, parse_numbers

__all__ = [
    "check_not_dates",
    "check_same_order",
    "encode_target",
    "infer_task",
    "numbers_if_text",
    "split_target",
    "tokens_as_missing",
    "whole_numbers",
]

logger = logging.getLogger("autocat")

# An integer target with at most this many distinct values is a class label.
_MAX_INTEGER_CLASSES = 20


def infer_task(y: np.ndarray) -> tuple[str, str]:
    """Return the task a target calls for, and why.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        The target, without missing values.

    Returns
    -------
    task : {'regression', 'binary', 'multiclass'}
    reason : str
        One sentence, logged by :func:`auto_fit`.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._target import infer_task
    >>> infer_task(np.array([1.5, 2.0, 3.25]))[0]
    'regression'
    >>> infer_task(np.array(["a", "b", "a"]))[0]
    'binary'
    >>> infer_task(np.array([0, 1, 2, 2]))[0]
    'multiclass'
    """
    n_unique = len(pd.unique(y))
    if y.dtype.kind in "biuf":
        if n_unique == 2:
            return "binary", "a numeric target with 2 distinct values"
        with np.errstate(invalid="ignore"):  # inf: auto_fit says what is wrong
            integral = y.dtype.kind in "biu" or bool(np.all(np.mod(y, 1) == 0))
        if integral and n_unique <= _MAX_INTEGER_CLASSES:
            return "multiclass", (
                f"an integer target with {n_unique} distinct values "
                f"(<= {_MAX_INTEGER_CLASSES}); pass task='regression' to override"
            )
        return "regression", f"a numeric target with {n_unique} distinct values"
    if n_unique == 2:
        return "binary", "a non-numeric target with 2 distinct values"
    return "multiclass", f"a non-numeric target with {n_unique} distinct values"


def split_target(df: Any, target: Any) -> tuple[pd.DataFrame, np.ndarray, str]:
    """Return the features, the target's values and its name, or a clear error.

    ``target`` is a column label of ``df`` (the column leaves the features; a
    tuple when the columns are a MultiIndex) or the target itself, one value per
    row; numbers written as text are read.
    """
    if not (is_pandas(df) or is_polars(df)):
        raise TypeError(
            "auto_fit expects a pandas or polars DataFrame as df, got "
            f"{type(df).__name__}. Build one with pandas.DataFrame(data)."
        )
    X = to_pandas(df)
    # a column's label: a name, e.g. 0 when header=None, or a tuple of a
    # MultiIndex's levels
    multi = isinstance(target, tuple) and isinstance(X.columns, pd.MultiIndex)
    if np.isscalar(target) or multi:
        if target not in X.columns:
            names = [str(c) for c in X.columns]
            close = difflib.get_close_matches(str(target), names, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise ValueError(
                f"target={target!r} is not a column of df.{hint} Columns: {names}"
            )
        y = numbers_if_text(X[target].to_numpy())
        return X.drop(columns=[target]), y, str(target)
    check_same_order(target, df, "target", "df", "auto_fit")
    y = series_values(target)
    if y.ndim != 1:
        raise ValueError(
            "target must be a column name or a 1-D array, got an array of shape "
            f"{y.shape}."
        )
    if len(y) != len(X):
        raise ValueError(
            f"target has {len(y)} values but df has {len(X)} rows; they must match."
        )
    return X.reset_index(drop=True), numbers_if_text(y), "target"


_DATE_TYPES = (datetime.date, datetime.timedelta, np.datetime64, np.timedelta64)


def check_not_dates(y: np.ndarray, name: str, task: str) -> None:
    """Refuse dates or durations as the target: auto_fit predicts numbers or labels.

    Dates written as text are refused only when ``task`` is ``'auto'`` (they may
    be class labels). ``y`` holds no missing value.
    """
    if y.dtype.kind == "O":
        dated = len(y) > 0 and all(isinstance(v, _DATE_TYPES) for v in y[:1000])
    else:
        dated = y.dtype.kind in "mM"
    if dated:
        raise ValueError(
            f"target {name!r} holds dates or durations ({y.dtype}), and auto_fit "
            "predicts numbers or class labels. Convert it first, e.g. to the year "
            "(df[col].dt.year) or to the days since the first date "
            "((df[col] - df[col].min()).dt.days)."
        )
    if task != "auto" or y.dtype.kind not in "OU":
        return
    uniques = np.asarray(pd.unique(y), dtype=object)
    if len(uniques) > 2 and detect_date_format(uniques) is not None:
        raise ValueError(
            f"target {name!r} holds dates written as text (e.g. {uniques[0]!r}), "
            "and auto_fit predicts numbers or class labels. Convert it to numbers "
            "first (e.g. the year, or the days since the first date), or pass "
            "task='multiclass' if each date is a class."
        )


def numbers_if_text(y: np.ndarray) -> np.ndarray:
    """Read a target of numbers written as text ("100,235", "$1,234.50") as numbers."""
    numbers = as_numbers(y)
    return y if numbers is None else numbers


def check_same_order(target: Any, df: Any, name: str, rows: str, reader: str) -> None:
    """Refuse a target Series holding ``df``'s row labels in another order.

    ``reader`` reads the target by position: every row would get another row's
    target, silently.

    Examples
    --------
    >>> import pandas as pd
    >>> from autocat._target import check_same_order
    >>> df = pd.DataFrame({"x": [1, 2, 3]})
    >>> check_same_order(pd.Series([5, 6, 7]), df, "y", "X", "score")
    >>> check_same_order(pd.Series([7, 6, 5], index=[2, 1, 0]), df, "y", "X",
    ...                  "score")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: y is a Series whose index holds X's row labels in another order ...
    """
    if (
        isinstance(target, pd.Series)
        and is_pandas(df)
        and not target.index.equals(df.index)
        and len(target) == len(df)
        and df.index.is_unique
        and target.index.is_unique
        and bool(target.index.isin(df.index).all())
    ):
        raise ValueError(
            f"{name} is a Series whose index holds {rows}'s row labels in another "
            f"order (was {rows} or {name} sorted or shuffled after the split?), and "
            f"{reader} reads {name} by position. Align it first: "
            f"{name}.reindex({rows}.index)."
        )


def tokens_as_missing(y: np.ndarray, name: str, task: str) -> np.ndarray:
    """Read a target of numbers with a few stray tokens ("unknown") as numbers.

    The rule is the features' (see :func:`~autocat._column_kinds.number_tokens`):
    at most 5 distinct non-numeric strings, at most 10% of the distinct values.
    The tokens become missing, so their rows are dropped, and a warning names
    them, when the numbers make a regression: ``task='regression'``, or
    ``'auto'`` and :func:`infer_task` infers one from the numbers. Otherwise
    (another task, text that is not numbers, codes with leading zeros, or
    integer labels with a token, such as places "1" to "20" and "DNF") ``y`` is
    returned as it is, and each distinct value is a class.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._target import tokens_as_missing
    >>> prices = np.array([f"${v}.50" for v in range(40)] + ["unknown"], dtype=object)
    >>> tokens_as_missing(prices, "price", "auto")[-3:].tolist()
    [38.5, 39.5, nan]
    >>> places = np.array([str(v) for v in range(1, 21)] + ["DNF"], dtype=object)
    >>> tokens_as_missing(places, "place", "auto")[-1]
    'DNF'
    """
    if task not in ("auto", "regression") or y.dtype.kind not in "OUST":
        return y
    uniques = pd.unique(np.asarray(y, dtype=object))
    uniques = np.asarray([v for v in uniques if not is_missing(v)], dtype=object)
    tokens = number_tokens(uniques) if len(uniques) else None
    if not tokens or number_code(uniques, tokens) is not None:
        return y
    numbers, _ = parse_numbers(np.asarray(y, dtype=object))
    if task == "auto" and infer_task(numbers[~np.isnan(numbers)])[0] != "regression":
        return y
    logger.warning(
        "target %r holds numbers and %d row(s) of non-numeric value(s) %s: "
        "they are read as missing (pass task='multiclass' to keep them as classes)",
        name,
        int(np.isin(y, np.asarray(tokens, dtype=object)).sum()),
        ", ".join(repr(t) for t in tokens),
    )
    return numbers


def whole_numbers(y: np.ndarray) -> np.ndarray:
    """Return a target of whole numbers as int64, once its missing values are gone.

    A column of integers with missing values is held as floats (a CSV column
    with empty cells, a nullable ``Int64`` column with ``pd.NA``); without its
    missing rows, its classes are the integers the user wrote, not ``4.0``.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._target import whole_numbers
    >>> whole_numbers(np.array([1.0, 5.0, 3.0])).tolist()
    [1, 5, 3]
    >>> whole_numbers(np.array([1.5, 2.0])).tolist()
    [1.5, 2.0]
    """
    if y.dtype.kind != "f" or not len(y) or not np.isfinite(y).all():
        return y
    if (np.mod(y, 1) != 0).any() or np.abs(y).max() > 2**53:
        return y
    return y.astype(np.int64)


def _single_value_error(y: np.ndarray, name: str) -> ValueError:
    value = y[0].item() if isinstance(y[0], np.generic) else y[0]
    return ValueError(
        f"target {name!r} has a single value {value!r} in all {len(y)} rows (rows "
        "with a missing target left out): there is nothing to learn. Check the "
        "target column, or add rows with other values."
    )


def encode_target(
    y: np.ndarray, task: str, *, pos_label: Any = None, name: str = "target"
) -> tuple[np.ndarray, np.ndarray | None]:
    """Return the target as the model sees it, and the class labels.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        The target, without missing values.
    task : {'regression', 'binary', 'multiclass'}
        The task.
    pos_label : object, optional
        For 'binary': the positive class, which gets code 1. Default: the
        label that sorts last.
    name : str, default='target'
        The target's name, for messages.

    Returns
    -------
    y : ndarray of shape (n_samples,)
        float64 values (regression) or int64 class codes ``0 .. k-1``.
    classes : ndarray of shape (k,) or None
        The label of each code: sorted, except that for 'binary' the positive
        class is last (code 1, the last ``predict_proba`` column). A class may
        have one row (trained on, never validated on); at least two classes
        need two rows.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._target import encode_target
    >>> answers = np.array(["yes", "no", "no", "yes"])
    >>> codes, classes = encode_target(answers, "binary", pos_label="no")
    >>> codes.tolist(), classes.tolist()
    ([0, 1, 1, 0], ['yes', 'no'])
    """
    if len(y) and len(pd.unique(y)) < 2:
        raise _single_value_error(y, name)
    if pos_label is not None and task != "binary":
        raise ValueError(
            f"pos_label={pos_label!r} chooses the positive class of a binary "
            f"target, but target {name!r} is a {task} task. Drop pos_label."
        )
    if task == "regression":
        try:
            return y.astype(np.float64), None
        except (TypeError, ValueError):
            raise ValueError(
                "task='regression' needs a numeric target, but it holds values such "
                f"as {y[:3].tolist()}. Use task='binary' or 'multiclass'."
            ) from None
    try:
        classes, codes = np.unique(y, return_inverse=True)
    except TypeError:
        raise TypeError(
            "The target mixes types that cannot be sorted (e.g. strings and numbers): "
            f"{sorted({type(v).__name__ for v in y})}. Convert it to one type first."
        ) from None
    if task == "binary" and len(classes) != 2:
        raise ValueError(
            f"task='binary' needs 2 classes, the target has {len(classes)}: "
            f"{classes[:10].tolist()}. Use task='multiclass'."
        )
    counts = np.bincount(codes)
    if np.count_nonzero(counts >= 2) < 2:
        rare = classes[counts < 2][:10].tolist()
        quantities = (
            " If its values are quantities rather than labels, use task='regression'."
            if classes.dtype.kind in "biuf"
            else ""
        )
        raise ValueError(
            f"target {name!r} has {len(classes)} classes but {rare} have a single "
            "row each, so at most one class could be validated: scores would mean "
            f"nothing. Add rows of the rare classes, or drop them.{quantities}"
        )
    if (counts < 2).any():
        logger.warning(
            "classes %s have a single row: trained on, never validated on",
            classes[counts < 2][:10].tolist(),
        )
    if pos_label is not None:
        match = [i for i, label in enumerate(classes.tolist()) if label == pos_label]
        if len(match) != 1:
            raise ValueError(
                f"pos_label={pos_label!r} is not a label of target {name!r}; its "
                f"labels are {classes.tolist()}."
            )
        if match[0] == 0:  # the positive class gets code 1
            return (1 - codes).astype(np.int64), classes[::-1].copy()
    return codes.astype(np.int64), classes
