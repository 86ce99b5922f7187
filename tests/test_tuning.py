from __future__ import annotations

import threading
import time

import numpy as np
import optuna
import pandas as pd
import pytest
from sklearn.metrics import get_scorer
from sklearn.model_selection import KFold

from autocat._recipe import Recipe
from autocat._search_space import default_params
from autocat._tuning import (
    EncodingCache,
    _Objective,
    leaderboard,
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


def test_resolve_threads_never_exceeds_the_cores():
    total, parallel, xgb = resolve_threads(-1, None)
    assert parallel * xgb <= total >= 1
    assert resolve_threads(1, 5) == (1, 1, 1)
    total, parallel, xgb = resolve_threads(10_000, 1)
    assert parallel == 1 and xgb == total
    for bad in [0, 1.5, True, "2"]:
        with pytest.raises(ValueError, match="n_jobs must be"):
            resolve_threads(bad, None)


def test_make_storage(tmp_path):
    assert make_storage(None) is None
    url = f"sqlite:///{tmp_path / 'x.db'}"
    assert isinstance(make_storage(url), optuna.storages.RDBStorage)
    journal = make_storage(tmp_path / "sub" / "study.log")
    assert isinstance(journal, optuna.storages.JournalStorage)
    with pytest.raises(TypeError, match="storage must be"):
        make_storage(3)


def test_cache_counts_and_computes_once_across_threads():
    cache = EncodingCache()
    calls = []

    def compute():
        calls.append(1)
        time.sleep(0.05)
        return np.ones((2, 2)), np.zeros((1, 2))

    threads = [
        threading.Thread(target=cache.get, args=("k", compute)) for _ in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1
    assert (cache.hits, cache.misses) == (2, 1)
    assert cache.hit_rate == pytest.approx(2 / 3)
    assert cache.encode_seconds > 0


def test_cache_evicts_least_recently_used():
    cache = EncodingCache(max_bytes=100)
    for key in "abc":
        cache.get(key, lambda: (np.zeros(8), np.zeros(2)))  # 80 bytes each
    assert list(cache._entries) == ["c"]
    assert np.isnan(EncodingCache().hit_rate)


def test_tune_runs_the_paper_defaults_first(problem):
    outcome = _tune(problem, n_trials=3)
    trials = outcome.study.trials
    assert trials[0].params == default_params("minhash")
    assert trials[1].params == default_params("gamma_poisson")
    assert len(trials) == 3
    assert outcome.n_folds == 3
    assert outcome.best_trial.value == max(t.value for t in trials)
    attrs = outcome.best_trial.user_attrs
    assert attrs["n_estimators"] >= 1
    assert len(attrs["fold_scores"]) == 3
    assert len(outcome.best_trial.intermediate_values) == 3
    assert outcome.refit_seconds_estimate > 0


def test_encodings_are_cached_across_trials(problem):
    cache = EncodingCache()
    _tune(problem, cache=cache)
    # 2 trials (min-hash and Gamma-Poisson defaults) x 3 folds, all computed.
    assert (cache.hits, cache.misses) == (0, 6)
    # The same vectorizers on the same folds: nothing is encoded again.
    _tune(problem, cache=cache, random_state=0)
    assert (cache.hits, cache.misses) == (6, 6)


def test_equivalent_vectorizers_share_one_encoding(problem):
    X, y, splits = problem
    cache = EncodingCache()
    objective = _Objective(
        X=X,
        y=y,
        task="regression",
        scorer=get_scorer("r2"),
        splits=splits,
        n_folds=3,
        random_state=0,
        xgb_threads=1,
        cache=cache,
        deadline=None,
        time_budget=None,
    )
    first = objective.encoded(Recipe(cardinality_threshold=100), 0)
    assert cache.distinct[0]["job"] > 30 and cache.distinct[0]["dept"] == 3
    # No high-cardinality column at thresholds 100 and 200: the encoder and its
    # dimension do not matter.
    same = objective.encoded(
        Recipe(cardinality_threshold=200, encoder="gamma_poisson", n_components=10), 0
    )
    assert same[0] is first[0]
    assert (cache.hits, cache.misses) == (1, 1)
    # At threshold 10, "job" is high-cardinality: a new encoding, shared by
    # thresholds 10 and 20 (both below the 3 ... 40-odd distinct values split).
    objective.encoded(Recipe(cardinality_threshold=10), 0)
    objective.encoded(Recipe(cardinality_threshold=20, max_depth=2), 0)
    objective.encoded(Recipe(cardinality_threshold=20, n_components=10), 0)
    assert (cache.hits, cache.misses) == (2, 3)


class _PruneFromThirdTrial(optuna.pruners.BasePruner):
    def prune(self, study, trial):
        return trial.number >= 2


def test_pruning_stops_a_trial_after_its_first_fold(problem):
    outcome = _tune(problem, n_trials=3, pruner=_PruneFromThirdTrial())
    pruned = outcome.study.trials[2]
    assert pruned.state == optuna.trial.TrialState.PRUNED
    assert list(pruned.intermediate_values) == [0]
    board = leaderboard(outcome.study)
    assert board["state"].tolist() == ["COMPLETE", "COMPLETE", "PRUNED"]
    assert board.loc[2, "stopped_by"] == "pruner"
    assert np.isfinite(board.loc[2, "score"])


def test_default_pruner_is_a_median_pruner(problem):
    outcome = _tune(problem, n_trials=1)
    assert isinstance(outcome.study.pruner, optuna.pruners.MedianPruner)


def test_deadline_stops_the_search_but_keeps_the_first_trial(problem):
    # A deadline already past: the first trial still finishes, no other starts.
    outcome = _tune(problem, n_trials=None, deadline=time.monotonic() - 1)
    states = [t.state for t in outcome.study.trials]
    assert states[0] == optuna.trial.TrialState.COMPLETE
    assert len(outcome.study.trials) <= 2


def test_holdout_switch_when_folds_do_not_fit_the_budget(problem):
    outcome = _tune(problem, n_trials=1, time_budget=1e-3)
    assert outcome.n_folds == 1
    assert outcome.study.user_attrs["n_folds"] == 1
    assert len(outcome.best_trial.user_attrs["fold_scores"]) == 1


def test_failing_trials_raise_the_first_error(problem):
    with pytest.raises(RuntimeError, match="All 2 trial") as info:
        _tune(problem, scorer=get_scorer("roc_auc"))
    assert "predict_proba" in str(info.value.__cause__)


def test_stored_study_is_shared_and_checked(problem, tmp_path):
    url = tmp_path / "journal.log"
    fingerprint = {"n_rows": 90}
    _tune(problem, storage=url, study_name="s", fingerprint=fingerprint, n_trials=1)
    outcome = _tune(
        problem, storage=url, study_name="s", fingerprint=fingerprint, n_trials=2
    )
    trials = outcome.study.trials
    assert len(trials) == 3  # the defaults are not enqueued twice
    assert [t.params["encoder"] for t in trials[:2]] == ["minhash", "gamma_poisson"]
    with pytest.raises(ValueError, match="made for other data or settings"):
        _tune(problem, storage=url, study_name="s", fingerprint={"n_rows": 91})


def test_leaderboard_of_an_empty_study():
    board = leaderboard(optuna.create_study())
    assert board.empty
    assert list(board.columns[:6]) == [
        "trial",
        "state",
        "score",
        "duration_s",
        "encoder",
        "n_components",
    ]
