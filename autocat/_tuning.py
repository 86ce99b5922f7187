"""The Optuna search: honest scores, out-of-fold predictions, an exact budget, batches.

:func:`tune` runs trials of the recipe's search space on prepared data (encoded
labels, fixed folds) and returns a :class:`TuneOutcome`: the study, and for the best
trials their out-of-fold predictions and fold models, from which
:func:`~autocat.auto_fit` builds its ensemble and its final model.

How a trial is scored: on each fold, XGBoost is trained on part of the fold's
training rows, its number of trees chosen by early stopping on the rest of them
(the *stop* rows, :func:`inner_splits`), and the fold's validation rows are scored
only once, by that finished model. So a trial's score comes from rows that chose
nothing, and its out-of-fold predictions are honest inputs for ensemble selection.

How trials run: without a time budget, they are asked from Optuna in batches of
fixed size, run at once on a thread pool, and told in trial order when the whole
batch is done. The sampler therefore sees the same history whatever the number of
threads: with ``n_trials`` and no time budget the result is the same for any
``n_jobs``. With a time budget, which no run can make reproducible, as many trials
run as there are threads for them, and a new one is asked as soon as one is told, so
that no core waits for the slowest trial of a batch.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import math
import os
import warnings
from concurrent.futures import (
    ALL_COMPLETED,
    FIRST_COMPLETED,
    Future,
    ThreadPoolExecutor,
    wait,
)
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import optuna
from optuna.trial import TrialState

from autocat._budget import Budget, BudgetExhausted, FirstResultDeadline
from autocat._leaderboard import (
    FOLD_SCORES,
    FOLD_SECONDS,
    N_ESTIMATORS,
    STOPPED_BY,
)
from autocat._learner_trials import LEARNER_ATTR, LearnerTrials, string_distinct
from autocat._log_target import LogTargetTrial
from autocat._portfolio_order import faster_first, still_learning
from autocat._progress import Progress
from autocat._pruner import RungPruner
from autocat._sampler import FIRST_OF_ENCODER, RepeatBlindTPESampler
from autocat._search_space import default_params, suggest_params
from autocat._splits import inner_splits
from autocat._storage import make_storage
from autocat._trials import (
    PRUNE_EVERY,
    EncodingCache,
    TrialCut,
    TrialRecord,
    TrialRunner,
    better_cut,
)
from autocat._unique_text import IdentifierCodesTrial, UniqueTextTrial
from autocat._validation import is_fatal_error

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    import pandas as pd
    from optuna.trial import FrozenTrial

__all__ = [
    "TuneOutcome",
    "first_trial_threads",
    "make_storage",
    "quiet_optuna",
    "resolve_threads",
    "tune",
]

logger = logging.getLogger("autocat")

# Trials asked, run and told together when the result must not depend on n_jobs.
BATCH_TRIALS = 8
# The trial that runs alone (it plans the protocol) gets every thread only on
# tables of at least this many rows; below, the threads of a batch's trial.
# XGBoost's parallel regions on fewer rows are too small for a second thread
# to pay, and a thread team that waits on cores another process holds makes
# them far slower: the first configuration on a synthetic 10-class table
# (tests/benchmarks/bench_first_trial_threads.py, 2 cores), seconds with
# 1 / 2 threads: 3,000 rows 0.38 / 0.38, 10,000 rows 1.35 / 1.07, 30,000 rows
# 3.84 / 2.36; with two such processes at once, 3,000 rows 0.46 / 1.5 and
# 30,000 rows 3.9 / 27.
ALONE_ALL_THREADS_ROWS = 20_000
# Out-of-fold predictions and fold models are kept for this many best trials.
KEEP_TRIALS = 20
# ... and their folds' fitted vectorizers for this many (the final model's
# likely members), so that their fold models need not fit them again.
KEEP_VECTORIZERS = 3


def resolve_threads(n_jobs: int, n_trials: int | None) -> tuple[int, int, int]:
    """Split a thread budget between parallel trials and XGBoost.

    Parameters
    ----------
    n_jobs : int
        Total threads the search may use; ``-1`` means every core this process
        may run on. More than the cores are capped at the cores.
    n_trials : int or None
        Trials to run, when known: no more trials run at once than there are.

    Returns
    -------
    total, parallel_trials, xgb_threads : int
        ``parallel_trials * xgb_threads <= total <= cores``. At most
        :data:`BATCH_TRIALS` trials run at once (a batch); the threads left over
        go to each trial's XGBoost. The final refit gets ``total``.
    """
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0:
        raise ValueError(
            f"n_jobs must be a positive int or -1 (all cores), got {n_jobs!r}."
        )
    if n_jobs < -1:
        raise ValueError(
            f"n_jobs must be a positive int or -1 (all cores), got {n_jobs!r}."
        )
    cores = _available_cores()
    total = cores if n_jobs < 0 else n_jobs
    if total > cores:
        logger.info(
            "n_jobs=%d exceeds the %d available cores: using %d", total, cores, cores
        )
        total = cores
    parallel = min(total, BATCH_TRIALS)
    if n_trials is not None:
        parallel = max(1, min(parallel, n_trials))
    return total, parallel, max(1, total // parallel)


def first_trial_threads(n_rows: int, n_jobs: int, n_trials: int | None) -> int:
    """Threads of a search's first trial, which runs alone.

    All of :func:`resolve_threads`'s threads from :data:`ALONE_ALL_THREADS_ROWS`
    rows, else one trial's share: below that, XGBoost gains little from more
    threads, and the others stay free.

    Examples
    --------
    >>> first_trial_threads(1_000, n_jobs=1, n_trials=None)
    1
    >>> first_trial_threads(ALONE_ALL_THREADS_ROWS, n_jobs=1, n_trials=None)
    1
    """
    total, _, xgb_threads = resolve_threads(n_jobs, n_trials)
    return total if n_rows >= ALONE_ALL_THREADS_ROWS else xgb_threads


def _available_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)  # pragma: no cover - macOS and Windows


@dataclass
class TuneOutcome:
    """What :func:`tune` returns.

    Attributes
    ----------
    study : optuna.Study
        The study, with this call's trials and any others of a shared storage.
    best_trial : optuna.trial.FrozenTrial
        The best complete trial (of XGBoost: the other learners' trials are
        only candidates of the ensemble).
    records : list of TrialRecord
        This call's best complete trials (at most :data:`KEEP_TRIALS`), best
        first, with their out-of-fold predictions and fold models.
    n_folds : int
        Folds used per trial (1 is a holdout).
    cache : EncodingCache
        The encoding cache, with its hit counts.
    interrupted : bool
        Whether the search was stopped with Ctrl-C.
    errors : list of BaseException
        Errors of failed trials.
    n_cut : int
        Trials cut by the time budget.
    partial : TrialRecord or None
        Of the trials cut after finishing some of their folds (k-fold CV only),
        the one of best mean fold score, with those folds (see
        :class:`~autocat._trials.TrialCut`); the final model may use it.
    """

    study: optuna.Study
    best_trial: FrozenTrial
    records: list[TrialRecord]
    n_folds: int
    cache: EncodingCache
    interrupted: bool = False
    errors: list[BaseException] = field(default_factory=list)
    n_cut: int = 0
    partial: TrialRecord | None = None


@contextlib.contextmanager
def quiet_optuna() -> Iterator[None]:
    """Silence Optuna's per-trial INFO lines; autocat logs its own."""
    previous = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        yield
    finally:
        optuna.logging.set_verbosity(previous)


