"""The fallback model of a time-budgeted search: fitted beside its first trial."""

import re
import threading
import time

import numpy as np
import pandas as pd
import pytest

import autocat._auto
import autocat._rescue
import autocat._trials
import autocat._tuning
from autocat import auto_fit
from autocat._budget import Budget, FirstResultDeadline
from autocat._rescue import Insurance


def _frame(n, seed=0):
    """Pay by grade (in a dirty title) and age."""
    rng = np.random.default_rng(seed)
    grade = rng.integers(0, 12, n)
    titles = [f"clerk, grade {g}" if g % 3 else f"Clerk grade {g}" for g in grade]
    df = pd.DataFrame({"title": titles, "age": rng.uniform(20, 60, n)})
    df["salary"] = 3.0 * grade + 0.1 * df["age"] + rng.normal(0, 1, n)
    return df


@pytest.fixture
def two_cores(monkeypatch):
    """Two cores whatever the machine: the first trial then leaves one free."""
    monkeypatch.setattr(autocat._tuning, "_available_cores", lambda: 2)


def _slow_fallback(monkeypatch, seconds, log):
    """Make the fallback's fit take ``seconds`` more, cut by its budget."""
    real = autocat._rescue.fallback_model

    def slow(X, y, *args, n_rows=1000, budget=None, **kwargs):
        name = threading.current_thread().name
        log.append(("start", time.monotonic(), name, n_rows))
        end = time.monotonic() + (seconds if n_rows == 1000 else 0.0)
        while time.monotonic() < end:
            if budget is not None and budget.exhausted():
                log.append(("cut", time.monotonic(), name, n_rows))
                return None
            time.sleep(0.01)
        model = real(X, y, *args, n_rows=n_rows, budget=budget, **kwargs)
        log.append(("end", time.monotonic(), name, n_rows))
        return model

    monkeypatch.setattr(autocat._rescue, "fallback_model", slow)


def _first_trial_starts(monkeypatch):
    starts = []
    real = autocat._trials.TrialRunner.run

    def spy(self, *args, **kwargs):
        starts.append(time.monotonic())
        return real(self, *args, **kwargs)

    monkeypatch.setattr(autocat._trials.TrialRunner, "run", spy)
    return starts


@pytest.mark.parametrize(("n_jobs", "beside"), [(1, False), (2, True)])
def test_the_fallback_is_fitted_beside_the_first_trial_when_a_core_is_free(
    monkeypatch, two_cores, n_jobs, beside
):
    # On two cores the first trial of a small table runs alone on one thread:
    # the fallback takes the other, and the search starts at once. On one core
    # it is fitted first, and waited for.
    log = []
    _slow_fallback(monkeypatch, 1.5, log)
    starts = _first_trial_starts(monkeypatch)
    result = auto_fit(_frame(600), "salary", time_budget=6, n_jobs=n_jobs,
                      show_progress=False)  # fmt: skip
    (_, fallback_start, thread, _), *_ = log
    fallback_end = next(when for event, when, *_ in log if event in ("end", "cut"))
    assert starts and result.n_trials_ > 0
    # in a thread of its own either way: no OpenMP team stays in the caller's
    assert thread.startswith("autocat-insurance")
    if beside:
        assert starts[0] < fallback_start + 0.5 < fallback_end
    else:
        assert starts[0] >= fallback_end


def test_a_fallback_fitted_before_the_search_uses_every_thread(monkeypatch, two_cores):
    # When the first trial takes every thread (a large table), nothing runs
    # beside the fallback: it is fitted first, on all of them, and the rescue's
    # reserve takes its time as measured on those threads.
    monkeypatch.setattr(autocat._auto, "first_trial_threads", lambda *args: 2)
    fits, reserves = [], []
    real_fallback = autocat._rescue.fallback_model
    real_reserve = autocat._auto.rescue_seconds

    def fallback_spy(X, y, task, seed, n_threads, *args, **kwargs):
        fits.append((threading.current_thread().name, n_threads))
        return real_fallback(X, y, task, seed, n_threads, *args, **kwargs)

    def reserve_spy(*args):
        reserves.append(args)
        return real_reserve(*args)

    monkeypatch.setattr(autocat._rescue, "fallback_model", fallback_spy)
    monkeypatch.setattr(autocat._auto, "rescue_seconds", reserve_spy)
    auto_fit(_frame(3000), "salary", time_budget=6, n_jobs=2, show_progress=False)

    # waited for, in a thread that ends with it (see autocat._threads)
    assert fits[0][0].startswith("autocat-insurance") and fits[0][1] == 2
    (*_, threads, fallback_threads), = reserves  # fmt: skip
    assert (threads, fallback_threads) == (2, 2)


