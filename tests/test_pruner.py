"""The search's pruner: successive halving at rungs of rounds, among told trials."""

from __future__ import annotations

import numpy as np
import optuna
import pandas as pd
import pytest
from optuna.trial import TrialState, create_trial
from sklearn.metrics import get_scorer
from sklearn.model_selection import KFold

from autocat._pruner import RungPruner
from autocat._trials import LOG_SCALE_STEPS, PRUNE_EVERY
from autocat._tuning import tune

optuna.logging.set_verbosity(optuna.logging.WARNING)


def _study(told: list[tuple[TrialState, dict[int, float]]], **options) -> optuna.Study:
    """A study of finished trials, each with its reports (step -> value)."""
    study = optuna.create_study(direction="maximize", pruner=RungPruner(**options))
    for state, reports in told:
        value = reports[max(reports)] if state == TrialState.COMPLETE else None
        study.add_trial(
            create_trial(state=state, value=value, intermediate_values=reports)
        )
    return study


def _prunes(study: optuna.Study, reports: dict[int, float]) -> list[bool]:
    """Ask a trial, report each value, and return what the pruner said each time."""
    trial = study.ask()
    said = []
    for step, value in reports.items():
        trial.report(value, step)
        said.append(trial.should_prune())
    return said


def _complete(*values: float, step: int = 20) -> list:
    return [(TrialState.COMPLETE, {step: v}) for v in values]


def _pruned(*values: float, step: int = 20) -> list:
    return [(TrialState.PRUNED, {step: v}) for v in values]


def test_rungs_are_geometric_and_nothing_is_pruned_between_them():
    pruner = RungPruner()
    assert [r for r in range(1, 2000) if pruner.is_rung(r)] == [20, 60, 180, 540, 1620]
    told = [(TrialState.COMPLETE, dict.fromkeys(range(10, 200, 10), 0.0))] * 6
    # a trial far worse than every told one is stopped at the rungs only
    said = _prunes(_study(told), {10: -9.0, 30: -9.0, 40: -9.0, 50: -9.0, 60: -9.0})
    assert said == [False, False, False, False, True]
    assert _prunes(_study(told), {20: -9.0}) == [True]


def test_the_best_third_of_the_trials_at_a_rung_goes_on():
    # 9 told trials at 20 rounds: -0.9 ... -0.1; the bar is their 2/3 quantile
    told = _complete(*[-v / 10 for v in range(1, 10)])
    bar = np.quantile([-v / 10 for v in range(1, 10)], 2 / 3)
    assert _prunes(_study(told), {20: bar + 1e-6}) == [False]
    assert _prunes(_study(told), {20: bar - 1e-6}) == [True]
    # a reduction factor of 2 keeps the better half
    assert _prunes(_study(told, reduction_factor=2), {20: -0.45}) == [False]
    assert _prunes(_study(told, reduction_factor=2), {20: -0.55}) == [True]


def test_pruned_trials_compete_at_the_rungs_they_reached():
    # Five complete trials are the survivors of ten pruned at 20 rounds: a
    # median over the complete ones (-0.12) would stop a trial at -0.2; among
    # all fifteen that reached the rung, -0.2 is in the best third.
    survivors = _complete(-0.10, -0.11, -0.12, -0.13, -0.14)
    told = survivors + _pruned(*[-0.5 - v / 20 for v in range(10)])
    assert _prunes(_study(told), {20: -0.2}) == [False]
    assert _prunes(_study(survivors), {20: -0.2}) == [True]
    median = optuna.create_study(
        direction="maximize", pruner=optuna.pruners.MedianPruner(n_startup_trials=5)
    )
    for state, reports in told:
        value = reports[20] if state == TrialState.COMPLETE else None
        median.add_trial(
            create_trial(state=state, value=value, intermediate_values=reports)
        )
    assert _prunes(median, {20: -0.2}) == [True]


def test_only_told_trials_count():
    # running trials have reported better values, but a batch is told at once:
    # what they reported must not change what this trial is told
    study = _study(_complete(-0.5, -0.6, -0.7, -0.8, -0.9))
    for _ in range(6):
        study.ask().report(0.0, 20)
    assert _prunes(study, {20: -0.55}) == [False]
    # and fewer than min_trials told trials at a rung prune nothing
    assert _prunes(_study(_complete(0.0, 0.0, 0.0, 0.0)), {20: -9.0}) == [False]
    assert _prunes(_study(_complete(0.0, 0.0), min_trials=2), {20: -9.0}) == [True]


def test_a_log_scale_trial_competes_with_its_own_scale_only():
    raw = _complete(-0.1, -0.2, -0.3, -0.4, -0.5)
    log_step = LOG_SCALE_STEPS + 20
    assert _prunes(_study(raw), {log_step: -5.0}) == [False]
    logs = _complete(-1.0, -2.0, -3.0, -4.0, -5.0, step=log_step)
    assert _prunes(_study(raw + logs), {log_step: -4.5}) == [True]
    assert _prunes(_study(raw + logs), {log_step: -1.5}) == [False]


def test_a_nan_loss_is_pruned_and_bad_settings_are_refused():
    assert _prunes(_study(_complete(0.0) * 6), {20: float("nan")}) == [True]
    with pytest.raises(ValueError, match="reduction_factor >= 2"):
        RungPruner(reduction_factor=1)


def test_the_search_prunes_with_rungs_by_default():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300)})
    y = X["a"].to_numpy() + rng.normal(size=300)
    outcome = tune(
        X, y, task="regression", scorer=get_scorer("r2"),
        splits=list(KFold(3, shuffle=True, random_state=0).split(X)), n_trials=2,
        time_budget=None, deadline=None,
    )  # fmt: skip
    assert isinstance(outcome.study.pruner, RungPruner)
    assert outcome.study.pruner.first_rung == 2 * PRUNE_EVERY
