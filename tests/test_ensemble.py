from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, clone, is_classifier, is_regressor
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import (
    average_precision_score,
    get_scorer,
    log_loss,
    mean_squared_error,
    r2_score,
    roc_auc_score,
)
from sklearn.pipeline import Pipeline
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils.estimator_checks import parametrize_with_checks

from autocat import Recipe
from autocat._ensemble import (
    _LABELLED,
    EnsembleModel,
    blend,
    fold_scorer,
    greedy_ensemble,
    score_predictions,
)


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(0)
    n = 60
    jobs = rng.choice(["police officer", "bus operator", "nurse"], n)
    df = pd.DataFrame({"job": jobs, "years": rng.integers(0, 30, n).astype(float)})
    value = df["years"].to_numpy() + (df["job"] == "nurse").to_numpy() * 5.0
    return df, value


def _pipelines(task):
    return [
        Recipe(task, n_estimators=8, max_depth=2, random_state=0).build(),
        Recipe(task, n_components=4, n_estimators=5, random_state=1).build(),
    ]


# --- EnsembleModel ---------------------------------------------------------


def test_regression_ensemble_is_the_weighted_mean_of_its_members(table):
    X, y = table
    first, second = _pipelines("regression")
    model = EnsembleModel([first, second], [1.0, 3.0], task="regression").fit(X, y)
    expected = 0.25 * clone(first).fit(X, y).predict(X) + 0.75 * clone(second).fit(
        X, y
    ).predict(X)
    np.testing.assert_allclose(model.predict(X), expected, rtol=1e-6)
    assert is_regressor(model) and not hasattr(model, "predict_proba")
    assert model.score(X, y) == pytest.approx(r2_score(y, expected), rel=1e-6)
    np.testing.assert_array_equal(model.weights_, [0.25, 0.75])


def test_classification_ensemble_averages_probabilities_and_predicts_argmax(table):
    X, value = table
    y = np.digitize(value, np.quantile(value, [1 / 3, 2 / 3]))  # codes 0, 1, 2
    first, second = (p.fit(X, y) for p in _pipelines("multiclass"))
    model = EnsembleModel.from_fitted([first, second], [0.6, 0.4], task="multiclass")
    proba = 0.6 * first.predict_proba(X).astype(float) + 0.4 * second.predict_proba(X)
    proba /= proba.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(model.predict_proba(X), proba, rtol=1e-6)
    np.testing.assert_array_equal(model.predict(X), np.argmax(proba, axis=1))
    np.testing.assert_array_equal(model.classes_, [0, 1, 2])
    assert is_classifier(model)
    assert model.score(X, y) == pytest.approx(np.mean(np.argmax(proba, 1) == y))
    # scikit-learn scorers see a classifier with predict_proba
    assert get_scorer("neg_log_loss")(model, X, y) == pytest.approx(
        -log_loss(y, proba), rel=1e-6
    )


def test_from_fitted_keeps_members_and_stores_unfitted_templates(table):
    X, y = table
    first, second = (p.fit(X, y) for p in _pipelines("regression"))
    model = EnsembleModel.from_fitted(
        [first, second], [0.0, 2.0], task="regression", trial_numbers=[4, 7]
    )
    assert model.members_ == [second]  # weight 0 is not stored
    np.testing.assert_array_equal(model.weights_, [1.0])
    assert model.trial_numbers_ == [7]
    np.testing.assert_allclose(model.predict(X), second.predict(X))
    assert not hasattr(model.estimators[1].named_steps["model"], "_Booster")
    described = model.describe()
    assert described.to_dict("list") == {"member": [1], "trial": [7], "weight": [1.0]}


def test_ensemble_state_is_plain_and_pickles(table):
    X, y = table
    model = EnsembleModel(_pipelines("regression"), [1, 1]).fit(X, y)
    for name, value in vars(model).items():
        assert isinstance(
            value, (list, np.ndarray, str, int, float, type(None), BaseEstimator)
        ), name
    for member in model.members_:
        assert isinstance(member, Pipeline)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    assert model.describe()["trial"].isna().all()


