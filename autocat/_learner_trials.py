"""The trials of the learners beside XGBoost, on the first configuration's encoding."""

from __future__ import annotations

from typing import Any

from autocat._sampler import REPEATS

__all__ = ["LEARNER_ATTR", "LearnerTrials"]

#: The user attribute that marks a trial of another learner than XGBoost.
LEARNER_ATTR = "learner"


class LearnerTrials:
    """A trial of each other learner in a search, on the first configuration's encoding.

    The trials after the first repeat the first configuration's parameters with
    ``learner='linear'``, then ``learner='forest'``: a
    :class:`~autocat._linear.LinearRegressor` (for classes,
    :class:`~autocat._linear.LinearClassifier`) and a
    :class:`~autocat._forest.ForestRegressor` (for classes,
    :class:`~autocat._forest.ForestClassifier`) on the same folds and the same
    encoding, which the encoding cache shares (computed once when they run at
    once), so each costs little more than its model's fits. They are
    candidates of the ensemble only: kept out of the trials whose best gives
    ``pipeline_``, ``best_params_``, the final model's time reserve and the
    other measured trials' base, and, since their parameters are their
    base's, marked with a ``repeats`` user attribute, which keeps them out of
    the sampler's history
    (:class:`~autocat._sampler.RepeatBlindTPESampler`) and from pruning. Each
    counts as one of ``n_trials``.

    :func:`~autocat._tuning.tune` creates it with the queue of configurations
    to try first, and calls :meth:`asked` and :meth:`enqueue_attrs` when it
    enqueues one, :meth:`learner` for each trial asked and :meth:`told` for
    each trial told.

    Parameters
    ----------
    queue : list of dict
        The configurations to try first; the learners' trials are inserted
        after its first, in the order of ``learners``.
    learners : tuple of str, default=('linear', 'forest')
        The learners that get a trial.

    Examples
    --------
    >>> queue = [{"n_components": 30}, {"n_components": 60}]
    >>> trials = LearnerTrials(queue)
    >>> [q["n_components"] for q in queue]
    [30, 30, 30, 60]
    >>> trials.asked(queue[0], 0)
    >>> trials.enqueue_attrs(queue[2])
    {'learner': 'forest', 'repeats': 0}
    """

    def __init__(
        self,
        queue: list[dict[str, Any]],
        learners: tuple[str, ...] = ("linear", "forest"),
    ) -> None:
        self.base: dict[str, Any] | None = None  # the configuration they repeat
        self.base_number: int | None = None  # the trial that ran the base
        self.pending: list[tuple[dict[str, Any], str]] = []  # queued, not asked
        self.numbers: dict[int, str] = {}  # trial number -> learner, once asked
        self.finished: dict[str, Any] = {}  # learner -> its TrialRecord
        if queue:
            self.base = queue[0]
            for position, learner in enumerate(learners, start=1):
                entry = dict(queue[0])
                self.pending.append((entry, learner))
                queue.insert(position, entry)

    def asked(self, params: dict[str, Any], number: int) -> None:
        """Note the number of the trial asked with the queued ``params``."""
        if params is self.base:
            self.base_number = number

    def enqueue_attrs(self, params: dict[str, Any]) -> dict[str, Any] | None:
        """Return the user attributes marking ``params`` as a learner's trial."""
        for index, (entry, learner) in enumerate(self.pending):
            if entry is params:
                del self.pending[index]
                return {LEARNER_ATTR: learner, REPEATS: self.base_number}
        return None

    def learner(self, number: int, user_attrs: dict[str, Any]) -> str:
        """Return the learner of trial ``number``, asked with ``user_attrs``."""
        learner = str(user_attrs.get(LEARNER_ATTR, "xgboost"))
        if learner != "xgboost" and learner not in self.numbers.values():
            self.numbers[number] = learner
        return learner

    def told(self, number: int, record: Any) -> bool:
        """Keep a learner trial's record; return whether trial ``number`` is one."""
        learner = self.numbers.get(number)
        if learner is None:
            return False
        if record is not None:
            self.finished[learner] = record
        return True

    @property
    def records(self) -> list[Any]:
        """The finished learner trials' records, in the order of their learners."""
        return list(self.finished.values())
