"""The search's TPE sampler, blind to trials that repeat another trial's point."""

from __future__ import annotations

from typing import Any

import optuna
from optuna.distributions import BaseDistribution
from optuna.trial import FrozenTrial

__all__ = ["FIRST_OF_ENCODER", "REPEATS", "RepeatBlindTPESampler"]

# User attribute of a trial that repeats another trial's parameters to measure
# something the parameters do not hold (e.g. a log target); its value is the
# repeated trial's number.
REPEATS = "repeats"
# User attribute of the first trial of the portfolio that uses an encoder for the
# high-cardinality columns: it is never pruned. The pruner compares losses after
# equal rounds, where a low learning rate trails whatever it ends at; each
# encoder is measured once before the search judges it that way.
FIRST_OF_ENCODER = "first_of_encoder"


class _WithoutRepeats:
    """A view of a study whose trial lists leave out the trials marked REPEATS."""

    def __init__(self, study: optuna.Study) -> None:
        self._study = study

    def __getattr__(self, name: str) -> Any:
        return getattr(self._study, name)

    def _get_trials(self, *args: Any, **kwargs: Any) -> list[FrozenTrial]:
        trials = self._study._get_trials(*args, **kwargs)
        return [trial for trial in trials if REPEATS not in trial.user_attrs]

    def get_trials(self, *args: Any, **kwargs: Any) -> list[FrozenTrial]:
        trials = self._study.get_trials(*args, **kwargs)
        return [trial for trial in trials if REPEATS not in trial.user_attrs]


class RepeatBlindTPESampler(optuna.samplers.TPESampler):
    """Optuna's TPE sampler, blind to trials marked with :data:`REPEATS`.

    A trial that repeats another's parameters (with something else changed
    that the parameters do not hold) would put the same point twice in the
    history TPE models; told with a score near the best, it draws the sampler
    towards that point. Such trials stay in the study (its leaderboard, its
    best trial), only the sampler does not see them. Takes the parameters of
    :class:`optuna.samplers.TPESampler`.

    Examples
    --------
    >>> import optuna
    >>> from autocat._sampler import REPEATS, RepeatBlindTPESampler
    >>> optuna.logging.set_verbosity(optuna.logging.WARNING)
    >>> study = optuna.create_study(sampler=RepeatBlindTPESampler(seed=0))
    >>> study.enqueue_trial({"x": 1.0}, user_attrs={REPEATS: 0})
    >>> study.optimize(lambda trial: trial.suggest_float("x", 0, 2), n_trials=3)
    >>> [REPEATS in trial.user_attrs for trial in study.trials]
    [True, False, False]
    """

    def sample_relative(
        self,
        study: optuna.Study,
        trial: FrozenTrial,
        search_space: dict[str, BaseDistribution],
    ) -> dict[str, Any]:
        view: Any = _WithoutRepeats(study)
        return super().sample_relative(view, trial, search_space)

    def sample_independent(
        self,
        study: optuna.Study,
        trial: FrozenTrial,
        param_name: str,
        param_distribution: BaseDistribution,
    ) -> Any:
        view: Any = _WithoutRepeats(study)
        return super().sample_independent(view, trial, param_name, param_distribution)
