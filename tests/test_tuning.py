from __future__ import annotations

import dataclasses
import threading
import time
import warnings

import numpy as np
import optuna
import pandas as pd
import pytest
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import get_scorer
from sklearn.model_selection import KFold
from sklearn.pipeline import Pipeline

from autocat import GammaPoissonEncoder, TableVectorizer
from autocat._budget import Budget, BudgetExhausted, budget_scope
from autocat._final import final_reserve
from autocat._fold_cache import MAX_COMPONENTS
from autocat._leaderboard import leaderboard
from autocat._recipe import Recipe
from autocat._sampler import FIRST_OF_ENCODER
from autocat._search_space import default_params
from autocat._splits import inner_splits
from autocat._trials import (
    PRUNE_EVERY,
    EncodingCache,
    TrialRunner,
)
from autocat._tuning import (
    BATCH_TRIALS,
    make_storage,
    resolve_threads,
    tune,
)


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    n = 90
    kinds = rng.choice(["police officer", "bus operator", "nurse", "clerk"], n)
    # About 40 distinct jobs per training part: high-cardinality at threshold 30.
    jobs = [
        f"{kind} grade {level}"
        for kind, level in zip(kinds, rng.integers(0, 20, n), strict=True)
    ]
    X = pd.DataFrame(
        {
            "job": jobs,
            "dept": rng.choice(["fire", "police", "transit"], n),
            "years": rng.integers(0, 30, n).astype(float),
        }
    )
    y = X["years"].to_numpy() * 2.0 + (kinds == "nurse") * 10.0
    y = y + rng.normal(0, 1, n)
    splits = list(KFold(3, shuffle=True, random_state=0).split(X))
    return X, y, splits


def _tune(problem, **kwargs):
    X, y, splits = problem
    options = {
        "task": "regression",
        "scorer": get_scorer("r2"),
        "splits": splits,
        "n_trials": 2,
        "time_budget": None,
        "deadline": None,
    }
    options.update(kwargs)
    return tune(X, y, **options)


def _without_table_flags(params):
    # the choices auto_fit searches only on tables with near-unique text or
    # identifier codes
    return {
        k: v
        for k, v in params.items()
        if k not in ("drop_unique_text", "drop_identifiers")
    }


def _runner(problem, **kwargs):
    X, y, splits = problem
    options = {
        "X": X,
        "y": y,
        "task": "regression",
        "scorer": get_scorer("r2"),
        "splits": splits,
        "inner": inner_splits(splits, y, "regression", 0),
        "n_folds": len(splits),
        "random_state": 0,
        "xgb_threads": 1,
        "cache": EncodingCache(),
        "budget": Budget(None),
        "n_classes": 0,
    }
    options.update(kwargs)
    return TrialRunner(**options)


def test_resolve_threads_never_exceeds_the_cores_nor_a_batch():
    total, parallel, xgb = resolve_threads(1000, None)
    assert total <= 1000 and parallel <= BATCH_TRIALS
    assert parallel * xgb <= total
    assert resolve_threads(2, 1)[1:] == (1, 2)
    with pytest.raises(ValueError, match="n_jobs must be"):
        resolve_threads(0, None)
    with pytest.raises(ValueError, match="n_jobs must be"):
        resolve_threads(-2, None)


def test_make_storage(tmp_path):
    assert make_storage(None) is None
    journal = make_storage(tmp_path / "sub" / "journal.log")
    assert isinstance(journal, optuna.storages.JournalStorage)
    database = make_storage(f"sqlite:///{tmp_path / 'study.db'}")
    assert isinstance(database, optuna.storages.RDBStorage)
    with pytest.raises(TypeError, match="storage must be"):
        make_storage(3)


def _trial_told_elsewhere(tmp_path):
    # Two processes of one SQLite study may pop the same queued trial (SQLite
    # cannot lock the row, Optuna issue 4002): here two handles on the study
    # take one, and the other handle tells it first.
    url = f"sqlite:///{tmp_path / 'study.db'}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        ours = optuna.create_study(storage=url, study_name="shared")
    ours.enqueue_trial(default_params())
    trial = ours.ask()
    theirs = optuna.load_study(storage=url, study_name="shared")
    theirs.tell(optuna.Trial(theirs, trial._trial_id), 0.5)
    return ours, trial


@pytest.mark.parametrize("pruned", [False, True])
def test_a_trial_another_process_told_first_keeps_this_ones_record(tmp_path, pruned):
    from autocat._trials import TrialRecord
    from autocat._tuning import _tell

    study, trial = _trial_told_elsewhere(tmp_path)
    record = TrialRecord(trial.number, default_params(), fold_scores=[0.7])
    outcome = optuna.TrialPruned() if pruned else record
    frozen, kept = _tell(study, trial, outcome)  # no "Cannot tell a COMPLETE trial"
    assert frozen.number == trial.number and frozen.value == 0.5  # theirs
    assert kept is (None if pruned else record)
    assert [t.state for t in study.trials] == [optuna.trial.TrialState.COMPLETE]


def test_the_pruning_report_of_a_trial_told_elsewhere_is_skipped(tmp_path):
    from autocat._trials import _PruneCallback

    _, trial = _trial_told_elsewhere(tmp_path)
    callback = _PruneCallback(trial)
    log = {"validation_0": {"rmse": [1.0] * PRUNE_EVERY}}
    assert callback.after_iteration(None, PRUNE_EVERY - 1, log) is False


