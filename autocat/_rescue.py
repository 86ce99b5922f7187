"""The rescue recipe: a fully trained model when a time budget lets no trial finish.

Before a time-budgeted search, or beside its first trial on a core that trial
leaves free (:class:`Insurance`), :func:`fallback_model` trains the paper's
recipe on :data:`FALLBACK_ROWS` rows, so that a model exists whatever happens;
when no trial has finished with :func:`rescue_seconds` of the budget left, the
search stops and :func:`rescue_model` trains that recipe on as many rows as the
rest allows; :func:`cut_trial_or_rescue` then weighs it against the fold models
of the trial the search cut.
"""

from __future__ import annotations

import contextvars
import math
import time
import warnings
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.pipeline import Pipeline

from autocat._budget import Budget, BudgetExhausted, budget_scope
from autocat._ensemble import score_predictions
from autocat._final import PARTIAL_CONFIDENCE, lead_beyond_noise
from autocat._members import (
    REFIT_MARGIN,
    TrainingRows,
    fold_models,
    fold_models_seconds,
)
from autocat._recipe import categorical_types
from autocat._splits import inner_splits
from autocat._threads import in_own_thread, xgboost_threads
from autocat._trials import (
    EARLY_STOPPING_ROUNDS,
    MAX_ROUNDS,
    BudgetCallback,
    TrialRecord,
    fit_early_stopped,
    task_predictions,
    thread_speedup,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import pandas as pd

__all__ = [
    "FALLBACK_MIN_SECONDS",
    "FALLBACK_ROWS",
    "RESCUE_XGB_PARAMS",
    "Insurance",
    "cut_trial_or_rescue",
    "fallback_model",
    "rescue_holdout_score",
    "rescue_model",
    "rescue_rows",
    "rescue_seconds",
    "search_again",
]

# Rows of the model returned when a time budget allows no trial to finish.
FALLBACK_ROWS = 1_000
# The fallback's boosting stops at the call's deadline, but never before it has
# boosted this long: a fully trained fallback on a tiny budget (within the 2 s a
# call may run past it), while a table of many classes (a tree per class each
# round) stops at the deadline, leaving the slack for what follows.
FALLBACK_MIN_SECONDS = 1.0
# XGBoost's settings in the rescue recipe: the paper's encoding (min-hash, d = 30)
# before XGBoost at a lower learning rate than its default 0.3, rows and columns
# subsampled, trees by early stopping on an inner fifth. Of four candidates on
# the 16 shared tasks (10,000 rows at most, 3 splits), it was the
# leave-one-task-out choice on each task, and scored above XGBoost's defaults
# on 14 of them held out, by 0.012 at the median (recipes/21_rescue_settings.py).
# It takes 1.6 times as long as XGBoost's defaults (median over the tasks), so a
# short budget trains it on fewer rows.
RESCUE_XGB_PARAMS: dict[str, float] = {
    "learning_rate": 0.1,
    "subsample": 0.8,
    "colsample_bytree": 0.8,
}
# When no trial has finished with this share of a time budget left, the search
# stops and the rest trains the rescue recipe on as many rows as it allows; more
# when that recipe on all rows needs more (see :func:`rescue_seconds`), up to
# the larger share.
RESCUE_SHARE = 1 / 3
RESCUE_MAX_SHARE = 2 / 3
# Each fit of :func:`rescue_model` uses this many times the rows of the last.
_RESCUE_GROWTH = 4
# ... and at least this many times, or all rows (a smaller step is not worth it).
_RESCUE_MIN_GROWTH = 1.5
# A cut trial and the rescue recipe are compared on at most this many rows.
_COMPARED_ROWS = 10_000


def fallback_model(
    X: pd.DataFrame,
    y: np.ndarray,
    task: str,
    random_state: int,
    n_threads: int,
    specific_transformers: dict[str, Any] | None = None,
    *,
    n_rows: int = FALLBACK_ROWS,
    budget: Budget | None = None,
    xgb_params: dict[str, Any] | None = None,
    keep_cut: bool = False,
) -> Pipeline | None:
    """Train the rescue recipe on at most ``n_rows`` random rows.

    The rescue recipe is the paper's encoding (the vectorizer's defaults:
    min-hash, d = 30) before XGBoost with :data:`RESCUE_XGB_PARAMS` (or
    ``xgb_params``, which recipe 21 compares), its trees chosen by early
    stopping on an inner fifth of the rows.
    Built before a time-budgeted search on :data:`FALLBACK_ROWS` rows, so that a
    fully trained model exists even if no trial finishes in time; and, when no
    trial has finished, on as many rows as the rest of the budget allows. Every
    class keeps at least one row. Returns ``None`` if ``budget`` cut the fit;
    with ``keep_cut``, the budget cuts only the boosting (after its first
    round), and the model keeps the best of the rounds it boosted: the model
    of last resort, when even that recipe would outlast the budget (many
    classes grow a tree each per round).
    """
    rows = rescue_rows(y, task, random_state, n_rows)
    (fit, stop), = inner_splits([(rows, rows)], y, task, random_state)  # fmt: skip
    training = TrainingRows(X, y, task, random_state, n_threads, specific_transformers)
    recipe = training.recipe(RESCUE_XGB_PARAMS if xgb_params is None else xgb_params)
    guard = BudgetCallback(Budget(None) if budget is None else budget)
    try:
        with budget_scope(None if keep_cut else budget):
            vectorizer = recipe.build_vectorizer()
            X_rows = vectorizer.fit_transform(X.iloc[rows], y[rows])
    except BudgetExhausted:
        return None
    model = recipe.build_model(
        n_estimators=MAX_ROUNDS,
        early_stopping_rounds=EARLY_STOPPING_ROUNDS,
        callbacks=[guard],
        **categorical_types(recipe, vectorizer.feature_types_),
    )
    y_rows = y[rows]
    with xgboost_threads(n_threads):
        fit_early_stopped(model, X_rows[fit], y_rows[fit], X_rows[stop], y_rows[stop])
    if guard.cut and not keep_cut:
        return None
    model.set_params(callbacks=None)
    return Pipeline([("vectorizer", vectorizer), ("model", model)])


def rescue_rows(y: np.ndarray, task: str, random_state: int, n_rows: int) -> np.ndarray:
    """Return the rows :func:`fallback_model` trains on: ``n_rows`` random rows.

    All rows when there are no more; for a classification, the first row of
    each class too. Sorted.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([0] * 98 + [1, 2])
    >>> rows = rescue_rows(y, "multiclass", 0, 10)
    >>> len(rows) >= 10, {98, 99} <= set(rows.tolist())
    (True, True)
    >>> rescue_rows(y, "regression", 0, 500).shape
    (100,)
    """
    if len(y) <= n_rows:
        return np.arange(len(y))
    rng = np.random.default_rng(random_state)
    rows = rng.choice(len(y), n_rows, replace=False)
    if task != "regression":
        _, first = np.unique(y, return_index=True)
        rows = np.union1d(rows, first)
    return np.sort(rows)


class Insurance:
    """The fallback model of a time-budgeted search, fitted before it or beside it.

    The fallback (:func:`fallback_model` on :data:`FALLBACK_ROWS` rows) is
    insurance: the model returned if no trial finishes, and the
    measure of the rescue recipe's cost. It costs up to seconds on small, wide
    tables and on many classes (XGBoost's time per round depends on columns and
    classes more than on rows), so in the foreground it takes that share of a
    short budget from the search. With ``background=True`` it is fitted in a
    thread of its own, beside the search's first trial, which runs alone and
    leaves cores free (:func:`~autocat._tuning.first_trial_threads`).

    Parameters
    ----------
    X, y, task, random_state, specific_transformers
        As for :func:`fallback_model`.
    background : bool
        Fit in a thread of its own and return at once; else fit now, in a
        thread of its own too, waited for (so that no OpenMP team stays in the
        caller's thread: see :mod:`autocat._threads`).
    on_fitted : callable, optional
        ``on_fitted(seconds)`` once the fit has finished (in the fitting
        thread), with its time.
    threads : int, default=1
        XGBoost's threads for the fit: one beside the first trial; all of them
        in the foreground, where nothing else runs.
    deadline : float, optional
        The call's deadline (``time.monotonic()``): there, or
        :data:`FALLBACK_MIN_SECONDS` after it started, whichever is later, the
        fallback's boosting stops and keeps the best of its rounds (``cut``
        then says so), so that a table of many classes keeps the budget too.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> X = pd.DataFrame({"city": [f"town {i % 40}" for i in range(200)]})
    >>> y = np.arange(200.0) % 7
    >>> insurance = Insurance(X, y, "regression", 0, None, background=True)
    >>> model, seconds = insurance.get()
    >>> model.predict(X.head(2)).shape
    (2,)
    """

    def __init__(
        self,
        X: pd.DataFrame,
        y: np.ndarray,
        task: str,
        random_state: int,
        specific_transformers: dict[str, Any] | None,
        *,
        background: bool,
        on_fitted: Callable[[float], None] | None = None,
        threads: int = 1,
        deadline: float | None = None,
    ) -> None:
        self._data = (X, y, task, random_state)
        self.threads = max(1, int(threads))
        self._specific_transformers = specific_transformers
        self._budget = Budget(deadline)
        self.cut = False  # the deadline cut its boosting
        self._on_fitted = on_fitted
        self._thread: ThreadPoolExecutor | None = None
        self._future: Future[tuple[Pipeline | None, float]] = Future()
        if background:
            # its own thread: its XGBoost is capped at one thread there, and the
            # OpenMP team its fit starts ends with the thread
            self._thread = ThreadPoolExecutor(1, thread_name_prefix="autocat-insurance")
            context = contextvars.copy_context()
            self._future = self._thread.submit(context.run, self._fit)
        else:  # in a thread that ends with it too, and waited for
            self._future.set_result(in_own_thread(None, self._fit, name="insurance"))

    def _fit(self) -> tuple[Pipeline | None, float]:
        if self._budget.deadline is not None:
            earliest = time.monotonic() + FALLBACK_MIN_SECONDS
            self._budget.deadline = max(self._budget.deadline, earliest)
        start = time.perf_counter()
        model = fallback_model(
            *self._data, self.threads, self._specific_transformers,
            budget=self._budget, keep_cut=True,
        )  # fmt: skip
        seconds = time.perf_counter() - start
        self.cut = self._budget.exhausted() and not self._budget.cancelled
        if model is not None and self._on_fitted is not None:
            self._on_fitted(seconds)
        return model, seconds

    def get(self) -> tuple[Pipeline, float]:
        """Return the fallback model and its fit's seconds (waits for the fit)."""
        try:
            model, seconds = self._future.result()
        finally:
            self._end_thread()
        if model is None:
            raise RuntimeError("the fallback model was stopped before it was fitted")
        return model, seconds

    def stop(self) -> None:
        """Cut an unfinished fit at its next check, and wait for its thread."""
        self._budget.cancel()
        self._end_thread()

    def _end_thread(self) -> None:
        if self._thread is not None:
            self._thread.shutdown(wait=True)
            self._thread = None


def rescue_seconds(
    time_budget: float,
    fallback_s: float,
    n_rows: int,
    threads: int,
    fallback_threads: int = 1,
) -> float:
    """Seconds of a time budget kept for :func:`rescue_model` if no trial finishes.

    :data:`RESCUE_SHARE` of the budget, or, when the rescue recipe on all
    ``n_rows`` rows needs more, that time, up to :data:`RESCUE_MAX_SHARE` (the
    search keeps the rest). The need is the fallback's fit on
    :data:`FALLBACK_ROWS` rows (``fallback_s``, on ``fallback_threads``) scaled
    linearly to the rows and to ``threads``, with the smaller fits on the way to
    all rows (:func:`rescue_model` grows the rows geometrically, so they add at
    least a third of the last: exactly a third when all rows are a power of 4 times
    :data:`FALLBACK_ROWS`), and margined: an overestimate, since a fit on
    a thousand rows is mostly fixed costs, so a table whose trials could finish
    keeps its search.

    Examples
    --------
    >>> rescue_seconds(60.0, fallback_s=0.2, n_rows=30_000, threads=1)
    20.0
    >>> round(rescue_seconds(15.0, fallback_s=0.15, n_rows=30_000, threads=1), 2)
    7.8
    >>> rescue_seconds(15.0, fallback_s=0.3, n_rows=100_000, threads=1)
    10.0
    """
    need = REFIT_MARGIN * fallback_s * n_rows / FALLBACK_ROWS
    need /= thread_speedup(max(1, threads) / max(1, fallback_threads))
    # the rows grow geometrically up to all of them: the fits before the last
    # cost at least 1 / (growth - 1) of it
    need *= _RESCUE_GROWTH / (_RESCUE_GROWTH - 1)
    return min(max(RESCUE_SHARE * time_budget, need), RESCUE_MAX_SHARE * time_budget)


def rescue_model(
    X: pd.DataFrame,
    y: np.ndarray,
    task: str,
    random_state: int,
    n_threads: int,
    deadline: float,
    fallback: tuple[Pipeline, float],
    specific_transformers: dict[str, Any] | None = None,
) -> tuple[Pipeline, int, float]:
    """Train the rescue recipe on as many rows as the time to ``deadline`` allows.

    Starting from the fallback (its pipeline and its fitting seconds on
    :data:`FALLBACK_ROWS` rows), the recipe is refit on up to 4 times more
    rows: as many as the last fit's time, scaled linearly and margined by
    :data:`REFIT_MARGIN`, says fit in the time left (at least 1.5 times more
    or all rows, else it stops). The rows grow geometrically, so all the fits
    cost little more than the last one. A fit the deadline cuts is discarded.

    Returns
    -------
    pipeline : Pipeline
        The model on the most rows that finished.
    n_rows : int
        Its rows.
    seconds : float
        Its fit's time (the fallback's when no fit finished): a measure of the
        recipe's cost per row on the most rows.
    """
    model, seconds = fallback
    n_rows = min(len(y), FALLBACK_ROWS)
    budget = Budget(deadline)
    while n_rows < len(y):
        affordable = n_rows * budget.left() / (REFIT_MARGIN * max(seconds, 1e-3))
        size = int(min(len(y), _RESCUE_GROWTH * n_rows, affordable))
        if size < len(y) and size < _RESCUE_MIN_GROWTH * n_rows:
            break  # a small step, short of all rows, is not worth its time
        start = time.monotonic()
        fitted = fallback_model(
            X, y, task, random_state, n_threads, specific_transformers,
            n_rows=size, budget=budget,
        )  # fmt: skip
        if fitted is None:
            break
        model, seconds, n_rows = fitted, time.monotonic() - start, size
    return model, n_rows, seconds


def _outside_sample(
    candidates: np.ndarray,
    training: TrainingRows,
    n_rescue: int,
    limit: int,
    seed: Any,
) -> np.ndarray:
    """Return the ``candidates`` rows (a mask, changed) outside the rescue's sample.

    At most ``limit`` of them, drawn with ``seed`` when there are more; sorted.
    """
    y = training.y
    candidates[rescue_rows(y, training.task, training.random_state, n_rescue)] = False
    rows = np.flatnonzero(candidates)
    if len(rows) > limit:
        rng = np.random.default_rng(seed)
        rows = np.sort(rng.choice(rows, limit, replace=False))
    return rows


def rescue_holdout_score(
    rescue: tuple[Pipeline, int],
    training: TrainingRows,
    metric: str,
    deadline: float,
    seconds: float,
) -> tuple[float, int]:
    """Score the rescue recipe on rows outside its sample, as time allows.

    :func:`fallback_model` trained on a random sample of the rows (its trees
    chosen on a fifth of that sample): the other rows chose nothing, and the
    model's score on them is an honest holdout estimate. At most
    :data:`_COMPARED_ROWS` of them are scored (a seeded draw), fewer when the
    time left would not cover their encoding and prediction (estimated, high,
    by the rescue's fit on its own rows, ``seconds``, scaled to theirs).

    Parameters
    ----------
    rescue : (Pipeline, int)
        The rescue recipe's model and the rows it sampled (:func:`rescue_model`).
    training : TrainingRows
        The rows, target and seed of the call (the seed drew the sample).
    metric : str
        The scorer's name.
    deadline : float
        ``time.monotonic()`` by which the score must be done.
    seconds : float
        The rescue's last fit, on its sampled rows.

    Returns
    -------
    score : float
        Greater is better; NaN when fewer than two rows are left outside the
        sample or fit in time, or when the score is undefined on them (one
        class only).
    n_rows : int
        The rows scored (0 with a NaN score).
    """
    model, n_rescue = rescue
    X, y, task = training.X, training.y, training.task
    left = Budget(deadline).left()
    affordable = int(n_rescue * left / (REFIT_MARGIN * max(seconds, 1e-3)))
    rows = _outside_sample(
        np.ones(len(y), dtype=bool), training, n_rescue,
        max(0, min(_COMPARED_ROWS, affordable)), [training.random_state, 23],
    )  # fmt: skip
    if len(rows) < 2:
        return math.nan, 0
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedMetricWarning)
        try:
            score = score_predictions(
                y[rows], task_predictions(model, X.iloc[rows], task), metric,
                task=task,
            )  # fmt: skip
        except (ValueError, UndefinedMetricWarning):
            return math.nan, 0
    return (float(score), len(rows)) if np.isfinite(score) else (math.nan, 0)