def _completed(study: optuna.Study) -> list[FrozenTrial]:
    return study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))


def _best_value(study: optuna.Study) -> float:
    values = [t.value for t in _completed(study) if t.value is not None]
    return max(values, default=math.nan)


def _check_study(study: optuna.Study, fingerprint: dict[str, Any]) -> None:
    """Refuse to add trials to a stored study made for other data or settings."""
    stored = study.user_attrs.get("autocat_fingerprint")
    if stored is None:
        study.set_user_attr("autocat_fingerprint", fingerprint)
        return
    if stored != fingerprint:
        diff = {
            k: (stored.get(k), v) for k, v in fingerprint.items() if stored.get(k) != v
        }
        raise ValueError(
            f"The study {study.study_name!r} in this storage was made for other "
            f"data or settings (stored vs now: {diff}). Pass another study_name= "
            "to start a new study, or the same data, task, metric, cv and "
            "random_state to continue it."
        )


def _call_callbacks(
    callbacks: Sequence[Callable[[optuna.Study, FrozenTrial], None]],
    study: optuna.Study,
    trial: FrozenTrial,
) -> bool:
    """Run the user's callbacks; return whether one of them called ``study.stop()``.

    ``Study.stop`` only works inside ``Study.optimize``; trials here are asked and
    told by hand, so the callbacks run with Optuna's optimize-loop flag set.
    """
    if not callbacks:
        return False
    local = getattr(study, "_thread_local", None)
    if local is not None:
        local.in_optimize_loop = True
        study._stop_flag = False
    try:
        for callback in callbacks:
            callback(study, trial)
    finally:
        if local is not None:
            local.in_optimize_loop = False
    return bool(getattr(study, "_stop_flag", False))