def test_cache_counts_and_computes_once_across_threads():
    cache = EncodingCache()
    calls = []

    def compute():
        calls.append(1)
        time.sleep(0.05)
        return np.zeros((2, 2)), np.zeros((1, 2))

    threads = [
        threading.Thread(target=cache.get, args=("k", compute)) for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1
    assert (cache.hits, cache.misses) == (3, 1)


def test_cache_evicts_least_recently_used():
    cache = EncodingCache(max_bytes=100)
    for key in "abc":
        cache.get(key, lambda: (np.zeros(10), np.zeros(0)))  # 80 bytes each
    assert list(cache._entries) == ["c"]


@pytest.mark.parametrize("task", ["regression", "multiclass"])
def test_inner_splits_partition_each_training_part(task):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 4, 200) if task == "multiclass" else rng.normal(size=200)
    if task == "multiclass":
        y[7] = 4  # a class with a single row
    splits = list(KFold(4, shuffle=True, random_state=0).split(y))
    first = inner_splits(splits, y, task, 3)
    assert [(f.tolist(), s.tolist()) for f, s in first] == [
        (f.tolist(), s.tolist()) for f, s in inner_splits(splits, y, task, 3)
    ]
    for (train, _), (fit, stop) in zip(splits, first, strict=True):
        assert np.intersect1d(fit, stop).size == 0
        assert sorted([*fit, *stop]) == list(range(len(train)))
        assert 0.15 < len(stop) / len(train) < 0.25
        if task == "multiclass":
            # Every class of the training part is in the fit rows.
            assert set(y[train][fit]) == set(y[train])


def test_trial_scores_come_from_rows_that_chose_nothing(problem):
    # The validation rows neither train the trees nor choose how many: changing
    # their targets changes the score, never the fold's model.
    _, y, splits = problem
    record = _runner(problem).run(None, default_params("minhash"))
    noisy = y.copy()
    valid = splits[0][1]
    noisy[valid] = np.random.default_rng(5).normal(size=len(valid)) * 100
    other = _runner(problem, y=noisy).run(None, default_params("minhash"))
    assert other.rounds[0] == record.rounds[0]
    assert np.array_equal(other.oof[valid], record.oof[valid])
    assert other.fold_scores[0] < record.fold_scores[0] - 0.5


def test_out_of_fold_predictions_are_the_fold_models(problem):
    X, y, splits = problem
    runner = _runner(problem)
    params = default_params("minhash")
    record = runner.run(None, params)
    assert not np.isnan(record.oof).any()  # every row validated once in CV
    recipe = runner.recipe(params)
    for fold, (train, valid) in enumerate(splits):
        vectorizer = recipe.build_vectorizer().fit(X.iloc[train], y[train])
        predicted = record.models[fold].predict(vectorizer.transform(X.iloc[valid]))
        np.testing.assert_array_equal(record.oof[valid], predicted.astype(np.float32))
    assert record.score == pytest.approx(np.mean(record.fold_scores))


@pytest.mark.parametrize("d", [10, 30])
def test_minhash_encodings_are_nested(problem, d):
    X, y, splits = problem
    runner = _runner(problem)
    recipe = Recipe(n_components=d, cardinality_threshold=10)
    X_train, X_valid, _, _ = runner.encoded(recipe, 1)
    train, valid = splits[1]
    expected = recipe.build_vectorizer().fit(X.iloc[train], y[train])
    np.testing.assert_array_equal(X_train, expected.transform(X.iloc[train]))
    np.testing.assert_array_equal(X_valid, expected.transform(X.iloc[valid]))
    # Every min-hash dimension is cut from one encoding.
    runner.encoded(Recipe(n_components=50, cardinality_threshold=10), 1)
    assert runner.cache.misses == 1


