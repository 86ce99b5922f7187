"""AutoRegressor and AutoClassifier: auto_fit behind the scikit-learn estimator API."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import Pipeline

from autocat import AutoClassifier, AutoRegressor

FAST = {"time_budget": None, "n_trials": 1, "cv": 2}


@pytest.fixture
def jobs():
    rng = np.random.default_rng(0)
    titles = rng.choice(["police officer", "bus operator", "nurse", "librarian"], 80)
    X = pd.DataFrame({"job": titles, "years": rng.integers(0, 30, 80)})
    salary = X["years"] * 2.0 + (X["job"] == "nurse") * 30.0
    return X, salary, np.where(X["job"] == "nurse", "health", "other")


def test_params_are_stored_unchanged_and_cloned():
    model = AutoRegressor(time_budget=5, auto_fit_params={"study_name": "s"})
    assert clone(model).get_params() == model.get_params()
    assert AutoClassifier().get_params()["time_budget"] == 60


@pytest.mark.slow
def test_classifier_predicts_user_labels_and_probabilities(jobs):
    X, _, labels = jobs
    model = AutoClassifier(**FAST).fit(X, labels)
    assert model.classes_.tolist() == ["health", "other"]
    assert set(model.predict(X)) <= {"health", "other"}
    proba = model.predict_proba(X.head(3))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-6)
    assert model.feature_names_in_.tolist() == ["job", "years"]
    assert model.result_.task_ == "binary"


@pytest.mark.slow
def test_regressor_is_the_last_step_of_a_pipeline(jobs):
    X, salary, _ = jobs
    pipeline = Pipeline(
        [
            ("keep", ColumnTransformer([("keep", "passthrough", ["job", "years"])])),
            ("model", AutoRegressor(**FAST)),
        ]
    )
    pipeline.fit(X.assign(noise=0.0), salary)
    assert pipeline.predict(X.assign(noise=0.0)).shape == (len(X),)


@pytest.mark.slow
def test_cross_val_score_fits_one_search_per_fold(jobs):
    X, salary, _ = jobs
    scores = cross_val_score(AutoRegressor(**FAST), X, salary, cv=2)
    assert scores.shape == (2,) and (scores > 0.5).all()


@pytest.mark.slow
def test_auto_fit_params_reach_auto_fit(jobs):
    X, salary, _ = jobs
    seen = []
    AutoRegressor(
        **FAST, auto_fit_params={"callbacks": [lambda study, trial: seen.append(1)]}
    ).fit(X, salary)
    assert seen == [1]


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"time_budget": 3}, "parameter of AutoRegressor itself"),
        ({"n_trail": 3}, "not a keyword of autocat.auto_fit"),
    ],
)
def test_auto_fit_params_are_checked_before_the_search(jobs, params, match):
    X, salary, _ = jobs
    with pytest.raises(ValueError, match=match):
        AutoRegressor(**FAST, auto_fit_params=params).fit(X, salary)


def test_classifier_refuses_a_single_class_before_the_search(jobs):
    X, _, _ = jobs
    with pytest.raises(ValueError, match="at least 2 classes"):
        AutoClassifier(**FAST).fit(X, ["a"] * len(X))
