"""A trial the time budget cuts keeps its finished folds, and leads when far better."""

from __future__ import annotations

import copy
import time

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    get_scorer,
    r2_score,
)
from sklearn.model_selection import KFold
from sklearn.pipeline import Pipeline

import autocat._auto
import autocat._members
import autocat._tuning
from autocat._budget import Budget
from autocat._ensemble import EnsembleModel
from autocat._final import (
    PARTIAL_CONFIDENCE,
    _lead_with_partial,
    _select,
    final_model,
    lead_beyond_noise,
)
from autocat._leaderboard import leaderboard
from autocat._members import TrainingRows, fold_models_seconds
from autocat._rescue import (
    FALLBACK_ROWS,
    cut_trial_or_rescue,
    fallback_model,
    rescue_rows,
)
from autocat._search_space import default_params
from autocat._selection import paired_loss_share, row_losses
from autocat._splits import inner_splits
from autocat._trials import (
    EncodingCache,
    TrialCut,
    TrialRecord,
    TrialRunner,
)
from autocat._tuning import TuneOutcome, tune

# Target encoding gives every year of a country the same value; min-hash keeps
# the country's identity, which with its population tells the year.
TARGET = {**default_params("target"), "learning_rate": 0.3}
MINHASH = {**default_params("minhash"), "learning_rate": 0.3}


def _countries(
    seed: int, n_names: int = 40, n_years: int = 15
) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    names = sorted({"".join(rng.choice(letters, 7)).title() for _ in range(n_names)})
    base = rng.uniform(5, 8, len(names))  # log10 of the first year's population
    growth = rng.uniform(0.004, 0.012, len(names))  # per year, in log10
    years = np.arange(1960, 1960 + n_years)
    country = np.repeat(np.arange(len(names)), len(years))
    year = np.tile(years, len(names))
    noise = rng.normal(0, 0.001, len(year))
    population = 10 ** (base[country] + growth[country] * (year - 1960) + noise)
    X = pd.DataFrame({
        "country": np.asarray(names, dtype=object)[country],
        "population": population,
    })  # fmt: skip
    return X, year.astype(float)


@pytest.fixture(scope="module")
def countries():
    return _held_out(*_countries(0))


