"""The forest learners: extremely randomised trees as flat arrays, and their trial."""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import ExtraTreesClassifier, ExtraTreesRegressor
from sklearn.utils.estimator_checks import parametrize_with_checks

import autocat
import autocat._trials
from autocat import Recipe
from autocat._budget import Budget, BudgetExhausted, budget_scope
from autocat._forest import TREES_PER_CHECK, ForestClassifier, ForestRegressor
from autocat._sampler import REPEATS


@parametrize_with_checks(
    [ForestRegressor(n_estimators=7), ForestClassifier(n_estimators=7)]
)
def test_the_forest_learners_follow_scikit_learn_conventions(estimator, check):
    check(estimator)


def _features(n_rows: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, 6))
    X[rng.random(n_rows) < 0.2, 1] = np.nan  # missing values go one side
    X[:, 2] = np.round(X[:, 2], 1)  # ties, as encodings have
    return X


def test_the_regressor_predicts_as_scikit_learns_extra_trees():
    # The same trees (grown in batches between budget checks, as one fit
    # grows them), walked by the kernel on float32 rows: scikit-learn's
    # predictions, up to the float32 leaf values.
    X = _features(1500, 0)
    y = X[:, 0] * np.nan_to_num(X[:, 1]) + np.sin(X[:, 2])
    train, new = X[:1000], _features(700, 1)
    ours = ForestRegressor(n_estimators=23, random_state=5).fit(train, y[:1000])
    reference = ExtraTreesRegressor(23, max_features=1.0, random_state=5)
    reference.fit(train, y[:1000])
    assert ours.n_trees_ == 23
    np.testing.assert_allclose(
        ours.predict(new), reference.predict(new), rtol=1e-6, atol=1e-6
    )
    np.testing.assert_allclose(ours.predict(train), y[:1000], rtol=1e-5, atol=1e-5)


def test_the_classifier_predicts_as_scikit_learns_extra_trees():
    X = _features(1200, 2)
    codes = (X[:, 0] > 0).astype(int) + (X[:, 3] > 1)
    labels = np.array(["low", "mid", "high"])[codes]
    ours = ForestClassifier(n_estimators=12, random_state=1).fit(X[:900], labels[:900])
    reference = ExtraTreesClassifier(12, max_features="sqrt", random_state=1)
    reference.fit(X[:900], labels[:900])
    np.testing.assert_array_equal(ours.classes_, reference.classes_)
    proba = ours.predict_proba(X[900:])
    np.testing.assert_allclose(proba, reference.predict_proba(X[900:]), atol=1e-6)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-6)
    np.testing.assert_array_equal(ours.predict(X[900:]), reference.predict(X[900:]))


def test_a_large_table_grows_each_tree_on_max_tree_rows_drawn_with_replacement():
    X = _features(2000, 3)
    y = X[:, 0] + X[:, 3]
    ours = ForestRegressor(n_estimators=8, max_tree_rows=300, random_state=2).fit(X, y)
    reference = ExtraTreesRegressor(
        8, max_features=1.0, bootstrap=True, max_samples=300, random_state=2
    ).fit(X, y)
    np.testing.assert_allclose(
        ours.predict(X), reference.predict(X), rtol=1e-6, atol=1e-6
    )
    # a tree of at most 300 rows has at most 300 leaves
    assert len(ours.values_) <= 8 * 300
    full = ForestRegressor(n_estimators=8, random_state=2).fit(X, y)
    assert len(full.values_) > 8 * 1000


def test_predictions_are_the_same_bytes_with_any_number_of_threads():
    X = _features(9000, 4)  # more rows than one thread's share
    y = X[:, 0] - X[:, 3]
    one = ForestRegressor(n_estimators=6, n_jobs=1, random_state=0).fit(X, y)
    many = ForestRegressor(n_estimators=6, n_jobs=4, random_state=0).fit(X, y)
    assert one.predict(X).tobytes() == many.predict(X).tobytes()


def test_a_forest_that_would_not_finish_in_time_stops_after_its_first_trees():
    # 2,000 trees at several milliseconds each do not fit in 0.3 s: the first
    # batch shows it, and the fit stops there instead of running to the end.
    X = _features(4000, 5)
    y = X[:, 0]
    forest = ForestRegressor(n_estimators=2000, random_state=0)
    start = time.monotonic()
    with budget_scope(Budget(time.monotonic() + 0.3)):
        with pytest.raises(BudgetExhausted, match="would need"):
            forest.fit(X, y)
    assert time.monotonic() - start < 2.0


def test_a_settling_budget_keeps_the_trees_grown():
    # A caller that needs a model by the deadline gets the trees grown by then,
    # a whole number of batches, and a usable forest.
    X = _features(600, 6)
    y = X[:, 0]
    with budget_scope(Budget(time.monotonic() - 1.0, settle=True)):
        forest = ForestRegressor(n_estimators=50, random_state=0).fit(X, y)
    assert forest.n_trees_ == TREES_PER_CHECK
    assert forest.score(X, y) > 0.9


