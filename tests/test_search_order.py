"""The order of the search's queued configurations after a trial that underfits."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import get_scorer
from sklearn.model_selection import KFold

import autocat._portfolio_order
import autocat._trials
from autocat._search_space import default_params
from autocat._tuning import BATCH_TRIALS, tune

# Few rounds, so that the slowest learning rate of the search space runs out of
# them on this small table while the fastest stops early.
ROUNDS = 200


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    n = 120
    X = pd.DataFrame(
        {
            "dept": rng.choice(["fire", "police", "transit"], n),
            "years": rng.integers(0, 30, n).astype(float),
        }
    )
    y = X["years"].to_numpy() * 2.0 + (X["dept"] == "fire").to_numpy() * 10.0
    y = y + rng.normal(0, 1, n)
    splits = list(KFold(2, shuffle=True, random_state=0).split(X))
    return X, y, splits


@pytest.fixture(autouse=True)
def few_rounds(monkeypatch):
    for module in (autocat._trials, autocat._portfolio_order):
        monkeypatch.setattr(module, "MAX_ROUNDS", ROUNDS)
        monkeypatch.setattr(module, "EARLY_STOPPING_ROUNDS", 5)


def _tune(problem, portfolio, n_trials):
    X, y, splits = problem
    return tune(
        X,
        y,
        task="regression",
        scorer=get_scorer("r2"),
        splits=splits,
        n_trials=n_trials,
        time_budget=None,
        deadline=None,
        portfolio=portfolio,
    )


def _next_entry(outcome):
    """The parameters of the first queued entry after the first batch.

    The categorical repeat of the best trial (the table has a department
    column) goes before it in the last batch.
    """
    later = outcome.study.trials[BATCH_TRIALS:]
    assert later[0].user_attrs.get("learner") == "categorical"
    return next(t.params for t in later if "learner" not in t.user_attrs)


def _entry(learning_rate, max_depth=3):
    return {
        **default_params("minhash"),
        "learning_rate": learning_rate,
        "max_depth": max_depth,
    }


def test_an_underfitting_trial_sends_faster_configurations_first(problem):
    # The first batch asks the first BATCH_TRIALS - 2 entries and the linear
    # and forest trials (second and third); its first trial learns so slowly
    # that it boosts all its rounds. Of the two entries left, the one queued
    # first learns slower than it allows, the other faster.
    first_batch = [_entry(0.02)] + [
        _entry(0.5, depth) for depth in range(2, BATCH_TRIALS - 1)
    ]
    slower, faster = _entry(0.02, max_depth=4), _entry(0.4)
    outcome = _tune(problem, [*first_batch, slower, faster], BATCH_TRIALS + 2)
    capped = next(r for r in outcome.records if r.number == 0)
    assert capped.boosted_rounds == [ROUNDS] * 2
    assert _next_entry(outcome)["learning_rate"] == 0.4


def test_the_order_stays_when_no_trial_underfits(problem):
    # BATCH_TRIALS - 2 entries and the linear and forest trials fill the first
    # batch
    first_batch = [_entry(0.5, depth) for depth in range(2, BATCH_TRIALS)]
    slower, faster = _entry(0.02, max_depth=4), _entry(0.4)
    outcome = _tune(problem, [*first_batch, slower, faster], BATCH_TRIALS + 2)
    assert all(rounds < ROUNDS for r in outcome.records for rounds in r.boosted_rounds)
    assert _next_entry(outcome)["learning_rate"] == 0.02
