"""Checks of a table, its target and auto_fit's settings before the first trial."""

from __future__ import annotations

import difflib
import functools
import re
import warnings
from collections import Counter
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "check_column_names",
    "check_finite_features",
    "check_finite_target",
    "check_inputs",
    "check_kept_columns",
    "check_metric",
    "fatal_error_message",
    "is_fatal_error",
    "metrics_for_task",
    "unknown_metric_message",
    "vectorizer_plan",
]

# XGBoost reads features and regression targets as float32.
FLOAT32_MAX = float(np.finfo(np.float32).max)
_OUT_OF_MEMORY = re.compile(
    r"out of memory|bad_alloc|cudaErrorMemoryAllocation|memory allocation "
    r"(error|failed)|cannot allocate memory",
    re.IGNORECASE,
)
_CLASSIFICATION = ("binary", "multiclass")


def check_column_names(columns: Sequence[Any]) -> None:
    """Refuse duplicate column names and names that are equal as text.

    Parameters
    ----------
    columns : sequence
        The table's column names (``df.columns``).

    Raises
    ------
    ValueError
        Two columns share a name, or two names have the same ``str()`` (``1``
        and ``'1'``): columns are encoded and reported by their text name.

    Examples
    --------
    >>> from autocat._validation import check_column_names
    >>> check_column_names(["a", "b"])
    >>> check_column_names(["a", 1, "1"])
    Traceback (most recent call last):
    ...
    ValueError: Columns 1 (int) and '1' (str) have the same name as text, '1'; ...
    """
    names = list(columns)
    repeated = [name for name, n in Counter(names).items() if n > 1]
    if repeated:
        counts = ", ".join(f"{name!r} ({names.count(name)} times)" for name in repeated)
        raise ValueError(
            f"The table has duplicate column names: {counts}. Give every column a "
            "unique name (e.g. rename the second 'x' to 'x_2') before fitting."
        )
    by_text: dict[str, Any] = {}
    for name in names:
        other = by_text.setdefault(str(name), name)
        if other is not name:
            raise ValueError(
                f"Columns {other!r} ({type(other).__name__}) and {name!r} "
                f"({type(name).__name__}) have the same name as text, {str(name)!r}; "
                "autocat names columns by text. Rename one of them, e.g. "
                "df.columns = [str(c) for c in df.columns] after making them unique."
            )


def vectorizer_plan(X: pd.DataFrame, y: Any = None) -> pd.DataFrame:
    """Return the default TableVectorizer's plan for ``X``, one row per column.

    Parameters
    ----------
    X : pandas.DataFrame
        The features.
    y : array-like of shape (n_samples,), optional
        The target: given, the columns that order it almost perfectly are
        warned about (:class:`~autocat.SuspiciousColumnWarning`). The plan's
        other warnings are left to the fits that follow it.

    Returns
    -------
    pandas.DataFrame
        :meth:`TableVectorizer.describe`: ``column``, ``kind``, ``reason``, ...
    """
    from autocat._column_kinds import SuspiciousColumnWarning
    from autocat._table_vectorizer import TableVectorizer

    if X.shape[1] == 0:
        return pd.DataFrame({"column": [], "kind": [], "reason": []})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plan = TableVectorizer().fit(X, y).describe()
    for warning in caught:  # raised again here, under the caller's filters
        if issubclass(warning.category, SuspiciousColumnWarning):
            # at auto_fit's caller: here < check_inputs < auto_fit < its scope
            warnings.warn(warning.message, warning.category, stacklevel=5)
    return plan


def _leak_target(y: np.ndarray, task: str) -> np.ndarray | None:
    """Return the target as the check for leaking columns reads it: numbers or codes."""
    if task in _CLASSIFICATION:
        return pd.factorize(y)[0]  # labels of any type, sortable or not
    try:
        return np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError):  # refused later, with the reason
        return None