def test_a_forest_recipe_is_extra_trees_on_the_encoding():
    recipe = Recipe("regression", learner="forest", max_depth=3)
    assert recipe.params() == {
        "encoder": "minhash",
        "n_components": 30,
        "cardinality_threshold": 30,
        "text_encoder": "minhash",
        "learner": "forest",
    }
    assert Recipe.from_params("regression", recipe.params()) == recipe
    model = Recipe(learner="forest", random_state=3, n_jobs=2).build_model()
    assert isinstance(model, ForestRegressor)
    assert (model.random_state, model.n_jobs) == (3, 2)
    assert isinstance(
        Recipe("binary", learner="forest").build_model(), ForestClassifier
    )
    with pytest.raises(ValueError, match="learner='forest' learns the target itself"):
        Recipe(learner="forest", target_transform="log")


def _interaction_table(n_rows: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    size = rng.uniform(0, 10, n_rows)
    age = rng.uniform(0, 10, n_rows)
    city = rng.choice([f"city {i}" for i in range(40)], n_rows)
    noise = rng.normal(scale=0.3, size=n_rows)
    return pd.DataFrame(
        {"size": size, "age": age, "city": city,
         "price": np.where((size > 5) ^ (age > 5), 4.0, 0.0) + noise}
    )  # fmt: skip


@pytest.fixture(scope="module")
def interaction_result():
    return autocat.auto_fit(
        _interaction_table(300, 0), "price", n_trials=6, random_state=0,
        show_progress=False,
    )  # fmt: skip


def test_a_search_runs_one_forest_trial_marked_as_a_repeat(interaction_result):
    board = interaction_result.leaderboard_
    assert list(board["learner"]).count("forest") == 1
    row = board[board["learner"] == "forest"].iloc[0]
    assert row["state"] == "COMPLETE"
    assert pd.isna(row["learning_rate"]) and pd.isna(row["n_estimators"])
    trial = interaction_result.study_.trials[int(row["trial"])]
    assert trial.user_attrs["learner"] == "forest"
    assert trial.params == interaction_result.study_.trials[0].params
    assert REPEATS in trial.user_attrs  # kept out of the sampler's history
    # a step function of two columns, without main effects: the forest learns
    # it, the linear trial cannot
    linear = board.loc[board["learner"] == "linear", "score"].iloc[0]
    assert row["score"] > 0.7 and linear < 0.2


def test_a_model_with_a_forest_member_survives_a_model_file(
    interaction_result, tmp_path
):
    board = interaction_result.leaderboard_
    weight = board.loc[board["learner"] == "forest", "weight"].iloc[0]
    assert weight > 0
    assert f"forest ({weight:.2f}" in interaction_result.summary()
    path = tmp_path / "interaction.autocat"
    interaction_result.save(path)
    loaded = autocat.load(path)
    rows = _interaction_table(80, 1).drop(columns="price")
    np.testing.assert_array_equal(
        loaded.predict(rows), interaction_result.predict(rows)
    )


def test_a_forest_trial_over_its_share_of_the_budget_is_cut_and_the_search_goes_on(
    monkeypatch,
):
    # With no time for it, the forest trial stops after its first trees and the
    # XGBoost trials run on; the search and the model are as without it.
    monkeypatch.setattr(autocat._trials, "FOREST_SHARE", 1e-6)
    frame = _interaction_table(400, 2)
    result = autocat.auto_fit(
        frame, "price", time_budget=6, random_state=0, show_progress=False
    )
    board = result.leaderboard_
    row = board[board["learner"] == "forest"].iloc[0]
    assert row["state"] == "PRUNED" and row["stopped_by"] == "time_budget"
    assert row["duration_s"] < 1.0
    assert (board.loc[board["learner"] == "xgboost", "state"] == "COMPLETE").sum() >= 3
    assert "forest" not in result.summary()


def test_growing_threads_keep_the_process_warning_filters():
    # scikit-learn's Parallel resets the warning filters in each of its threads
    # (``warnings.resetwarnings`` inside ``catch_warnings``); before Python 3.14
    # two such threads race, and one can empty the list the others restore:
    # every later tree then warns "`sklearn.utils.parallel.delayed` should be
    # used with ...", and the process loses its filters. The forest grows its
    # trees on its own threads. A tiny switch interval makes the race likely:
    # grown by scikit-learn's Parallel, the forests of this test lost the filter
    # in each of six runs.
    X = _features(60, 0)
    y = X[:, 0]
    interval = sys.getswitchinterval()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", message="a filter of the user's")
        sys.setswitchinterval(1e-6)
        try:
            for seed in range(10):
                forest = ForestRegressor(n_estimators=100, n_jobs=4, random_state=seed)
                forest.fit(X, y)
        finally:
            sys.setswitchinterval(interval)
        patterns = [getattr(entry[1], "pattern", None) for entry in warnings.filters]
    assert not [w for w in caught if "should be used with" in str(w.message)]
    assert "a filter of the user's" in patterns
