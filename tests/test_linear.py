"""The linear learners: ridge regressions on the encodings, and their search trial."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize
from scipy.special import log_softmax
from sklearn.linear_model import RidgeClassifierCV
from sklearn.utils.estimator_checks import parametrize_with_checks
from xgboost import XGBClassifier, XGBRegressor

import autocat
from autocat import Recipe
from autocat._linear import ALPHAS, LinearClassifier, LinearRegressor
from autocat._sampler import REPEATS


def _ridge_reference(X: np.ndarray, y: np.ndarray, alpha: float) -> np.ndarray:
    """Closed-form ridge on standardised columns, intercept unpenalised."""
    mean, scale = X.mean(axis=0), X.std(axis=0)
    Z = (X - mean) / scale
    return np.linalg.solve(Z.T @ Z + alpha * np.eye(Z.shape[1]), Z.T @ (y - y.mean()))


@parametrize_with_checks([LinearRegressor(), LinearClassifier()])
def test_the_linear_learners_follow_scikit_learn_conventions(estimator, check):
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


def _standardised(X: np.ndarray) -> np.ndarray:
    return (X - X.mean(axis=0)) / X.std(axis=0)


@pytest.mark.parametrize("n_classes", [2, 4])
def test_the_classifier_is_scikit_learns_ridge_classifier_of_the_same_penalties(
    n_classes,
):
    rng = np.random.default_rng(n_classes)
    X = rng.normal(size=(300, 6)) * [1.0, 5.0, 0.2, 1.0, 3.0, 1.0]
    y = np.argmax(X[:, :n_classes] / X.std(axis=0)[:n_classes]
                  + rng.normal(size=(300, n_classes)), axis=1)  # fmt: skip
    if n_classes == 2:
        y = (X[:, 0] + X[:, 1] / 5 + rng.normal(size=300) > 0).astype(int)
    model = LinearClassifier().fit(X, y)
    # scikit-learn's targets are -1 and 1 (2 * indicator - 1): the same penalty
    # of least leave-one-out error, coefficients twice ours
    reference = RidgeClassifierCV(alphas=ALPHAS).fit(_standardised(X), y)
    assert model.alpha_ == reference.alpha_
    ours = 2 * model.coef_.T
    if n_classes == 2:  # one column in scikit-learn's: the second class's
        ours = ours[1:]
    np.testing.assert_allclose(
        ours, np.reshape(reference.coef_, ours.shape), rtol=1e-6, atol=1e-9
    )


def test_the_softmax_is_fitted_on_leave_one_out_scores():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(60, 3))
    y = np.argmax(X + rng.normal(size=(60, 3)), axis=1)
    model = LinearClassifier().fit(X, y)
    # each row's scores from a ridge fitted without it, then the softmax by a
    # derivative-free search: an independent route to the same numbers
    Z, onehot = _standardised(X), np.eye(3)[y]
    design = np.column_stack([np.ones(60), Z])
    penalty = model.alpha_ * np.diag([0.0, 1.0, 1.0, 1.0])
    scores = np.empty((60, 3))
    for i in range(60):
        keep = np.arange(60) != i
        w = np.linalg.solve(design[keep].T @ design[keep] + penalty,
                            design[keep].T @ onehot[keep])  # fmt: skip
        scores[i] = design[i] @ w

    def loss(theta):
        log_p = log_softmax(theta[0] * scores + theta[1:], axis=1)
        return -np.mean(log_p[np.arange(60), y])

    options = {"xatol": 1e-8, "fatol": 1e-12, "maxiter": 20_000}
    found = minimize(loss, np.r_[1.0, 0.0, 0.0, 0.0], method="Nelder-Mead",
                     options=options)  # fmt: skip
    ours = np.r_[model.temperature_, model.offsets_]
    assert loss(ours) == pytest.approx(found.fun, abs=1e-6)
    # offsets are defined up to a constant: compare them centred
    assert model.temperature_ == pytest.approx(found.x[0], rel=1e-3)
    np.testing.assert_allclose(
        model.offsets_ - model.offsets_.mean(), found.x[1:] - found.x[1:].mean(),
        atol=1e-3,
    )  # fmt: skip


def test_the_classifier_keeps_a_rare_class_when_it_samples_rows():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3_000, 2))
    y = np.where(X[:, 0] > 0, "big", "small").astype(object)
    y[17] = "rare"
    model = LinearClassifier(max_rows=200, random_state=0).fit(X, y)
    assert list(model.classes_) == ["big", "rare", "small"]
    assert 0 < model.intercept_[1] <= 1 / 200  # its row was fitted on
    proba = model.predict_proba(X[:5])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert (proba[:, 1] < 0.2).all()  # one row of 200: a small probability


def test_a_classifier_with_one_class_is_refused():
    with pytest.raises(ValueError, match="at least two classes"):
        LinearClassifier().fit(np.zeros((5, 2)), ["a"] * 5)


def _share_table(n: int, seed: int) -> pd.DataFrame:
    """A class whose log-odds are the sum of a trend and a city's effect."""
    rng = np.random.default_rng(seed)
    size = rng.uniform(0, 100, n)
    city = rng.integers(0, 60, n)
    effect = np.random.default_rng(98).normal(scale=1.5, size=60)
    odds = 0.06 * (size - 50) + effect[city]
    chosen = rng.random(n) < 1 / (1 + np.exp(-odds))
    names = np.array([f"city {i}" for i in range(60)])
    return pd.DataFrame({"size": size, "city": names[city], "chosen": chosen})


