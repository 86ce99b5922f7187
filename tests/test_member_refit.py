"""When a final model's member is refit on all rows, and when fold models stand in."""

import time

import numpy as np
import pandas as pd
import pytest

import autocat._members as members
from autocat._budget import Budget
from autocat._members import REFIT_MARGIN, TrainingRows, member_model, refit_seconds
from autocat._trials import TrialRecord


def _record() -> TrialRecord:
    # 1 s of encoding and 2 s of boosting per fold, 100 trees kept of 120
    return TrialRecord(
        number=4, params={}, rounds=[100], fold_seconds=[3.0], boost_seconds=[2.0],
        boosted_rounds=[120], threads=1, vectorizers=[object()],
    )  # fmt: skip


@pytest.fixture
def paths(monkeypatch):
    """Record which path member_model takes, without fitting anything."""
    taken: list[str] = []

    def refit(record, training, budget, trees):
        taken.append("refit")
        return "refitted"

    def fold_models(record, training, folds):
        taken.append("fold models")
        return "averaged"

    monkeypatch.setattr(members, "_refit", refit)
    monkeypatch.setattr(members, "fold_models", fold_models)
    return taken


def _call(first: bool, left: float) -> tuple:
    training = TrainingRows(pd.DataFrame({"x": np.arange(200.0)}), np.arange(200.0),
                            "regression", 0, 1)  # fmt: skip
    return member_model(_record(), first, Budget(time.monotonic() + left), [None],
                        training, (100.0, 200.0))  # fmt: skip


def _needed() -> float:
    return refit_seconds(_record(), 200, 100.0, 200.0, 1)


def test_the_first_member_is_refit_when_its_estimate_fits_without_the_margin(paths):
    # The search kept the margined estimate free when the trial became the
    # best; the trials in flight then ended later, and the time left is
    # between the estimate and the margined estimate: the refit is tried,
    # rather than leave that time unused.
    left = 0.5 * (1.0 + REFIT_MARGIN) * _needed()
    assert _call(first=True, left=left) == ("refitted", "refit", False)
    assert paths == ["refit"]


def test_a_later_member_keeps_the_margin(paths):
    left = 0.5 * (1.0 + REFIT_MARGIN) * _needed()
    assert _call(first=False, left=left) == ("averaged", "fold models", False)
    assert paths == ["fold models"]


def test_the_first_member_is_not_refit_when_even_its_estimate_does_not_fit(paths):
    assert _call(first=True, left=0.9 * _needed())[1] == "fold models"
    assert paths == ["fold models"]