def test_ensemble_rejects_bad_weights(table):
    X, y = table
    with pytest.raises(ValueError, match="one per estimator"):
        EnsembleModel(_pipelines("regression"), [1.0]).fit(X, y)
    with pytest.raises(ValueError, match="not all 0"):
        EnsembleModel(_pipelines("regression"), [0, 0]).fit(X, y)
    with pytest.raises(ValueError, match="task must be one of"):
        EnsembleModel(_pipelines("regression"), [1, 1], task="ranking").fit(X, y)


@pytest.mark.slow
@parametrize_with_checks(
    [
        EnsembleModel(
            [LinearRegression(), DecisionTreeRegressor(random_state=0)], [1, 2]
        ),
        EnsembleModel(
            [LogisticRegression(), DecisionTreeClassifier(random_state=0)],
            [1, 2],
            task="multiclass",
        ),
    ]
)
def test_ensemble_passes_scikit_learn_checks(estimator, check):
    check(estimator)


# --- greedy_ensemble -------------------------------------------------------


def _regression(n=400, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(0, 3, n), rng  # a spread that no shrinkage helps much


def test_complementary_candidates_are_both_chosen_and_noise_is_not():
    y, rng = _regression()
    first = y + rng.normal(0, 0.5, len(y))
    second = y + rng.normal(0, 0.5, len(y))
    useless = rng.normal(size=len(y))
    weights = greedy_ensemble([useless, first, second], y, "r2", task="regression")
    assert weights[0] == 0
    assert weights[1] >= 0.3 and weights[2] >= 0.3
    assert weights.sum() == pytest.approx(1.0)
    mixed = blend([useless, first, second], weights, task="regression")
    # independent errors of equal spread: averaging halves the squared error
    best_single = min(mean_squared_error(y, first), mean_squared_error(y, second))
    assert mean_squared_error(y, mixed) < 0.6 * best_single


def test_opposite_errors_give_equal_weights():
    y, _ = _regression()
    low, high = y - 1.0, y + 1.0
    weights = greedy_ensemble([low, high], y, "r2", task="regression")
    np.testing.assert_array_equal(weights, [0.5, 0.5])


@pytest.mark.parametrize(
    "metric", ["r2", "neg_mean_squared_error", "neg_root_mean_squared_error"]
)
def test_a_dominant_candidate_takes_all_the_weight_whatever_the_direction(metric):
    y, rng = _regression()
    good = y + rng.normal(0, 0.05, len(y))
    bad = [y + rng.normal(0, 2.0, len(y)) for _ in range(3)]
    weights = greedy_ensemble([*bad[:2], good, bad[2]], y, metric, task="regression")
    np.testing.assert_array_equal(weights, [0, 0, 1, 0])


def _classification(n=300, k=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    return y, rng


def _proba(y, k, right, rng, sharp=4.0):
    # Confident on the rows in `right`, random elsewhere.
    logits = rng.normal(size=(len(y), k))
    logits[right, y[right]] += sharp
    e = np.exp(logits)
    return e / e.sum(axis=1, keepdims=True)


def test_classifiers_right_on_different_rows_are_combined_with_neg_log_loss():
    y, rng = _classification()
    half = np.arange(len(y)) < len(y) // 2
    first = _proba(y, 3, half, rng)
    second = _proba(y, 3, ~half, rng)
    uniform = np.full((len(y), 3), 1 / 3)
    weights = greedy_ensemble(
        [first, uniform, second], y, "neg_log_loss", task="multiclass"
    )
    assert weights[0] > 0.3 and weights[2] > 0.3
    mixed = blend([first, uniform, second], weights, task="multiclass")
    assert log_loss(y, mixed) < min(log_loss(y, first), log_loss(y, second))


def test_binary_average_precision_prefers_the_ranking_candidate():
    y, rng = _classification(k=2)
    good = _proba(y, 2, np.ones(len(y), bool), rng, sharp=2.0)
    bad = _proba(y, 2, np.ones(len(y), bool), rng, sharp=2.0)[:, ::-1]  # reversed
    weights = greedy_ensemble([bad, good], y, "average_precision", task="binary")
    np.testing.assert_array_equal(weights, [0, 1])


def test_rows_without_predictions_are_left_out_for_every_candidate():
    y, rng = _regression()
    first = y + rng.normal(0, 0.5, len(y))
    second = y + rng.normal(0, 0.5, len(y))
    holes = first.copy()
    holes[:100] = np.nan
    # On the left-out rows `second` is terrible: if they counted, it would lose.
    second_bad = second.copy()
    second_bad[:100] += 50.0
    with_holes = greedy_ensemble([holes, second_bad], y, "r2", task="regression")
    reference = greedy_ensemble(
        [first[100:], second[100:]], y[100:], "r2", task="regression"
    )
    np.testing.assert_array_equal(with_holes, reference)
    assert with_holes[1] > 0


def test_classes_absent_from_the_scored_rows_do_not_break_scoring():
    # Class 3 has one row, which no fold validated: its row is NaN everywhere.
    y, rng = _classification(k=3)
    y = np.append(y, 3)
    first = np.vstack(
        [_proba(y[:-1], 4, np.arange(len(y) - 1) % 2 == 0, rng), np.nan * np.ones(4)]
    )
    second = np.vstack(
        [_proba(y[:-1], 4, np.arange(len(y) - 1) % 2 == 1, rng), np.nan * np.ones(4)]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for metric in ["neg_log_loss", "roc_auc_ovr", "accuracy", "top_k_accuracy"]:
            weights = greedy_ensemble(
                [first, second], y, metric, task="multiclass", max_size=3
            )
            assert weights.sum() == pytest.approx(1.0)


def test_ties_go_to_the_earlier_candidate_and_runs_repeat():
    y, rng = _regression()
    first = y + rng.normal(0, 0.5, len(y))
    second = y + rng.normal(0, 0.5, len(y))
    weights = greedy_ensemble([first, first, second], y, "r2", task="regression")
    assert weights[1] == 0 and weights[0] > 0
    again = greedy_ensemble([first, first, second], y, "r2", task="regression")
    assert weights.tobytes() == again.tobytes()


def test_max_size_and_sorted_initialisation():
    y, rng = _regression()
    candidates = [y + rng.normal(0, 0.5 + 0.1 * i, len(y)) for i in range(6)]
    weights = greedy_ensemble(candidates, y, "r2", task="regression", max_size=3)
    assert np.allclose(weights * 3, np.round(weights * 3))
    started = greedy_ensemble(
        candidates, y, "r2", task="regression", n_init=4, max_size=4
    )
    assert np.count_nonzero(started) == 4  # the 4 best, once each


def test_greedy_ensemble_rejects_bad_input():
    y, _ = _regression(10)
    with pytest.raises(ValueError, match="must be aligned"):
        greedy_ensemble([y[:5]], y, "r2", task="regression")
    with pytest.raises(ValueError, match="class-probability matrices"):
        greedy_ensemble([y], y, "accuracy", task="binary")
    with pytest.raises(ValueError, match="no row has a prediction"):
        greedy_ensemble([np.full(10, np.nan)], y, "r2", task="regression")
    with pytest.raises(TypeError, match="max_size must be an int"):
        greedy_ensemble([y], y, "r2", task="regression", max_size=2.5)


# --- fold_scorer / score_predictions ---------------------------------------


def test_fold_scorer_passes_labels_when_a_class_is_absent():
    y, rng = _classification(n=50, k=3)  # codes 0..2 of 4 classes
    proba = rng.dirichlet(np.ones(4), size=len(y))
    assert score_predictions(
        y, proba, "neg_log_loss", task="multiclass"
    ) == pytest.approx(-log_loss(y, proba, labels=range(4)))
    present_auc = np.mean([roc_auc_score(y == c, proba[:, c]) for c in range(3)])
    assert score_predictions(
        y, proba, "roc_auc_ovr", task="multiclass"
    ) == pytest.approx(present_auc)


@pytest.mark.parametrize("metric", sorted(_LABELLED))
def test_every_labelled_scorer_is_defined_with_an_absent_class(metric):
    y, rng = _classification(n=60, k=3)
    proba = rng.dirichlet(np.ones(4), size=len(y))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = score_predictions(y, proba, metric, task="multiclass")
    assert np.isfinite(value)


def test_binary_scores_use_the_last_column_as_positive():
    y, rng = _classification(n=80, k=2)
    proba = rng.dirichlet(np.ones(2), size=len(y))
    value = score_predictions(y, proba, "average_precision", task="binary")
    assert value == pytest.approx(average_precision_score(y, proba[:, 1]))
    assert fold_scorer("average_precision", task="binary") is get_scorer(
        "average_precision"
    ) or str(fold_scorer("average_precision", task="binary")) == str(
        get_scorer("average_precision")
    )


@pytest.mark.parametrize(
    ("metric", "reference"),
    [
        ("r2", lambda y, p: r2_score(y, p)),
        ("neg_mean_squared_error", lambda y, p: -mean_squared_error(y, p)),
        (
            "neg_root_mean_squared_error",
            lambda y, p: -np.sqrt(mean_squared_error(y, p)),
        ),
        ("neg_mean_absolute_error", lambda y, p: -np.mean(np.abs(y - p))),
    ],
)
def test_numpy_regression_scores_equal_scikit_learn(metric, reference):
    y, rng = _regression(200)
    p = y + rng.normal(0, 1, len(y))
    value = score_predictions(y, p, metric, task="regression")
    assert value == pytest.approx(reference(y, p), rel=1e-12)


@pytest.mark.parametrize(
    ("task", "metric"),
    [
        ("binary", "accuracy"),
        ("binary", "neg_log_loss"),
        ("binary", "average_precision"),
        ("binary", "roc_auc"),
        ("multiclass", "accuracy"),
        ("multiclass", "neg_log_loss"),
    ],
)
def test_numpy_classification_scores_equal_scikit_learn(task, metric):
    k = 2 if task == "binary" else 4
    y, rng = _classification(n=300, k=k)
    proba = np.round(rng.dirichlet(np.ones(k), size=len(y)), 2)  # ties
    proba[:5] = [1.0] + [0.0] * (k - 1)  # clipped by log loss
    proba /= proba.sum(axis=1, keepdims=True)
    expected = {
        "accuracy": lambda: np.mean(proba.argmax(axis=1) == y),
        "neg_log_loss": lambda: -log_loss(y, proba if k > 2 else proba[:, 1]),
        "average_precision": lambda: average_precision_score(y, proba[:, 1]),
        "roc_auc": lambda: roc_auc_score(y, proba[:, 1]),
    }[metric]()
    value = score_predictions(y, proba, metric, task=task)
    assert value == pytest.approx(expected, rel=1e-12)


def test_an_accuracy_selection_ranks_members_by_their_log_loss():
    # both candidates are right on every row, so accuracy ties them and would
    # keep the first; the confident one has the lower log loss and is chosen
    from autocat._selection import select_weights

    y = np.array([0, 1, 0, 1, 1, 0])
    positive = np.where(y == 1, 0.6, 0.4)
    hesitant = np.column_stack([1 - positive, positive])
    positive = np.where(y == 1, 0.95, 0.05)
    confident = np.column_stack([1 - positive, positive])
    weights = select_weights([hesitant, confident], y, "accuracy", "binary", True)
    assert weights[1] > weights[0]
    blended = weights[0] * hesitant + weights[1] * confident
    assert log_loss(y, blended) < log_loss(y, hesitant)
    # the single best candidate (ensemble=False) is still chosen on accuracy
    single = select_weights([hesitant, confident], y, "accuracy", "binary", False)
    np.testing.assert_array_equal(single, [1.0, 0.0])
