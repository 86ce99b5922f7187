"""Checks that every public estimator of autocat must pass."""

import inspect

import pytest
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.estimator_checks import parametrize_with_checks

import autocat
from autocat.testing import string_encoder_checks

# Small but valid settings so that the whole check suite stays fast.
FAST_PARAMS = {
    "AutoClassifier": {"time_budget": None, "n_trials": 1, "cv": 2},
    "AutoRegressor": {"time_budget": None, "n_trials": 1, "cv": 2},
    "MinHashEncoder": {"n_components": 4},
    "GammaPoissonEncoder": {"n_components": 3, "max_iter": 3, "random_state": 0},
    "TableVectorizer": {},
    "DatetimeEncoder": {},
    "TextEncoder": {"n_components": 3, "random_state": 0},
}

# One reason per check that an estimator is expected to fail.
EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {}
# Estimators whose every fit runs a whole search (~1 s): their checks are slow.
SEARCHING_ESTIMATORS = {"AutoClassifier", "AutoRegressor"}


def public_estimators(searching=None):
    """Every estimator class exported by autocat, with fast parameters.

    ``searching=False`` keeps the estimators that fit in a blink, ``True`` those
    that run a search; ``None`` keeps all.
    """
    estimators = []
    for name in sorted(autocat.__all__):
        obj = getattr(autocat, name)
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
            if searching is None or (name in SEARCHING_ESTIMATORS) == searching:
                estimators.append(obj(**FAST_PARAMS.get(name, {})))
    return estimators


def string_encoders():
    """Public transformers that encode string columns."""
    return [
        e
        for e in public_estimators()
        if isinstance(e, TransformerMixin)
        and type(e).__name__.endswith("Encoder")
        and type(e).__name__ != "DatetimeEncoder"
    ]


def test_every_estimator_has_fast_parameters():
    for estimator in public_estimators():
        assert type(estimator).__name__ in FAST_PARAMS


@parametrize_with_checks(
    public_estimators(searching=False),
    expected_failed_checks=lambda e: EXPECTED_FAILED_CHECKS.get(type(e).__name__, {}),
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


@pytest.mark.slow
@parametrize_with_checks(
    public_estimators(searching=True),
    expected_failed_checks=lambda e: EXPECTED_FAILED_CHECKS.get(type(e).__name__, {}),
)
def test_sklearn_compatible_searching_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("encoder", string_encoders(), ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("check", string_encoder_checks(), ids=lambda c: c.__name__)
def test_string_encoder(encoder, check):
    check(encoder)
