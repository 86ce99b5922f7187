"""How each member of the final model is built: refit on all rows, or its fold models.

A member is refit on all rows when :func:`refit_seconds` says the refit fits in
the time left, and stands only if it scores its own rows about as well as its
trial's folds scored them out of fold (a refit whose boosting diverged gives
way); otherwise the models the search trained on the trial's folds are averaged
(:func:`fold_models`), so the final model is always fully trained.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.pipeline import Pipeline

from autocat._budget import Budget, BudgetExhausted, budget_scope
from autocat._ensemble import EnsembleModel, score_predictions
from autocat._recipe import Recipe, categorical_types
from autocat._splits import STOP_FRACTION
from autocat._trials import (
    BudgetCallback,
    TrialRecord,
    task_predictions,
    thread_speedup,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd

__all__ = [
    "REFIT_MARGIN",
    "REFIT_TOLERANCE",
    "REFIT_TREES_POWER",
    "TrainingRows",
    "fold_models",
    "fold_models_seconds",
    "member_model",
    "refit_seconds",
    "refit_trees",
    "single_pipeline",
    "sooner",
    "split_rows",
    "validated_rows",
]

logger = logging.getLogger("autocat")

# A refit is started only if its estimate times this margin fits in the time left
# (the first member's: its estimate alone, see :func:`member_model`).
REFIT_MARGIN = 1.3
# A refit on all rows grows the trees early stopping chose on a fold's fit rows
# times the ratio of the rows to this power: the more rows, the later boosting
# stops improving (the folds fit about two thirds of them).
REFIT_TREES_POWER = 1.0
# A refit has diverged when it scores its own rows below its trial's out-of-fold
# score by more than this share of the trial's gain over a constant prediction
# (a diverged refit loses most of it: the two seen scored 0.49 and 0.22 on test
# rows where their trials' fold models scored 0.90; rounding loses 1e-9).
REFIT_TOLERANCE = 0.1


@dataclass(frozen=True)
class TrainingRows:
    """The training rows, and how every model of the final step is built on them.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rows = TrainingRows(pd.DataFrame({"x": [1.0, 2.0]}), np.array([0.0, 1.0]),
    ...                     "regression", random_state=0, n_threads=1)
    >>> rows.recipe({"max_depth": 3}).params()["max_depth"]
    3
    """

    X: pd.DataFrame
    y: np.ndarray
    task: str
    random_state: int
    n_threads: int
    specific_transformers: dict[str, Any] | None = None
    metric: str | None = None  # set: a refit is checked against its trial (below)
    unsound_refits: list[int] = field(default_factory=list)  # their trial numbers

    def recipe(self, params: dict[str, Any]) -> Recipe:
        """Return the recipe of a trial's ``params`` on these rows' threads."""
        return Recipe(
            self.task,
            random_state=self.random_state,
            n_jobs=self.n_threads,
            specific_transformers=self.specific_transformers,
            **params,
        )


def split_rows(split: tuple[np.ndarray, np.ndarray]) -> tuple[float, float]:
    """Rows a trial's fold boosted on and rows it encoded, for :func:`refit_seconds`.

    The fold's training rows, less early stopping's share, were boosted on; its
    training and validation rows were encoded.

    Examples
    --------
    >>> import numpy as np
    >>> split_rows((np.arange(125), np.arange(125, 150)))
    (100.0, 150)
    """
    return len(split[0]) * (1 - STOP_FRACTION), len(split[0]) + len(split[1])


def refit_trees(record: TrialRecord, n_rows: int, fit_rows: float) -> int:
    """Trees of ``record``'s refit on ``n_rows`` rows.

    Early stopping chose ``record.n_estimators`` on each fold's ``fit_rows``
    (:func:`split_rows`); on more rows, boosting improves for longer, so the
    refit grows that many times the ratio of the rows to the power
    :data:`REFIT_TREES_POWER`, never fewer.

    Examples
    --------
    >>> from autocat._trials import TrialRecord
    >>> record = TrialRecord(0, {}, rounds=[100, 120])
    >>> refit_trees(record, 1000, fit_rows=640.0)
    172
    >>> refit_trees(record, 500, fit_rows=640.0)  # never fewer
    110
    """
    scale = (n_rows / max(1.0, fit_rows)) ** REFIT_TREES_POWER
    return max(1, round(record.n_estimators * max(1.0, scale)))


def refit_seconds(
    record: TrialRecord,
    n_rows: int,
    fit_rows: float,
    encoded_rows: float,
    threads: int,
) -> float:
    """Estimated seconds of refitting ``record`` on ``n_rows`` rows.

    Each fold of the trial encoded ``encoded_rows`` rows (its training and
    validation rows) and boosted on ``fit_rows`` with ``record.threads``
    threads, beside the other trials of its batch; the refit encodes and boosts
    ``n_rows`` alone, with ``threads``. Encoding (and the fold's prediction)
    scales with the rows encoded; boosting with the rows and the trees of the
    refit (the folds also grew early stopping's waiting rounds). Both are
    counted faster with the threads as Amdahl's law allows
    (:func:`~autocat._trials.thread_speedup`). The encoders of ``auto_fit``'s
    recipes run on one thread; what speeds their part up is that in the folds,
    what they run under the interpreter's lock was slowed down by the trials
    running beside them, and the refit runs alone. With many more threads
    than the trial's, the encoding's share is counted faster than it runs.

    Examples
    --------
    >>> from autocat._trials import TrialRecord
    >>> record = TrialRecord(0, {}, rounds=[10], fold_seconds=[3.0],
    ...                      boost_seconds=[2.0], boosted_rounds=[20], threads=1)
    >>> refit_seconds(record, 100, fit_rows=50, encoded_rows=100, threads=1)
    5.0
    >>> round(refit_seconds(record, 100, fit_rows=50, encoded_rows=100, threads=2), 2)
    3.25
    """
    if not record.fold_seconds:
        return 0.0
    if not record.boost_seconds:
        return float(np.median(record.fold_seconds)) * n_rows / max(1.0, fit_rows)
    other = np.median(_encoding_seconds(record))
    per_tree = np.median(np.divide(record.boost_seconds, record.boosted_rounds))
    trees = refit_trees(record, n_rows, fit_rows)
    boost = per_tree * trees * n_rows / max(1.0, fit_rows)
    encode = max(0.0, other) * n_rows / max(1.0, encoded_rows)
    speedup = thread_speedup(max(1, threads) / max(1, record.threads))
    return float((encode + boost) / speedup)


def fold_models_seconds(record: TrialRecord, n_folds: int) -> float:
    """Estimated seconds of rebuilding ``record``'s first ``n_folds`` fold models.

    Their boosters are kept from the search, and so are the fitted vectorizers
    of the best trials (see :attr:`TrialRecord.vectorizers`); the others are
    fitted again on each fold's training rows, which costs about the fold's
    encoding (and prediction): the fold's time less its boosting, at the
    trial's own min-hash dimension.
    """
    spent = np.clip(_encoding_seconds(record)[:n_folds], 0.0, None)
    kept = [v is not None for v in record.vectorizers[:n_folds]]
    kept += [False] * (len(spent) - len(kept))
    return float(spent[~np.asarray(kept, dtype=bool)].sum())


def _encoding_seconds(record: TrialRecord) -> np.ndarray:
    """Each fold's time less its boosting, at the trial's own encoding dimension."""
    spent = np.subtract(record.fold_seconds, record.boost_seconds)
    if len(record.nested_savings) == len(spent):
        spent = spent - np.asarray(record.nested_savings)
    return spent


def member_model(
    record: TrialRecord,
    first: bool,
    budget: Budget,
    folds: list[Any],
    training: TrainingRows,
    fold_rows: tuple[float, float],
) -> tuple[Any, str, bool] | None:
    """Refit ``record`` on all rows if it fits in time, else average its fold models.

    Returns the model, how it was built (``"refit"`` or ``"fold models"``) and
    whether it is the first fold's model alone. There must be a model: the
    ``first`` member's refit keeps behind it the time of its first fold's model,
    so that a refit cut short still leaves one (the search reserved that time
    too), and it is that model alone when its other fold models do not fit in
    time. A later member that can be neither refit nor rebuilt in time gives
    ``None``.
    """
    keep = REFIT_MARGIN * fold_models_seconds(record, 1) if first else 0.0
    needed = refit_seconds(record, len(training.y), *fold_rows, training.n_threads)
    # The search kept the margined estimate free when the first member's trial
    # became the best, but the trials in flight then end a little later: its
    # refit is tried whenever the estimate itself fits (one cut short costs only
    # time nothing else would use). A later member's keeps the margin: its
    # failed refit would take the time of the members after it.
    margin = 1.0 if first else REFIT_MARGIN
    if budget.left() - keep >= margin * needed:
        trees = refit_trees(record, len(training.y), fold_rows[0])
        fitted = _refit(record, training, sooner(budget, keep), trees)
        if fitted is not None:
            return fitted, "refit", False
    one_fold = False
    if budget.left() < REFIT_MARGIN * fold_models_seconds(record, len(folds)):
        if not first:
            return None
        one_fold = len(folds) > 1  # its other fold models do not fit in time
        folds = folds[:1]
    fitted = fold_models(record, training, folds)
    return fitted, "fold models", one_fold


def sooner(budget: Budget, seconds: float) -> Budget:
    """Return the same budget, ending ``seconds`` earlier."""
    if budget.deadline is None or seconds <= 0:
        return budget
    return Budget(budget.deadline - seconds)


def single_pipeline(fitted: Any) -> Pipeline:
    """Return a plain Pipeline: the model itself, or its first fold model."""
    if isinstance(fitted, Pipeline):
        return fitted
    return fitted.members_[0]


def _refit(
    record: TrialRecord, training: TrainingRows, budget: Budget, trees: int
) -> Pipeline | None:
    """Refit a trial on all rows with ``trees`` trees; ``None`` if the budget cut it."""
    recipe = training.recipe(record.recipe_params)
    guard = BudgetCallback(budget)
    try:
        with budget_scope(budget):
            vectorizer = recipe.build_vectorizer()
            encoded = vectorizer.fit_transform(training.X, training.y)
        smearing = {}
        if recipe.target_transform == "log":  # the fold models' honest factor
            smearing["smearing"] = float(np.mean([m.smearing_ for m in record.models]))
        if recipe.learner != "xgboost":  # a forest checks the budget between trees
            with budget_scope(budget):
                model = recipe.build_model().fit(encoded, training.y)
            return Pipeline([("vectorizer", vectorizer), ("model", model)])
        model = recipe.build_model(
            n_estimators=trees,
            callbacks=[guard],
            **smearing,
            **categorical_types(recipe, vectorizer.feature_types_),
        )
        model.fit(encoded, training.y)
    except BudgetExhausted:
        return None
    if guard.cut:
        logger.info("the refit of trial %d was cut by the budget", record.number)
        return None
    model.set_params(callbacks=None)
    if not _sound_refit(model, encoded, record, training):
        logger.warning("the refit of trial %d diverged: fold models stand in",
                       record.number)  # fmt: skip
        training.unsound_refits.append(record.number)
        return None
    return Pipeline([("vectorizer", vectorizer), ("model", model)])


def _sound_refit(
    model: Any, encoded: Any, record: TrialRecord, training: TrainingRows
) -> bool:
    """Whether a refit scores its own rows about as well as its trial's folds did.

    Below that its boosting diverged (softmax over many classes at a high
    learning rate can, on all rows, where every fold converged). A refit that
    scores its own rows lower than its folds scored theirs by less than
    :data:`REFIT_TOLERANCE` of the trial's gain over a constant prediction is
    sound: on a near-perfect table (R² 0.999999998 out of fold), rounding
    alone can leave the refit a hair below.
    """
    oof = record.oof
    if training.metric is None or oof is None:
        return True
    fitted = task_predictions(model, encoded, training.task)
    n_classes = None if training.task == "regression" else oof.shape[1]
    if fitted.shape != oof.shape:
        return True  # compared on different classes: no verdict
    rows = validated_rows([record])
    y = training.y[rows]
    metric, task = training.metric, training.task
    if task == "regression":
        constant = np.full(len(y), float(np.mean(y)))
    else:
        shares = np.bincount(y, minlength=oof.shape[1]) / len(y)
        constant = np.tile(shares, (len(y), 1))
    own, out_of_fold, baseline = (
        score_predictions(y, values, metric, task=task, n_classes=n_classes)
        for values in (fitted[rows], oof[rows], constant)
    )
    gain = out_of_fold - baseline if np.isfinite(baseline) else 0.0
    return bool(own >= out_of_fold - REFIT_TOLERANCE * max(gain, 0.0))


def validated_rows(records: Sequence[TrialRecord]) -> np.ndarray:
    """Rows that every one of ``records`` predicted out of fold."""
    valid = np.ones(len(np.asarray(records[0].oof)), dtype=bool)
    for record in records:
        oof = record.oof
        assert oof is not None
        valid &= ~np.isnan(oof if oof.ndim == 1 else oof[:, 0])
    return valid


def fold_models(
    record: TrialRecord,
    training: TrainingRows,
    splits: Sequence[tuple[np.ndarray, np.ndarray]],
) -> Any:
    """Average the trial's fold models, each behind its fold's vectorizer.

    The vectorizers the search kept are used as they are; the others are fitted
    again on their fold's training rows (the same encoding: it is deterministic).
    """
    recipe = training.recipe(record.recipe_params)
    pipelines = []
    kept = list(record.vectorizers) + [None] * len(splits)
    for (train, _), model, vectorizer in zip(splits, record.models, kept, strict=False):
        if vectorizer is None:
            vectorizer = recipe.build_vectorizer().fit(
                training.X.iloc[train], training.y[train]
            )
        pipelines.append(Pipeline([("vectorizer", vectorizer), ("model", model)]))
    if len(pipelines) == 1:
        return pipelines[0]
    weights = [1.0 / len(pipelines)] * len(pipelines)
    return EnsembleModel.from_fitted(pipelines, weights, task=training.task)