def _tell(
    study: optuna.Study, trial: optuna.Trial, outcome: Any
) -> tuple[FrozenTrial, TrialRecord | None]:
    """Tell Optuna how a trial ended; return the frozen trial and its record.

    In a study that processes share through SQLite, two of them may take the
    same queued trial (SQLite cannot lock the row that Optuna pops, Optuna
    issue 4002): the second to tell it finds it finished. Its record stands
    (the same configuration on the same folds); the study keeps the first one.
    """
    try:
        return _tell_study(study, trial, outcome)
    except (optuna.exceptions.UpdateFinishedTrialError, ValueError):
        stored = study.get_trials(deepcopy=False)
        frozen = next((t for t in stored if t.number == trial.number), None)
        if frozen is None or not frozen.state.is_finished():
            raise
        logger.info(
            "trial %d was also taken and told by another process of the study",
            trial.number,
        )
        return frozen, outcome if isinstance(outcome, TrialRecord) else None


def _tell_study(
    study: optuna.Study, trial: optuna.Trial, outcome: Any
) -> tuple[FrozenTrial, TrialRecord | None]:
    if isinstance(outcome, TrialRecord):
        trial.set_user_attr(FOLD_SCORES, outcome.fold_scores)
        trial.set_user_attr(FOLD_SECONDS, outcome.fold_seconds)
        trial.set_user_attr(N_ESTIMATORS, outcome.n_estimators)
        return study.tell(trial, outcome.score), outcome
    if isinstance(outcome, optuna.TrialPruned):
        trial.set_user_attr(STOPPED_BY, "pruner")
        return study.tell(trial, state=TrialState.PRUNED), None
    if isinstance(outcome, BudgetExhausted):
        trial.set_user_attr(STOPPED_BY, "time_budget")
        return study.tell(trial, state=TrialState.PRUNED), None
    trial.set_user_attr("error", f"{type(outcome).__name__}: {outcome}"[:500])
    return study.tell(trial, state=TrialState.FAIL), None


def _run_in(context: contextvars.Context, function: Any, *args: Any) -> Any:
    """Run ``function(*args)``; return its result or the exception it raised."""
    try:
        return context.run(function, *args)
    except (optuna.TrialPruned, BudgetExhausted, Exception) as exc:
        return exc


