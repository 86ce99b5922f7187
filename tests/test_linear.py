"""The linear learner: ridge regression on the encodings, and its trial in a search."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks
from xgboost import XGBRegressor

import autocat
from autocat import Recipe
from autocat._linear import ALPHAS, LinearRegressor
from autocat._sampler import REPEATS


def _ridge_reference(X: np.ndarray, y: np.ndarray, alpha: float) -> np.ndarray:
    """Closed-form ridge on standardised columns, intercept unpenalised."""
    mean, scale = X.mean(axis=0), X.std(axis=0)
    Z = (X - mean) / scale
    return np.linalg.solve(Z.T @ Z + alpha * np.eye(Z.shape[1]), Z.T @ (y - y.mean()))


@parametrize_with_checks([LinearRegressor()])
def test_the_linear_regressor_follows_scikit_learn_conventions(estimator, check):
    check(estimator)


def test_the_coefficients_are_the_closed_form_ridge_of_the_chosen_penalty():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 5)) * [1.0, 10.0, 0.1, 3.0, 1.0]
    y = X @ np.array([1.0, -0.2, 5.0, 0.0, 2.0]) + rng.normal(size=400)
    model = LinearRegressor().fit(X, y)
    assert model.alpha_ in ALPHAS
    np.testing.assert_allclose(
        model.coef_, _ridge_reference(X, y, model.alpha_), rtol=1e-6, atol=1e-9
    )
    np.testing.assert_allclose(model.intercept_, y.mean(), rtol=1e-9)


def test_the_penalty_is_the_one_of_least_leave_one_out_error():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 3))
    y = X @ np.array([0.5, 0.0, -0.3]) + rng.normal(size=40)
    model = LinearRegressor().fit(X, y)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    design = np.column_stack([np.ones(40), Z])
    errors = []
    for alpha in ALPHAS:  # refit without each row in turn, intercept unpenalised
        penalty = alpha * np.diag([0.0, 1.0, 1.0, 1.0])
        squared = 0.0
        for i in range(40):
            keep = np.arange(40) != i
            A, b = design[keep], y[keep]
            w = np.linalg.solve(A.T @ A + penalty, A.T @ b)
            squared += (y[i] - design[i] @ w) ** 2
        errors.append(squared / 40)
    assert model.alpha_ == ALPHAS[int(np.argmin(errors))]


def test_the_penalty_grows_when_the_features_are_noise():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 20))
    signal = LinearRegressor().fit(X, X[:, 0] * 3 + rng.normal(scale=0.1, size=200))
    noise = LinearRegressor().fit(X, rng.normal(size=200))
    assert noise.alpha_ >= 100 * signal.alpha_


def test_missing_values_are_the_training_mean_and_far_values_are_clipped():
    rng = np.random.default_rng(2)
    X = rng.uniform(0, 10, size=(300, 2))
    X[::7, 1] = np.nan
    y = 2 * X[:, 0] + rng.normal(scale=0.01, size=300)
    model = LinearRegressor().fit(X, y)
    assert model.mean_[1] == pytest.approx(np.nanmean(X[:, 1]))
    with_nan, with_mean = model.predict(
        np.array([[5.0, np.nan], [5.0, np.nanmean(X[:, 1])]])
    )
    assert with_nan == pytest.approx(with_mean)
    # the range [0, 10] widened by its width: values beyond 20 count as 20
    low, high = X[:, 0].min(), X[:, 0].max()
    at_edge, far = model.predict(np.array([[2 * high - low, 5.0], [1e9, 5.0]]))
    assert far == pytest.approx(at_edge)
    assert at_edge == pytest.approx(2 * (2 * high - low), rel=0.02)  # extrapolates


def test_a_large_table_is_fitted_on_a_seeded_sample_of_max_rows():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(1_000, 3))
    y = X.sum(axis=1) + rng.normal(size=1_000)
    first = LinearRegressor(max_rows=200, random_state=0).fit(X, y)
    again = LinearRegressor(max_rows=200, random_state=0).fit(X, y)
    other = LinearRegressor(max_rows=200, random_state=1).fit(X, y)
    np.testing.assert_array_equal(first.coef_, again.coef_)
    assert not np.array_equal(first.coef_, other.coef_)
    # the statistics are those of the sample, not of all rows
    assert first.mean_[0] != pytest.approx(X[:, 0].mean(), abs=1e-9)


def test_a_linear_recipe_keeps_only_the_vectorizer_parameters():
    recipe = Recipe("regression", learner="linear", max_depth=3, n_components=10)
    assert recipe.params() == {
        "encoder": "minhash",
        "n_components": 10,
        "cardinality_threshold": 30,
        "text_encoder": "minhash",
        "learner": "linear",
    }
    assert Recipe.from_params("regression", recipe.params()) == recipe
    assert isinstance(recipe.build().named_steps["model"], LinearRegressor)
    assert "learner" not in Recipe("regression").params()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"task": "binary", "learner": "linear"}, "for regression"),
        ({"learner": "linear", "target_transform": "log"}, "target itself"),
        ({"learner": "ridge"}, "learner must be one of"),
    ],
)
def test_a_linear_recipe_is_refused_where_it_does_not_apply(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Recipe(**kwargs)


def _trend_table(n: int, seed: int) -> pd.DataFrame:
    """A target that grows with a numeric column, beside a dirty string column."""
    rng = np.random.default_rng(seed)
    size = rng.uniform(0, 100, n)
    effect = np.random.default_rng(99).normal(scale=15, size=60)
    city = rng.integers(0, 60, n)
    price = 3 * size + effect[city] + rng.normal(scale=15, size=n)
    names = np.array([f"city {i}" for i in range(60)])
    return pd.DataFrame({"size": size, "city": names[city], "price": price})


@pytest.fixture(scope="module")
def trend_result():
    return autocat.auto_fit(
        _trend_table(300, 0), "price", n_trials=6, random_state=0, show_progress=False
    )


def test_a_regression_search_runs_one_linear_trial_marked_as_a_repeat(trend_result):
    board = trend_result.leaderboard_
    assert list(board["learner"]).count("linear") == 1
    row = board[board["learner"] == "linear"].iloc[0]
    assert pd.isna(row["learning_rate"]) and pd.isna(row["n_estimators"])
    trial = trend_result.study_.trials[int(row["trial"])]
    assert trial.user_attrs["learner"] == "linear"
    assert REPEATS in trial.user_attrs  # kept out of the sampler's history


def test_the_linear_member_lets_the_model_extrapolate_a_trend(trend_result):
    board = trend_result.leaderboard_
    weight = board.loc[board["learner"] == "linear", "weight"].iloc[0]
    assert weight > 0.3
    edge, beyond = trend_result.predict(
        pd.DataFrame({"size": [100.0, 150.0], "city": ["city 3", "city 3"]})
    )
    # trees predict the same beyond the largest size seen; the linear member
    # adds its weight times the trend (3 per unit of size)
    assert beyond - edge > 0.8 * weight * 3 * 50
    assert f"linear ({weight:.2f}" in trend_result.summary()


def test_the_best_pipeline_and_params_stay_the_best_xgboost_trial(trend_result):
    board = trend_result.leaderboard_
    xgboost_best = board[board["learner"] == "xgboost"].iloc[0]
    assert "learner" not in trend_result.best_params_
    assert isinstance(trend_result.pipeline_.named_steps["model"], XGBRegressor)
    assert trend_result.best_params_["max_depth"] == xgboost_best["max_depth"]


def test_a_model_with_a_linear_member_survives_a_model_file(trend_result, tmp_path):
    path = tmp_path / "trend.autocat"
    trend_result.save(path)
    loaded = autocat.load(path)
    rows = _trend_table(50, 1).drop(columns="price")
    np.testing.assert_array_equal(loaded.predict(rows), trend_result.predict(rows))


def test_a_classification_search_has_no_linear_trial():
    frame = _trend_table(200, 2)
    frame["price"] = frame["price"] > 150
    result = autocat.auto_fit(
        frame, "price", n_trials=4, random_state=0, show_progress=False
    )
    assert "learner" not in result.leaderboard_