def check_kept_columns(plan: pd.DataFrame) -> None:
    """Refuse a table whose every feature column the vectorizer drops.

    Parameters
    ----------
    plan : pandas.DataFrame
        A plan from :func:`vectorizer_plan`.

    Raises
    ------
    ValueError
        No column is left to learn from; names each column and why it is dropped.

    Examples
    --------
    >>> import pandas as pd
    >>> from autocat._validation import check_kept_columns, vectorizer_plan
    >>> check_kept_columns(vectorizer_plan(pd.DataFrame({"a": [1, 1], "b": [0, 2]})))
    >>> check_kept_columns(vectorizer_plan(pd.DataFrame({"a": [1, 1]})))
    Traceback (most recent call last):
    ...
    ValueError: Every feature column is dropped ...: 'a' (constant: single value 1.0)...
    """
    if len(plan) == 0:
        raise ValueError(
            "The table has no feature column besides the target; add the columns "
            "to learn from."
        )
    from autocat._vectorizer_columns import KEPT_WHEN_ALL_DROPPED

    # when the rules drop every column, the vectorizer keeps them all (a fold's
    # rows may make every column constant); on the whole table, it is an error
    kept_anyway = plan["reason"].str.contains(KEPT_WHEN_ALL_DROPPED, regex=False)
    dropped = plan[(plan["kind"] == "dropped") | kept_anyway]
    if len(dropped) == len(plan):
        reasons = ", ".join(
            f"{column!r} ({reason.split(KEPT_WHEN_ALL_DROPPED)[0]})"
            for column, reason in zip(dropped["column"], dropped["reason"], strict=True)
        )
        raise ValueError(
            "Every feature column is dropped by the TableVectorizer, so there is "
            f"nothing to learn from: {reasons}. Add informative columns, or check "
            "that the file was read correctly."
        )


def _as_float(column: pd.Series) -> np.ndarray:
    if pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(
        column.dtype
    ):
        return column.to_numpy(dtype=np.float64, na_value=np.nan)
    return np.asarray(pd.to_numeric(column, errors="coerce"), dtype=np.float64)


def _out_of_range(values: np.ndarray) -> tuple[int, int, float]:
    """Count values that are infinite or beyond float32; first position and value."""
    with np.errstate(invalid="ignore"):
        bad = np.abs(values) > FLOAT32_MAX
    positions = np.flatnonzero(bad)
    if len(positions) == 0:
        return 0, -1, 0.0
    return len(positions), int(positions[0]), float(values[positions[0]])


def _range_problem(n_bad: int, position: int, value: float) -> str:
    if np.isinf(value):
        return f"holds {n_bad} infinite value(s) (first {value} at row {position})"
    return (
        f"holds {n_bad} value(s) beyond float32's range of +-{FLOAT32_MAX:.3g} "
        f"(first {value:.6g} at row {position}), which become infinite"
    )


def check_finite_features(X: pd.DataFrame, plan: pd.DataFrame) -> None:
    """Refuse infinite numbers, or numbers beyond float32, in numeric features.

    Parameters
    ----------
    X : pandas.DataFrame
        The features.
    plan : pandas.DataFrame
        Their plan from :func:`vectorizer_plan`: the columns it reads as numbers
        (numeric dtypes, and strings or objects holding numbers) are checked.

    Raises
    ------
    ValueError
        Names the first such column, the count and the first row.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from autocat._validation import check_finite_features, vectorizer_plan
    >>> X = pd.DataFrame({"x": [1.0, np.inf, 2.0]})
    >>> check_finite_features(X, vectorizer_plan(X))
    Traceback (most recent call last):
    ...
    ValueError: Feature column 'x' holds 1 infinite value(s) (first inf at row 1)...
    """
    numeric = set(plan.loc[plan["kind"].isin(["numeric", "boolean"]), "column"])
    for position, name in enumerate(X.columns):
        if str(name) not in numeric:
            continue
        n_bad, row, value = _out_of_range(_as_float(X.iloc[:, position]))
        if n_bad:
            raise ValueError(
                f"Feature column {str(name)!r} {_range_problem(n_bad, row, value)}; "
                "XGBoost cannot learn from them. Replace them by NaN (missing) or "
                f"finite values, e.g. df[{str(name)!r}].replace([np.inf, -np.inf], "
                "np.nan), or rescale the column."
            )