@pytest.mark.parametrize("clash", [False, True])
@pytest.mark.parametrize("d", [10, 30])
def test_minhash_encodings_are_nested_beside_a_number_output(problem, d, clash):
    # ZIP codes with leading zeros are min-hashed and read as numbers too: the
    # number output follows the min-hash block, and survives the cut, also
    # when a user's column named zip_number renames it
    X, y, splits = problem
    rng = np.random.default_rng(1)
    zips = [f"{z:05d}" for z in rng.integers(100, 99_999, len(X) // 2)] * 2
    X = X.assign(zip=zips)
    if clash:
        X = X.assign(zip_number=rng.normal(size=len(X)))
    runner = _runner((X, y, splits))
    recipe = Recipe(n_components=d, cardinality_threshold=10)
    X_train, X_valid, _, _ = runner.encoded(recipe, 1)
    train, valid = splits[1]
    expected = recipe.build_vectorizer().fit(X.iloc[train], y[train])
    number = "zip_number_2" if clash else "zip_number"
    assert expected.input_to_outputs_["zip"][-1] == number
    np.testing.assert_array_equal(X_train, expected.transform(X.iloc[train]))
    np.testing.assert_array_equal(X_valid, expected.transform(X.iloc[valid]))
    runner.encoded(Recipe(n_components=50, cardinality_threshold=10), 1)
    assert runner.cache.misses == 1


def test_a_nested_encoding_costs_its_share_of_the_wide_one(problem):
    # A trial served from the wide min-hash encoding costs, from scratch, the
    # whole wide encoding (what the search pays: the protocol and the trials'
    # cost are planned on it), and at its own dimension, as a refit encodes, the
    # share of its columns; the record keeps the difference.
    runner = _runner(problem)
    wide, _, wide_seconds, own = runner.encoded(
        Recipe(n_components=MAX_COMPONENTS, cardinality_threshold=10), 0
    )
    assert own == wide_seconds
    narrow, _, seconds, own = runner.encoded(
        Recipe(n_components=10, cardinality_threshold=10), 0
    )
    assert runner.cache.misses == 1
    assert seconds == wide_seconds
    assert own == pytest.approx(wide_seconds * narrow.shape[1] / wide.shape[1])
    assert narrow.shape[1] < wide.shape[1] / 3
    record = runner.run(
        None, Recipe(n_components=10, cardinality_threshold=10).params()
    )
    pairs = zip(record.nested_savings, record.fold_seconds, strict=True)
    assert all(0 < saved < spent for saved, spent in pairs)


def test_equivalent_vectorizers_share_one_encoding(problem):
    runner = _runner(problem)
    cache = runner.cache
    first = runner.encoded(Recipe(cardinality_threshold=100), 0)
    assert cache.distinct[0]["job"] > 30 and cache.distinct[0]["dept"] == 3
    # No high-cardinality column at thresholds 100 and 200: the encoder and its
    # dimension do not matter.
    same = runner.encoded(
        Recipe(cardinality_threshold=200, encoder="gamma_poisson", n_components=10), 0
    )
    assert same[0] is first[0]
    # At threshold 10, "job" is high-cardinality: a new encoding, shared by
    # thresholds 10 and 20 (both below the 3 ... 40-odd distinct values split).
    runner.encoded(Recipe(cardinality_threshold=10), 0)
    runner.encoded(Recipe(cardinality_threshold=20, max_depth=2), 0)
    assert (cache.hits, cache.misses) == (2, 2)


def test_tune_tries_the_portfolio_first(problem):
    portfolio = [
        {**default_params("minhash"), "max_depth": 3},
        default_params("gamma_poisson"),
    ]
    outcome = _tune(problem, n_trials=4, portfolio=portfolio)
    trials = outcome.study.trials
    # a table without near-unique text is never asked about dropping it; the
    # second and third trials are the linear and forest ones, on the first
    # configuration's encoding
    assert [trials[0].params, trials[3].params] == [
        _without_table_flags(p) for p in portfolio
    ]
    assert trials[1].params == trials[2].params == trials[0].params
    assert trials[1].user_attrs["learner"] == "linear"
    assert trials[2].user_attrs["learner"] == "forest"
    assert len(trials) == 4
    assert outcome.n_folds == 3
    best = outcome.records[0]
    assert outcome.best_trial.number == best.number
    # the best of XGBoost's trials; the other learners' come last, whatever
    # their scores
    learners = [r.learner for r in outcome.records]
    assert learners == ["xgboost", "xgboost", "linear", "forest"]
    assert best.score == max(r.score for r in outcome.records[:2])
    attrs = outcome.best_trial.user_attrs
    assert attrs["n_estimators"] == best.n_estimators
    assert len(attrs["fold_scores"]) == 3


def test_n_jobs_does_not_change_the_trials(problem):
    runs = [_tune(problem, n_trials=5, n_jobs=n_jobs) for n_jobs in (1, 2, 64)]
    seen = [[(t.params, t.value) for t in run.study.trials] for run in runs]
    assert seen[0] == seen[1] == seen[2]
    # the second and third trials, the linear and forest ones, repeat the
    # first one's parameters
    assert len({str(p) for p, _ in seen[0]}) == 3


class _PruneAfterTwoTrials(optuna.pruners.BasePruner):
    def prune(self, study, trial):
        step = trial.last_step
        return trial.number >= 2 and step is not None and step >= 2 * PRUNE_EVERY


def test_pruning_per_boosting_round_in_holdout_mode(problem):
    _, _, splits = problem
    outcome = _tune(
        problem,
        splits=splits[:1],
        n_trials=4,
        pruner=_PruneAfterTwoTrials(),
        portfolio=[{**default_params("minhash"), "learning_rate": 0.02}] * 3,
    )
    # trials 1 and 2, the linear and forest ones, are never pruned
    pruned = outcome.study.trials[3]
    assert pruned.state == optuna.trial.TrialState.PRUNED
    assert list(pruned.intermediate_values) == [PRUNE_EVERY, 2 * PRUNE_EVERY]
    board = leaderboard(outcome.study)
    assert board["state"].tolist() == ["COMPLETE"] * 3 + ["PRUNED"]
    assert board.loc[3, "stopped_by"] == "pruner"


class _PruneFromTheSecondReport(optuna.pruners.BasePruner):
    def prune(self, study, trial):
        step = trial.last_step
        return step is not None and step >= 2 * PRUNE_EVERY


def test_each_encoder_is_measured_once_before_the_pruner_judges_it(problem):
    """The portfolio's first configuration of each encoder is never pruned.

    The pruner compares losses after equal rounds, where a low learning rate
    trails whatever it ends at: an encoder whose configurations learn slowly
    would never be measured. A pruner that prunes every trial shows it.
    """
    _, _, splits = problem
    slow = {**default_params("minhash"), "learning_rate": 0.02}
    text = {**slow, "encoder": "text", "text_analyzer": "word"}
    outcome = _tune(
        problem,
        splits=splits[:1],
        n_trials=6,
        pruner=_PruneFromTheSecondReport(),
        portfolio=[slow, {**slow, "max_depth": 3}, text, {**text, "max_depth": 3}],
    )
    trials = outcome.study.trials
    # 0: the first configuration, 1 and 2: the linear and forest trials on its
    # encoding, then the portfolio's second, third and fourth configurations
    assert [t.params["encoder"] for t in trials[3:]] == ["minhash", "text", "text"]
    assert [t.user_attrs.get(FIRST_OF_ENCODER) for t in trials] == [
        True, None, None, None, True, None,
    ]  # fmt: skip
    complete, pruned = optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED
    assert [t.state for t in trials] == [complete] * 3 + [pruned, complete, pruned]
    assert trials[4].user_attrs["n_estimators"] > 2 * PRUNE_EVERY


def test_a_past_deadline_cuts_every_trial(problem):
    with pytest.raises(BudgetExhausted, match="no trial finished"):
        _tune(problem, n_trials=None, deadline=time.monotonic() - 1)


def test_the_deadline_cuts_trials_in_flight():
    # A slow learning rate on noisy rows needs hundreds of rounds: the deadline
    # cuts the boosting, and the cut trial raises instead of returning a
    # truncated model.
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(4000, 20)), columns=[f"x{i}" for i in range(20)])
    y = X.sum(axis=1).to_numpy() + rng.normal(size=4000)
    splits = list(KFold(2, shuffle=True, random_state=0).split(X))
    start = time.monotonic()
    runner = _runner(
        (X, y, splits),
        inner=inner_splits(splits, y, "regression", 0),
        budget=Budget(start + 1.0),
    )
    slow = {**default_params("minhash"), "learning_rate": 0.02, "max_depth": 12}
    with pytest.raises(BudgetExhausted, match="cut by the time budget"):
        runner.run(None, slow)
    assert time.monotonic() - start < 4


