"""One trial of the search: cached encodings, honestly early-stopped fold models.

A trial fits the recipe's vectorizer on each fold's training rows (or reuses the
cached encoding of an earlier trial with the same vectorizer), trains XGBoost on
the fold's *fit* rows with early stopping on its *stop* rows
(:func:`~autocat._splits.inner_splits`), then scores the fold's validation rows
once. It leaves a :class:`TrialRecord`: scores, out-of-fold predictions and the
fold models.
"""

from __future__ import annotations

import functools
import logging
import time
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import optuna
import xgboost

from autocat._budget import Budget, BudgetExhausted, budget_scope
from autocat._fold_cache import MAX_COMPONENTS, EncodingCache, nested_minhash_columns
from autocat._recipe import VECTORIZER_PARAMS, Recipe, categorical_types
from autocat._sampler import FIRST_OF_ENCODER, REPEATS
from autocat._threads import xgboost_threads

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd

__all__ = [
    "EARLY_STOPPING_ROUNDS",
    "MAX_ROUNDS",
    "MIN_CV_TRIALS",
    "PRUNE_EVERY",
    "BudgetCallback",
    "EncodingCache",
    "TrialCut",
    "TrialRecord",
    "TrialRunner",
    "better_cut",
    "task_predictions",
    "thread_speedup",
]

logger = logging.getLogger("autocat")

# XGBoost grows at most this many trees per fold; early stopping picks fewer.
MAX_ROUNDS = 1000
# What a table's encoding depends on when it has no high-cardinality column.
_ANY_TABLE_PARAMS = ("random_state", "low_cardinality", "drop_identifiers")
EARLY_STOPPING_ROUNDS = 50
# With a time budget, k-fold CV is kept only if this many trials fit in it;
# otherwise every trial uses the first fold as a holdout (k times cheaper).
MIN_CV_TRIALS = 10
# Pruning: the stop rows' loss is reported to Optuna every this many rounds.
PRUNE_EVERY = 10
# Trials on a log target report their steps from here (beyond MAX_ROUNDS): the
# pruner compares losses on the log scale with each other only.
LOG_SCALE_STEPS = 1_000_000
# Share of a trial or refit that more threads do not speed up, for estimates:
# conservative (XGBoost's histograms and the encoders' row chunks scale; the
# per-round bookkeeping, small nodes and single-threaded encoders do not), so that
# a refit is rarely started without the time to finish.
SERIAL_SHARE = 0.3
# With a time budget, a forest trial may take at most this share of the time left
# when it starts (each fold an equal part of it): a candidate of the ensemble,
# it is not part of the search. A forest that would take longer stops after the
# first trees of its first fold (see :class:`~autocat._forest.ForestRegressor`).
FOREST_SHARE = 0.25


class BudgetCallback(xgboost.callback.TrainingCallback):
    """Stop boosting once ``budget`` is spent, and remember that it cut the model."""

    def __init__(self, budget: Budget) -> None:
        super().__init__()
        self.budget = budget
        self.cut = False

    def after_iteration(self, model: Any, epoch: int, evals_log: Any) -> bool:
        if self.budget.exhausted():
            self.cut = True
        return self.cut


class _PruneCallback(xgboost.callback.TrainingCallback):
    """Report the stop rows' loss to Optuna every few rounds; prune when told.

    The search's pruner (:class:`~autocat._pruner.RungPruner`) compares with
    *told* trials only, and trials are told a batch at a time, so the decision
    does not depend on which trial of a batch runs first. A trial on a log
    target (``target_transform='log'``) reports its loss on the log scale,
    another quantity: its steps start at ``offset``, so that the pruner
    compares it with trials on the same scale only.
    """

    def __init__(self, trial: optuna.Trial, offset: int = 0) -> None:
        super().__init__()
        self.trial = trial
        self.offset = offset

    def after_iteration(self, model: Any, epoch: int, evals_log: Any) -> bool:
        if (epoch + 1) % PRUNE_EVERY:
            return False
        losses = next(iter(evals_log.values()))
        loss = float(next(iter(losses.values()))[-1])
        try:
            self.trial.report(-loss, self.offset + epoch + 1)
        except optuna.exceptions.UpdateFinishedTrialError:
            # Another process of a shared SQLite study took the same queued
            # trial and told it (see autocat._tuning._tell): nothing to prune.
            return False
        if self.trial.should_prune():
            raise optuna.TrialPruned(f"pruned at round {epoch + 1}")
        return False


