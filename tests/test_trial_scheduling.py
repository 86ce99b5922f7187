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


def _frame(n, seed=0):
    rng = np.random.default_rng(seed)
    jobs = rng.choice(["police officer", "bus operator", "nurse", "clerk"], n)
    df = pd.DataFrame({"job": jobs, "years": rng.integers(0, 30, n).astype(float)})
    df["salary"] = (
        df["years"] * 2.0 + (df["job"] == "nurse") * 10.0 + rng.normal(0, 1, n)
    )
    return df


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
    auto_fit(_frame(80), "salary", time_budget=12, n_jobs=2, show_progress=False)
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
    real_run = TrialRunner.run

    def run(self, trial, *args):
        if trial.number == 2:
            stop = time.monotonic() + 20
            while time.monotonic() < stop:
                if self.budget.exhausted():
                    raise BudgetExhausted("cut")
                time.sleep(0.05)
        return real_run(self, trial, *args)

    def interrupt(study, trial):
        if trial.number == 1:
            raise KeyboardInterrupt

    monkeypatch.setattr(TrialRunner, "run", run)
    start = time.monotonic()
    result = auto_fit(_frame(60), "salary", time_budget=40, n_jobs=2,
                      show_progress=False, callbacks=[interrupt])  # fmt: skip
    assert time.monotonic() - start < 15
    assert result.interrupted_ and result.predict(_frame(60)).shape == (60,)