def check_finite_target(y: np.ndarray, task: str, target: str) -> None:
    """Refuse a regression target with infinite numbers or numbers beyond float32.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        The target, without missing values.
    task : str
        Only ``'regression'`` targets are checked (class labels may be anything).
    target : str
        The target's name, for the message.

    Raises
    ------
    ValueError
        Names the target, the count and the first row.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._validation import check_finite_target
    >>> check_finite_target(np.array([1.0, 2.0]), "regression", "price")
    >>> check_finite_target(np.array([1.0, 1e39]), "regression", "price")
    Traceback (most recent call last):
    ...
    ValueError: Target 'price' holds 1 value(s) beyond float32's range ...
    """
    if task != "regression":
        return
    try:
        values = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        return  # not numbers: auto_fit says that regression needs numbers
    n_bad, row, value = _out_of_range(values)
    if n_bad:
        raise ValueError(
            f"Target {target!r} {_range_problem(n_bad, row, value)}; XGBoost cannot "
            "learn from them. Replace them by NaN to drop those rows, or rescale "
            "the target (e.g. its logarithm)."
        )


def _probe_data(task: str) -> tuple[np.ndarray, np.ndarray, Any]:
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    X = np.arange(24, dtype=np.float64).reshape(-1, 1)
    rng = np.random.default_rng(0)
    if task == "regression":
        y: np.ndarray = 1.0 + X[:, 0] / 4.0 + rng.random(24)
        return X, y, DecisionTreeRegressor(max_depth=2, random_state=0).fit(X, y)
    n_classes = 2 if task == "binary" else 3
    y = rng.permutation(np.arange(24) % n_classes)
    return X, y, DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)


def _family(scorer: Any) -> str:
    """'regression', 'classification' or 'clustering', from the scoring function."""
    module = getattr(getattr(scorer, "_score_func", None), "__module__", "") or ""
    if "cluster" in module:
        return "clustering"
    return "regression" if "_regression" in module else "classification"


@functools.cache
def _scorer_fits(name: str, task: str) -> bool:
    from sklearn.metrics import get_scorer

    scorer = get_scorer(name)
    wanted = "regression" if task == "regression" else "classification"
    if _family(scorer) != wanted:
        return False
    X, y, model = _probe_data(task)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return bool(np.isfinite(scorer(model, X, y)))
        except Exception:  # the scorer cannot score this task
            return False


@functools.cache
def metrics_for_task(task: str) -> tuple[str, ...]:
    """Return the scikit-learn scorer names that can score ``task``.

    Parameters
    ----------
    task : {'regression', 'binary', 'multiclass'}
        The task.

    Returns
    -------
    tuple of str
        Sorted; each was tried on a small fitted model of that task.

    Examples
    --------
    >>> from autocat._validation import metrics_for_task
    >>> "r2" in metrics_for_task("regression"), "r2" in metrics_for_task("binary")
    (True, False)
    >>> "roc_auc" in metrics_for_task("binary"), "f1" in metrics_for_task("multiclass")
    (True, False)
    """
    from sklearn.metrics import get_scorer_names

    names = sorted(get_scorer_names())
    return tuple(name for name in names if _scorer_fits(name, task))