@pytest.mark.parametrize("task", ["regression", "multiclass"])
def test_early_stopping_watches_a_plain_dmatrix_and_keeps_the_same_model(
    task, monkeypatch
):
    # XGBoost evaluates a QuantileDMatrix several times slower per round; the
    # stop rows are a DMatrix, and the model is the one XGBoost's own fit gives
    import xgboost

    from autocat._trials import fit_early_stopped

    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 8)).astype(np.float32)
    y = X[:, 0] + 0.3 * rng.normal(size=600)
    if task == "multiclass":
        y = np.digitize(y, [-0.5, 0.5])
    model = Recipe(task, learning_rate=0.3).build_model(
        n_estimators=300, early_stopping_rounds=10
    )
    reference = Recipe(task, learning_rate=0.3).build_model(
        n_estimators=300, early_stopping_rounds=10
    )
    quantile_matrices = []
    original = xgboost.QuantileDMatrix.__init__

    def counted(self, *args, **kwargs):
        quantile_matrices.append(kwargs.get("ref"))
        original(self, *args, **kwargs)

    monkeypatch.setattr(xgboost.QuantileDMatrix, "__init__", counted)
    fit_early_stopped(model, X[:450], y[:450], X[450:], y[450:])
    assert quantile_matrices == [None]  # the training rows only
    assert "_create_dmatrix" not in vars(model)
    reference.fit(X[:450], y[:450], eval_set=[(X[450:], y[450:])], verbose=False)
    assert len(quantile_matrices) == 3  # XGBoost's own fit: the stop rows too
    assert 0 < model.best_iteration < 290
    assert model.best_iteration == reference.best_iteration
    np.testing.assert_array_equal(model.predict(X), reference.predict(X))


def test_budget_cuts_encoders_between_steps():
    words = pd.DataFrame({"w": [f"word {i} of many" for i in range(3000)]})
    with budget_scope(Budget(time.monotonic() - 1)):
        with pytest.raises(BudgetExhausted):
            GammaPoissonEncoder(n_components=5, batch_size=8).fit(words)
        with pytest.raises(BudgetExhausted):
            TableVectorizer().fit(words)
    # Outside a scope nothing is cut.
    GammaPoissonEncoder(n_components=2, max_iter=1).fit(words.head(50))


class _SpentAfter(Budget):
    """A budget spent once it has been checked ``checks`` times."""

    def __init__(self, checks: int) -> None:
        super().__init__(None)
        self.checks = checks

    def exhausted(self) -> bool:
        self.checks -= 1
        return self.checks < 0


def test_budget_cuts_the_vectorizers_transform_and_output_between_columns():
    rng = np.random.default_rng(0)
    numbers = pd.DataFrame(rng.normal(size=(50, 3)), columns=list("abc"))
    fitted = TableVectorizer(n_jobs=1).fit(numbers)
    with budget_scope(Budget(time.monotonic() - 1)):
        with pytest.raises(BudgetExhausted) as cut:
            fitted.transform(numbers)
    assert cut.traceback[-2].name == "_transform_column"  # before its first column
    # spent once the 3 columns are fitted: cut while writing the output
    with budget_scope(_SpentAfter(3)), pytest.raises(BudgetExhausted) as cut:
        TableVectorizer(n_jobs=1).fit_transform(numbers)
    assert cut.traceback[-2].name == "write"
    # a settling budget never cuts
    with budget_scope(Budget(time.monotonic() - 1, settle=True)):
        settled = fitted.transform(numbers)
    np.testing.assert_array_equal(settled, fitted.transform(numbers))