def tune(
    X: pd.DataFrame,
    y: np.ndarray,
    *,
    task: str,
    scorer: Any,
    splits: Sequence[tuple[np.ndarray, np.ndarray]],
    n_trials: int | None,
    time_budget: float | None,
    deadline: float | None,
    random_state: int = 0,
    storage: Any = None,
    study_name: str | None = None,
    fingerprint: dict[str, Any] | None = None,
    n_jobs: int = 1,
    show_progress: bool = False,
    pruner: optuna.pruners.BasePruner | None = None,
    callbacks: Sequence[Callable[[optuna.Study, FrozenTrial], None]] = (),
    cache: EncodingCache | None = None,
    portfolio: Sequence[dict[str, Any]] = (),
    n_classes: int = 0,
    reserve: Callable[[TrialRecord], float] | None = None,
    specific_transformers: dict[str, Any] | None = None,
    first_result_by: float | FirstResultDeadline | None = None,
    progress_label: str = "autocat",
    target_transform: str = "none",
) -> TuneOutcome:
    """Run the search and return its outcome.

    Parameters
    ----------
    X : pandas.DataFrame
        The features.
    y : ndarray
        The target: floats, or class codes ``0 .. k-1``.
    task : {'regression', 'binary', 'multiclass'}
        The task.
    scorer : callable
        ``scorer(model, X, y) -> float``, greater is better.
    splits : sequence of (train, valid) index arrays
        The folds; every trial uses the same ones.
    n_trials : int or None
        Trials this call runs (``None``: until the deadline).
    time_budget : float or None
        Seconds for the whole call; when :data:`MIN_CV_TRIALS` cv-fold trials
        would not fit, the search switches to a holdout (the first fold).
    deadline : float or None
        ``time.monotonic()`` by which the caller's final model must be finished
        too. Trials in flight are cut there (XGBoost between rounds, encoders
        between columns, passes and mini-batches) and discarded.
    random_state : int, default=0
        Seed of the sampler, the inner splits, the encoders and XGBoost.
    storage, study_name : optional
        Shared storage (see :func:`make_storage`) and the study's name in it.
    fingerprint : dict, optional
        Describes data and settings; a stored study with another one is refused.
    n_jobs : int, default=1
        Thread budget, see :func:`resolve_threads`.
    show_progress : bool, default=False
        Show a progress bar on stderr.
    pruner : optuna.pruners.BasePruner, optional
        Defaults to a :class:`~autocat._pruner.RungPruner` on the stop rows'
        loss of the first fold, reported every :data:`PRUNE_EVERY` rounds:
        successive halving at 20, 60, 180 and 540 rounds among told trials.
    callbacks : sequence of callables, default=()
        ``callback(study, trial)`` after each trial, as in Optuna; a callback
        may call ``study.stop()``.
    cache : EncodingCache, optional
        Reuse a cache (e.g. across calls on the same data and folds).
    portfolio : sequence of dict, default=()
        Flat recipe parameters tried first, in order (once per shared study).
    n_classes : int, default=0
        Classes of a classification target (columns of its predictions).
    reserve : callable, optional
        ``reserve(best_record) -> seconds`` to keep free before ``deadline`` for
        the caller's final model; trials stop that much earlier.
    specific_transformers : dict, optional
        Per-column overrides given to every recipe's vectorizer.
    first_result_by : float or FirstResultDeadline, optional
        ``time.monotonic()`` by which a trial of XGBoost must have finished (the
        other learners' trials are only candidates of the ensemble): if none
        has, the trials in flight are cut there and the search ends with no
        model (``BudgetExhausted``), leaving the time up to ``deadline`` to the
        caller. Once such a trial finishes, the search runs to ``deadline``
        again. A
        :class:`~autocat._budget.FirstResultDeadline` may be set while the
        search runs (by a fit in another thread).
    progress_label : str, default='autocat'
        The progress bar's label (a resumed search says so).
    target_transform : {'none', 'auto', 'log'}, default='none'
        What a regression's trials learn: the target, its log, or (``'auto'``)
        the log when one trial measures it better (:class:`LogTargetTrial`).

    Returns
    -------
    TuneOutcome
    """
    if n_trials is None and deadline is None:
        raise ValueError("tune needs n_trials or a deadline; got neither.")
    _, parallel, xgb_threads = resolve_threads(n_jobs, n_trials)
    cache = EncodingCache() if cache is None else cache
    study = _create_study(storage, study_name, random_state, pruner, len(portfolio))
    _check_study(study, fingerprint or {})
    n_folds = len(splits)
    stored_folds = study.user_attrs.get("n_folds")
    if stored_folds is not None:
        n_folds = min(n_folds, int(stored_folds))
    # The portfolio is queued one configuration per trial asked, so that a short
    # search leaves no queued trials behind; a shared study skips those run.
    queue = [dict(params) for params in (portfolio or (default_params("minhash"),))]
    portfolio_entries = {id(params) for params in queue}
    encoders_measured: set[Any] = set()  # by a trial of the portfolio
    # measured choices on near-unique text and on identifier codes
    choices = (
        UniqueTextTrial(cache, y, scorer, task),
        IdentifierCodesTrial(cache, y, scorer, task),
    )
    # The log target is measured on the best of the portfolio's configurations.
    log_target = LogTargetTrial(y, scorer, task, target_transform, after=len(queue))
    # A linear model and a forest on the first configuration's encoding, and
    # the best trial splitting on categories, for the ensemble.
    other_learners = LearnerTrials(queue)
    text_distinct = string_distinct(X)

    budget = Budget(deadline)
    first_result = (
        first_result_by
        if isinstance(first_result_by, FirstResultDeadline)
        else FirstResultDeadline(first_result_by)
    )
    first_result.bind(budget, deadline)
    search = TrialRunner(
        X=X,
        y=y,
        task=task,
        scorer=scorer,
        splits=splits,
        inner=inner_splits(splits, y, task, random_state),
        n_folds=n_folds,
        random_state=random_state,
        xgb_threads=xgb_threads,
        cache=cache,
        budget=budget,
        n_classes=n_classes,
        specific_transformers=specific_transformers,
    )
    if time_budget is not None and stored_folds is None and n_folds > 1:
        search.switch = (parallel, float(time_budget))

    def run(
        trial: optuna.Trial,
        params: dict[str, Any],
        threads: int,
        transform: str,
        learner: str,
    ) -> TrialRecord:
        record = search.run(trial, params, threads, transform, learner)
        # The first finished trial of XGBoost (the other learners' are only
        # candidates of the ensemble, never the model alone): those in flight
        # may run to the deadline (less the final model's reserve, set after
        # their batch).
        if learner == "xgboost":
            first_result.arrived()
        return record

    progress = Progress(show_progress, n_trials, budget, progress_label)
    records: list[TrialRecord] = []
    errors: list[BaseException] = []
    interrupted = stopped = False
    n_cut = asked = 0
    partial: TrialRecord | None = None
    # Without a time budget, batches of fixed size, told in trial order once all
    # have finished: the result is reproducible. With one, as many trials as
    # threads, and a new one starts as soon as one ends: trial costs differ
    # tenfold between configurations, and a core left waiting for the slowest
    # trial of a batch is budget lost. The first trial runs alone either way: it
    # decides CV or holdout.
    batch = parallel if deadline is not None else BATCH_TRIALS
    alone_threads = first_trial_threads(len(y), n_jobs, n_trials)
    pool = ThreadPoolExecutor(parallel, thread_name_prefix="autocat-trial")

    def launch(size: int, threads: int) -> list[tuple[optuna.Trial, Future[Any]]]:
        nonlocal asked
        with quiet_optuna(), warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            trials = []
            for _ in range(size):
                # a variant's trial that the time left cannot afford is dropped
                left = None if deadline is None else budget.left()
                while queue and not other_learners.applies(queue[0], left):
                    other_learners.drop(queue.pop(0))
                if queue:
                    entry = queue.pop(0)
                    marked = other_learners.enqueue_attrs(entry)
                    marked = marked or log_target.enqueue_attrs(entry)
                    if marked is None:
                        encoder, attrs = entry.get("encoder"), None
                        if id(entry) in portfolio_entries and (
                            encoder not in encoders_measured
                        ):
                            encoders_measured.add(encoder)
                            attrs = {FIRST_OF_ENCODER: True}
                        study.enqueue_trial(entry, attrs, skip_if_exists=True)
                    else:
                        study.enqueue_trial(entry, user_attrs=marked)
                    trials.append(study.ask())
                    other_learners.asked(entry, trials[-1].number)
                else:
                    trials.append(study.ask())
            skip = tuple(name for choice in choices for name in choice.skip())
            suggested = [suggest_params(trial, skip=skip) for trial in trials]
        transforms, learners = [], []
        for trial, params in zip(trials, suggested, strict=True):
            for choice in choices:
                choice.asked(trial.number, params)
            learner = other_learners.learner(trial.number, trial.user_attrs)
            params.update(other_learners.overrides(trial.number))
            # a trial that repeats another to measure something keeps the
            # target transform of the trial it repeats; other learners learn y
            repeats = other_learners.repeats.get(trial.number)
            for choice in choices:
                if choice.number == trial.number:
                    repeats = choice.base
            transform = "none"
            if learner == "xgboost":
                transform = log_target.transform(
                    trial.number, trial.user_attrs, repeats
                )
            if transform != "none":
                with contextlib.suppress(optuna.exceptions.UpdateFinishedTrialError):
                    trial.set_user_attr(log_target.name, transform)  # see _tell
            transforms.append(transform)
            learners.append(learner)
        asked += size
        context = contextvars.copy_context()
        return [
            (trial, pool.submit(_run_in, context.copy(), run, trial, p, threads, t, m))
            for trial, p, t, m in zip(
                trials, suggested, transforms, learners, strict=True
            )
        ]

    def tell(trial: optuna.Trial, outcome: Any) -> None:
        nonlocal n_cut, interrupted, stopped, partial
        frozen, record = _tell(study, trial, outcome)
        candidate_only = other_learners.told(trial.number, record)  # for the ensemble
        if not candidate_only:
            for choice in choices:
                choice.told(trial.number, record, queue)
            log_target.told(trial.number, record)
        if record is not None:
            if still_learning(record) and not candidate_only:
                faster_first(queue, portfolio_entries, record)
            if not candidate_only:
                records.append(record)
                records.sort(key=lambda r: (-r.score, r.number))
                del records[KEEP_TRIALS:]
                for worse in records[KEEP_VECTORIZERS:]:
                    worse.release()
            _log_trial(study, frozen, record)
        elif isinstance(outcome, BudgetExhausted):
            n_cut += 1
            if isinstance(outcome, TrialCut) and not candidate_only:
                partial = better_cut(partial, outcome.record)
        elif not isinstance(outcome, optuna.TrialPruned):
            errors.append(outcome)
            logger.warning(
                "trial %d failed: %s: %s", trial.number, type(outcome).__name__, outcome
            )
            if is_fatal_error(outcome):
                stopped = True
        progress.update(_best_value(study))
        if interrupted:
            return
        try:
            stopped = _call_callbacks(callbacks, study, frozen) or stopped
        except KeyboardInterrupt:
            interrupted = stopped = True
            budget.cancel()  # trials still in flight stop at their next check

    in_flight: list[tuple[optuna.Trial, Future[Any]]] = []
    try:
        while True:
            alone = search.switch is not None
            room = (1 if alone else batch) - len(in_flight)
            if deadline is None and in_flight:  # a fixed batch ends first
                room = 0
            if n_trials is not None:
                room = min(room, n_trials - asked)
            if not stopped and not budget.exhausted() and room > 0:
                in_flight += launch(room, alone_threads if alone else xgb_threads)
            if not in_flight:
                break
            futures = [future for _, future in in_flight]
            first = FIRST_COMPLETED if deadline is not None else ALL_COMPLETED
            try:
                wait(futures, return_when=first)
            except KeyboardInterrupt:
                interrupted = stopped = True
                budget.cancel()  # trials in flight stop at their next check
                wait(futures)
            # one look at each future: one that ends in between is in one list
            ended = [pair[1].done() for pair in in_flight]
            done = [pair for pair, end in zip(in_flight, ended, strict=True) if end]
            in_flight = [p for p, end in zip(in_flight, ended, strict=True) if not end]
            for trial, future in done:  # in trial order
                tell(trial, future.result())
            if len(errors) >= 3 and not records:
                stopped = True  # the recipe fails on this data: report why
            # each puts its measuring trial first: near-unique text's runs first
            for choice in reversed(choices):
                choice.queue(records, queue)
            measuring = [c.pending for c in choices if c.pending is not None]
            for choice in choices:
                choice.fill(queue, measuring)
            # with n_trials, the log target is measured in the last batch at
            # the latest, however few of the portfolio's trials fit before it
            left = None if n_trials is None else n_trials - asked
            last_batch = left is not None and 0 < left <= batch
            log_target.queue(records, queue, last_batch=last_batch)
            other_learners.queue_variants(records, queue, text_distinct, last_batch)
            if deadline is not None and reserve is not None and records:
                budget.deadline = deadline - reserve(records[0])
        if interrupted:
            logger.warning(
                "interrupted: keeping the best of %d finished trials", len(records)
            )
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        progress.close()
    if study.user_attrs.get("n_folds") is None:
        study.set_user_attr("n_folds", search.n_folds)
    records += other_learners.records  # last: never the best trial
    return _outcome(study, records, search, cache, interrupted, errors, n_cut, partial)