def test_a_fallback_the_search_did_not_need_is_cut_and_its_thread_ended(
    monkeypatch, two_cores
):
    # A fallback that would take a minute does not hold the call: trials
    # finished, so its fit is cut at the end of the search and its thread ends
    # before auto_fit returns.
    log = []
    _slow_fallback(monkeypatch, 60.0, log)
    budget = 4.0
    start = time.monotonic()
    result = auto_fit(_frame(600), "salary", time_budget=budget, n_jobs=2,
                      show_progress=False)  # fmt: skip
    elapsed = time.monotonic() - start
    assert elapsed <= max(1.1 * budget, budget + 2), elapsed
    assert result.n_trials_ > 0
    assert [event for event, *_ in log] == ["start", "cut"]
    alive = [t.name for t in threading.enumerate()]
    assert not [name for name in alive if name.startswith("autocat-insurance")]


def test_the_rescue_keeps_its_time_when_the_fallback_ends_during_the_search(
    monkeypatch, two_cores, trials_never_finish
):
    # Trials that never finish, and a fallback that ends 1.5 s into the search:
    # its fit sets how long the rescue needs, and the search, already running,
    # gives up then; the rescue recipe, trained on more rows, is the model.
    log, kept, gave_up = [], [], trials_never_finish
    _slow_fallback(monkeypatch, 1.5, log)
    real_seconds = autocat._auto.rescue_seconds

    def spy(*args):
        kept.append((time.monotonic(), real_seconds(*args)))
        return kept[-1][1]

    monkeypatch.setattr(autocat._auto, "rescue_seconds", spy)
    df = _frame(3000, seed=4)
    budget = 9.0
    start = time.monotonic()
    result = auto_fit(df, "salary", time_budget=budget, n_jobs=2, show_progress=False)
    elapsed = time.monotonic() - start
    (set_at, reserve), = kept  # fmt: skip
    assert set_at - start > 1.0  # set by the fallback, while the search ran
    assert reserve >= budget / 3
    # the search gave up when the reserve began; with time left after the
    # rescue, a resumed search may give up again, by the deadline
    assert gave_up and gave_up[0] - start < budget - reserve + 0.5
    assert max(gave_up) - start < budget + 0.5
    assert result.n_trials_ == 0
    rows = re.search(r"a sample of ([\d,]+) of 3,000 rows", result.summary())
    assert rows and int(rows.group(1).replace(",", "")) > 1000
    assert elapsed <= max(1.1 * budget, budget + 2), elapsed


def test_the_rescue_recipes_score_is_on_the_rows_outside_its_sample():
    # The rescue recipe trained on 500 of 1,500 rows: its score is scikit-learn's
    # R² of its predictions of the other 1,000, which chose nothing; none when
    # no time is left, or no row is outside the sample.
    from sklearn.metrics import r2_score

    from autocat._members import TrainingRows
    from autocat._rescue import fallback_model, rescue_holdout_score, rescue_rows

    df = _frame(1500, seed=2)
    y = df.pop("salary").to_numpy()
    model = fallback_model(df, y, "regression", 0, 1, n_rows=500)
    training = TrainingRows(df, y, "regression", 0, 1)
    later = time.monotonic() + 60.0
    score, n_scored = rescue_holdout_score((model, 500), training, "r2", later, 0.1)
    outside = np.setdiff1d(np.arange(1500), rescue_rows(y, "regression", 0, 500))
    assert n_scored == len(outside) == 1000
    expected = r2_score(y[outside], model.predict(df.iloc[outside]))
    assert score == pytest.approx(expected, abs=1e-5)
    sample = rescue_rows(y, "regression", 0, 500)
    trained_on = r2_score(y[sample], model.predict(df.iloc[sample]))
    assert score != pytest.approx(trained_on, abs=1e-4)
    # time for only some of them: fewer rows, still outside the sample
    score_some, n_some = rescue_holdout_score(
        (model, 500), training, "r2", time.monotonic() + 0.5, 0.5
    )
    assert 2 <= n_some < 1000 and np.isfinite(score_some)
    past = time.monotonic() - 1.0
    score_none, n_none = rescue_holdout_score((model, 500), training, "r2", past, 0.1)
    assert np.isnan(score_none) and n_none == 0
    everything = fallback_model(df, y, "regression", 0, 1, n_rows=1500)
    score_all, n_all = rescue_holdout_score(
        (everything, 1500), training, "r2", later, 0.1
    )
    assert np.isnan(score_all) and n_all == 0


