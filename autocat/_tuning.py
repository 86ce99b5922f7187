"""The Optuna study loop: CV scores, pruning, encoding cache, budget and storage.

:func:`tune` runs trials of the recipe's search space on prepared data (encoded
labels, fixed folds) and returns a :class:`TuneOutcome`. It is the engine of
:func:`~autocat.auto_fit`, which handles tables, targets and the final refit.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import os
import sys
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import optuna
import xgboost
from optuna.trial import TrialState

from autocat._recipe import Recipe
from autocat._search_space import SEARCH_SPACE, default_params, suggest_params

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    import pandas as pd
    from optuna.trial import FrozenTrial

__all__ = [
    "EncodingCache",
    "TuneOutcome",
    "leaderboard",
    "make_storage",
    "quiet_optuna",
    "resolve_threads",
    "tune",
]

logger = logging.getLogger("autocat")

# XGBoost grows at most this many trees per fold; early stopping picks fewer.
MAX_ROUNDS = 1000
EARLY_STOPPING_ROUNDS = 50
# With a time budget, k-fold CV is kept only if this many trials would fit in it;
# otherwise every trial uses the first fold as a holdout (k times cheaper).
MIN_CV_TRIALS = 10
# Attribute names stored on trials and studies.
_N_ESTIMATORS = "n_estimators"
_FOLD_SECONDS = "fold_seconds"
_STOPPED = "stopped_by"


def resolve_threads(n_jobs: int, n_trials: int | None) -> tuple[int, int, int]:
    """Split a thread budget between parallel trials and XGBoost.

    Parameters
    ----------
    n_jobs : int
        Total threads the search may use; ``-1`` means every core this process
        may run on.
    n_trials : int or None
        Trials to run, when known: no more trials run at once than there are.

    Returns
    -------
    total, parallel_trials, xgb_threads : int
        ``parallel_trials * xgb_threads <= total <= cores``. Each XGBoost model
        of the search gets one thread (measured the fastest on small data); the
        final refit gets ``total``.
    """
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0:
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
    parallel = total if n_trials is None else max(1, min(total, n_trials))
    return total, parallel, max(1, total // parallel)


def _available_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)  # pragma: no cover - macOS and Windows


def make_storage(storage: Any) -> Any:
    """Turn ``storage`` into what :func:`optuna.create_study` takes.

    Parameters
    ----------
    storage : None, str, path or optuna.storages.BaseStorage
        ``None`` keeps the study in memory. A string with ``://`` is a database
        URL (``'sqlite:///study.db'``, ``'postgresql://...'``), opened with a
        retry for processes that create it at the same time. Any other string
        or path is a journal file, shared safely by processes on one machine (or
        over NFS): it is created if absent.

    Returns
    -------
    None or optuna.storages.BaseStorage
    """
    if storage is None or isinstance(storage, optuna.storages.BaseStorage):
        return storage
    if isinstance(storage, str) and "://" in storage:
        return _database_storage(storage)
    if isinstance(storage, (str, os.PathLike)):
        from optuna.storages import JournalStorage
        from optuna.storages.journal import JournalFileBackend

        path = Path(storage)
        path.parent.mkdir(parents=True, exist_ok=True)
        return JournalStorage(JournalFileBackend(str(path)))
    raise TypeError(
        "storage must be None, a database URL such as 'sqlite:///study.db', a journal "
        f"file path, or an optuna storage; got {type(storage).__name__}."
    )


def _database_storage(url: str, attempts: int = 5) -> Any:
    """Open a database storage, retrying while another process creates its tables.

    Two processes opening a new database at once race to create the schema; the
    loser gets an integrity error and succeeds on a second try.
    """
    from sqlalchemy.exc import SQLAlchemyError

    for attempt in range(attempts):
        try:
            return optuna.storages.RDBStorage(url)
        except SQLAlchemyError:
            if attempt == attempts - 1:
                raise
            time.sleep(0.2 * (attempt + 1))
    raise AssertionError("unreachable")  # pragma: no cover


class EncodingCache:
    """Encoded fold matrices, shared by trials with the same vectorizer.

    Encoding is deterministic given the vectorizer's parameters and the fold,
    so trials that differ only in XGBoost's parameters reuse it. One cache serves
    one table and one set of folds. Thread-safe:
    two trials asking for the same entry at once compute it once. Least recently
    used entries are dropped beyond ``max_bytes``.

    Parameters
    ----------
    max_bytes : int, default=2**30
        Memory budget of the cached matrices.

    Attributes
    ----------
    hits, misses : int
        Lookups served from the cache and encodings computed.
    encode_seconds : float
        Time spent encoding (misses only).
    distinct : dict
        Per fold, the number of distinct values of each string column of its
        training part, which decides what a cardinality threshold changes.
    """

    def __init__(self, max_bytes: int = 2**30) -> None:
        self.max_bytes = max_bytes
        self.hits = 0
        self.misses = 0
        self.encode_seconds = 0.0
        self._entries: OrderedDict[Any, tuple[Any, Any, float]] = OrderedDict()
        # Per fold: distinct values of each string column of its training part.
        self.distinct: dict[int, dict[str, int]] = {}
        self._locks: dict[Any, threading.Lock] = {}
        self._lock = threading.Lock()

    @property
    def hit_rate(self) -> float:
        """Fraction of lookups served from the cache (``nan`` before any)."""
        total = self.hits + self.misses
        return self.hits / total if total else math.nan

    def get(
        self, key: Any, compute: Callable[[], tuple[Any, Any]]
    ) -> tuple[Any, Any, float]:
        """Return ``(X_train, X_valid, seconds to encode)``, computing on a miss."""
        with self._lock:
            key_lock = self._locks.setdefault(key, threading.Lock())
        with key_lock:
            with self._lock:
                if key in self._entries:
                    self.hits += 1
                    self._entries.move_to_end(key)
                    return self._entries[key]
            start = time.perf_counter()
            X_train, X_valid = compute()
            seconds = time.perf_counter() - start
            entry = (X_train, X_valid, seconds)
            with self._lock:
                self.misses += 1
                self.encode_seconds += seconds
                self._entries[key] = entry
                self._evict()
            return entry

    def put(self, key: Any, entry: tuple[Any, Any, float]) -> tuple[Any, Any, float]:
        """Store an encoding computed outside :meth:`get` (counted as a miss)."""
        with self._lock:
            self.misses += 1
            self.encode_seconds += entry[2]
            self._entries.setdefault(key, entry)
            self._evict()
        return entry

    def _evict(self) -> None:
        sizes = {k: _nbytes(v[0]) + _nbytes(v[1]) for k, v in self._entries.items()}
        while len(self._entries) > 1 and sum(sizes.values()) > self.max_bytes:
            oldest, _ = self._entries.popitem(last=False)
            sizes.pop(oldest)


def _nbytes(X: Any) -> int:
    if hasattr(X, "data") and hasattr(X, "indices"):  # scipy sparse
        return int(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes)
    return int(getattr(X, "nbytes", 0))


class _Deadline(xgboost.callback.TrainingCallback):
    """Stop boosting once ``time.monotonic()`` passes ``deadline``."""

    def __init__(self, deadline: float) -> None:
        super().__init__()
        self.deadline = deadline

    def after_iteration(self, model: Any, epoch: int, evals_log: Any) -> bool:
        return time.monotonic() > self.deadline


@dataclass
class TuneOutcome:
    """What :func:`tune` returns.

    Attributes
    ----------
    study : optuna.Study
        The study, with this call's trials and any others of a shared storage.
    best_trial : optuna.trial.FrozenTrial
        The best complete trial.
    n_folds : int
        Folds used per trial (1 is a holdout).
    cache : EncodingCache
        The encoding cache, with its hit counts.
    interrupted : bool
        Whether the search was stopped with Ctrl-C.
    refit_seconds_estimate : float
        Predicted duration of the final refit.
    """

    study: optuna.Study
    best_trial: FrozenTrial
    n_folds: int
    cache: EncodingCache
    interrupted: bool = False
    refit_seconds_estimate: float = 0.0
    errors: list[BaseException] = field(default_factory=list)


@contextlib.contextmanager
def quiet_optuna() -> Iterator[None]:
    """Silence Optuna's per-trial INFO lines; autocat logs its own."""
    previous = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        yield
    finally:
        optuna.logging.set_verbosity(previous)