def test_holdout_switch_when_folds_do_not_fit_the_budget(problem):
    outcome = _tune(
        problem, n_trials=1, time_budget=1e-3, deadline=time.monotonic() + 60
    )
    assert outcome.n_folds == 1
    assert outcome.study.user_attrs["n_folds"] == 1
    assert len(outcome.best_trial.user_attrs["fold_scores"]) == 1


def test_failing_trials_raise_the_first_error(problem):
    with pytest.raises(RuntimeError, match="All 2 trial") as info:
        _tune(problem, scorer=get_scorer("roc_auc"))
    assert "predict_proba" in str(info.value.__cause__)


def test_memory_errors_stop_the_search(problem):
    def scorer(model, X, y):
        raise MemoryError("out of memory")

    with pytest.raises(RuntimeError, match="MemoryError"):
        _tune(problem, scorer=scorer, n_trials=3 * BATCH_TRIALS)


def test_callbacks_may_stop_the_search(problem):
    def stop_after_two(study, trial):
        if trial.number == 1:
            study.stop()

    outcome = _tune(problem, n_trials=20, callbacks=[stop_after_two])
    assert len(outcome.study.trials) == BATCH_TRIALS  # the batch ends, no other


def test_stored_study_is_shared_and_checked(problem, tmp_path):
    url = tmp_path / "journal.log"
    fingerprint = {"n_rows": 90}
    _tune(problem, storage=url, study_name="s", fingerprint=fingerprint, n_trials=1)
    outcome = _tune(
        problem, storage=url, study_name="s", fingerprint=fingerprint, n_trials=2
    )
    trials = outcome.study.trials
    assert len(trials) == 3  # the portfolio is not enqueued twice
    assert trials[0].params == _without_table_flags(default_params("minhash"))
    with pytest.raises(ValueError, match="made for other data or settings"):
        _tune(problem, storage=url, study_name="s", fingerprint={"n_rows": 91})


def test_leaderboard_of_an_empty_study():
    board = leaderboard(optuna.create_study())
    assert board.empty
    assert list(board.columns[:7]) == [
        "trial",
        "state",
        "score",
        "score_std",
        "duration_s",
        "encoder",
        "n_components",
    ]


def test_reserve_for_a_refit_that_cannot_fit_is_released_to_the_search():
    # 60 s budget, 29 s spent by one slow trial, a refit estimated at 39 s: the
    # refit will not happen, so only the selection's 2 s stay reserved (keeping
    # 41 s left 28 s of the budget unused: the search stopped after one trial).
    assert final_reserve(39.0, 2.0, now=29.0, deadline=60.0) == 2.0
    # a refit that still fits keeps its time, the selection's share included
    assert final_reserve(20.0, 2.0, now=29.0, deadline=60.0) == 22.0
    assert final_reserve(29.0, 2.0, now=29.0, deadline=60.0) == 31.0
    assert final_reserve(5.0, 2.0, now=0.0, deadline=None) == 7.0


def _slow_scorer(seconds):
    scorer = get_scorer("r2")

    def score(model, X, y):
        time.sleep(seconds)
        return scorer(model, X, y)

    return score


def test_a_slow_first_trial_does_not_stop_the_search_while_time_is_left(problem):
    # The first trial takes 3.5 s (its first scoring sleeps), leaving 1.5 s of a
    # 5 s search: trial costs differ between configurations, so the next batch
    # still starts, and its fast trials finish in that time.
    scorer = get_scorer("r2")
    calls = []

    def slow_once(model, X, y):
        calls.append(1)
        if len(calls) == 1:
            time.sleep(3.5)
        return scorer(model, X, y)

    start = time.monotonic()
    outcome = _tune(problem, n_trials=None, time_budget=5.0, deadline=start + 5.0,
                    scorer=slow_once, n_jobs=1)  # fmt: skip
    assert outcome.n_folds == 1  # the slow first fold chose a holdout
    assert len(outcome.records) >= 2
    assert time.monotonic() - start < 5.0 + 1.0


def test_no_trial_finished_by_first_result_by_ends_the_search_there(problem):
    # Each fold sleeps 1 s, so no 3-fold trial finishes within 0.5 s: the search
    # must stop then, not at the 60 s deadline, leaving the time to the caller.
    start = time.monotonic()
    with pytest.raises(BudgetExhausted, match="no trial finished"):
        _tune(
            problem,
            n_trials=None,
            time_budget=60.0,
            deadline=start + 60.0,
            first_result_by=start + 0.5,
            scorer=_slow_scorer(1.0),
        )
    assert time.monotonic() - start < 5.0


def test_a_finished_trial_lets_the_search_run_past_first_result_by(problem):
    start = time.monotonic()
    first_by = start + 3.0

    def stop_a_second_later(study, trial):
        if time.monotonic() > first_by + 1.0:
            study.stop()

    outcome = _tune(
        problem,
        n_trials=None,
        time_budget=60.0,
        deadline=start + 60.0,
        first_result_by=first_by,
        callbacks=[stop_a_second_later],
    )
    assert time.monotonic() > first_by + 1.0
    finished = [t.datetime_complete.timestamp() for t in outcome.study.trials]
    assert max(finished) - min(finished) > 3.0  # trials finished after first_by
    assert len(outcome.records) >= 2