@dataclass
class TrialRecord:
    """What a finished trial leaves for ensembles and the final model.

    Attributes
    ----------
    number : int
        The Optuna trial number.
    params : dict
        Flat recipe parameters.
    fold_scores : list of float
        Validation score of each fold.
    oof : ndarray or None
        Float32 out-of-fold predictions: values (regression) or class
        probabilities (classification); NaN on rows no fold validated.
    models : list
        The fitted XGBoost model of each fold (trained on its fit rows).
    rounds : list of int
        Trees chosen by early stopping on each fold.
    fold_seconds : list of float
        Cost of each fold from scratch (encoding included).
    boost_seconds, boosted_rounds : list
        Time XGBoost took on each fold, and the trees it grew there (early
        stopping's choice plus the rounds it waited).
    threads : int
        XGBoost threads the folds were boosted with.
    nested_savings : list of float
        Seconds of each fold's encoding that encoding at the trial's own
        min-hash dimension would not pay (the search encodes the widest once).
    vectorizers : list
        The fitted vectorizer in front of each fold model, or ``None`` where
        there is none (columns cut from a wider min-hash encoding) or where it
        was released (only the best trials keep theirs, see :meth:`release`).
    target_transform : {'none', 'log'}
        What XGBoost learnt: the target, or its log (see
        :mod:`autocat._log_target`); not one of the sampler's ``params``.
    learner : {'xgboost', 'linear', 'forest'}
        The model after the vectorizer (see
        :class:`~autocat._learner_trials.LearnerTrials`); not one of the
        sampler's ``params``.
    candidate_only : bool
        Whether the trial is only a candidate of the ensemble (another
        learner's, or a variant's: see
        :class:`~autocat._learner_trials.LearnerTrials`), never the best trial.
    capped : bool
        Whether the time budget stopped the boosting of the trial's one fold
        (the first): its model then has the trees early stopping chose among
        the rounds reached (``boosted_rounds``), fewer than it may have
        wanted, and its score is that model's.
    """

    number: int
    params: dict[str, Any]
    fold_scores: list[float] = field(default_factory=list)
    oof: np.ndarray | None = None
    models: list[Any] = field(default_factory=list)
    rounds: list[int] = field(default_factory=list)
    fold_seconds: list[float] = field(default_factory=list)
    boost_seconds: list[float] = field(default_factory=list)
    boosted_rounds: list[int] = field(default_factory=list)
    threads: int = 1
    nested_savings: list[float] = field(default_factory=list)
    vectorizers: list[Any] = field(default_factory=list)
    target_transform: str = "none"
    capped: bool = False
    learner: str = "xgboost"
    candidate_only: bool = False

    @property
    def recipe_params(self) -> dict[str, Any]:
        """``params`` plus the target transform and learner, as ``Recipe`` takes them.

        A linear trial's recipe keeps only the vectorizer's parameters.
        """
        if self.learner != "xgboost":
            vectorizer = {
                k: v for k, v in self.params.items() if k in VECTORIZER_PARAMS
            }
            return {**vectorizer, "learner": self.learner}
        if self.target_transform == "none":
            return self.params
        return {**self.params, "target_transform": self.target_transform}

    def release(self) -> None:
        """Forget the fitted vectorizers (memory); fold models refit them."""
        self.vectorizers = [None] * len(self.vectorizers)

    @property
    def score(self) -> float:
        """Mean validation score over folds."""
        return float(np.mean(self.fold_scores))

    @property
    def progress(self) -> str:
        """How far a trial the time budget cut got, in words.

        Examples
        --------
        >>> TrialRecord(3, {}, fold_scores=[0.8, 0.7]).progress
        'after 2 fold(s)'
        >>> TrialRecord(4, {}, fold_scores=[0.6], rounds=[180],
        ...             boosted_rounds=[212], capped=True).progress
        'in its first fold, after 212 rounds (180 trees kept)'
        """
        if self.capped:
            return (
                f"in its first fold, after {self.boosted_rounds[0]} rounds "
                f"({self.rounds[0]} trees kept)"
            )
        return f"after {len(self.fold_scores)} fold(s)"

    @property
    def n_estimators(self) -> int:
        """Trees of a refit: the mean of the folds' early-stopping choices."""
        return max(1, round(float(np.mean(self.rounds))))