class _Progress:
    """A live progress bar on stderr (trials, best score, time left)."""

    def __init__(
        self, enabled: bool, n_trials: int | None, deadline: float | None
    ) -> None:
        self.deadline = deadline
        self.count = 0
        self.bar: Any = None
        if enabled:
            from tqdm.std import tqdm

            self.bar = tqdm(
                total=n_trials,
                desc="autocat",
                unit="trial",
                file=sys.stderr,
                leave=True,
            )

    def update(self, study: optuna.Study, trial: FrozenTrial) -> None:
        self.count += 1
        best = _best_value(study)
        left = (
            None
            if self.deadline is None
            else max(0.0, self.deadline - time.monotonic())
        )
        if self.bar is not None:
            postfix = {"best": f"{best:.4g}"}
            if left is not None:
                postfix["left"] = f"{left:.0f}s"
            self.bar.set_postfix(postfix, refresh=False)
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _best_value(study: optuna.Study) -> float:
    values = [
        t.value for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    ]
    return max((v for v in values if v is not None), default=math.nan)


def _completed(study: optuna.Study) -> list[FrozenTrial]:
    return study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))


class _Objective:
    """One trial: suggest a recipe, score it fold by fold with early stopping."""

    def __init__(
        self,
        *,
        X: pd.DataFrame,
        y: np.ndarray,
        task: str,
        scorer: Any,
        splits: Sequence[tuple[np.ndarray, np.ndarray]],
        n_folds: int,
        random_state: int,
        xgb_threads: int,
        cache: EncodingCache,
        deadline: float | None,
        time_budget: float | None,
        specific_transformers: dict[str, Any] | None = None,
    ) -> None:
        self.specific_transformers = specific_transformers
        self.X = X
        self.y = y
        self.task = task
        self.scorer = scorer
        self.splits = splits
        self.n_folds = n_folds
        self.random_state = random_state
        self.xgb_threads = xgb_threads
        self.cache = cache
        self.deadline = deadline
        self.time_budget = time_budget
        self.errors: list[BaseException] = []
        self._lock = threading.Lock()

    # -- budget ---------------------------------------------------------------
    def refit_estimate(self, study: optuna.Study) -> float:
        """Seconds the final refit should take, from the best trial's folds."""
        done = _completed(study)
        if not done:
            return 0.0
        best = max(done, key=lambda t: t.value if t.value is not None else -math.inf)
        seconds = best.user_attrs.get(_FOLD_SECONDS) or [0.0]
        n_train = len(self.splits[0][0])
        scale = len(self.y) / max(1, n_train)
        return 1.25 * float(np.median(seconds)) * scale

    def tuning_deadline(self, study: optuna.Study) -> float | None:
        """When trials must stop so that the refit ends by the deadline."""
        if self.deadline is None:
            return None
        return self.deadline - self.refit_estimate(study)

    # -- trial ----------------------------------------------------------------
    def encode(self, recipe: Recipe, fold: int) -> tuple[Any, Any]:
        """Fit the recipe's vectorizer on a fold's training part, encode both."""
        train, valid = self.splits[fold]
        vectorizer = recipe.build_vectorizer()
        X_train = vectorizer.fit_transform(self.X.iloc[train], self.y[train])
        X_valid = vectorizer.transform(self.X.iloc[valid])
        plan = vectorizer.describe()
        text = plan["kind"].isin(["low_cardinality", "high_cardinality", "text"])
        distinct = dict(
            zip(plan["column"][text], plan["n_distinct"][text], strict=True)
        )
        self.cache.distinct.setdefault(fold, distinct)
        return X_train, X_valid

    def encoding_key(self, recipe: Recipe, fold: int) -> Any:
        """Return what the encoding of ``fold`` depends on (None before known).

        The vectorizer's plan is the same for every recipe except which string
        columns are high-cardinality (more distinct values than the threshold):
        thresholds that split the columns alike, and any encoder when no column is
        high-cardinality, give the same matrices.
        """
        distinct = self.cache.distinct.get(fold)
        if distinct is None:
            return None
        threshold = recipe.cardinality_threshold
        high = tuple(sorted(c for c, n in distinct.items() if n > threshold))
        encoder: tuple[Any, ...] = ()
        if high or recipe.specific_transformers:
            # free-text columns are high-cardinality ones: `high` covers them
            params = dict(recipe.vectorizer_params)
            del params["cardinality_threshold"]
            encoder = tuple(sorted(params.items()))
        return (fold, high, encoder, recipe.random_state)

    def encoded(self, recipe: Recipe, fold: int) -> tuple[Any, Any, float]:
        """Return ``(X_train, X_valid, seconds)`` of a fold, from the cache if can."""
        key = self.encoding_key(recipe, fold)
        if key is not None:
            return self.cache.get(key, functools.partial(self.encode, recipe, fold))
        start = time.perf_counter()
        X_train, X_valid = self.encode(recipe, fold)
        entry = (X_train, X_valid, time.perf_counter() - start)
        return self.cache.put(self.encoding_key(recipe, fold), entry)

    def __call__(self, trial: optuna.Trial) -> float:
        try:
            return self._run(trial)
        except optuna.TrialPruned:
            raise
        except Exception as exc:
            with self._lock:
                self.errors.append(exc)
            # Optuna logs the failure with its traceback; the search goes on.
            logger.debug("trial %d failed: %r", trial.number, exc)
            raise

    def _run(self, trial: optuna.Trial) -> float:
        study = trial.study
        params = suggest_params(trial)
        recipe = Recipe(
            self.task,
            random_state=self.random_state,
            n_jobs=self.xgb_threads,
            specific_transformers=self.specific_transformers,
            **params,
        )
        done = _completed(study)
        may_stop = self.deadline is not None and bool(done)
        stop_at = self.tuning_deadline(study)
        if may_stop and stop_at is not None:
            # A trial that would most likely be cut by the budget is not started.
            typical = float(
                np.median([sum(t.user_attrs.get(_FOLD_SECONDS, [0.0])) for t in done])
            )
            if stop_at - time.monotonic() < 0.5 * typical:
                self._stop(trial, "time_budget")
        scores: list[float] = []
        rounds: list[int] = []
        seconds: list[float] = []
        fold = 0
        while fold < self.n_folds:
            stop_at = self.tuning_deadline(study)
            if may_stop and stop_at is not None and time.monotonic() > stop_at:
                self._stop(trial, "time_budget")
            X_train, X_valid, encode_s = self.encoded(recipe, fold)
            start = time.perf_counter()
            train, valid = self.splits[fold]
            callbacks = (
                [_Deadline(stop_at)] if may_stop and stop_at is not None else None
            )
            model = recipe.build_model(
                n_estimators=MAX_ROUNDS,
                early_stopping_rounds=EARLY_STOPPING_ROUNDS,
                callbacks=callbacks,
            )
            model.fit(
                X_train,
                self.y[train],
                eval_set=[(X_valid, self.y[valid])],
                verbose=False,
            )
            if may_stop and stop_at is not None and time.monotonic() > stop_at:
                self._stop(trial, "time_budget")
            score = float(self.scorer(model, X_valid, self.y[valid]))
            scores.append(score)
            rounds.append(int(model.best_iteration) + 1)
            # The cost of a fold from scratch (encoding even if cached): what the
            # refit will pay, scaled by its number of rows.
            seconds.append(time.perf_counter() - start + encode_s)
            self._maybe_switch_to_holdout(study, trial, seconds[-1])
            trial.report(float(np.mean(scores)), fold)
            fold += 1
            if fold < self.n_folds and trial.should_prune():
                trial.set_user_attr(_FOLD_SECONDS, seconds)
                trial.set_user_attr(_STOPPED, "pruner")
                raise optuna.TrialPruned(f"pruned after fold {fold}")
        trial.set_user_attr(_N_ESTIMATORS, round(float(np.mean(rounds))))
        trial.set_user_attr(_FOLD_SECONDS, seconds)
        trial.set_user_attr("fold_scores", scores)
        return float(np.mean(scores[: self.n_folds]))

    def _stop(self, trial: optuna.Trial, reason: str) -> None:
        trial.set_user_attr(_STOPPED, reason)
        trial.study.stop()
        raise optuna.TrialPruned(f"stopped: {reason}")

    def _maybe_switch_to_holdout(
        self, study: optuna.Study, trial: optuna.Trial, fold_seconds: float
    ) -> None:
        """Use one fold when fewer than ten full trials would fit the budget."""
        if self.time_budget is None or self.n_folds == 1 or trial.number != 0:
            return
        if fold_seconds * self.n_folds * MIN_CV_TRIALS > self.time_budget:
            logger.info(
                "one fold took %.1fs: %d-fold trials would not fit a %.0fs budget, "
                "so every trial uses the first fold as a holdout",
                fold_seconds,
                self.n_folds,
                self.time_budget,
            )
            self.n_folds = 1
            study.set_user_attr("n_folds", 1)