def search_again(left: float, searched_s: float, trial_s: float) -> bool:
    """Whether the search resumes after the rescue, with ``left`` seconds to go.

    The first search ran ``searched_s`` seconds and no trial of it finished in
    that time: a trial needs more, less its encodings, which are cached. A
    trial cut while encoding starts again from nothing, though, and one
    column's encoding cannot be cut (the target encoding of a 100-class target
    on 160,000 rows: 2 s a column), so the estimate ``trial_s`` of a trial's
    cost must fit too: the rescue recipe's fit on the most rows, scaled
    linearly to a trial's rows (an overestimate where fixed costs weigh, as in
    the estimate that sized the rescue's reserve). The search resumes only
    when more time than both is left, so that the call does not spend its end
    on a trial that cannot finish and run past the budget.

    Examples
    --------
    >>> search_again(6.0, searched_s=2.5, trial_s=0.5)
    True
    >>> search_again(4.0, searched_s=8.5, trial_s=0.5)
    False
    >>> search_again(4.0, searched_s=0.7, trial_s=150.0)
    False
    """
    return left > max(searched_s, trial_s, 1.0)


def cut_trial_or_rescue(
    cut: TrialRecord,
    rescue: tuple[Pipeline, int],
    training: TrainingRows,
    splits: Sequence[tuple[np.ndarray, np.ndarray]],
    metric: str,
    deadline: float,
) -> tuple[Any | None, str]:
    """Return the model of a trial the time budget cut if it beats the rescue recipe.

    When no trial finished, the trial the budget cut may have left fold models:
    its finished folds', or its first fold's with the trees it had grown
    (``capped``), each scored on its fold's validation rows, which chose
    nothing. The rescue recipe trained on a random sample of the rows, which
    may hold some of those; on the validation rows outside its sample both
    scores are honest. The trial's fold models are the model when, on those
    rows, they score above the rescue and their rows' losses are lower in at
    least :data:`~autocat._final.PARTIAL_CONFIDENCE` of paired bootstrap
    resamples (the rule by which a cut trial joins an ensemble), and they can
    be built in time (a vectorizer the search released is fitted again): all
    of them, else the first alone.

    Parameters
    ----------
    cut : TrialRecord
        The cut trial, with its finished folds.
    rescue : (Pipeline, int)
        The rescue recipe's model and its rows (:func:`rescue_model`).
    training : TrainingRows
        The rows, target and settings of the call.
    splits : sequence of (train, valid)
        The search's folds (the trial's are the first ones).
    metric : str
        The scorer's name.
    deadline : float
        ``time.monotonic()`` by which the model must be finished.

    Returns
    -------
    model : estimator or None
        The fold models (a Pipeline, or their average), or ``None``: the
        rescue recipe stands.
    note : str
        What was compared and chosen, for ``summary()``; empty when nothing
        was compared (no rows outside the sample, or no time).
    """
    model, n_rescue = rescue
    X, y, task = training.X, training.y, training.task
    n_folds = len(cut.models)
    budget = Budget(deadline)
    while n_folds and budget.left() < REFIT_MARGIN * fold_models_seconds(cut, n_folds):
        n_folds = 0 if n_folds == 1 else 1  # all its fold models, else the first
    if not n_folds or cut.oof is None:
        return None, ""
    compared = np.zeros(len(y), dtype=bool)
    for _, valid in splits[:n_folds]:
        compared[valid] = True
    rows = _outside_sample(
        compared, training, n_rescue, _COMPARED_ROWS, training.random_state
    )
    if len(rows) < 2:
        return None, ""
    own_score, rescue_score, share = lead_beyond_noise(
        y[rows], task_predictions(model, X.iloc[rows], task), cut.oof[rows],
        metric, task,
    )  # fmt: skip
    versus = (
        f"trial #{cut.number} (cut by the time budget {cut.progress}) scored "
        f"{own_score:.4f} against {rescue_score:.4f} for the rescue recipe on "
        f"{len(rows):,} of its validation rows outside the rescue's sample"
    )
    if share < PARTIAL_CONFIDENCE:
        return None, f"{versus}: the rescue recipe stands"
    fitted = fold_models(cut, training, list(splits[:n_folds]))
    trained_on = len(splits[0][0]) if n_folds == 1 else None
    which = (
        f"its first fold's model (trained on {trained_on:,} of {len(y):,} rows)"
        if trained_on is not None
        else f"the average of its {n_folds} fold models"
    )
    return fitted, (
        f"{versus}, its rows' losses lower in {share:.0%} of paired bootstrap "
        f"resamples: the model is {which}"
    )