@pytest.fixture(scope="module")
def share_result():
    return autocat.auto_fit(
        _share_table(400, 0), "chosen", n_trials=6, random_state=0,
        show_progress=False,
    )  # fmt: skip


def test_a_classification_search_runs_one_linear_trial_for_its_ensemble(share_result):
    board = share_result.leaderboard_
    assert list(board["learner"]).count("linear") == 1
    trial = share_result.study_.trials[int(board.loc[board["learner"] == "linear",
                                                     "trial"].iloc[0])]  # fmt: skip
    assert trial.user_attrs["learner"] == "linear" and REPEATS in trial.user_attrs
    # additive log-odds: the linear member earns a place in the ensemble
    weight = board.loc[board["learner"] == "linear", "weight"].iloc[0]
    assert weight > 0.2
    assert isinstance(share_result.pipeline_.named_steps["model"], XGBClassifier)
    assert "learner" not in share_result.best_params_


def test_a_classifier_with_a_linear_member_survives_a_model_file(
    share_result, tmp_path
):
    path = tmp_path / "share.autocat"
    share_result.save(path)
    loaded = autocat.load(path)
    rows = _share_table(50, 1).drop(columns="chosen")
    proba = loaded.predict_proba(rows)
    np.testing.assert_array_equal(proba, share_result.predict_proba(rows))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-6)


def test_linear_and_forest_members_are_built_after_the_xgboost_members(monkeypatch):
    # The time kept for the final model is the best XGBoost trial's: the linear
    # and forest members, never the best trial, are built last even when the
    # selection gives them the largest weights, so that a budget running short
    # drops them, not an XGBoost member.
    from sklearn.metrics import get_scorer
    from sklearn.model_selection import KFold

    import autocat._final
    from autocat._final import final_model
    from autocat._tuning import tune

    frame = _trend_table(120, 3)
    X, y = frame.drop(columns="price"), frame["price"].to_numpy()
    splits = list(KFold(3, shuffle=True, random_state=0).split(X))
    outcome = tune(X, y, task="regression", scorer=get_scorer("r2"), splits=splits,
                   n_trials=5, time_budget=None, deadline=None)  # fmt: skip
    learners = [r.learner for r in outcome.records]
    assert learners[-2:] == ["linear", "forest"] and learners.count("xgboost") >= 2

    def others_heaviest(predictions, *args, **kwargs):
        weights = np.linspace(1.0, 2.0, len(predictions))
        return weights / weights.sum()  # the last records, the other learners, lead

    built = []
    member_model = autocat._final.member_model

    def recording(record, *args, **kwargs):
        built.append(record.learner)
        return member_model(record, *args, **kwargs)

    monkeypatch.setattr(autocat._final, "select_weights", others_heaviest)
    monkeypatch.setattr(autocat._final, "member_model", recording)
    final = final_model(outcome, X, y, "regression", "r2", splits, 0, 1, None, True)
    assert built[-2:] == ["forest", "linear"] and set(built[:-2]) == {"xgboost"}
    assert len(final.members) == len(outcome.records)