def unknown_metric_message(metric: str, task: str) -> str:
    """Say that ``metric`` is no scorer name; suggest close ones and list valid ones.

    Parameters
    ----------
    metric : str
        The name given.
    task : {'auto', 'regression', 'binary', 'multiclass'}
        Lists the names for this task, or for every task when ``'auto'``.

    Returns
    -------
    str
        One line.
    """
    from sklearn.metrics import get_scorer_names

    tasks = ("regression", *_CLASSIFICATION) if task == "auto" else (task,)
    close = difflib.get_close_matches(metric, get_scorer_names(), n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    valid = "; ".join(f"for {t}: {list(metrics_for_task(t))}" for t in tasks)
    return f"metric={metric!r} is not a scikit-learn scorer name.{hint} Valid {valid}."


def check_metric(metric: str, task: str) -> None:
    """Refuse a scorer that cannot score ``task`` (``r2`` on classes, ...).

    Parameters
    ----------
    metric : str
        A scikit-learn scorer name.
    task : {'regression', 'binary', 'multiclass'}
        The task of the search.

    Raises
    ------
    ValueError
        Lists the scorer names that fit the task.

    Examples
    --------
    >>> from autocat._validation import check_metric
    >>> check_metric("neg_mean_absolute_error", "regression")
    >>> check_metric("average_precision", "regression")
    Traceback (most recent call last):
    ...
    ValueError: metric='average_precision' cannot score a regression task...
    """
    from sklearn.metrics import get_scorer_names

    if metric not in get_scorer_names():
        raise ValueError(unknown_metric_message(metric, task))
    if not _scorer_fits(metric, task):  # one probe; all of them only to list them
        raise ValueError(
            f"metric={metric!r} cannot score a {task} task. Pass one of "
            f"{list(metrics_for_task(task))}, or task= if the task was inferred "
            "wrongly."
        )


def check_inputs(
    X: pd.DataFrame, y: np.ndarray, *, task: str, metric: str | None, target: str
) -> None:
    """Run every check of this module that auto_fit needs before the first trial.

    The columns that order the target almost perfectly on their own are warned
    about here, once, on the whole table (see :func:`vectorizer_plan`).

    Parameters
    ----------
    X : pandas.DataFrame
        The features.
    y : ndarray of shape (n_samples,)
        The target, without missing values.
    task : {'regression', 'binary', 'multiclass'}
        The task, inferred or given.
    metric : str or None
        The scorer name given by the user, if any.
    target : str
        The target's name, for messages.

    Raises
    ------
    ValueError
        The first problem found, in one line that names the column or option.
    """
    check_column_names(X.columns)
    if metric is not None:
        check_metric(metric, task)
    check_finite_target(y, task, target)
    plan = vectorizer_plan(X, _leak_target(y, task))
    check_kept_columns(plan)
    check_finite_features(X, plan)


def is_fatal_error(exc: BaseException) -> bool:
    """Whether a trial's error would recur in every later trial: out of memory.

    The search should stop on such an error rather than start more trials.

    Parameters
    ----------
    exc : BaseException
        The error a trial raised; its causes and contexts are looked at too.

    Returns
    -------
    bool
        True for :class:`MemoryError` (numpy's allocation errors are one) and
        XGBoost's out-of-memory errors (host ``std::bad_alloc``, CUDA).

    Examples
    --------
    >>> from autocat._validation import is_fatal_error
    >>> is_fatal_error(MemoryError()), is_fatal_error(ValueError("bad value"))
    (True, False)
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, MemoryError):
            return True
        module = type(current).__module__ or ""
        if module.startswith("xgboost") and _OUT_OF_MEMORY.search(str(current)):
            return True
        current = current.__cause__ or current.__context__
    return False


def fatal_error_message(exc: BaseException) -> str:
    """Return the one-line message that stops a search on a fatal trial error.

    Parameters
    ----------
    exc : BaseException
        An error for which :func:`is_fatal_error` is true.

    Returns
    -------
    str
    """
    text = " ".join(str(exc).split())[:200] or type(exc).__name__
    return (
        f"A trial ran out of memory ({type(exc).__name__}: {text}); the search "
        "stopped rather than start more trials that would too. Use fewer rows, "
        "fewer n_jobs, or a machine with more memory."
    )