def test_refit_estimate_scales_encoding_by_rows_and_boosting_by_rows_trees_threads():
    from autocat._members import refit_seconds
    from autocat._trials import TrialRecord

    # Two folds: 1 s of encoding each, boosting 0.01 s per tree grown (early
    # stopping kept 60 and 100 of 110 and 150 trees): the refit grows 80 trees
    # on as many rows as the folds boosted on, 160 on twice as many.
    record = TrialRecord(number=0, params={}, threads=2)
    record.fold_seconds, record.boost_seconds = [2.1, 2.5], [1.1, 1.5]
    record.boosted_rounds, record.rounds = [110, 150], [60, 100]

    def estimate(n_rows=1000, fit_rows=1000, encoded_rows=1000, threads=2):
        return refit_seconds(record, n_rows, fit_rows, encoded_rows, threads)

    assert estimate() == pytest.approx(1.0 + 0.8)  # the folds' own conditions
    assert estimate(n_rows=2000, encoded_rows=1000) == pytest.approx(2.0 + 3.2)
    assert estimate(fit_rows=500) == pytest.approx(1.0 + 3.2)  # boosting only
    # More threads speed the refit up, but less than in proportion (a serial
    # share remains); fewer threads slow it down, at most in proportion.
    assert 1.8 / 8 < estimate(threads=16) < estimate(threads=4) < 1.8
    assert 1.8 < estimate(threads=1) <= 1.8 * 2


def test_a_cut_refit_of_the_first_member_leaves_time_for_its_first_fold_model(
    problem, monkeypatch
):
    # The refit of the model's first member runs under a deadline moved earlier
    # by its first fold model's (margined) time (4 s a fold here): if it is cut,
    # that model still fits in time; the search reserved the same.
    import autocat._final
    import autocat._members
    from autocat._final import final_model
    from autocat._members import REFIT_MARGIN

    X, y, splits = problem
    outcome = _tune(problem, n_trials=5)
    # XGBoost's members only: their best is a member, built first
    xgboost_only = [r for r in outcome.records if r.learner == "xgboost"]
    outcome = dataclasses.replace(outcome, records=xgboost_only)
    deadlines = []
    real_refit = autocat._members._refit

    def spy(*args):
        deadlines.append(args[2].deadline)  # _refit(record, training, budget, trees)
        return real_refit(*args)

    monkeypatch.setattr(autocat._members, "_refit", spy)
    monkeypatch.setattr(autocat._members, "refit_seconds", lambda *a: 0.1)
    for module in (autocat._final, autocat._members):
        monkeypatch.setattr(
            module, "fold_models_seconds", lambda record, n_folds: 4.0 * n_folds
        )
    deadline = time.monotonic() + 60.0
    final_model(outcome, X, y, "regression", "r2", splits, 0, 1, deadline, True)
    assert deadlines[0] == pytest.approx(deadline - REFIT_MARGIN * 4.0)
    # later members may be dropped: they keep no fold model's time, only the
    # selection's cross-validated score's (milliseconds here)
    assert all(deadline - 0.5 < d <= deadline for d in deadlines[1:])


def test_the_best_trials_keep_their_fold_vectorizers_for_their_fold_models(problem):
    # The final model's likely members need not fit their folds' vectorizers
    # again: the search keeps them (and their time is not reserved); the other
    # trials release theirs, which the cache then frees.
    import gc

    from autocat._members import TrainingRows, fold_models, fold_models_seconds
    from autocat._tuning import KEEP_VECTORIZERS

    X, y, splits = problem
    portfolio = [
        {**default_params("minhash"), "encoder": "target", "learning_rate": rate}
        for rate in (0.3, 0.2, 0.1, 0.05, 0.4)
    ]
    outcome = _tune(problem, n_trials=6, portfolio=portfolio)  # 5 and a linear one
    gc.collect()
    xgboost = [r for r in outcome.records if r.learner == "xgboost"]
    (linear,) = [r for r in outcome.records if r.learner == "linear"]
    best, worse = xgboost[:KEEP_VECTORIZERS], xgboost[KEEP_VECTORIZERS:]
    assert worse and all(v is None for r in worse for v in r.vectorizers)
    # the linear trial, an ensemble candidate, keeps its (the first trial's)
    assert all(v is not None for v in linear.vectorizers)
    for record in best:
        assert len(record.vectorizers) == len(splits)
        assert all(v is not None for v in record.vectorizers)
        assert fold_models_seconds(record, len(splits)) == 0.0
    assert fold_models_seconds(worse[0], len(splits)) > 0.0
    training = TrainingRows(X, y, "regression", random_state=0, n_threads=1)
    kept = fold_models(best[0], training, splits)
    assert kept.members_[0].named_steps["vectorizer"] is best[0].vectorizers[0]
    rebuilt = fold_models(worse[0], training, splits)
    # the same encoding either way: a kept vectorizer is what a rebuild fits
    worse[0].vectorizers = best[0].vectorizers
    again = fold_models(worse[0], training, splits)
    np.testing.assert_array_equal(rebuilt.predict(X), again.predict(X))


def test_fold_models_seconds_is_the_folds_time_less_their_boosting():
    from autocat._members import fold_models_seconds
    from autocat._trials import TrialRecord

    record = TrialRecord(number=0, params={})
    record.fold_seconds, record.boost_seconds = [3.0, 4.0, 5.0], [1.0, 3.0, 1.0]
    assert fold_models_seconds(record, 2) == pytest.approx(3.0)
    assert fold_models_seconds(record, 3) == pytest.approx(7.0)


