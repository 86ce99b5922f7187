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

from autocat._dataframe import is_pandas, is_polars, series_values, to_pandas
from autocat._recipe import TASKS, Recipe
from autocat._tuning import _Deadline, leaderboard, resolve_threads, tune

if TYPE_CHECKING:
    import pathlib
    from collections.abc import Callable, Sequence

    import optuna
    from optuna.trial import FrozenTrial

__all__ = ["AutoResult", "auto_fit", "infer_task"]

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
        y = X[target].to_numpy()
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
    return X.reset_index(drop=True), y, "target"


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


class AutoResult:
    """The outcome of :func:`auto_fit`: a fitted pipeline, its study and scores.

    Built by :func:`auto_fit` (or :func:`autocat.load`), not by hand: each
    keyword sets the attribute of the same name, with a trailing underscore
    except for ``time_budget`` and ``random_state``.

    Parameters
    ----------
    pipeline, study, best_params, cv_score, baseline_score : object
        See the attributes ``pipeline_`` ... ``baseline_score_``.
    task, metric, target, classes, feature_names_in : object
        See the attributes ``task_`` ... ``feature_names_in_``.
    n_rows, n_folds, sample, elapsed_s, refit_s, cache_info, interrupted : object
        See the attributes ``n_rows_`` ... ``interrupted_``.
    time_budget : float or None
        The budget given to :func:`auto_fit`.
    random_state : int
        The seed given to :func:`auto_fit`.

    Attributes
    ----------
    pipeline_ : sklearn.pipeline.Pipeline
        ``[("vectorizer", TableVectorizer), ("model", XGBRegressor |
        XGBClassifier)]`` refit on all rows; a classifier predicts class codes
        ``0 .. k-1`` (indices into ``classes_``).
    study_ : optuna.Study
        Every trial.
    best_params_ : dict
        Flat recipe parameters of the best trial, with its ``n_estimators``:
        ``Recipe(task, **best_params_)`` rebuilds the model.
    cv_score_ : float
        Mean validation score of the best trial (greater is better).
    baseline_score_ : float
        Score of the paper's recipe (min-hash, d = 30, default XGBoost); ``nan``
        if that trial did not finish.
    leaderboard_ : pandas.DataFrame
        One row per trial, best first.
    task_ : {'regression', 'binary', 'multiclass'}
        The task.
    metric_ : str
        The scikit-learn scorer name.
    target_ : str
        The target's name (``'target'`` when passed as an array).
    classes_ : ndarray or None
        The class labels, for classification.
    feature_names_in_ : ndarray of str
        The feature columns.
    n_trials_ : int
        Finished trials in the study.
    n_rows_ : int
        Rows used for training.
    n_folds_ : int
        Folds per trial (1: holdout).
    sample_ : tuple of (pandas.DataFrame, ndarray)
        At most 2,000 training rows and their targets (user labels).
    elapsed_s_ : float
        Duration of the whole call.
    refit_s_ : float
        Duration of the final refit.
    cache_info_ : dict
        Encoding cache: ``hits``, ``misses``, ``hit_rate``, ``encode_seconds``.
    interrupted_ : bool
        Whether the search was stopped with Ctrl-C.
    time_budget : float or None
        The budget given.
    random_state : int
        The seed used.
    """

    def __init__(
        self,
        *,
        pipeline: Pipeline,
        study: optuna.Study,
        best_params: dict[str, Any],
        cv_score: float,
        baseline_score: float,
        task: str,
        metric: str,
        target: str,
        classes: np.ndarray | None,
        feature_names_in: np.ndarray,
        n_rows: int,
        n_folds: int,
        sample: tuple[pd.DataFrame, np.ndarray],
        elapsed_s: float,
        refit_s: float,
        cache_info: dict[str, float],
        interrupted: bool,
        time_budget: float | None,
        random_state: int,
    ) -> None:
        self.pipeline_ = pipeline
        self.study_ = study
        self.best_params_ = best_params
        self.cv_score_ = cv_score
        self.baseline_score_ = baseline_score
        self.task_ = task
        self.metric_ = metric
        self.target_ = target
        self.classes_ = classes
        self.feature_names_in_ = feature_names_in
        self.n_rows_ = n_rows
        self.n_folds_ = n_folds
        self.sample_ = sample
        self.elapsed_s_ = elapsed_s
        self.refit_s_ = refit_s
        self.cache_info_ = cache_info
        self.interrupted_ = interrupted
        self.time_budget = time_budget
        self.random_state = random_state

    @property
    def n_trials_(self) -> int:
        """Finished (complete) trials in the study."""
        from optuna.trial import TrialState

        return len(
            self.study_.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        )

    @property
    def leaderboard_(self) -> pd.DataFrame:
        """One row per trial, best first (complete trials by score, then the rest)."""
        return leaderboard(self.study_)

    def _features(self, X: Any) -> pd.DataFrame:
        X = to_pandas(X)
        by_name = {str(c): c for c in X.columns}
        names = [str(n) for n in self.feature_names_in_]
        missing = [n for n in names if n not in by_name]
        if missing:
            raise ValueError(
                f"X lacks {len(missing)} column(s) seen in auto_fit: {missing[:10]}. "
                f"Expected the columns {names[:20]}."
            )
        if list(by_name) == names:
            return X
        return X[[by_name[n] for n in names]]  # drops extra columns (the target)

    def predict(self, X: Any) -> np.ndarray:
        """Predict targets (user labels for classification).

        Parameters
        ----------
        X : pandas.DataFrame or polars.DataFrame
            Rows with the feature columns (extra columns, e.g. the target, are
            ignored).

        Returns
        -------
        ndarray of shape (n_samples,)
            Predicted values, or class labels as given to :func:`auto_fit`.
        """
        predictions = self.pipeline_.predict(self._features(X))
        if self.classes_ is None:
            return np.asarray(predictions)
        return self.classes_[np.asarray(predictions, dtype=np.int64)]

    @property
    def predict_proba(self) -> Callable[[Any], np.ndarray]:
        """Predict class probabilities: ``result.predict_proba(X)``.

        ``X`` is a pandas or polars DataFrame with the feature columns; the result
        is an array of shape (n_samples, n_classes), columns in the order of
        ``classes_``. Only for classification results: on a regression result
        the attribute does not exist (``hasattr(result, "predict_proba")`` is
        False) and using it raises an ``AttributeError`` that says so.
        """
        if self.task_ == "regression":
            raise AttributeError(
                "predict_proba is only available for classification, and this "
                f"result is a regression of {self.target_!r}. Use predict instead."
            )
        return self._predict_proba

    def _predict_proba(self, X: Any) -> np.ndarray:
        return np.asarray(self.pipeline_.predict_proba(self._features(X)))

    def score(self, X: Any, y: Any) -> float:
        """Score predictions of ``X`` against ``y`` with ``metric_``.

        Parameters
        ----------
        X : pandas.DataFrame or polars.DataFrame
            Rows with the feature columns.
        y : array-like of shape (n_samples,)
            True targets (user labels for classification).

        Returns
        -------
        float
            Greater is better.
        """
        y = series_values(y)
        if self.classes_ is not None:
            codes = np.searchsorted(self.classes_, y)
            codes = np.clip(codes, 0, len(self.classes_) - 1)
            unknown = self.classes_[codes] != y
            if unknown.any():
                raise ValueError(
                    "y holds labels not seen in auto_fit: "
                    f"{np.unique(y[unknown])[:10].tolist()}; known: "
                    f"{self.classes_.tolist()}."
                )
            y = codes
        return float(get_scorer(self.metric_)(self.pipeline_, self._features(X), y))

    def summary(self) -> str:
        """Return a short text: task, data, trials, scores, best parameters, time.

        Returns
        -------
        str
            Six lines, as printed by ``autocat fit`` and ``autocat demo``.
        """
        from optuna.trial import TrialState

        n_cols = len(self.feature_names_in_)
        ended = (TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL)
        n_run = len(self.study_.get_trials(deepcopy=False, states=ended))
        if math.isnan(self.baseline_score_):
            baseline = "paper's recipe: did not finish"
        else:
            gain = self.cv_score_ - self.baseline_score_
            baseline = f"paper's recipe: {self.baseline_score_:.4f}, {gain:+.4f}"
        folds = "holdout" if self.n_folds_ == 1 else f"{self.n_folds_}-fold CV"
        params = ", ".join(
            f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
            for k, v in self.best_params_.items()
        )
        lines = [
            f"task: {self.task_} (target {self.target_!r}), metric: {self.metric_}",
            f"data: {self.n_rows_} rows x {n_cols} columns",
            f"trials: {self.n_trials_} complete of {n_run} run ({folds})",
            f"best CV {self.metric_}: {self.cv_score_:.4f} ({baseline})",
            f"best params: {params}",
            f"elapsed: {self.elapsed_s_:.1f}s (refit {self.refit_s_:.1f}s)",
        ]
        return "\n".join(lines)

    def report(self, path: str | pathlib.Path) -> pathlib.Path:
        """Write the self-contained HTML report.

        Parameters
        ----------
        path : str or pathlib.Path
            The HTML file to write.

        Returns
        -------
        pathlib.Path
            The path written.
        """
        from autocat._report import write_report

        return write_report(self, path)

    def save(self, path: str | pathlib.Path) -> pathlib.Path:
        """Save to ``path``; read it back with :func:`autocat.load`.

        The file is a pickle with a versioned, checksummed header: load it only
        from trusted sources. A study kept in a database or journal is copied
        into the file.

        Parameters
        ----------
        path : str or pathlib.Path
            The file to write; its folder is created if needed.

        Returns
        -------
        pathlib.Path
            The path written.
        """
        from autocat._persistence import save

        return save(self, path)

    def __repr__(self) -> str:
        return (
            f"AutoResult(task={self.task_!r}, metric={self.metric_!r}, "
            f"cv_score={self.cv_score_:.4g}, trials={self.n_trials_})"
        )
