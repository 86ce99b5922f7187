"""auto_fit: infer the task, tune the recipe, refit the best; and its AutoResult."""

from __future__ import annotations

import difflib
import logging
import math
import time
import warnings
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from sklearn.metrics import get_scorer, get_scorer_names
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.pipeline import Pipeline

from autocat._column_kinds import as_numbers
from autocat._dataframe import is_pandas, is_polars, series_values, to_pandas
from autocat._recipe import TASKS, Recipe
from autocat._result import AutoResult
from autocat._tuning import _Deadline, resolve_threads, tune

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import optuna
    from optuna.trial import FrozenTrial

__all__ = ["auto_fit", "infer_task"]

logger = logging.getLogger("autocat")

DEFAULT_METRICS: dict[str, str] = {
    "regression": "r2",
    "binary": "average_precision",
    "multiclass": "accuracy",
}
# Above this many rows, trials use one holdout fold instead of ``cv`` folds.
HOLDOUT_ROWS = 50_000
# Rows kept in ``AutoResult.sample_`` for permutation importance.
SAMPLE_ROWS = 2_000
# Without n_trials nor time_budget, this many trials run.
DEFAULT_N_TRIALS = 20
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
    >>> from autocat._auto import infer_task
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


def _split_target(df: Any, target: Any) -> tuple[pd.DataFrame, np.ndarray, str]:
    if not (is_pandas(df) or is_polars(df)):
        raise TypeError(
            "auto_fit expects a pandas or polars DataFrame as df, got "
            f"{type(df).__name__}. Build one with pandas.DataFrame(data)."
        )
    X = to_pandas(df)
    if isinstance(target, str):
        if target not in X.columns:
            names = [str(c) for c in X.columns]
            close = difflib.get_close_matches(target, names, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise ValueError(
                f"target={target!r} is not a column of df.{hint} Columns: {names}"
            )
        y = _numbers_if_text(X[target].to_numpy())
        return X.drop(columns=[target]), y, target
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
    return X.reset_index(drop=True), _numbers_if_text(y), "target"


def _numbers_if_text(y: np.ndarray) -> np.ndarray:
    """Read a target of numbers written as text ("100,235", "$1,234.50") as numbers."""
    numbers = as_numbers(y)
    return y if numbers is None else numbers


def _check_args(
    task: str,
    time_budget: Any,
    n_trials: Any,
    cv: Any,
    metric: Any,
    random_state: Any,
) -> None:
    if task != "auto" and task not in TASKS:
        raise ValueError(f"task must be 'auto' or one of {list(TASKS)}, got {task!r}.")
    if time_budget is not None and (
        not isinstance(time_budget, Real)
        or isinstance(time_budget, bool)
        or time_budget <= 0
    ):
        raise ValueError(
            f"time_budget must be a positive number of seconds, got {time_budget!r}."
        )
    if n_trials is not None and (
        not isinstance(n_trials, Integral)
        or isinstance(n_trials, bool)
        or int(n_trials) < 1
    ):
        raise ValueError(f"n_trials must be a positive int or None, got {n_trials!r}.")
    if isinstance(cv, bool) or not (
        (isinstance(cv, Integral) and int(cv) >= 2) or hasattr(cv, "split")
    ):
        raise ValueError(
            "cv must be an int >= 2 or a scikit-learn splitter such as KFold(3), "
            f"got {cv!r}."
        )
    if metric is not None:
        if not isinstance(metric, str):
            raise TypeError(
                f"metric must be a scikit-learn scorer name such as 'r2', got "
                f"{type(metric).__name__}."
            )
        if metric not in get_scorer_names():
            close = difflib.get_close_matches(metric, get_scorer_names(), n=3)
            raise ValueError(
                f"metric={metric!r} is not a scikit-learn scorer name. Close names: "
                f"{close}; all: sklearn.metrics.get_scorer_names()."
            )
    if not isinstance(random_state, Integral) or isinstance(random_state, bool):
        raise TypeError(f"random_state must be an int, got {random_state!r}.")


def _encode_target(y: np.ndarray, task: str) -> tuple[np.ndarray, np.ndarray | None]:
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
    if counts.min() < 2:
        rare = classes[counts < 2][:10].tolist()
        raise ValueError(
            f"Classes {rare} have a single row: every class needs at least 2 rows "
            "to be learned and validated. Drop or merge those rows."
        )
    return codes.astype(np.int64), classes


def _make_splits(
    X: pd.DataFrame, y: np.ndarray, task: str, cv: Any, random_state: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    if hasattr(cv, "split"):
        return [(np.asarray(a), np.asarray(b)) for a, b in cv.split(X, y)]
    if task == "regression":
        splitter: Any = KFold(cv, shuffle=True, random_state=random_state)
    else:
        splitter = StratifiedKFold(cv, shuffle=True, random_state=random_state)
    with warnings.catch_warnings():
        # Classes with fewer rows than folds are fine: each has >= 2 rows, so
        # every training part holds every class.
        warnings.filterwarnings("ignore", "The least populated class", UserWarning)
        splits = [(a, b) for a, b in splitter.split(X, y)]
    if len(y) > HOLDOUT_ROWS:
        logger.info("%d rows > %d: trials use one holdout fold", len(y), HOLDOUT_ROWS)
        return splits[:1]
    return splits


def _fingerprint(
    X: pd.DataFrame, y: np.ndarray, task: str, metric: str, splits: list[Any], seed: int
) -> dict[str, Any]:
    try:
        data_hash = int(pd.util.hash_pandas_object(X, index=False).sum()) % 2**61
    except TypeError:  # unhashable cells (lists, dicts)
        data_hash = -1
    y_hash = int(pd.util.hash_array(np.asarray(y, dtype=object)).sum()) % 2**61
    return {
        "n_rows": len(X),
        "columns": [str(c) for c in X.columns],
        "data_hash": str(data_hash),
        "target_hash": str(y_hash),
        "task": task,
        "metric": metric,
        "n_splits": len(splits),
        "random_state": seed,
    }


def auto_fit(
    df: Any,
    target: Any,
    *,
    task: str = "auto",
    time_budget: float | None = None,
    n_trials: int | None = None,
    cv: Any = 5,
    metric: str | None = None,
    random_state: int = 0,
    storage: Any = None,
    study_name: str | None = None,
    n_jobs: int = 1,
    show_progress: bool = True,
    callbacks: Sequence[Callable[[optuna.Study, FrozenTrial], None]] = (),
) -> AutoResult:
    """Tune the min-hash / Gamma-Poisson + XGBoost recipe on a table and refit it.

    The task is inferred from the target; an Optuna study (seeded TPE, median
    pruning on per-fold scores) searches :data:`~autocat._search_space.SEARCH_SPACE`,
    starting from the paper's recipe with each encoder, so the best CV score is
    never below the paper's; XGBoost's number of trees is chosen by early stopping
    on each validation fold. The best recipe is then refit on all rows.

    Parameters
    ----------
    df : pandas.DataFrame or polars.DataFrame
        The table.
    target : str or array-like of shape (n_samples,)
        The name of the target column of ``df``, or the target itself.
    task : {'auto', 'regression', 'binary', 'multiclass'}, default='auto'
        ``'auto'`` infers it: numeric targets with many values are regression,
        two values binary, strings and small integer sets multiclass.
    time_budget : float, optional
        Seconds for the whole call, final refit included. When one fold of the
        first trial shows that fewer than ten ``cv``-fold trials would fit,
        every trial uses the first fold as a holdout.
    n_trials : int, optional
        Trials to run. Without it nor ``time_budget``, 20 trials run.
    cv : int or scikit-learn splitter, default=5
        Folds (shuffled with ``random_state``, stratified for classification).
        Above 50,000 rows only the first fold is used, as a holdout.
    metric : str, optional
        A scikit-learn scorer name; default ``'r2'`` for regression,
        ``'average_precision'`` for binary and ``'accuracy'`` for multiclass
        targets, as in the paper.
    random_state : int, default=0
        Seeds folds, sampler, encoders and XGBoost.
    storage : str or path, optional
        An Optuna storage URL (``'sqlite:///study.db'``) or a journal file path,
        so that several processes share one study: run the same call in each.
    study_name : str, optional
        The study's name in ``storage``; defaults to ``'autocat-<target>'``.
    n_jobs : int, default=1
        CPU threads for the whole call: that many trials run at once, each
        XGBoost model on one thread; the refit uses them all. ``-1``: all cores.
    show_progress : bool, default=True
        Show a progress bar (trials, best score, time left) on stderr.
    callbacks : sequence of callables, default=()
        ``callback(study, trial)`` after each trial, as in Optuna.

    Returns
    -------
    AutoResult
        The refit pipeline, the study and the scores.

    Raises
    ------
    RuntimeError
        When no trial finished (all failed, or the budget was too short).

    See Also
    --------
    Recipe : Build one configuration by hand.
    suggest_pipeline : The same search space inside your own Optuna objective.

    Notes
    -----
    Ctrl-C stops the search and refits the best trial so far. Encoded folds are
    cached across trials that share the vectorizer's parameters. Log messages go
    to the ``autocat`` logger.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import autocat
    >>> rng = np.random.default_rng(0)
    >>> jobs = rng.choice(["police officer", "bus operator", "nurse"], 120)
    >>> df = pd.DataFrame({"job": jobs, "years": rng.integers(0, 30, 120)})
    >>> df["salary"] = df["years"] * 2.0 + (df["job"] == "nurse") * 10.0
    >>> result = autocat.auto_fit(df, "salary", n_trials=2, cv=3, show_progress=False)
    >>> result.task_, result.metric_, result.n_trials_
    ('regression', 'r2', 2)
    >>> result.predict(df.head(2)).shape
    (2,)
    """
    start = time.monotonic()
    _check_args(task, time_budget, n_trials, cv, metric, random_state)
    deadline = None if time_budget is None else start + float(time_budget)
    if n_trials is None and time_budget is None:
        n_trials = DEFAULT_N_TRIALS
    X, y_raw, target_name = _split_target(df, target)
    missing = pd.isna(y_raw)
    if missing.any():
        logger.warning("dropping %d rows whose target is missing", int(missing.sum()))
        X = X.loc[~missing].reset_index(drop=True)
        y_raw = y_raw[~missing]
    if len(y_raw) < 4:
        raise ValueError(
            f"auto_fit needs at least 4 rows with a target, got {len(y_raw)}."
        )
    if task == "auto":
        task, reason = infer_task(y_raw)
        logger.info("task: %s (%s)", task, reason)
    y, classes = _encode_target(y_raw, task)
    metric = metric or DEFAULT_METRICS[task]
    scorer = get_scorer(metric)
    splits = _make_splits(X, y, task, cv, random_state)
    if storage is not None and study_name is None:
        study_name = f"autocat-{target_name}"
    total_threads, _, _ = resolve_threads(n_jobs, n_trials)

    outcome = tune(
        X,
        y,
        task=task,
        scorer=scorer,
        splits=splits,
        n_trials=n_trials,
        time_budget=time_budget,
        deadline=deadline,
        random_state=int(random_state),
        storage=storage,
        study_name=study_name,
        fingerprint=_fingerprint(X, y, task, metric, splits, int(random_state)),
        n_jobs=n_jobs,
        show_progress=show_progress,
        callbacks=callbacks,
    )
    best = outcome.best_trial
    params = dict(best.params)
    n_estimators = int(best.user_attrs.get("n_estimators", 100))
    refit_start = time.monotonic()
    # The search leaves time for the refit; if it still runs late (a loaded
    # machine), it may use the 10% slack of the budget before boosting stops, so
    # that a slow refit keeps its trees rather than returning a stump.
    refit_deadline = None
    if deadline is not None and time_budget is not None:
        refit_deadline = deadline + 0.1 * float(time_budget)
    pipeline = _refit(
        X, y, task, params, n_estimators, int(random_state), total_threads,
        refit_deadline,
    )  # fmt: skip
    refit_s = time.monotonic() - refit_start
    logger.info(
        "refit on %d rows in %.1fs (estimated %.1fs)",
        len(y),
        refit_s,
        outcome.refit_seconds_estimate,
    )
    elapsed = time.monotonic() - start
    if time_budget is not None and elapsed > 1.1 * time_budget:
        first = outcome.study.trials[0].duration
        logger.warning(
            "time_budget=%gs was exceeded (%.1fs): a trial must finish before a "
            "model exists, and the first took %.1fs; raise time_budget or sample rows",
            time_budget,
            elapsed,
            first.total_seconds() if first is not None else math.nan,
        )
    rng = np.random.default_rng(random_state)
    keep = np.sort(rng.permutation(len(y))[:SAMPLE_ROWS])
    y_user = y_raw if classes is None else classes[y]
    return AutoResult(
        pipeline=pipeline,
        study=outcome.study,
        best_params={**params, "n_estimators": n_estimators},
        cv_score=float(best.value if best.value is not None else math.nan),
        baseline_score=_baseline_score(outcome.study),
        task=task,
        metric=metric,
        target=target_name,
        classes=classes,
        feature_names_in=np.asarray([str(c) for c in X.columns], dtype=object),
        n_rows=len(y),
        n_folds=outcome.n_folds,
        sample=(X.iloc[keep].reset_index(drop=True), np.asarray(y_user)[keep]),
        elapsed_s=time.monotonic() - start,
        refit_s=refit_s,
        cache_info={
            "hits": outcome.cache.hits,
            "misses": outcome.cache.misses,
            "hit_rate": outcome.cache.hit_rate,
            "encode_seconds": outcome.cache.encode_seconds,
        },
        interrupted=outcome.interrupted,
        time_budget=time_budget,
        random_state=int(random_state),
    )


def _refit(
    X: pd.DataFrame,
    y: np.ndarray,
    task: str,
    params: dict[str, Any],
    n_estimators: int,
    random_state: int,
    n_threads: int,
    deadline: float | None,
) -> Pipeline:
    recipe = Recipe.from_params(
        task, params, random_state=random_state, n_jobs=n_threads
    )
    vectorizer = recipe.build_vectorizer()
    X_encoded = vectorizer.fit_transform(X, y)
    callbacks = None if deadline is None else [_Deadline(deadline)]
    model = recipe.build_model(n_estimators=n_estimators, callbacks=callbacks)
    model.fit(X_encoded, y)
    if deadline is not None and time.monotonic() > deadline:
        logger.warning(
            "the refit reached the time budget and stopped at %d of %d trees",
            model.get_booster().num_boosted_rounds(),
            n_estimators,
        )
    model.set_params(callbacks=None)
    return Pipeline([("vectorizer", vectorizer), ("model", model)])


def _baseline_score(study: optuna.Study) -> float:
    from optuna.trial import TrialState

    from autocat._search_space import default_params

    baseline = default_params("minhash")
    for trial in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        if trial.params == baseline and trial.value is not None:
            return float(trial.value)
    return math.nan