def test_members_that_cannot_be_built_in_time_are_left_out(problem, monkeypatch):
    # An ensemble of several trials, no time to refit any, and each member's
    # fold models said to need 10 s: only the heaviest member is built (there
    # must be a model), from its first fold only (the time does not allow its
    # three); the others are left out and the summary says so.
    import autocat._final
    import autocat._members
    from autocat._final import final_model

    X, y, splits = problem
    outcome = _tune(problem, n_trials=8)
    monkeypatch.setattr(autocat._members, "refit_seconds", lambda *a: 1e9)
    for module in (autocat._final, autocat._members):
        monkeypatch.setattr(module, "fold_models_seconds", lambda *a: 10.0)
    full = final_model(outcome, X, y, "regression", "r2", splits, 0, 1, None, True)
    assert len(full.members) >= 2  # without a deadline every member is built
    start = time.monotonic()
    final = final_model(
        outcome, X, y, "regression", "r2", splits, 0, 1, start + 5.0, True
    )
    assert len(final.members) == 1
    assert final.members[0]["trial"] == full.members[0]["trial"]
    assert any("left out" in note for note in final.notes)
    assert any("first fold's model" in note for note in final.notes)
    assert final.model.predict(X).shape == (len(y),)
    # one pipeline, the first fold's, not the average of the three
    assert isinstance(final.model, Pipeline)
    member = next(r for r in outcome.records if r.number == final.members[0]["trial"])
    assert final.model.named_steps["model"] is member.models[0]
    assert time.monotonic() - start < 5.0 + 2.0


def test_the_members_come_before_the_cross_validated_score_of_the_selection(
    problem, monkeypatch
):
    # The selection's cross-validated score repeats the selection per fold; a
    # deadline that leaves time for the members but not for it gets the model
    # built in full and the best trial's score, said so in the notes.
    import autocat._final
    from autocat._final import final_model

    X, y, splits = problem
    outcome = _tune(problem, n_trials=8)
    # XGBoost's members only: their best is a member, built first
    xgboost_only = [r for r in outcome.records if r.learner == "xgboost"]
    outcome = dataclasses.replace(outcome, records=xgboost_only)
    full = final_model(outcome, X, y, "regression", "r2", splits, 0, 1, None, True)
    select = autocat._final.select_weights
    slow = {"on": True}

    def slow_select(*args, **kwargs):
        if slow["on"]:
            slow["on"] = False  # the first, full selection only: 2 s
            time.sleep(2.0)
        return select(*args, **kwargs)

    monkeypatch.setattr(autocat._final, "select_weights", slow_select)
    start = time.monotonic()
    final = final_model(
        outcome, X, y, "regression", "r2", splits, 0, 1, start + 5.0, True
    )  # 3 folds x 2 s of selection would not fit in the 3 s left
    assert [m["trial"] for m in final.members] == [m["trial"] for m in full.members]
    assert all(m["fit"] == "refit" for m in final.members)
    assert final.cv_score == outcome.records[0].score != full.cv_score
    assert any("cross-validate the ensemble selection" in n for n in final.notes)
    assert time.monotonic() - start < 5.0


def test_later_members_leave_the_time_of_the_selections_cross_validated_score(
    problem, monkeypatch
):
    # The first member is refit; a later member whose refit would eat the time
    # of the selection's cross-validated score is averaged from its fold models
    # instead, and the model's score is the selection's, not the best trial's
    # (selected among trials, so optimistic). Each refit takes 2 s here, the
    # selection 0.5 s, so its score about 3 x 0.5 s: a second refit would
    # leave 1 s of the 3 s left after the first.
    import autocat._final
    import autocat._members
    from autocat._final import final_model

    X, y, splits = problem
    outcome = _tune(problem, n_trials=8)
    # XGBoost's members only: their best is a member, built first
    xgboost_only = [r for r in outcome.records if r.learner == "xgboost"]
    outcome = dataclasses.replace(outcome, records=xgboost_only)
    full = final_model(outcome, X, y, "regression", "r2", splits, 0, 1, None, True)
    assert len(full.members) >= 2
    select, refit = autocat._final.select_weights, autocat._members._refit
    slow = {"on": True}

    def slow_select(*args, **kwargs):
        if slow["on"]:
            slow["on"] = False  # the first, full selection only
            time.sleep(0.5)
        return select(*args, **kwargs)

    def slow_refit(*args, **kwargs):
        time.sleep(2.0)
        return refit(*args, **kwargs)

    monkeypatch.setattr(autocat._final, "select_weights", slow_select)
    monkeypatch.setattr(autocat._members, "_refit", slow_refit)
    monkeypatch.setattr(autocat._members, "refit_seconds", lambda *a: 1.6)
    start = time.monotonic()
    final = final_model(
        outcome, X, y, "regression", "r2", splits, 0, 1, start + 5.5, True
    )
    assert [m["trial"] for m in final.members] == [m["trial"] for m in full.members]
    assert final.members[0]["fit"] == "refit"
    assert all(m["fit"] == "fold models" for m in final.members[1:])
    assert final.cv_score == full.cv_score != outcome.records[0].score
    assert not any("cross-validate" in note for note in final.notes)
    assert time.monotonic() - start < 5.5


def test_one_finished_trial_keeps_its_own_score_with_no_selection_to_validate(
    problem,
):
    # A selection among one trial chooses nothing: its out-of-fold score is the
    # model's honest score, with or without time left, and no note says that a
    # selection went unchecked.
    from autocat._final import final_model

    X, y, splits = problem
    outcome = _tune(problem, n_trials=1)
    assert len(outcome.records) == 1
    for deadline in (None, time.monotonic() - 1.0):  # the second: already passed
        final = final_model(
            outcome, X, y, "regression", "r2", splits, 0, 1, deadline, True
        )
        assert final.cv_score == outcome.records[0].score
        assert not any("cross-validate" in note for note in final.notes)


