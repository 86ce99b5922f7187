"""How trials share the threads under a time budget: the next starts when one ends."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

from autocat import auto_fit
from autocat._budget import BudgetExhausted
from autocat._trials import TrialRunner
from autocat._tuning import _available_cores


def _table(n):
    """A small regression table: a few trials of it take well under a second."""
    rng = np.random.default_rng(7)
    cities = rng.choice(["Paris", "Lyon", "Nice", "Lille"], n)
    size = rng.uniform(20, 120, n)
    rent = size * 15 + (cities == "Paris") * 400 + rng.normal(0, 50, n)
    return pd.DataFrame({"city": cities, "size": size, "rent": rent})


@pytest.mark.skipif(_available_cores() < 2, reason="needs two cores for two trials")
def test_with_a_time_budget_a_free_thread_starts_the_next_trial(monkeypatch):
    # Trial 1 is slow. With a time budget, the other thread runs the next trials
    # meanwhile; in fixed batches of two it would wait for trial 1 to end.
    spans = {}
    real_run = TrialRunner.run

    def run(self, trial, *args):
        start = time.monotonic()
        if trial.number == 1:
            time.sleep(4)
        try:
            return real_run(self, trial, *args)
        finally:
            spans[trial.number] = (start, time.monotonic())

    monkeypatch.setattr(TrialRunner, "run", run)
    auto_fit(_table(80), "rent", time_budget=12, n_jobs=2, show_progress=False)
    slow_start, slow_end = spans[1]
    meanwhile = [
        number
        for number, (start, end) in spans.items()
        if number > 1 and start >= slow_start and end <= slow_end
    ]
    assert len(meanwhile) >= 2, spans


@pytest.mark.skipif(_available_cores() < 2, reason="needs two cores for two trials")
def test_ctrl_c_under_a_time_budget_cuts_the_trials_in_flight(monkeypatch):
    # Trials 1 and 2 run together; Ctrl-C while trial 1 is told must cut trial 2
    # (here 20 s long) at its next check of the budget, not wait for its end.
    # Times are taken around the interruption itself, not the whole call, which a
    # loaded machine may slow.
    real_run = TrialRunner.run
    events = {}

    def run(self, trial, *args):
        if trial.number == 2:
            events["started"] = time.monotonic()
            stop = time.monotonic() + 20
            while time.monotonic() < stop:
                if self.budget.exhausted():
                    events["cut"] = time.monotonic()
                    raise BudgetExhausted("cut")
                time.sleep(0.05)
        return real_run(self, trial, *args)

    def interrupt(study, trial):
        if trial.number == 1:
            events["interrupted"] = time.monotonic()
            raise KeyboardInterrupt

    monkeypatch.setattr(TrialRunner, "run", run)
    result = auto_fit(_table(60), "rent", time_budget=40, n_jobs=2,
                      show_progress=False, callbacks=[interrupt])  # fmt: skip
    assert events["started"] < events["interrupted"], events  # they ran together
    assert 0 <= events.get("cut", np.inf) - events["interrupted"] < 5, events
    assert result.interrupted_ and result.predict(_table(60)).shape == (60,)
