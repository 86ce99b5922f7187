"""Shared fixtures: dataframe libraries, seeds, the datasets beside the repo, spies."""

from __future__ import annotations

import importlib.util
import json
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

# The datasets folder that sits beside a checkout of this repository, if any.
SHARED_DATA = Path(
    os.environ.get(
        "AUTOCAT_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"
    )
)

_DF_MODULES = ["pandas"]
if importlib.util.find_spec("polars") is not None:
    _DF_MODULES.append("polars")


@pytest.fixture(params=_DF_MODULES)
def df_module(request):
    """The pandas module, then polars when it is installed."""
    if request.param == "polars":
        import polars

        return polars
    return pd


@pytest.fixture(params=[0, 1, 42])
def global_random_seed(request):
    """Seeds that every seeded test must pass for."""
    return request.param


@pytest.fixture
def rng(global_random_seed):
    return np.random.default_rng(global_random_seed)


def load_shared_task(name: str, nrows: int | None = None) -> tuple[pd.DataFrame, dict]:
    """Read one dataset of ``../shared/data`` and its task, or skip the test."""
    tasks_file = SHARED_DATA / "tasks.json"
    if not tasks_file.exists():
        pytest.skip(
            f"the shared datasets are not beside this checkout ({SHARED_DATA} is "
            "missing); set AUTOCAT_SHARED_DATA to run this test"
        )
    task = json.loads(tasks_file.read_text())[name]
    path = SHARED_DATA / task["file"]
    if path.suffix == ".parquet":
        frame = pd.read_parquet(path)
        frame = frame.head(nrows) if nrows else frame
    else:
        frame = pd.read_csv(path, low_memory=False, nrows=nrows, **task.get("read", {}))
    return frame, task


@pytest.fixture
def shared_task():
    """``shared_task(name, nrows=None) -> (frame, task)``; skips when absent."""
    return load_shared_task


@pytest.fixture
def planned_fold_seconds(monkeypatch):
    """The first fold's seconds each search planned its protocol (CV or holdout) on."""
    import autocat._trials

    seen: list[float] = []
    original = autocat._trials.TrialRunner.maybe_switch_to_holdout

    def spy(self, fold_seconds):
        seen.append(fold_seconds)
        return original(self, fold_seconds)

    monkeypatch.setattr(autocat._trials.TrialRunner, "maybe_switch_to_holdout", spy)
    return seen


@pytest.fixture
def trials_never_finish(monkeypatch):
    """Trials that run until the search cuts them; the times at which they gave up."""
    import autocat._trials
    from autocat._budget import BudgetExhausted

    gave_up: list[float] = []

    def never_finishes(
        self, trial, params, threads=None, target_transform="none", learner="xgboost"
    ):
        while not self.budget.exhausted():
            time.sleep(0.01)
        gave_up.append(time.monotonic())
        raise BudgetExhausted("cut")

    monkeypatch.setattr(autocat._trials.TrialRunner, "run", never_finishes)
    return gave_up