def test_a_small_holdout_still_cross_validates_the_selection(problem):
    # The selection's score on a holdout is cross-validated over groups of its
    # rows; a 5-row holdout cut in fifths gave one-row groups, whose R² is
    # undefined, and a cv_score of NaN.
    from autocat._final import final_model
    from autocat._selection import selection_groups

    X, y, _ = problem
    holdout = [(np.arange(85), np.arange(85, 90))]
    groups = selection_groups(holdout, len(y), 0)
    assert (groups[:85] == -1).all()
    assert np.bincount(groups[85:]).tolist() == [3, 2]
    wide = selection_groups([(np.arange(40), np.arange(40, 90))], len(y), 0)
    assert np.bincount(wide[40:]).tolist() == [10] * 5
    outcome = _tune((X, y, holdout), n_trials=4)
    assert len(outcome.records) > 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedMetricWarning)
        final = final_model(
            outcome, X, y, "regression", "r2", holdout, 0, 1, None, True
        )
    assert np.isfinite(final.cv_score)
    assert not any("cross-validate" in note for note in final.notes)
    # three rows make one group: nothing to cross-validate on, said so
    tiny = [(np.arange(87), np.arange(87, 90))]
    outcome = _tune((X, y, tiny), n_trials=4)
    assert len(outcome.records) > 1
    final = final_model(outcome, X, y, "regression", "r2", tiny, 0, 1, None, True)
    assert final.cv_score == outcome.records[0].score
    assert any("3 validated rows are too few" in note for note in final.notes)


def test_a_refit_is_reserved_with_its_first_fold_model_behind_it():
    # final_model refits the first member only with its first fold model's time
    # kept behind it: the search reserves both, or the refit never happens.
    assert (
        final_reserve(10.0, 2.0, 0.0, 30.0, fold_models_s=5.0, first_fold_s=1.0) == 13.0
    )
    # the refit fits alone (10 + 2 <= 12.5) but not with the first fold: released
    assert (
        final_reserve(10.0, 2.0, 0.0, 12.5, fold_models_s=5.0, first_fold_s=1.0) == 7.0
    )


def test_the_reserve_decides_whether_the_refit_fits_once_per_best_trial():
    # The trials the reserve cuts end a little after it: at the next check the
    # same best trial must keep its refit's time, not release it as too late.
    from autocat._final import FinalReserve
    from autocat._members import REFIT_MARGIN
    from autocat._trials import TrialRecord

    now = [0.0]
    split = (np.arange(100), np.arange(100, 125))
    reserve = FinalReserve(125, split, 1, 10.0, 1.0, clock=lambda: now[0])
    best = TrialRecord(0, {}, rounds=[10], fold_seconds=[3.0],
                       boost_seconds=[2.0], boosted_rounds=[20])  # fmt: skip
    kept = reserve(best)
    assert kept > 1.0 + REFIT_MARGIN * reserve.refit_seconds(best)
    now[0] = 10.0 - kept + 0.5  # the cut trials ended half a second late
    assert reserve(best) == kept
    # a new best trial is decided anew: its refit no longer fits
    other = TrialRecord(1, {}, rounds=[10], fold_seconds=[3.0],
                        boost_seconds=[2.0], boosted_rounds=[20])  # fmt: skip
    assert reserve(other) == pytest.approx(1.0 + REFIT_MARGIN * 1.0)  # fold model


@pytest.mark.parametrize("large", [True, False])
def test_a_trial_that_runs_alone_has_every_thread_on_a_large_table(
    problem, monkeypatch, planned_fold_seconds, large
):
    # With a time budget the first trial runs alone (it plans CV or holdout):
    # on a large table it gets all 4 threads, later trials one each beside each
    # other, and the plan scales the first fold's time to one thread. On a
    # small table a second thread does not pay: it gets one, as later trials.
    import autocat._tuning
    from autocat._trials import thread_speedup

    n_rows = len(problem[1])
    monkeypatch.setattr(autocat._tuning, "_available_cores", lambda: 4)
    rows = n_rows if large else n_rows + 1
    monkeypatch.setattr(autocat._tuning, "ALONE_ALL_THREADS_ROWS", rows)
    seen = planned_fold_seconds
    start = time.monotonic()
    outcome = _tune(problem, n_trials=5, time_budget=600.0, deadline=start + 600,
                    n_jobs=4)  # fmt: skip
    threads = {r.number: r.threads for r in outcome.records}
    assert threads[0] == (4 if large else 1)
    assert all(t == 1 for number, t in threads.items() if number > 0)
    first = next(r for r in outcome.records if r.number == 0)
    speedup = thread_speedup(4.0) if large else 1.0
    assert seen[0] == pytest.approx(first.fold_seconds[0] * speedup)


def test_reserve_keeps_the_fold_models_time_when_the_refit_cannot_fit():
    # No refit: the final model is the best trial's fold models, whose
    # vectorizers are fitted again, so their time stays reserved.
    assert final_reserve(39.0, 2.0, 29.0, 60.0, fold_models_s=3.0) == 5.0
    # A refit that fits replaces them: its time, not theirs, is reserved.
    assert final_reserve(20.0, 2.0, 29.0, 60.0, fold_models_s=3.0) == 22.0