class TrialCut(BudgetExhausted):
    """A trial the time budget cut, with the folds it had finished.

    Parameters
    ----------
    message : str
        What was cut.
    record : TrialRecord
        The trial's finished folds (none, or fewer than the search's folds):
        their scores, fold models and out-of-fold predictions, NaN on the rows
        of the folds it did not finish. A cut while boosting the first fold
        leaves that fold, ``capped``: its model has the trees early stopping
        chose among the rounds reached.
    study : optuna.Study, optional
        The search's study, when the search (not one trial) raised it.
    """

    def __init__(
        self, message: str, record: TrialRecord, study: optuna.Study | None = None
    ) -> None:
        super().__init__(message)
        self.record = record
        self.study = study


def better_cut(kept: TrialRecord | None, cut: TrialRecord | None) -> TrialRecord | None:
    """Return the cut trial worth keeping: ``cut`` if it beats ``kept``, else ``kept``.

    Only a trial that finished a fold is worth keeping; of two, the one of
    higher mean fold score.

    Examples
    --------
    >>> one, two = TrialRecord(1, {}, fold_scores=[0.5]), TrialRecord(2, {})
    >>> better_cut(None, one) is one, better_cut(one, two) is one
    (True, True)
    >>> better_cut(one, TrialRecord(3, {}, fold_scores=[0.7])).number
    3
    >>> better_cut(one, TrialRecord(4, {}, fold_scores=[0.2])).number
    1
    """
    if cut is None or not cut.fold_scores:
        return kept
    return cut if kept is None or cut.score > kept.score else kept


def thread_speedup(ratio: float) -> float:
    """Speed-up of work run with ``ratio`` times the threads (Amdahl's law).

    With :data:`SERIAL_SHARE` of the work serial; ``ratio < 1`` gives the
    slow-down of fewer threads.

    Examples
    --------
    >>> thread_speedup(1.0)
    1.0
    >>> round(thread_speedup(2.0), 3), round(thread_speedup(0.5), 3)
    (1.538, 0.588)
    """
    return 1.0 / (SERIAL_SHARE + (1.0 - SERIAL_SHARE) / ratio)


def _take(X: Any, rows: np.ndarray) -> Any:
    return X[rows]