def _create_study(
    storage: Any,
    study_name: str | None,
    random_state: int,
    pruner: optuna.pruners.BasePruner | None,
    n_portfolio: int,
) -> optuna.Study:
    with quiet_optuna(), warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        # TPE learns from the portfolio's trials as soon as they are told: its
        # random start-up phase is at most as long as the portfolio.
        sampler = RepeatBlindTPESampler(
            seed=random_state,
            n_startup_trials=max(1, min(n_portfolio, 10)),
            multivariate=True,
            group=True,
        )
        return optuna.create_study(
            storage=make_storage(storage),
            study_name=study_name,
            direction="maximize",
            load_if_exists=True,
            sampler=sampler,
            pruner=pruner or RungPruner(first_rung=2 * PRUNE_EVERY),
        )


def _log_trial(study: optuna.Study, trial: FrozenTrial, record: TrialRecord) -> None:
    model = record.learner
    if model == "xgboost":
        model = f"{record.n_estimators} trees"
    logger.info(
        "trial %d: %.5g (%s, d=%s, %s) best %.5g",
        trial.number,
        record.score,
        record.params.get("encoder"),
        record.params.get("n_components"),
        model,
        _best_value(study),
    )


def _outcome(
    study: optuna.Study,
    records: list[TrialRecord],
    search: TrialRunner,
    cache: EncodingCache,
    interrupted: bool,
    errors: list[BaseException],
    n_cut: int,
    partial: TrialRecord | None,
) -> TuneOutcome:
    # the XGBoost trials: other learners' are ensemble candidates only, so a
    # search where only they finished has no model of its own
    done = [t for t in _completed(study) if LEARNER_ATTR not in t.user_attrs]
    if not done:
        if interrupted:
            raise KeyboardInterrupt
        if errors:
            raise RuntimeError(
                f"All {len(errors)} trial(s) failed: {type(errors[0]).__name__}: "
                f"{errors[0]}"
            ) from errors[0]
        message = f"no trial finished within the time budget ({n_cut} cut)"
        if partial is not None:  # the folds it finished stay usable
            raise TrialCut(message, partial, study)
        raise BudgetExhausted(message)
    best = max(done, key=lambda t: t.value if t.value is not None else -math.inf)
    return TuneOutcome(
        study=study,
        best_trial=best,
        records=records,
        n_folds=search.n_folds,
        cache=cache,
        interrupted=interrupted,
        errors=errors,
        n_cut=n_cut,
        partial=partial,
    )
