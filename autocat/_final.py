"""The final model of a search: ensemble selection, refits or fold models, honest score.

:func:`final_model` turns the finished trials of :func:`~autocat._tuning.tune` into
what :func:`~autocat.auto_fit` returns. Greedy ensemble selection runs on the
trials' out-of-fold predictions; each member is then refit on all rows when the
time budget allows it, and otherwise is the average of the models the search
already trained on its folds, so the result is always fully trained (a lighter
member whose fold models can no longer be built in time is left out; the first
member is then its first fold's model, whose time the search reserved). A trial
the time budget cut after some of its folds (or while boosting its first, with
the trees it had grown) joins the candidates, on the rows of those folds, when it
is better than the best finished trial there (and stays only if the selection
there gives it a weight). The score
reported for the final model is cross-validated over the rows: the selection is
made on all folds but one and scored on the one left out, in turn.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.pipeline import Pipeline

from autocat._budget import Budget
from autocat._ensemble import EnsembleModel, score_predictions
from autocat._members import (
    REFIT_MARGIN,
    TrainingRows,
    fold_models_seconds,
    member_model,
    refit_seconds,
    single_pipeline,
    sooner,
    split_rows,
    validated_rows,
)
from autocat._selection import (
    cross_validated_selection_score,
    paired_loss_share,
    select_weights,
    selection_groups,
)
from autocat._trials import TrialRecord

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd

    from autocat._tuning import TuneOutcome

__all__ = [
    "FinalModel",
    "FinalReserve",
    "final_model",
    "final_reserve",
    "lead_beyond_noise",
    "warm_kernels",
]

# A trial the time budget cut leads the selection only if it scores above the
# best finished trial on the rows of its finished folds in at least this share of
# paired bootstrap resamples (a one-sided test at the usual 5% level).
PARTIAL_CONFIDENCE = 0.95
_WARM = False


@dataclass
class FinalModel:
    """The model :func:`final_model` built, and how.

    Attributes
    ----------
    model : estimator
        The ensemble (or, without one, the best trial's model).
    pipeline : sklearn.pipeline.Pipeline
        The best trial's pipeline.
    members : list of dict
        One per member: ``trial``, ``weight``, ``fit`` (``'refit'`` on all rows,
        or ``'fold models'``), ``score``.
    cv_score : float
        Cross-validated score of the selection.
    seconds : float
        Time spent building the final model.
    notes : list of str
        Sentences for :meth:`AutoResult.summary`.
    best : TrialRecord or None
        The trial of ``pipeline``: the best finished trial, or a trial the time
        budget cut that scored above it on the rows of its finished folds.
    """

    model: Any
    pipeline: Pipeline
    members: list[dict[str, Any]]
    cv_score: float
    seconds: float
    notes: list[str] = field(default_factory=list)
    best: TrialRecord | None = None


def warm_kernels() -> None:
    """Compile the encoders' and the forests' kernels on a few rows, once per process.

    The first call in a fresh environment compiles (or loads from numba's
    cache) every kernel; doing it here keeps that time out of the timing of the
    first trial, which plans the budget.
    """
    global _WARM
    if _WARM:
        return
    import pandas as pd

    from autocat._forest import ForestRegressor
    from autocat._gamma_poisson import GammaPoissonEncoder
    from autocat._minhash import MinHashEncoder

    words = pd.DataFrame({"w": ["police officer", "bus operator", "nurse", "fire"]})
    MinHashEncoder(n_components=4).fit_transform(words)
    topics = GammaPoissonEncoder(n_components=2, max_iter=2, random_state=0)
    encoded = topics.fit_transform(words)
    ForestRegressor(n_estimators=1).fit(encoded, [0.0, 1.0, 2.0, 3.0]).predict(encoded)
    _WARM = True


def final_reserve(
    refit_s: float,
    selection_s: float,
    now: float,
    deadline: float | None,
    fold_models_s: float = 0.0,
    first_fold_s: float = 0.0,
) -> float:
    """Seconds the search leaves free before ``deadline`` for the final model.

    ``refit_s`` is the (margined) refit estimate of the best trial, ``selection_s``
    the ensemble selection's share, ``fold_models_s`` the time to rebuild the best
    trial's fold models (their vectorizers), ``first_fold_s`` the time to rebuild
    its first fold's model only. A refit runs only with that first fold's time
    kept behind it, so that a refit cut short still leaves a finished model: the
    reserve for a refit includes it, as :func:`final_model` requires. A refit
    that would not fit even if the search stopped at ``now`` will not happen:
    keeping time for it would leave the rest of the budget unused, so only the
    selection's share and the fold models' time, the final model then, are kept.

    Examples
    --------
    >>> final_reserve(10.0, 2.0, now=0.0, deadline=30.0, fold_models_s=5.0,
    ...               first_fold_s=1.0)
    13.0
    >>> final_reserve(40.0, 2.0, now=0.0, deadline=30.0, fold_models_s=5.0,
    ...               first_fold_s=1.0)
    7.0
    """
    refit_s += first_fold_s
    if deadline is not None and now + refit_s + selection_s > deadline:
        return selection_s + fold_models_s
    return refit_s + selection_s


class FinalReserve:
    """Seconds a time-budgeted search keeps free for its final model.

    Called after each batch with the best trial so far: the margined refit
    estimate of that trial with its first fold's model behind it, or, when the
    refit would not fit, the rebuild of its fold models; plus the ensemble
    selection's share (see :func:`final_reserve`). Whether the refit fits is
    decided once per best trial, when it became the best: the trials that its
    reserve cuts end a little after the reserved time, and that delay must not
    make the refit look too late then.

    Parameters
    ----------
    n_rows : int
        Rows of the refit.
    split : (train, valid)
        The search's first fold, whose rows the trials encoded and boosted.
    threads : int
        Threads of the refit.
    deadline : float or None
        ``time.monotonic()`` by which the final model must be finished.
    selection_s : float
        Seconds kept for the ensemble selection.
    clock : callable, default=time.monotonic
        The time now.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._trials import TrialRecord
    >>> best = TrialRecord(0, {}, rounds=[10], fold_seconds=[3.0],
    ...                    boost_seconds=[2.0], boosted_rounds=[20])
    >>> split = (np.arange(125), np.arange(125, 150))  # boosted on 100 rows
    >>> reserve = FinalReserve(150, split, 1, None, selection_s=1.0)
    >>> reserve.refit_seconds(best)  # encoding 1 s, 15 trees on 150 rows 2.25 s
    3.25
    >>> round(reserve(best), 2)  # 1.3 * (the refit + the first fold's 1 s) + 1
    6.53
    """

    def __init__(
        self,
        n_rows: int,
        split: tuple[np.ndarray, np.ndarray],
        threads: int,
        deadline: float | None,
        selection_s: float,
        clock: Any = time.monotonic,
    ) -> None:
        self.n_rows = n_rows
        self.fit_rows, self.encoded_rows = split_rows(split)
        self.threads = threads
        self.deadline = deadline
        self.selection_s = selection_s
        self.clock = clock
        self._best_since: dict[int, float] = {}

    def refit_seconds(self, record: TrialRecord) -> float:
        """Return :func:`refit_seconds` of ``record`` (unmargined)."""
        return refit_seconds(
            record, self.n_rows, self.fit_rows, self.encoded_rows, self.threads
        )

    def __call__(self, best: TrialRecord) -> float:
        now = self._best_since.setdefault(best.number, self.clock())
        return final_reserve(
            REFIT_MARGIN * self.refit_seconds(best),
            self.selection_s,
            now,
            self.deadline,
            REFIT_MARGIN * fold_models_seconds(best, len(best.fold_seconds)),
            REFIT_MARGIN * fold_models_seconds(best, 1),
        )


def final_model(
    outcome: TuneOutcome,
    X: pd.DataFrame,
    y: np.ndarray,
    task: str,
    metric: str,
    splits: Sequence[tuple[np.ndarray, np.ndarray]],
    random_state: int,
    n_threads: int,
    deadline: float | None,
    ensemble: bool,
    specific_transformers: dict[str, Any] | None = None,
) -> FinalModel:
    """Select members among the finished trials and build the final model.

    Parameters
    ----------
    outcome : TuneOutcome
        The search, with its records (best first) and its best cut trial.
    X, y : DataFrame, ndarray
        The training rows and encoded target.
    task, metric : str
        The task and scorer name.
    splits : sequence of (train, valid)
        The folds the records were scored on (only the first ``outcome.n_folds``).
    random_state, n_threads : int
        Seed, and threads of the refits.
    deadline : float or None
        ``time.monotonic()`` by which the model must be finished.
    ensemble : bool
        Greedy ensemble selection, or the single best trial.
    specific_transformers : dict, optional
        Per-column overrides of every rebuilt vectorizer (as in the search).

    Returns
    -------
    FinalModel
    """
    start = time.monotonic()
    budget = Budget(deadline)
    records = [r for r in outcome.records if r.oof is not None]
    if not ensemble:  # the single best pipeline is one of the search's trials
        records = [r for r in records if not r.candidate_only]
    used = list(splits[: outcome.n_folds])
    rows = validated_rows(records)
    notes: list[str] = []
    records, rows, predictions, weights, selection_s = _select(
        records, rows, outcome.partial, y, metric, task, ensemble, budget, notes
    )
    groups = selection_groups(used, len(y), random_state)[rows]
    n_groups = len(np.unique(groups[groups >= 0]))
    fit_rows, encoded_rows = split_rows(used[0])
    # The selection's cross-validated score repeats the selection once per
    # group, each on fewer rows than the one just timed. With one finished
    # trial nothing was selected: its own score is honest.
    scoring_s = 0.0 if len(records) == 1 else n_groups * selection_s

    training = TrainingRows(
        X, y, task, random_state, n_threads, specific_transformers, metric
    )

    def build(
        record: TrialRecord, first: bool, folds: list[Any]
    ) -> tuple[Any, str, bool] | None:
        # The first member comes before everything. A later one leaves the
        # score's time behind it when that time is there: such a member is
        # then averaged from its fold models, or left out, rather than leave
        # the model with the best trial's score (selected, so optimistic).
        kept = 0.0 if first or budget.left() < scoring_s else scoring_s
        return member_model(record, first, sooner(budget, kept), folds,
                             training, (fit_rows, encoded_rows))  # fmt: skip

    order = [int(i) for i in np.argsort(-weights, kind="stable") if weights[i] > 0]
    # the other learners' members are built last: the time reserved for the
    # final model is for the best XGBoost trial
    order.sort(key=lambda i: records[i].learner != "xgboost")
    estimators: list[Any] = []
    members: list[dict[str, Any]] = []
    best_pipeline = None
    n_dropped = 0
    n_one_fold = False
    for index in order:
        record = records[index]
        built = build(record, not estimators, used[: len(record.models)])
        if built is None:
            n_dropped += 1  # the members kept are the heavier ones
            continue
        fitted, how, one_fold = built
        n_one_fold = n_one_fold or one_fold
        if index == 0:
            best_pipeline = fitted
        estimators.append(fitted)
        members.append(
            {"trial": record.number, "weight": float(weights[index]), "fit": how,
             "score": record.score}
        )  # fmt: skip
    if best_pipeline is None:  # the best trial is not a member: its own model
        built = build(records[0], True, used[:1])
        assert built is not None  # a first member always gets a model
        best_pipeline = built[0]
    # The score comes after the first member, so that a budget short of it
    # costs the score, not the model; the best trial's score then stands in,
    # with a note.
    cv_score = float(records[0].score)
    selection_scored = len(records) == 1
    if not selection_scored and budget.left() < scoring_s:
        notes.append(
            f"the time budget left no time to cross-validate the ensemble selection "
            f"(about {scoring_s:.1f}s): the cross-validated score is "
            "the best trial's"
        )
    elif not selection_scored:
        selection_score = cross_validated_selection_score(
            predictions, y[rows], metric, task, ensemble, groups
        )
        selection_scored = not np.isnan(selection_score)
        if selection_scored:
            cv_score = selection_score
        elif n_groups < 2 < len(used):  # a cut trial's one fold leads
            notes.append(
                "the cross-validated score is the cut trial's on its one "
                "finished fold (a selection on one fold cannot be cross-validated)"
            )
        else:
            notes.append(
                f"the {int(rows.sum()):,} validated rows are too few to "
                "cross-validate the ensemble selection (no group of them has a "
                "score): the cross-validated score is the best trial's"
            )
    if n_dropped:
        scored = "; the cross-validated score is the full selection's"
        notes.append(
            f"{n_dropped} lighter ensemble member(s) left out: the time budget "
            "left no time to build them (the others' weights are rescaled"
            f"{scored if selection_scored else ''})"
        )
    if n_one_fold:
        notes.append(
            "the model's first member is its first fold's model (trained on "
            f"{len(used[0][0]):,} of {len(y):,} rows): the time budget left no time "
            "to refit it or to rebuild its other fold models"
        )
    unsound = [m["trial"] for m in members if m["trial"] in training.unsound_refits]
    if unsound:
        notes.append(
            f"trial(s) {', '.join(f'#{n}' for n in unsound)}: the refit on all rows "
            "scored well below the trial's cross-validated score on its own "
            "training rows (its boosting diverged), so the average of the trial's fold "
            "models stands in for it"
        )
    n_bagged = sum(m["fit"] == "fold models" and m["trial"] not in unsound
                   for m in members)  # fmt: skip
    if n_bagged:
        notes.append(
            f"{n_bagged} of {len(members)} member(s) are the average of their "
            "fold models: the time budget left no time to refit them on all rows"
        )
    if len(estimators) == 1:
        model: Any = estimators[0]
    else:
        model = EnsembleModel.from_fitted(
            estimators,
            [m["weight"] for m in members],
            task=task,
            trial_numbers=[int(m["trial"]) for m in members],
        )
    pipeline = single_pipeline(best_pipeline)
    return FinalModel(
        model=model,
        pipeline=pipeline,
        members=members,
        cv_score=cv_score,
        seconds=time.monotonic() - start,
        notes=notes,
        best=records[0],
    )


def _select(
    records: list[TrialRecord],
    rows: np.ndarray,
    partial: TrialRecord | None,
    y: np.ndarray,
    metric: str,
    task: str,
    ensemble: bool,
    budget: Budget,
    notes: list[str],
) -> tuple[list[TrialRecord], np.ndarray, list[np.ndarray], np.ndarray, float]:
    """Select the members: weights of the candidates on the rows they all validated.

    A cut trial that leads (:func:`_lead_with_partial`) narrows the rows to
    those of its finished folds. On few rows, trials that fail elsewhere may
    look best (a heavy-tailed target: one extreme value decides a fold's
    score), so the narrowed selection stands only if it gives the cut trial a
    weight; otherwise the selection is made again without it, on all the
    finished trials' rows.

    Returns
    -------
    records, rows
        The candidates (best first) and the rows they all validated.
    predictions : list of ndarray
        Their out-of-fold predictions on those rows.
    weights : ndarray
        Their weights.
    seconds : float
        The time of the last selection.
    """
    finished, all_rows = records, rows
    records, rows = _lead_with_partial(
        records, rows, partial, y, metric, task, budget, notes
    )
    while True:
        predictions = [np.asarray(r.oof)[rows] for r in records]
        start = time.monotonic()
        weights = select_weights(predictions, y[rows], metric, task, ensemble)
        seconds = time.monotonic() - start
        if records is finished or weights[0] > 0:
            return records, rows, predictions, weights, seconds
        notes[-1] = (
            f"trial #{records[0].number} was cut by the time budget "
            f"{records[0].progress} and scored above the best finished "
            "trial on its rows, but the selection on those rows preferred other "
            "trials alone: it was left out, and the selection made on all rows"
        )
        records, rows = finished, all_rows


def _lead_with_partial(
    records: list[TrialRecord],
    rows: np.ndarray,
    partial: TrialRecord | None,
    y: np.ndarray,
    metric: str,
    task: str,
    budget: Budget,
    notes: list[str],
) -> tuple[list[TrialRecord], np.ndarray]:
    """Put a cut trial first, on the rows of its finished folds, if it is better.

    A trial the time budget cut after some of its folds left fold models and
    honest out-of-fold predictions on those folds' rows. When it scores above
    the best finished trial on those rows, and beyond the rows' noise its rows'
    losses are lower than that trial's (a paired bootstrap,
    :func:`~autocat._selection.paired_loss_share`, at least
    :data:`PARTIAL_CONFIDENCE`), and its first fold's model can
    still be built in time, the selection runs on those rows with it as the
    first candidate; otherwise nothing changes. A slow configuration far
    better than the fast ones (e.g. min-hash where target encoding loses a
    category's identity) is then not lost to a short budget.

    Returns
    -------
    records : list of TrialRecord
        The candidates, best first.
    rows : ndarray of bool
        The rows every candidate validated.
    """
    if partial is None or partial.oof is None:
        return records, rows
    shared = rows & validated_rows([partial])
    if shared.sum() < 2 or budget.left() < REFIT_MARGIN * fold_models_seconds(
        partial, 1
    ):
        return records, rows
    rival = records[0]  # the best finished trial (one score: AUC costs 0.06 s)
    own, rival_score, share = lead_beyond_noise(
        y[shared], np.asarray(rival.oof)[shared], partial.oof[shared], metric, task
    )
    if share < PARTIAL_CONFIDENCE:
        return records, rows
    notes.append(
        f"trial #{partial.number} was cut by the time budget "
        f"{partial.progress}; on its {int(shared.sum()):,} rows it "
        f"scored {own:.4f} against {rival_score:.4f} for the best finished trial "
        f"(#{rival.number}), its rows' losses lower in {share:.0%} of paired "
        "bootstrap resamples: "
        "the ensemble was selected on those rows, with it as a candidate"
    )
    return [partial, *records], shared


def lead_beyond_noise(
    y: np.ndarray, base: np.ndarray, other: np.ndarray, metric: str, task: str
) -> tuple[float, float, float]:
    """Score ``other`` against ``base`` on the same rows, beyond the rows' noise.

    ``other`` leads when its share is at least :data:`PARTIAL_CONFIDENCE`: it
    scores above ``base`` on the metric, and its rows' losses are lower in that
    share of paired bootstrap resamples
    (:func:`~autocat._selection.paired_loss_share`, only computed then).

    Returns
    -------
    other_score, base_score : float
        Their scores on the rows.
    share : float
        The share of resamples where ``other``'s losses are lower; 0 when it
        does not score above ``base``.

    Examples
    --------
    >>> import numpy as np
    >>> y, mean = np.arange(20.0), np.full(20, 9.5)
    >>> other, base, share = lead_beyond_noise(y, mean, y + 0.1, "r2", "regression")
    >>> round(other, 3), base, share
    (1.0, 0.0, 1.0)
    >>> lead_beyond_noise(y, y + 0.1, mean, "r2", "regression")[2]
    0.0
    """
    other_score = score_predictions(y, other, metric, task=task)
    base_score = score_predictions(y, base, metric, task=task)
    if not other_score > base_score:
        return other_score, base_score, 0.0
    share = paired_loss_share(y, base, other, metric, task)
    return other_score, base_score, share