def leaderboard(study: optuna.Study) -> pd.DataFrame:
    """One row per ended trial of ``study``, best first.

    Waiting and running trials (e.g. of other processes sharing the study) are
    left out.

    Columns: ``trial``, ``state``, ``score`` (the value, or the last per-fold
    running mean of a pruned trial), ``duration_s``, the recipe parameters in
    search-space order (``encoder``, ``n_components``, ...), ``n_estimators`` and
    ``stopped_by``. Complete trials come first by score, then pruned ones.
    """
    import pandas as pd

    order = {TrialState.COMPLETE: 0, TrialState.PRUNED: 1}
    names = [spec.name for spec in SEARCH_SPACE]
    rows = []
    ended = (TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL)
    for trial in study.get_trials(deepcopy=False, states=ended):
        score = trial.value
        if score is None and trial.intermediate_values:
            score = trial.intermediate_values[max(trial.intermediate_values)]
        duration = (
            trial.duration.total_seconds() if trial.duration is not None else math.nan
        )
        row: dict[str, Any] = {
            "trial": trial.number,
            "state": trial.state.name,
            "score": math.nan if score is None else float(score),
            "duration_s": duration,
        }
        row.update({name: trial.params.get(name) for name in names})
        row["n_estimators"] = trial.user_attrs.get(_N_ESTIMATORS)
        row["stopped_by"] = trial.user_attrs.get(_STOPPED)
        row["_rank"] = order.get(trial.state, 2)
        rows.append(row)
    columns = [
        "trial",
        "state",
        "score",
        "duration_s",
        *names,
        "n_estimators",
        "stopped_by",
    ]
    if not rows:
        return pd.DataFrame(columns=columns)
    frame = pd.DataFrame(rows)
    frame = frame.sort_values(
        ["_rank", "score", "trial"], ascending=[True, False, True], na_position="last"
    )
    frame["n_estimators"] = frame["n_estimators"].astype("Int64")
    return frame[columns].reset_index(drop=True)


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
    specific_transformers: dict[str, Any] | None = None,
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
        Seconds for the whole call; when ten cv-fold trials would not fit,
        switches the search to a holdout (the first fold).
    deadline : float or None
        ``time.monotonic()`` by which the caller's refit must be finished too.
    random_state : int, default=0
        Seed of the sampler, the encoders and XGBoost.
    storage, study_name : optional
        Shared storage (see :func:`make_storage`) and the study's name in it.
    fingerprint : dict, optional
        Describes data and settings; a stored study with another one is refused.
    n_jobs : int, default=1
        Thread budget, see :func:`resolve_threads`.
    show_progress : bool, default=False
        Show a progress bar on stderr.
    pruner : optuna.pruners.BasePruner, optional
        Defaults to a median pruner that starts after 4 trials.
    callbacks : sequence of callables, default=()
        Passed to :meth:`optuna.Study.optimize`.
    cache : EncodingCache, optional
        Reuse a cache (e.g. across calls on the same data and folds).
    specific_transformers : dict, optional
        Per-column overrides given to every recipe's vectorizer.

    Returns
    -------
    TuneOutcome
    """
    if n_trials is None and deadline is None:
        raise ValueError("tune needs n_trials or a deadline; got neither.")
    _, parallel, xgb_threads = resolve_threads(n_jobs, n_trials)
    cache = EncodingCache() if cache is None else cache
    with quiet_optuna():
        study = optuna.create_study(
            storage=make_storage(storage),
            study_name=study_name,
            direction="maximize",
            load_if_exists=True,
            sampler=optuna.samplers.TPESampler(seed=random_state),
            pruner=pruner
            or optuna.pruners.MedianPruner(n_startup_trials=4, n_warmup_steps=0),
        )
    _check_study(study, fingerprint or {})
    n_folds = len(splits)
    stored_folds = study.user_attrs.get("n_folds")
    if stored_folds is not None:
        n_folds = min(n_folds, int(stored_folds))
    else:
        study.set_user_attr("n_folds", n_folds)
    # The paper's recipe with each encoder comes first (once per shared study).
    for encoder in ("minhash", "gamma_poisson"):
        study.enqueue_trial(default_params(encoder), skip_if_exists=True)

    objective = _Objective(
        X=X,
        y=y,
        task=task,
        scorer=scorer,
        splits=splits,
        n_folds=n_folds,
        random_state=random_state,
        xgb_threads=xgb_threads,
        cache=cache,
        deadline=deadline,
        time_budget=time_budget,
        specific_transformers=specific_transformers,
    )
    progress = _Progress(show_progress, n_trials, deadline)

    def after_trial(study: optuna.Study, trial: FrozenTrial) -> None:
        progress.update(study, trial)
        if trial.state == TrialState.COMPLETE:
            logger.info(
                "trial %d: %.5g (%s, d=%s) best %.5g",
                trial.number,
                trial.value,
                trial.params.get("encoder"),
                trial.params.get("n_components"),
                _best_value(study),
            )
        stop_at = objective.tuning_deadline(study)
        now = time.monotonic()
        if stop_at is not None and now > stop_at and _completed(study):
            study.stop()
        elif deadline is not None and now > deadline:
            study.stop()  # nothing finished in time: give up
        elif len(objective.errors) >= 3 and not _completed(study):
            study.stop()  # the recipe fails on this data: report why

    interrupted = False
    try:
        with quiet_optuna():
            study.optimize(
                objective,
                n_trials=n_trials if n_trials is not None else sys.maxsize,
                n_jobs=parallel,
                catch=(Exception,),
                callbacks=[after_trial, *callbacks],
            )
    except KeyboardInterrupt:
        interrupted = True
        logger.warning(
            "interrupted: keeping the best of %d finished trials",
            len(_completed(study)),
        )
    finally:
        progress.close()
    done = _completed(study)
    if not done:
        if interrupted:
            raise KeyboardInterrupt
        ran = progress.count
        if objective.errors:
            raise RuntimeError(
                f"All {len(objective.errors)} trial(s) failed; the first error is "
                "above."
            ) from objective.errors[0]
        raise RuntimeError(
            f"No trial finished within the time budget ({ran} started); raise "
            "time_budget or pass n_trials."
        )
    best = max(done, key=lambda t: t.value if t.value is not None else -math.inf)
    return TuneOutcome(
        study=study,
        best_trial=best,
        n_folds=objective.n_folds,
        cache=cache,
        interrupted=interrupted,
        refit_seconds_estimate=objective.refit_estimate(study),
        errors=objective.errors,
    )