def fit_early_stopped(
    model: Any, X_fit: Any, y_fit: np.ndarray, X_stop: Any, y_stop: np.ndarray
) -> Any:
    """Fit an XGBoost estimator whose early stopping watches ``(X_stop, y_stop)``.

    XGBoost's scikit-learn API holds an evaluation set as a ``QuantileDMatrix``,
    and evaluating one costs far more per round than a plain ``DMatrix`` (XGBoost
    issue 10793): on 6,400 stop rows x 432 columns, 14 ms against 2 ms a round,
    which doubled the trials' boosting time. The stop rows are held as a
    ``DMatrix`` here; the predictions, hence the rounds early stopping keeps,
    are the same. An XGBoost without the ``_create_dmatrix`` hook fits as usual.

    Examples
    --------
    >>> import numpy as np
    >>> from xgboost import XGBRegressor
    >>> from autocat._trials import fit_early_stopped
    >>> X = np.arange(200.0).reshape(-1, 1); y = X[:, 0] % 7
    >>> model = XGBRegressor(n_estimators=50, early_stopping_rounds=5)
    >>> fit_early_stopped(model, X[:150], y[:150], X[150:], y[150:]) is model
    True
    >>> "_create_dmatrix" in vars(model)  # nothing of it is left on the model
    False
    >>> type(model.evals_result()["validation_0"]).__name__  # savable plain data
    'dict'
    """

    def create_dmatrix(ref: Any, **kwargs: Any) -> Any:
        if ref is not None:  # an evaluation set, built after the training set
            return xgboost.DMatrix(**kwargs, nthread=model.n_jobs)
        return type(model)._create_dmatrix(model, ref, **kwargs)

    model._create_dmatrix = create_dmatrix
    try:
        model.fit(X_fit, y_fit, eval_set=[(X_stop, y_stop)], verbose=False)
    finally:
        del model._create_dmatrix
    # XGBoost logs the stop rows' loss per round in OrderedDicts; as plain dicts
    # ``evals_result()`` still works and a model file can hold the log.
    logs = getattr(model, "evals_result_", None)
    if logs is not None:
        model.evals_result_ = {name: dict(log) for name, log in logs.items()}
    return model


def task_predictions(model: Any, X: Any, task: str) -> np.ndarray:
    """Predictions as out-of-fold arrays hold them: values, or class probabilities."""
    if task == "regression":
        return np.asarray(model.predict(X), dtype=np.float32)
    return np.asarray(model.predict_proba(X), dtype=np.float32)