def _held_out(X, y):
    order = np.random.default_rng(1).permutation(len(y))
    test = order[: len(y) // 3]
    train = np.sort(order[len(y) // 3 :])
    X_train, y_train = X.iloc[train].reset_index(drop=True), y[train]
    splits = list(KFold(5, shuffle=True, random_state=0).split(X_train))
    return X_train, y_train, splits, X.iloc[test].reset_index(drop=True), y[test]


def _runner(X, y, splits) -> TrialRunner:
    return TrialRunner(
        X=X, y=y, task="regression", scorer=get_scorer("r2"), splits=splits,
        inner=inner_splits(splits, y, "regression", 0), n_folds=len(splits),
        random_state=0, xgb_threads=1, cache=EncodingCache(), budget=Budget(None),
        n_classes=0,
    )  # fmt: skip


def _cut_after(runner: TrialRunner, n_folds: int, params: dict) -> TrialCut:
    """Run ``params``, cancelling the runner's budget as fold ``n_folds`` starts."""
    encoded_fold = runner.encoded_fold

    def encoded(recipe, fold):
        if fold == n_folds:
            runner.budget.cancel()
        return encoded_fold(recipe, fold)

    runner.encoded_fold = encoded  # type: ignore[method-assign]
    with pytest.raises(TrialCut) as cut:
        runner.run(None, params)
    return cut.value


def test_a_cut_trial_keeps_the_folds_it_finished(countries):
    X, y, splits, _, _ = countries
    record = _cut_after(_runner(X, y, splits), 2, MINHASH).record
    whole = _runner(X, y, splits).run(None, MINHASH)  # the same trial, uncut

    assert len(record.fold_scores) == len(record.models) == 2
    assert len(record.vectorizers) == len(record.rounds) == 2
    assert record.fold_scores == whole.fold_scores[:2]
    validated = np.zeros(len(y), dtype=bool)
    validated[np.concatenate([splits[0][1], splits[1][1]])] = True
    assert record.oof is not None
    np.testing.assert_array_equal(~np.isnan(record.oof), validated)
    np.testing.assert_array_equal(record.oof[validated], whole.oof[validated])


def test_a_trial_whose_encoding_ends_past_the_deadline_never_starts_boosting(
    countries, monkeypatch
):
    # XGBoost's set-up (its DMatrix, the features' quantiles) cannot be cut: on
    # 1,500 columns it ran 0.6 s past the deadline before the first round.
    X, y, splits, _, _ = countries
    runner = _runner(X, y, splits)
    encoded_fold, fits = runner.encoded_fold, []

    def encoded(recipe, fold):
        encoding = encoded_fold(recipe, fold)
        if fold == 1:
            runner.budget.cancel()  # the deadline passes while encoding fold 1
        return encoding

    fit_early_stopped = autocat._trials.fit_early_stopped

    def counted(model, *args):
        fits.append(model)
        return fit_early_stopped(model, *args)

    runner.encoded_fold = encoded  # type: ignore[method-assign]
    monkeypatch.setattr(autocat._trials, "fit_early_stopped", counted)
    with pytest.raises(TrialCut) as cut:
        runner.run(None, MINHASH)
    assert len(fits) == 1 and len(cut.value.record.fold_scores) == 1


def test_a_trial_cut_before_its_first_fold_keeps_none(countries):
    X, y, splits, _, _ = countries
    record = _cut_after(_runner(X, y, splits), 0, MINHASH).record
    assert record.fold_scores == [] and record.oof is None


def test_tune_hands_back_the_best_trial_it_cut(countries, monkeypatch):
    # Trial 0 (target encoding) finishes, then trials 1 and 2, the linear and
    # forest ones on its encoding; trial 3 (min-hash) is cut when its third fold
    # starts: the search returns it as its partial trial.
    X, y, splits, _, _ = countries
    budgets: list[Budget] = []

    class Recorded(Budget):
        def __init__(self, deadline):
            super().__init__(deadline)
            budgets.append(self)

    encoded_fold = TrialRunner.encoded_fold
    started: list[int] = []

    def encoded(self, recipe, fold):
        started.append(fold)
        if len(started) == 3 * len(splits) + 3:  # trial 3, fold 2
            budgets[0].cancel()
        return encoded_fold(self, recipe, fold)

    monkeypatch.setattr(autocat._tuning, "Budget", Recorded)
    monkeypatch.setattr(TrialRunner, "encoded_fold", encoded)
    outcome = tune(
        X, y, task="regression", scorer=get_scorer("r2"), splits=splits,
        n_trials=None, time_budget=None, deadline=1e12, n_jobs=1,
        portfolio=[TARGET, MINHASH],
    )  # fmt: skip

    # the other learners' trials come last among the records: never the best
    assert [(r.number, r.learner) for r in outcome.records] == [
        (0, "xgboost"), (1, "linear"), (2, "forest")
    ]  # fmt: skip
    assert outcome.n_cut == 1
    assert outcome.partial is not None
    assert outcome.partial.number == 3 and len(outcome.partial.fold_scores) == 2
    assert outcome.partial.params["encoder"] == "minhash"
    board = leaderboard(outcome.study).set_index("trial")
    assert board.loc[3, "state"] == "PRUNED"
    assert board.loc[3, "stopped_by"] == "time_budget"


def _outcome(countries, partial: TrialRecord | None):
    X, y, splits, _, _ = countries
    finished = _runner(X, y, splits).run(None, TARGET)
    finished.number = 0

    return TuneOutcome(
        study=None, best_trial=None, records=[finished], n_folds=len(splits),
        cache=EncodingCache(), partial=partial,
    )  # fmt: skip


def _final(countries, outcome, deadline=None, ensemble=True):
    X, y, splits, _, _ = countries
    return final_model(outcome, X, y, "regression", "r2", splits, 0, 1, deadline,
                       ensemble=ensemble)  # fmt: skip


def test_a_cut_trial_far_better_than_the_finished_ones_leads_the_model(countries):
    X, y, splits, X_test, y_test = countries
    cut = _cut_after(_runner(X, y, splits), 2, MINHASH).record
    cut.number = 1
    without = _final(countries, _outcome(countries, None))
    final = _final(countries, _outcome(countries, cut))

    assert final.best is cut
    assert final.members[0]["trial"] == 1 and final.members[0]["fit"] == "refit"
    assert any("trial #1 was cut by the time budget after 2 fold(s)" in note
               for note in final.notes)  # fmt: skip
    # Scored on new rows: min-hash keeps the countries apart, target encoding
    # does not (the reference: the same call without the cut trial).
    assert r2_score(y_test, without.model.predict(X_test)) < 0.3
    assert r2_score(y_test, final.model.predict(X_test)) > 0.6
    # Its honest score comes from its own two folds' rows only.
    assert final.cv_score > 0.4  # the finished trial scores below 0.1


@pytest.mark.parametrize("n_folds", [1, 2])
def test_a_cut_trial_without_time_to_refit_is_its_own_fold_models(
    countries, monkeypatch, n_folds
):
    X, y, splits, X_test, y_test = countries
    cut = _cut_after(_runner(X, y, splits), n_folds, MINHASH).record
    cut.number = 1
    monkeypatch.setattr(autocat._members, "refit_seconds", lambda *args: 1e9)
    deadline = time.monotonic() + 60  # too short for a refit of 1e9 s
    final = _final(countries, _outcome(countries, cut), deadline, ensemble=False)

    assert final.members == [{"trial": 1, "weight": 1.0, "fit": "fold models",
                              "score": cut.score}]  # fmt: skip
    model = final.model
    if n_folds == 1:  # its one fold's model, and that fold's score
        assert (
            isinstance(model, Pipeline) and model.named_steps["model"] is cut.models[0]
        )
        assert final.cv_score == cut.fold_scores[0]
        assert any("on its one finished fold" in note for note in final.notes)
    else:
        assert isinstance(model, EnsembleModel)
        fold_models = [member.named_steps["model"] for member in model.members_]
        assert fold_models == cut.models
    assert not any("first fold's model" in note for note in final.notes)
    assert r2_score(y_test, model.predict(X_test)) > 0.3


def _records(y, rival_noise, partial_noise, seed=2):
    rng = np.random.default_rng(seed)
    rival = TrialRecord(0, {}, oof=(y + rng.normal(0, rival_noise, len(y))))
    oof = y + rng.normal(0, partial_noise, len(y))
    oof[len(y) // 2 :] = np.nan  # its other folds were cut
    partial = TrialRecord(1, {}, oof=oof, fold_scores=[0.5])
    return rival, partial


@pytest.mark.parametrize(
    ("partial_noise", "leads"), [(0.97, False), (0.5, True)], ids=["noise", "better"]
)
def test_a_cut_trial_leads_only_when_better_beyond_the_rows_noise(partial_noise, leads):
    y = np.random.default_rng(5).normal(size=400)
    rival, partial = _records(y, 1.0, partial_noise)
    shared = ~np.isnan(partial.oof)
    # The cut trial scores higher on its rows either way.
    assert r2_score(y[shared], partial.oof[shared]) > r2_score(
        y[shared], rival.oof[shared]
    )
    notes: list[str] = []
    everywhere = np.ones(len(y), dtype=bool)
    records, rows = _lead_with_partial(
        [rival], everywhere, partial, y, "r2", "regression", Budget(None), notes
    )
    if leads:
        assert records == [partial, rival]
        np.testing.assert_array_equal(rows, shared)
        assert len(notes) == 1 and "lower in 100%" in notes[0]
    else:
        assert records == [rival] and rows is everywhere and notes == []
    assert 0.5 < PARTIAL_CONFIDENCE < 1


@pytest.mark.parametrize(("encoding_s", "leads"), [(4.0, False), (0.5, True)])
def test_a_cut_trial_leads_only_when_its_first_fold_model_fits_in_time(
    encoding_s, leads
):
    y = np.random.default_rng(5).normal(size=400)
    rival, partial = _records(y, 1.0, 0.5)
    partial.fold_seconds, partial.boost_seconds = [encoding_s + 1.0], [1.0]
    partial.vectorizers = [None]  # its fold's vectorizer must be fitted again
    everywhere = np.ones(len(y), dtype=bool)
    budget = Budget(time.monotonic() + 3.0)
    records, _ = _lead_with_partial(
        [rival], everywhere, partial, y, "r2", "regression", budget, []
    )
    assert records == ([partial, rival] if leads else [rival])


def test_a_trial_cut_before_the_rescue_competes_in_the_resumed_search(
    countries, monkeypatch
):
    # No trial finishes before the time kept for the rescue recipe, but the
    # min-hash trial had finished two folds; the search resumes and finds only
    # target-encoded trials: the cut trial, carried over, leads the model.
    X, y, _, X_test, y_test = countries
    real_tune = autocat._auto.tune
    calls = []

    def tune_once_cut(X, y, **options):
        calls.append(options)
        if len(calls) == 1:  # the first search: trial 7 is cut after 2 folds
            runner = _runner(X, y, options["splits"])
            cut = _cut_after(runner, 2, MINHASH)
            cut.record.number = 7
            raise cut
        return real_tune(X, y, **{**options, "portfolio": [TARGET], "n_trials": 1})

    monkeypatch.setattr(autocat._auto, "tune", tune_once_cut)
    monkeypatch.setattr(autocat._auto, "search_again", lambda *args: True)
    result = autocat.auto_fit(
        X.assign(year=y), "year", task="regression", time_budget=30, n_jobs=1
    )

    assert len(calls) == 2
    assert "the search resumed" in result.summary()
    assert "trial #7 was cut by the time budget after 2 fold(s)" in result.summary()
    assert result.ensemble_["trial"].iloc[0] == 7
    assert result.best_params_["encoder"] == "minhash"
    assert result.score(X_test, y_test) > 0.6


def test_a_cut_trial_must_also_score_higher_on_the_metric():
    # The cut trial's log loss is far lower, but the finished one answers every
    # row right (F1 1, barely away from 0.5): the metric, F1, keeps it first.
    y = np.tile([0, 1], 200)
    unsure = np.where(y == 1, 0.51, 0.49)
    rival = TrialRecord(0, {}, oof=np.column_stack([1 - unsure, unsure]))
    confident = np.where(y == 1, 0.9, 0.1)
    confident[:20] = 1 - confident[:20]  # a few confident mistakes: F1 below 1
    oof = np.column_stack([1 - confident, confident])
    oof[len(y) // 2 :] = np.nan
    partial = TrialRecord(1, {}, oof=oof, fold_scores=[0.9])
    everywhere = np.ones(len(y), dtype=bool)
    records, _ = _lead_with_partial(
        [rival], everywhere, partial, y, "f1", "binary", Budget(None), []
    )
    assert records == [rival]
    shared = ~np.isnan(oof[:, 0])
    assert (
        paired_loss_share(y[shared], rival.oof[shared], oof[shared], "f1", "binary")
        >= PARTIAL_CONFIDENCE
    )  # the losses alone would have let it lead


def test_a_cut_trial_that_ranks_better_leads_on_average_precision():
    # Binary, ranked by average precision: the cut trial's probabilities are
    # unsure (0.45 to 0.55) but rank the rows better than the rescue recipe's
    # sure ones. Recalibrated, its log loss is lower; as they are, higher.
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 2_000)
    signal = y + rng.normal(0, 0.5, len(y))
    unsure = 0.5 + 0.05 * np.tanh(signal - 0.5)
    noisier = y + rng.normal(0, 0.9, len(y))
    sure = 1 / (1 + np.exp(-1.2 * (noisier - 0.5)))  # about calibrated
    as_proba = lambda p: np.column_stack([1 - p, p])  # noqa: E731
    own, rescue, share = lead_beyond_noise(
        y, as_proba(sure), as_proba(unsure), "average_precision", "binary"
    )
    assert own > rescue + 0.05
    assert share >= PARTIAL_CONFIDENCE
    raw = paired_loss_share(y, as_proba(sure), as_proba(unsure), "f1", "binary")
    assert raw < 0.05  # the log loss as it is would have kept the rescue


def test_recalibrated_losses_match_a_fitted_logistic_regression():
    # The reference: scikit-learn's logistic regression of y on the log-odds,
    # all but unpenalised, and its log loss on the same rows.
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 3_000)
    p = 1 / (1 + np.exp(-(0.3 * (2 * y - 1) + rng.normal(0, 1, len(y)))))
    logit = np.log(p / (1 - p))[:, None]
    reference = LogisticRegression(C=1e8, tol=1e-10, max_iter=1_000).fit(logit, y)
    expected = -np.log(reference.predict_proba(logit)[np.arange(len(y)), y])
    losses = row_losses(y, np.column_stack([1 - p, p]), "roc_auc", "binary")
    np.testing.assert_allclose(losses, expected, rtol=1e-4, atol=1e-6)


def _answers(y, n_classes, right, top, seed):
    """Probabilities whose top class is right on a share ``right`` of the rows.

    The top class gets ``top``, the others share the rest: a booster cut after
    a few rounds at a low learning rate is unsure (``top`` near ``1 / k``), a
    trained one sure.
    """
    rng = np.random.default_rng(seed)
    wrong = rng.random(len(y)) >= right
    shift = rng.integers(1, n_classes, len(y))
    answer = np.where(wrong, (y + shift) % n_classes, y)
    proba = np.full((len(y), n_classes), (1 - top) / (n_classes - 1))
    proba[np.arange(len(y)), answer] = top
    return proba


def test_an_unsure_cut_trial_that_answers_better_leads_on_accuracy():
    # The rescue recipe on a sample is sure and right on 65% of the rows; the
    # trial cut after a few rounds (beer styles, 45 classes) is unsure and
    # right on 75%. On accuracy the trial is better beyond the rows' noise;
    # the log loss of its unsure probabilities would have kept the rescue.
    y = np.random.default_rng(0).integers(0, 10, 2_000)
    sure = _answers(y, 10, right=0.65, top=0.8, seed=1)
    unsure = _answers(y, 10, right=0.75, top=0.2, seed=2)
    own, rescue, share = lead_beyond_noise(y, sure, unsure, "accuracy", "multiclass")
    assert own > rescue + 0.05
    assert share >= PARTIAL_CONFIDENCE
    log_loss_share = paired_loss_share(y, sure, unsure, "neg_log_loss", "multiclass")
    assert log_loss_share < 0.05


@pytest.mark.parametrize(
    "metric, reference",
    [("accuracy", accuracy_score), ("balanced_accuracy", balanced_accuracy_score)],
)
def test_the_rows_losses_of_an_error_metric_average_to_its_error(metric, reference):
    y = np.random.default_rng(3).choice(4, 500, p=[0.6, 0.25, 0.1, 0.05])
    proba = _answers(y, 4, right=0.6, top=0.4, seed=4)
    losses = row_losses(y, proba, metric, "multiclass")
    expected = 1 - reference(y, np.argmax(proba, axis=1))
    assert losses.mean() == pytest.approx(expected, abs=1e-12)


def test_a_cut_trial_is_left_out_when_its_rows_prefer_other_trials():
    # On the cut trial's rows another finished trial is far better still, but
    # it fails on the other rows: a selection on those few rows would pick it.
    # The selection is made again on all rows, without the cut trial.
    y = np.random.default_rng(5).normal(size=400)
    rival, partial = _records(y, 1.0, 0.5)
    noise = np.random.default_rng(6).normal(size=len(y))
    local = TrialRecord(
        2, {}, oof=y + np.where(partial.oof == partial.oof, 0.1, 20) * noise
    )
    everywhere = np.ones(len(y), dtype=bool)
    for finished, leads in (([rival], True), ([rival, local], False)):
        notes: list[str] = []
        records, rows, _, weights, _ = _select(
            finished, everywhere, partial, y, "r2", "regression", True,
            Budget(None), notes,
        )  # fmt: skip
        assert (records[0] is partial) is leads
        assert weights[0] > 0
        assert len(notes) == 1
        if not leads:
            assert records == finished and rows is everywhere
            assert "it was left out, and the selection made on all rows" in notes[0]
            assert weights[0] == 1.0  # the rival: the local trial fails elsewhere


def test_a_cut_trial_keeps_its_lead_as_a_lighter_member():
    # A second finished trial is better still on the cut trial's rows, and good
    # elsewhere too: the narrowed selection blends them, the cut trial lighter.
    y = np.random.default_rng(5).normal(size=400)
    rival, partial = _records(y, 1.0, 0.5)
    helper = TrialRecord(2, {}, oof=y + np.random.default_rng(7).normal(0, 0.4, len(y)))
    notes: list[str] = []
    records, rows, _, weights, _ = _select(
        [rival, helper], np.ones(len(y), dtype=bool), partial, y, "r2",
        "regression", True, Budget(None), notes,
    )  # fmt: skip
    assert records[0] is partial and 0 < weights[0] < weights.max()
    np.testing.assert_array_equal(rows, ~np.isnan(partial.oof))
    assert "with it as a candidate" in notes[0]


def _cut_while_boosting(
    runner: TrialRunner, fold: int, rounds: int, params: dict, monkeypatch
) -> TrialCut:
    """Run ``params``; the budget runs out after ``rounds`` rounds of ``fold``."""
    encoded_fold = runner.encoded_fold
    started: list[int] = []

    def encoded(recipe, fold_index):
        started.append(fold_index)
        return encoded_fold(recipe, fold_index)

    class Deadline(autocat._trials.BudgetCallback):
        def after_iteration(self, model, epoch, evals_log):
            if started[-1] == fold and epoch + 1 >= rounds:
                self.budget.cancel()  # the deadline passes during this round
            return super().after_iteration(model, epoch, evals_log)

    runner.encoded_fold = encoded  # type: ignore[method-assign]
    monkeypatch.setattr(autocat._trials, "BudgetCallback", Deadline)
    with pytest.raises(TrialCut) as cut:
        runner.run(None, params)
    return cut.value


def test_a_trial_cut_while_boosting_its_first_fold_keeps_the_rounds_reached(
    countries, monkeypatch
):
    X, y, splits, _, _ = countries
    runner = _runner(X, y, splits)
    record = _cut_while_boosting(runner, 0, 40, MINHASH, monkeypatch).record

    assert record.capped
    assert record.boosted_rounds == [40] and len(record.fold_scores) == 1
    model = record.models[0]
    assert record.rounds == [model.best_iteration + 1] and record.rounds[0] <= 40
    assert record.progress.startswith("in its first fold, after 40 rounds")
    # The reference: XGBoost trained for exactly the trees kept, no deadline.
    X_train, X_valid, *_ = runner.encoded_fold(runner.recipe(MINHASH), 0)
    fit, _ = runner.inner[0]
    train, valid = splits[0]
    reference = model.__class__(**{
        **model.get_params(), "n_estimators": record.rounds[0],
        "early_stopping_rounds": None, "callbacks": None,
    }).fit(X_train[fit], y[train][fit])  # fmt: skip
    np.testing.assert_array_equal(record.oof[valid], reference.predict(X_valid))
    assert record.fold_scores[0] == pytest.approx(r2_score(y[valid], record.oof[valid]))
    assert np.isnan(record.oof).sum() == len(y) - len(valid)


def test_a_trial_cut_while_boosting_a_later_fold_keeps_only_its_finished_folds(
    countries, monkeypatch
):
    X, y, splits, _, _ = countries
    runner = _runner(X, y, splits)
    record = _cut_while_boosting(runner, 2, 40, MINHASH, monkeypatch).record
    assert not record.capped and len(record.fold_scores) == 2
    assert len(record.models) == len(record.boosted_rounds) == 2
    assert record.progress == "after 2 fold(s)"


def test_a_holdout_trial_cut_while_boosting_leads_when_far_better(
    countries, monkeypatch
):
    # One holdout fold: the min-hash trial's fold is cut after 60 rounds, with
    # nothing else to keep; its capped model is still far better than the
    # target-encoded trial that finished, and leads the model.
    X, y, splits, X_test, y_test = countries
    holdout = splits[:1]
    finished = _runner(X, y, holdout).run(None, TARGET)
    finished.number = 0
    cut = _cut_while_boosting(_runner(X, y, holdout), 0, 60, MINHASH, monkeypatch)
    cut.record.number = 1

    def final(partial):
        outcome = TuneOutcome(
            study=None, best_trial=None, records=[finished], n_folds=1,
            cache=EncodingCache(), partial=partial,
        )  # fmt: skip
        return final_model(outcome, X, y, "regression", "r2", holdout, 0, 1, None,
                           ensemble=True)  # fmt: skip

    without, with_cut = final(None), final(cut.record)
    assert with_cut.best is cut.record
    first = with_cut.members[0]
    assert (first["trial"], first["fit"]) == (1, "refit")
    assert first["score"] == cut.record.score
    assert any("trial #1 was cut by the time budget in its first fold, after 60 "
               "rounds" in note for note in with_cut.notes)  # fmt: skip
    # The refit grows the trees the capped fold kept, scaled to all rows as
    # any trial's (its fold boosted on four fifths of the training part)
    refit = with_cut.pipeline.named_steps["model"]
    fit_rows = len(holdout[0][0]) * 0.8
    expected = round(cut.record.rounds[0] * len(y) / fit_rows)
    assert refit.get_booster().num_boosted_rounds() == expected
    assert r2_score(y_test, without.model.predict(X_test)) < 0.3
    assert r2_score(y_test, with_cut.model.predict(X_test)) > 0.6


def test_a_trial_cut_in_its_first_round_keeps_nothing(countries, monkeypatch):
    # XGBoost stops calling the callbacks of a round once one says stop: cut in
    # its first round, a model has no round that early stopping chose.
    X, y, splits, _, _ = countries
    runner = _runner(X, y, splits)
    record = _cut_while_boosting(runner, 0, 1, MINHASH, monkeypatch).record
    assert not record.capped and record.fold_scores == [] and record.oof is None


# -- a cut trial against the rescue recipe, when no trial finished -------------


@pytest.fixture(scope="module")
def many_countries():
    """3,000 rows: 2,000 to train, more than the rescue recipe's 1,000."""
    return _held_out(*_countries(0, n_names=150, n_years=20))


@pytest.fixture(scope="module")
def cut_after_one_fold(many_countries):
    X, y, splits, _, _ = many_countries
    return _cut_after(_runner(X, y, splits), 1, MINHASH)


@pytest.fixture(scope="module")
def rescue_on_1000_rows(many_countries):
    X, y, _, _, _ = many_countries
    return fallback_model(X, y, "regression", 0, 1)


def _versus_rescue(many_countries, record, rescue, n_rescue=FALLBACK_ROWS, left=60.0):
    X, y, splits, _, _ = many_countries
    training = TrainingRows(X, y, "regression", 0, 1, None)
    deadline = time.monotonic() + left
    return cut_trial_or_rescue(record, (rescue, n_rescue), training, splits, "r2",
                               deadline)  # fmt: skip


def _first_fold_vectorizer(many_countries):
    """The trial's vectorizer fitted on its first fold's training rows, anew."""
    X, y, splits, _, _ = many_countries
    train = splits[0][0]
    recipe = _runner(X, y, splits).recipe(MINHASH)
    return recipe.build_vectorizer().fit(X.iloc[train], y[train])


def test_a_cut_trial_better_than_the_rescue_recipe_is_the_model(
    many_countries, cut_after_one_fold, rescue_on_1000_rows
):
    *_, X_test, y_test = many_countries
    record = cut_after_one_fold.record
    model, note = _versus_rescue(many_countries, record, rescue_on_1000_rows)

    # The reference: the trial's first fold model behind a vectorizer fitted
    # on that fold's training rows (the search's was cut from a wider one).
    reference = Pipeline([("vectorizer", _first_fold_vectorizer(many_countries)),
                          ("model", record.models[0])])  # fmt: skip
    np.testing.assert_allclose(model.predict(X_test), reference.predict(X_test))
    assert "the model is its first fold's model (trained on 1,600 of 2,000" in note
    assert f"trial #{record.number} (cut by the time budget after 1 fold(s))" in note
    own = r2_score(y_test, model.predict(X_test))
    rescue = r2_score(y_test, rescue_on_1000_rows.predict(X_test))
    assert own > rescue + 0.1, (own, rescue)


def test_the_rescue_recipe_stands_against_a_worse_cut_trial(
    many_countries, cut_after_one_fold, rescue_on_1000_rows
):
    _, y, _, _, _ = many_countries
    worse = copy.copy(cut_after_one_fold.record)
    rng = np.random.default_rng(0)
    worse.oof = np.where(
        np.isnan(worse.oof), np.nan, y.mean() + rng.normal(0, 5, len(y))
    )
    model, note = _versus_rescue(many_countries, worse, rescue_on_1000_rows)
    assert model is None
    assert note.endswith(": the rescue recipe stands")


class _Memorizer:
    """Exact on the rows it was trained on, the mean elsewhere; logs what it saw."""

    def __init__(self, X, y, rows):
        self.known = dict(zip(X.index[rows], y[rows], strict=True))
        self.mean, self.seen = float(y.mean()), []

    def predict(self, X):
        self.seen.extend(X.index)
        return np.array([self.known.get(i, self.mean) for i in X.index])


def test_the_comparison_leaves_out_the_rows_the_rescue_trained_on(
    many_countries, cut_after_one_fold
):
    X, y, splits, _, _ = many_countries
    sample = rescue_rows(y, "regression", 0, FALLBACK_ROWS)
    memorizer = _Memorizer(X, y, sample)
    model, note = _versus_rescue(many_countries, cut_after_one_fold.record, memorizer)

    expected = np.setdiff1d(splits[0][1], sample)
    assert 0 < len(expected) < len(splits[0][1])
    np.testing.assert_array_equal(np.sort(memorizer.seen), expected)
    assert f"on {len(expected):,} of its validation rows" in note
    assert model is not None  # the mean outside its sample: the trial wins


def test_nothing_is_compared_when_the_rescue_trained_on_every_row(
    many_countries, cut_after_one_fold, rescue_on_1000_rows
):
    _, y, _, _, _ = many_countries
    record = cut_after_one_fold.record
    assert _versus_rescue(
        many_countries, record, rescue_on_1000_rows, n_rescue=len(y)
    ) == (None, "")


def test_nothing_is_compared_without_time_to_rebuild_the_fold_model(
    many_countries, cut_after_one_fold, rescue_on_1000_rows
):
    # Its vectorizer must be fitted again: 9 s by its fold's times, 5 s left.
    released = copy.copy(cut_after_one_fold.record)
    released.vectorizers = [None]
    released.fold_seconds, released.boost_seconds = [10.0], [1.0]
    released.nested_savings = [0.0]
    assert fold_models_seconds(released, 1) == 9.0
    assert _versus_rescue(many_countries, released, rescue_on_1000_rows, left=5.0) == (
        None,
        "",
    )
    kept = copy.copy(released)  # its vectorizer kept: nothing to rebuild
    kept.vectorizers = [_first_fold_vectorizer(many_countries)]
    model, note = _versus_rescue(many_countries, kept, rescue_on_1000_rows, left=5.0)
    assert model is not None and "the model is its first fold's model" in note


def test_auto_fit_returns_the_cut_trial_when_it_beats_the_rescue_recipe(
    many_countries, monkeypatch, tmp_path
):
    # No trial finishes: the min-hash trial is cut after its first fold, no
    # time is left to resume, and the rescue recipe had time for 1,000 rows.
    X, y, _, X_test, y_test = many_countries
    cuts = []

    def tune_cut(X, y, **options):
        cut = _cut_after(_runner(X, y, options["splits"]), 1, MINHASH)
        cut.record.number = 7
        cuts.append(cut)
        raise cut

    def rescue_without_growth(X, y, task, seed, threads, deadline, fallback, *rest):
        return fallback[0], FALLBACK_ROWS, fallback[1]

    monkeypatch.setattr(autocat._auto, "tune", tune_cut)
    monkeypatch.setattr(autocat._auto, "rescue_model", rescue_without_growth)
    monkeypatch.setattr(autocat._auto, "search_again", lambda *args: False)
    result = autocat.auto_fit(
        X.assign(year=y), "year", task="regression", time_budget=60, n_jobs=1,
        cv=5,
    )  # fmt: skip

    (cut,) = cuts
    assert result.ensemble_.to_dict("records") == [
        {"trial": 7, "weight": 1.0, "fit": "fold models", "score": cut.record.score}
    ]
    assert result.cv_score_ == cut.record.score
    assert result.best_params_["encoder"] == "minhash"
    summary = result.summary()
    assert "allowed no full trial: trial #7 (cut by the time budget" in summary
    assert "model: trial #7 (fold models)" in summary
    rescue = fallback_model(X, y, "regression", 0, 1)
    assert result.score(X_test, y_test) > rescue.score(X_test, y_test) + 0.1
    # the report shows it, and a saved file gives the same predictions back
    assert "fold models" in result.report(tmp_path / "report.html").read_text()
    loaded = autocat.load(result.save(tmp_path / "model.autocat"))
    np.testing.assert_array_equal(loaded.predict(X_test), result.predict(X_test))
