"""RepeatBlindTPESampler: TPE blind to trials that repeat another trial's point."""

from __future__ import annotations

import numpy as np
import optuna
import pandas as pd
import pytest
from optuna.distributions import FloatDistribution
from optuna.trial import create_trial
from sklearn.metrics import get_scorer
from sklearn.model_selection import KFold

from autocat._budget import Budget
from autocat._sampler import REPEATS, RepeatBlindTPESampler
from autocat._search_space import default_params, suggest_params
from autocat._splits import inner_splits
from autocat._trials import EncodingCache, TrialRunner

SPACE = {"x": FloatDistribution(0.0, 10.0), "y": FloatDistribution(0.0, 10.0)}
# x, y and the score of the told trials: the best is at (9, 1)
HISTORY = [(1.0, 5.0, 0.1), (3.0, 2.0, 0.3), (5.0, 8.0, 0.2), (7.0, 4.0, 0.5),
           (9.0, 1.0, 0.9), (2.0, 9.0, 0.05)]  # fmt: skip


def _suggestion(sampler: optuna.samplers.BaseSampler, repeats: int) -> dict:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize", sampler=sampler)
    for x, y, value in HISTORY:
        study.add_trial(create_trial(params={"x": x, "y": y}, distributions=SPACE,
                                     value=value))  # fmt: skip
    for _ in range(repeats):  # the best point again, told a little higher
        study.add_trial(create_trial(params={"x": 9.0, "y": 1.0}, distributions=SPACE,
                                     value=0.95, user_attrs={REPEATS: 4}))  # fmt: skip
    trial = study.ask()
    return {name: trial.suggest_float(name, 0.0, 10.0) for name in SPACE}


@pytest.mark.parametrize("multivariate", [True, False])
def test_the_sampler_suggests_as_tpe_would_without_the_repeated_trials(multivariate):
    settings = {"seed": 3, "n_startup_trials": 4, "multivariate": multivariate}
    # the reference: Optuna's own TPE on a history without the repeats
    reference = _suggestion(optuna.samplers.TPESampler(**settings), repeats=0)
    assert _suggestion(RepeatBlindTPESampler(**settings), repeats=3) == reference
    # and the repeats do move plain TPE: the check above can fail
    assert _suggestion(optuna.samplers.TPESampler(**settings), repeats=3) != reference


def test_repeated_trials_stay_in_the_study():
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = RepeatBlindTPESampler(seed=0)
    study = optuna.create_study(direction="maximize", sampler=sampler)
    # the top of the range: no later trial can score above it (at 9.0, one run
    # in ten drew a larger x and the repeated trial was no longer the best)
    study.enqueue_trial({"x": 10.0}, user_attrs={REPEATS: 0})
    study.optimize(lambda trial: trial.suggest_float("x", 0, 10), n_trials=2)
    assert study.best_trial.number == 0 and study.best_trial.user_attrs[REPEATS] == 0


class _PruneAll(optuna.pruners.BasePruner):
    def prune(self, study, trial):
        return True


def test_a_trial_that_repeats_another_is_never_pruned():
    # It measures something the parameters do not hold (a log target): in a
    # study shared by several processes, other processes' trials on the same
    # scale would otherwise prune it, and the measurement would be lost.
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.normal(size=200)})
    y = X["x"].to_numpy() * 3 + rng.normal(0, 1.0, 200)
    splits = list(KFold(2, shuffle=True, random_state=0).split(X))
    runner = TrialRunner(
        X=X, y=y, task="regression", scorer=get_scorer("r2"), splits=splits,
        inner=inner_splits(splits, y, "regression", 0), n_folds=2, random_state=0,
        xgb_threads=1, cache=EncodingCache(), budget=Budget(None), n_classes=0,
    )  # fmt: skip
    study = optuna.create_study(direction="maximize", pruner=_PruneAll())
    params = {**default_params("minhash"), "learning_rate": 0.05}
    study.enqueue_trial(params)
    plain = study.ask()
    with pytest.raises(optuna.TrialPruned):
        runner.run(plain, suggest_params(plain))
    study.enqueue_trial(params, user_attrs={REPEATS: plain.number})
    repeat = study.ask()
    record = runner.run(repeat, suggest_params(repeat))
    assert len(record.fold_scores) == 2