class TrialRunner:
    """Trials of one search: encoding (cached), fold models, scores, records."""

    def __init__(
        self,
        *,
        X: pd.DataFrame,
        y: np.ndarray,
        task: str,
        scorer: Any,
        splits: Sequence[tuple[np.ndarray, np.ndarray]],
        inner: Sequence[tuple[np.ndarray, np.ndarray]],
        n_folds: int,
        random_state: int,
        xgb_threads: int,
        cache: EncodingCache,
        budget: Budget,
        n_classes: int,
        specific_transformers: dict[str, Any] | None = None,
    ) -> None:
        self.specific_transformers = specific_transformers
        self.X = X
        self.y = y
        self.task = task
        self.scorer = scorer
        self.splits = splits
        self.inner = inner
        self.n_folds = n_folds
        self.random_state = random_state
        self.xgb_threads = xgb_threads
        self.cache = cache
        self.budget = budget
        self.n_classes = n_classes

    # -- encoding -------------------------------------------------------------
    def recipe(self, params: dict[str, Any], threads: int | None = None) -> Recipe:
        return Recipe(
            self.task,
            random_state=self.random_state,
            n_jobs=self.xgb_threads if threads is None else threads,
            specific_transformers=self.specific_transformers,
            **params,
        )

    def _encode(self, recipe: Recipe, fold: int, fitted: list[Any]) -> tuple[Any, Any]:
        """Encode a fold; its fitted vectorizer is appended to ``fitted``.

        The cache keeps only a weak reference to the vectorizer: the records of
        the best trials keep theirs alive, the others' are freed.
        """
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
        kinds = vectorizer.column_kinds_
        self.cache.unique_text.setdefault(
            fold, tuple((c, kinds[c]) for c in vectorizer.near_unique_text_)
        )
        n_distinct = dict(zip(plan["column"], plan["n_distinct"], strict=True))
        self.cache.identifier_codes.setdefault(
            fold, tuple((c, n_distinct[c]) for c in vectorizer.identifier_codes_)
        )
        nested = nested_minhash_columns(vectorizer, recipe)
        fitted.append(vectorizer)
        types = vectorizer.feature_types_
        return X_train, (X_valid, nested, weakref.ref(vectorizer), types)

    def _key(self, recipe: Recipe, fold: int) -> Any:
        """Return what the encoding of ``fold`` depends on (None before known).

        Thresholds that split the string columns alike give the same plan, so
        does dropping near-unique text or identifier codes where a fold has
        none, and min-hash
        coordinates are nested (``d=10`` is the first 10 columns of
        ``d=100``): each of these shares one cache entry.
        """
        distinct = self.cache.distinct.get(fold)
        if distinct is None:
            return None
        params = dict(recipe.vectorizer_params)
        if not self.cache.unique_text.get(fold):  # nothing to drop
            params.pop("drop_unique_text", None)
        codes = self.cache.identifier_codes.get(fold)
        if not codes:  # nothing to keep
            params.pop("drop_identifiers", None)
        elif params.get("drop_identifiers", True) is not True:  # kept as text
            distinct = {**distinct, **dict(codes)}
        threshold = params.pop("cardinality_threshold", None)
        high = tuple(sorted(c for c, n in distinct.items() if threshold is None
                            or n > threshold))  # fmt: skip
        if not high and not recipe.specific_transformers:
            params = {k: v for k, v in params.items() if k in _ANY_TABLE_PARAMS}
        elif self.nested(recipe):
            params.pop("n_components", None)
        return (fold, high, tuple(sorted(params.items())))

    def nested(self, recipe: Recipe) -> bool:
        """Whether the recipe's min-hash dimensions can be cut from a wide one."""
        return recipe.encoder == "minhash" and not recipe.specific_transformers

    def encoded(self, recipe: Recipe, fold: int) -> tuple[Any, Any, float, float]:
        """Return ``(X_train, X_valid, seconds, own_seconds)`` of a fold.

        From the cache if it can. ``seconds`` is what encoding the fold costs from
        scratch (for a min-hash recipe, at the widest dimension, which the search
        encodes once); ``own_seconds``, what encoding at the recipe's own
        dimension would cost, as a refit does.
        """
        return self.encoded_fold(recipe, fold)[:4]

    def encoded_fold(
        self, recipe: Recipe, fold: int
    ) -> tuple[Any, Any, float, float, Any, list[str]]:
        """Return :meth:`encoded`'s tuple, its vectorizer and ``feature_types``.

        ``feature_types`` are the matrices' (see
        ``TableVectorizer.feature_types_``). The vectorizer is ``None`` when
        the matrices are columns cut from a wider min-hash encoding: no fitted
        vectorizer outputs exactly them.
        """
        if self.nested(recipe):
            # Encode at the largest dimension once; smaller ones are its columns.
            wide = self.recipe({**recipe.params(), "n_components": MAX_COMPONENTS})
        else:
            wide = recipe
        key = self._key(wide, fold)
        fitted: list[Any] = []
        compute = functools.partial(self._encode, wide, fold, fitted)
        if key is not None:
            X_train, (X_valid, nested, reference, types), seconds = self.cache.get(
                key, compute
            )
        else:
            start = time.perf_counter()
            X_train, (X_valid, nested, reference, types) = compute()
            seconds = time.perf_counter() - start
            entry = (X_train, (X_valid, nested, reference, types), seconds)
            self.cache.put(self._key(wide, fold), entry)
        # Encoded here, or alive in another trial's record, or gone (None).
        vectorizer = fitted[0] if fitted else reference()
        own_seconds = seconds
        if nested is not None and wide is not recipe:
            keep = nested(int(recipe.params()["n_components"]))
            if len(keep) < X_train.shape[1]:
                # Encoding the recipe's own dimension costs about its share of
                # the wide encoding's columns (min-hash cost grows with d).
                own_seconds = seconds * len(keep) / X_train.shape[1]
                X_train, X_valid = X_train[:, keep], X_valid[:, keep]
                types = [types[i] for i in keep]
                vectorizer = None
        return X_train, X_valid, seconds, own_seconds, vectorizer, types

    # -- one trial --------------------------------------------------------------
    def run(
        self,
        trial: optuna.Trial | None,
        params: dict[str, Any],
        threads: int | None = None,
        target_transform: str = "none",
        learner: str = "xgboost",
    ) -> TrialRecord:
        """Score ``params`` on every fold; raise BudgetExhausted if cut.

        ``threads`` (default: the search's per-trial threads) is what the trial's
        encoders and XGBoost use, e.g. all of them for a trial that runs alone on
        a large table. ``target_transform`` is what XGBoost learns (the target,
        or its log); ``learner='linear'`` fits a ridge regression on the
        encoding of ``params`` instead of XGBoost, ``learner='forest'`` a forest
        (within :data:`FOREST_SHARE` of the time left).
        """
        threads = self.xgb_threads if threads is None else threads
        # XGBoost sizes some parallel regions by its global thread count (every
        # core by default), not by the model's n_jobs: capped here, a trial of
        # one thread starts no OpenMP team (see ``xgboost_threads``).
        with xgboost_threads(threads):
            return self._run(trial, params, threads, target_transform, learner)

    def _run(
        self,
        trial: optuna.Trial | None,
        params: dict[str, Any],
        threads: int,
        target_transform: str,
        learner: str = "xgboost",
    ) -> TrialRecord:
        number = -1 if trial is None else trial.number
        record = TrialRecord(
            number=number,
            params=dict(params),
            threads=threads,
            target_transform=target_transform,
            learner=learner,
        )
        recipe = self.recipe(record.recipe_params, threads)
        try:
            self._folds(trial, recipe, record)
        except BudgetExhausted as cut:
            raise TrialCut(f"trial {number} cut by the time budget", record) from cut
        return record

    def _folds(
        self, trial: optuna.Trial | None, recipe: Recipe, record: TrialRecord
    ) -> None:
        """Run the trial's folds into ``record``; raise BudgetExhausted if cut."""
        number = record.number
        threads = record.threads
        forest_end = None
        if record.learner == "forest" and self.budget.deadline is not None:
            forest_end = time.monotonic() + FOREST_SHARE * self.budget.left()
        fold = 0
        while fold < self.n_folds:
            if self.budget.exhausted():
                raise BudgetExhausted(f"trial {number} cut by the time budget")
            with budget_scope(self.budget):
                X_train, X_valid, encode_s, own_encode_s, vectorizer, types = (
                    self.encoded_fold(recipe, fold)
                )
            train, valid = self.splits[fold]
            if record.learner != "xgboost":
                budget = self.budget
                if forest_end is not None:  # an equal part of what is left
                    now = time.monotonic()
                    part = (forest_end - now) / (self.n_folds - fold)
                    budget = budget.until(now + part)
                with budget_scope(budget):
                    self._learner_fold(
                        recipe, record, fold, X_train, X_valid, vectorizer
                    )
                self._fold_done(record, encode_s, own_encode_s)
                fold += 1
                continue
            fit, stop = self.inner[fold]
            fit_start = time.perf_counter()
            guard = BudgetCallback(self.budget)
            callbacks: list[Any] = [guard]
            # A trial that repeats another's point measures something (e.g. a
            # log target), as does an encoder's first: pruning would lose it.
            if (
                trial is not None
                and fold == 0
                and not {REPEATS, FIRST_OF_ENCODER} & trial.user_attrs.keys()
            ):
                log_scale = recipe.target_transform == "log"
                callbacks.append(_PruneCallback(trial, LOG_SCALE_STEPS * log_scale))
            model = recipe.build_model(
                n_estimators=MAX_ROUNDS,
                early_stopping_rounds=EARLY_STOPPING_ROUNDS,
                callbacks=callbacks,
                **categorical_types(recipe, types),
            )
            if self.budget.exhausted():  # XGBoost's set-up cannot be cut
                raise BudgetExhausted(f"trial {number} cut by the time budget")
            y_train = self.y[train]
            fit_early_stopped(
                model,
                _take(X_train, fit),
                y_train[fit],
                _take(X_train, stop),
                y_train[stop],
            )
            # A round whose callbacks said stop may end before early stopping
            # saw it (XGBoost stops asking): cut in its first round, a model
            # has no round that early stopping chose.
            if guard.cut and (
                fold > 0 or model.get_booster().attr("best_iteration") is None
            ):
                raise BudgetExhausted(f"trial {number} cut by the time budget")
            record.boost_seconds.append(time.perf_counter() - fit_start)
            record.boosted_rounds.append(model.get_booster().num_boosted_rounds())
            model.set_params(callbacks=None)
            self._scored(record, model, X_valid, valid, vectorizer)
            record.rounds.append(int(model.best_iteration) + 1)
            # The cost of the fold from scratch (its encoding even if cached).
            record.fold_seconds.append(time.perf_counter() - fit_start + encode_s)
            record.nested_savings.append(encode_s - own_encode_s)
            if guard.cut:
                # The first fold's boosting was stopped: its model is one of the
                # rounds it reached (early stopping's choice among them), scored
                # on rows that chose nothing. Later folds would be a different
                # model (more rounds), so a cut there keeps the finished folds.
                record.capped = True
                raise BudgetExhausted(f"trial {number} cut by the time budget")
            fold += 1
            if fold == 1:
                # The protocol is planned for trials run side by side, each with
                # the search's per-trial threads.
                slowdown = thread_speedup(threads / self.xgb_threads)
                self.maybe_switch_to_holdout(record.fold_seconds[0] * slowdown)

    def _scored(
        self,
        record: TrialRecord,
        model: Any,
        X_valid: Any,
        valid: np.ndarray,
        vectorizer: Any,
    ) -> None:
        """Score a fold's model on its validation rows into ``record``."""
        predictions = task_predictions(model, X_valid, self.task)
        score = float(self.scorer(model, X_valid, self.y[valid]))
        if record.oof is None:
            shape = (len(self.y),) if self.task == "regression" else (
                len(self.y), self.n_classes)  # fmt: skip
            record.oof = np.full(shape, np.nan, dtype=np.float32)
        record.oof[valid] = predictions
        record.fold_scores.append(score)
        record.models.append(model)
        record.vectorizers.append(vectorizer)

    def _learner_fold(
        self,
        recipe: Recipe,
        record: TrialRecord,
        fold: int,
        X_train: Any,
        X_valid: Any,
        vectorizer: Any,
    ) -> None:
        """Fit another learner's fold on all its training rows (none stop early)."""
        train, valid = self.splits[fold]
        start = time.perf_counter()
        model = recipe.build_model().fit(X_train, self.y[train])
        seconds = time.perf_counter() - start
        self._scored(record, model, X_valid, valid, vectorizer)
        record.rounds.append(1)
        record.boosted_rounds.append(1)
        record.boost_seconds.append(seconds)
        record.fold_seconds.append(seconds)

    @staticmethod
    def _fold_done(record: TrialRecord, encode_s: float, own_encode_s: float) -> None:
        record.fold_seconds[-1] += encode_s
        record.nested_savings.append(encode_s - own_encode_s)

    # -- protocol ---------------------------------------------------------------
    def maybe_switch_to_holdout(self, fold_seconds: float) -> None:
        """Keep k-fold CV only if :data:`MIN_CV_TRIALS` trials would fit."""
        if self.switch is None or self.n_folds == 1:
            return
        capacity, budget_s = self.switch
        self.switch = None  # decided once, on the first fold of the first trial
        needed = fold_seconds * self.n_folds * MIN_CV_TRIALS / capacity
        if needed > budget_s:
            logger.info(
                "one fold took %.2fs: %d %d-fold trials would not fit in %.0fs, so "
                "every trial uses the first fold as a holdout",
                fold_seconds,
                MIN_CV_TRIALS,
                self.n_folds,
                budget_s,
            )
            self.n_folds = 1

    switch: tuple[int, float] | None = None
