"""Where OpenMP work runs: autocat's fits and predictions leave no team behind."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import numpy as np
import pandas as pd
import pytest
import xgboost

import autocat
import autocat._auto
import autocat._tuning
from autocat._ensemble import EnsembleModel
from autocat._threads import in_own_thread, release_callers_openmp_team

TASKS_DIR = "/proc/self/task"
needs_proc = pytest.mark.skipif(
    not os.path.isdir(TASKS_DIR), reason="counts the process's threads in /proc"
)


def test_in_own_thread_caps_xgboost_there_and_raises_in_the_caller():
    caller = threading.get_ident()
    before = xgboost.get_config()["nthread"]
    seen = in_own_thread(3, lambda: (threading.get_ident(), xgboost.get_config()))
    assert seen[0] != caller and seen[1]["nthread"] == 3
    assert xgboost.get_config()["nthread"] == before  # the caller's is untouched

    def fail() -> None:
        raise ValueError("no such column 'x'")

    with pytest.raises(ValueError, match="no such column 'x'"):
        in_own_thread(1, fail)


def test_in_own_thread_runs_in_place_in_autocats_own_threads():
    outer = in_own_thread(
        None, lambda: in_own_thread(None, threading.get_ident, name="predict")
    )
    inner_name = in_own_thread(
        2, lambda: in_own_thread(None, lambda: threading.current_thread().name)
    )
    assert outer != threading.get_ident()
    assert inner_name.startswith("autocat-fit")  # not a thread of its own


def _settled_thread_count() -> int:
    """The process's threads, once no thread has started or ended for 0.3 s."""
    count, since, start = len(os.listdir(TASKS_DIR)), time.monotonic(), time.monotonic()
    while time.monotonic() - since < 0.3 and time.monotonic() - start < 10:
        time.sleep(0.02)
        now = len(os.listdir(TASKS_DIR))
        if now != count:
            count, since = now, time.monotonic()
    return count


def _threads_left_by(calls: Any) -> int:
    """Threads that ``calls()``, run in a new caller thread, leaves while it lives."""
    left: list[int] = []
    errors: list[BaseException] = []

    def caller() -> None:
        try:
            before = _settled_thread_count()
            calls()
            left.append(_settled_thread_count() - before)
        except BaseException as error:  # raised in the test's thread below
            errors.append(error)

    thread = threading.Thread(target=caller)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return left[0]


@pytest.fixture(scope="module", params=[True, False], ids=["ensemble", "single"])
def fitted(request: pytest.FixtureRequest) -> tuple[pd.DataFrame, Any]:
    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame(
        {
            "title": rng.choice([f"clerk grade {i}" for i in range(60)], n),
            "years": rng.normal(size=n),
        }
    )
    y = np.where(X["years"] + rng.normal(scale=0.5, size=n) > 0, "high", "low")
    result = autocat.auto_fit(
        X.assign(level=y),
        "level",
        n_trials=4,
        n_jobs=2,
        ensemble=request.param,
        show_progress=False,
    )
    return X, result


@needs_proc
def test_predictions_leave_no_openmp_team_in_the_callers_thread(fitted):
    X, result = fitted
    numbers = X[["years"]].to_numpy()
    plain = xgboost.XGBClassifier(n_estimators=3, n_jobs=2)
    plain.fit(numbers, (numbers[:, 0] > 0).astype(int))
    # The control: XGBoost's own predictions, in the caller's thread, leave
    # the caller an idle OpenMP team (one more thread while it lives).
    if _threads_left_by(lambda: plain.predict(numbers)) == 0:
        pytest.skip("this XGBoost leaves no OpenMP team behind: nothing to check")
    model = result.model_
    members = model.members_ if isinstance(model, EnsembleModel) else [model]
    learners = [member.steps[-1][1] for member in members]
    assert any(isinstance(m, xgboost.XGBModel) and m.n_jobs == 2 for m in learners), (
        learners
    )

    def predictions() -> None:
        result.predict(X)
        result.predict_proba(X)
        if isinstance(model, EnsembleModel):
            model.predict(X)  # the ensemble itself, e.g. as a Pipeline's step

    assert _threads_left_by(predictions) == 0


@needs_proc
def test_a_rescued_call_and_its_report_leave_no_openmp_team(
    monkeypatch, trials_never_finish, tmp_path
):
    # The fallback fits before the first trial, on every thread (as on 20,000
    # rows or more); no trial finishes, so the rescue recipe is trained, scored
    # on the rows outside its sample, and returned.
    monkeypatch.setattr(autocat._tuning, "_available_cores", lambda: 2)
    monkeypatch.setattr(autocat._auto, "first_trial_threads", lambda *args: 2)
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "title": rng.choice([f"clerk grade {i}" for i in range(50)], 400),
            "age": rng.uniform(20, 60, 400),
        }
    )
    frame["salary"] = frame["age"] + rng.normal(scale=10.0, size=400)
    results: list[Any] = []

    def fit() -> None:
        results.append(
            autocat.auto_fit(
                frame, "salary", time_budget=3, n_jobs=2, show_progress=False
            )
        )

    assert _threads_left_by(fit) == 0
    assert "model: the rescue recipe" in results[0].summary()
    assert _threads_left_by(lambda: results[0].report(tmp_path / "report.html")) == 0


def _histogram_boosting_fit() -> None:
    """A scikit-learn fit whose OpenMP regions run on every core, in the caller."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(2_000, 10))
    HistGradientBoostingClassifier(max_iter=5).fit(X, (X[:, 0] > 0).astype(int))


@needs_proc
def test_the_callers_idle_openmp_team_is_released():
    # The control: the fit leaves the caller a team (one more thread at least).
    if _threads_left_by(_histogram_boosting_fit) == 0:
        pytest.skip("one core, or an OpenMP runtime that leaves no team: no check")
    released: list[int] = []

    def fit_then_release() -> None:
        _histogram_boosting_fit()
        released.append(release_callers_openmp_team())

    assert _threads_left_by(fit_then_release) == 0
    assert released == [1]


@needs_proc
def test_auto_fit_releases_the_team_of_the_callers_earlier_work():
    if _threads_left_by(_histogram_boosting_fit) == 0:
        pytest.skip("one core, or an OpenMP runtime that leaves no team: no check")
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {
            "title": rng.choice([f"clerk grade {i}" for i in range(40)], 300),
            "years": rng.normal(size=300),
        }
    )
    frame["pay"] = frame["years"] + rng.normal(scale=0.3, size=300)

    def earlier_work_then_auto_fit() -> None:
        _histogram_boosting_fit()
        autocat.auto_fit(frame, "pay", n_trials=2, n_jobs=2, show_progress=False)

    assert _threads_left_by(earlier_work_then_auto_fit) == 0
