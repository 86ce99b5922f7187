"""The search's pruner: successive halving at rungs of rounds, among told trials."""

from __future__ import annotations

import math

import numpy as np
import optuna
from optuna.trial import FrozenTrial, TrialState

from autocat._trials import LOG_SCALE_STEPS

__all__ = ["RungPruner"]


class RungPruner(optuna.pruners.BasePruner):
    """Stop a trial that is not among the best of those that reached its rung.

    A trial reports its stop rows' loss every few boosting rounds. At the rungs,
    ``first_rung * reduction_factor**k`` rounds (20, 60, 180, 540 by default),
    it goes on only if its value is at least the ``1 - 1 / reduction_factor``
    quantile (the best third by default) of the values that the *finished*
    trials, complete or pruned, reported at the same step; between rungs it is
    never stopped. This is successive halving (Jamieson & Talwalkar, 2016) as
    asynchronous searches run it, with two choices of its own:

    - Pruned trials compete at the rungs they reached. A median over complete
      trials after every few rounds compares each trial with the survivors of
      earlier cuts only, and stops about half of those near the best at each
      step: on the benchmark tables, 60% to 97% of the trials ended pruned,
      and the sampler took each of them for a bad point.
    - Only *told* trials count: trials are told a batch at a time, so what is
      pruned never depends on which trial of a batch ran first, and a search
      of ``n_trials`` gives the same result with any number of threads.

    A trial on a log target reports its steps from
    :data:`~autocat._trials.LOG_SCALE_STEPS` on, a loss of another scale: it
    competes at the same rungs with the trials of its scale only (equal steps).

    Parameters
    ----------
    first_rung : int, default=20
        Rounds of the first rung (a multiple of the reporting interval).
    reduction_factor : int, default=3
        Rungs are this many times apart; the best ``1 / reduction_factor`` of
        the values at a rung go on.
    min_trials : int, default=5
        A rung prunes nothing until this many finished trials reported there.

    Examples
    --------
    >>> import optuna
    >>> from autocat._pruner import RungPruner
    >>> optuna.logging.set_verbosity(optuna.logging.WARNING)
    >>> study = optuna.create_study(direction="maximize", pruner=RungPruner())
    >>> for value in range(6):  # six told trials, -0.5 ... -0.0 at 20 rounds
    ...     study.add_trial(optuna.trial.create_trial(
    ...         value=-value / 10, intermediate_values={20: -value / 10}))
    >>> trial = study.ask()
    >>> trial.report(-0.25, step=10)  # between rungs: never pruned
    >>> trial.should_prune()
    False
    >>> trial.report(-0.25, step=20)  # at a rung, below the best third
    >>> trial.should_prune()
    True
    """

    def __init__(
        self, first_rung: int = 20, reduction_factor: int = 3, min_trials: int = 5
    ) -> None:
        if first_rung < 1 or reduction_factor < 2 or min_trials < 1:
            raise ValueError(
                "RungPruner needs first_rung >= 1, reduction_factor >= 2 and "
                f"min_trials >= 1; got {first_rung}, {reduction_factor}, {min_trials}."
            )
        self.first_rung = first_rung
        self.reduction_factor = reduction_factor
        self.min_trials = min_trials

    def is_rung(self, rounds: int) -> bool:
        """Return whether ``rounds`` is a rung: ``first_rung * reduction_factor**k``.

        Examples
        --------
        >>> from autocat._pruner import RungPruner
        >>> [r for r in range(1, 600) if RungPruner().is_rung(r)]
        [20, 60, 180, 540]
        """
        rung = self.first_rung
        while rung < rounds:
            rung *= self.reduction_factor
        return rung == rounds

    def prune(self, study: optuna.Study, trial: FrozenTrial) -> bool:
        step = trial.last_step
        if step is None or not self.is_rung(step % LOG_SCALE_STEPS):
            return False
        value = trial.intermediate_values[step]
        if math.isnan(value):
            return True
        finished = study.get_trials(
            deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED)
        )
        reached = [
            t.intermediate_values[step]
            for t in finished
            if step in t.intermediate_values
        ]
        reached = [v for v in reached if not math.isnan(v)]
        if len(reached) < self.min_trials:
            return False
        best = 1 / self.reduction_factor  # the share that goes on
        if study.direction == optuna.study.StudyDirection.MINIMIZE:
            return value > float(np.quantile(reached, best))
        return value < float(np.quantile(reached, 1 - best))

    def __repr__(self) -> str:
        return (
            f"RungPruner(first_rung={self.first_rung}, reduction_factor="
            f"{self.reduction_factor}, min_trials={self.min_trials})"
        )