def test_the_first_result_deadline_holds_until_a_trial_finishes():
    budget = Budget(100.0)
    first = FirstResultDeadline()
    first.set(80.0)  # before the search binds it
    first.set(90.0)  # the earlier of the two holds
    assert first.when == 80.0
    first.bind(budget, 100.0)
    assert budget.deadline == 80.0
    first.arrived()
    assert budget.deadline == 100.0
    budget.deadline = 95.0  # the search's own reserve, set later
    first.set(10.0)
    first.arrived()
    assert budget.deadline == 95.0
    unbound = FirstResultDeadline(50.0)
    no_deadline = Budget(None)
    unbound.bind(no_deadline, None)
    assert no_deadline.deadline is None


def test_an_insurance_error_is_raised_to_whoever_needs_the_model(monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("column 'title' cannot be encoded")

    monkeypatch.setattr(autocat._rescue, "fallback_model", broken)
    frame = _frame(50)
    insurance = Insurance(frame[["title"]], frame["salary"].to_numpy(), "regression",
                          0, None, background=True)  # fmt: skip
    with pytest.raises(ValueError, match="cannot be encoded"):
        insurance.get()
    with pytest.raises(ValueError, match="cannot be encoded"):
        Insurance(frame[["title"]], frame["salary"].to_numpy(), "regression", 0, None,
                  background=False)  # fmt: skip


def test_only_a_finished_xgboost_trial_stops_the_rescue(monkeypatch, two_cores):
    # A large table (a holdout from the start): every XGBoost trial is slower
    # than the budget, while the linear and forest trials on the first
    # configuration's encoding finish. They are ensemble candidates, never the
    # model alone: the search still ends at the rescue's deadline, and the
    # model is the rescue recipe, far better than the linear member.
    monkeypatch.setattr(autocat._auto, "HOLDOUT_ROWS", 1_000)
    monkeypatch.setattr(autocat._auto, "search_again", lambda *args: False)
    real = autocat._trials.TrialRunner.run
    ran: list[str] = []

    def slow_xgboost(self, trial, params, threads=None, transform="none",
                     learner="xgboost"):  # fmt: skip
        ran.append(learner)
        if learner == "xgboost":
            while not self.budget.exhausted():
                time.sleep(0.01)
            raise autocat._trials.BudgetExhausted("cut while boosting")
        return real(self, trial, params, threads, transform, learner)

    monkeypatch.setattr(autocat._trials.TrialRunner, "run", slow_xgboost)
    rng = np.random.default_rng(0)
    grade = rng.integers(0, 40, 3_000)
    df = pd.DataFrame({
        "title": [f"clerk, grade {g}" for g in grade],
        "age": rng.uniform(20, 60, 3_000),
    })  # fmt: skip
    # a step in each grade: trees follow it, a linear model does not
    df["salary"] = np.where(grade % 2, 50.0, 0.0) + rng.normal(0, 1, 3_000)
    train, test = df.iloc[:2_000], df.iloc[2_000:]

    start = time.monotonic()
    result = auto_fit(train, "salary", time_budget=6, n_jobs=2, random_state=0)
    elapsed = time.monotonic() - start

    assert {"linear", "xgboost"} <= set(ran)  # the linear trial ran, and finished
    summary = result.summary()
    assert "model: the rescue recipe" in summary, summary
    assert result.ensemble_.empty  # no member: the linear trial is not the model
    assert result.score(test.drop(columns="salary"), test["salary"]) > 0.9
    assert elapsed < 6 + 2
