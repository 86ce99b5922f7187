"""The trials of other learners, and of XGBoost on other encodings of the best trial."""

from __future__ import annotations

from typing import Any

from autocat._dataframe import column_family
from autocat._sampler import REPEATS
from autocat._trials import FOREST_SHARE

__all__ = ["LEARNERS", "LEARNER_ATTR", "VARIANTS", "LearnerTrials", "string_distinct"]

#: The user attribute that marks a trial of another learner than XGBoost.
LEARNER_ATTR = "learner"
#: Trials of XGBoost on another encoding, by their label: the recipe parameters
#: that make them. ``'categorical'``: the low-cardinality columns as category
#: codes, which XGBoost splits on as categories (partitions of the categories,
#: where one-hot splits take one category from the rest). It samples no
#: columns: its base's rate was drawn for one-hot columns, many per variable,
#: of which a tree keeps some; one column per variable, the same rate leaves
#: whole variables out of each tree, and with them the interactions the trees
#: need (a toy table of a shop, a weight and their product, 3 columns: R² 0.77
#: at the base's rate of 0.57, 0.97 at 1, where one-hot scores 0.90 and 0.93).
VARIANTS: dict[str, dict[str, Any]] = {
    "categorical": {"low_cardinality": "categorical", "colsample_bytree": 1.0},
}
#: The labels that get a trial in each search, in their order.
LEARNERS: tuple[str, ...] = ("linear", "forest", "categorical")


class LearnerTrials:
    """A trial of each other learner in a search, and XGBoost's variants of its best.

    The trials after the first repeat the first configuration's parameters with
    ``learner='linear'``, then ``learner='forest'``: a
    :class:`~autocat._linear.LinearRegressor` (for classes,
    :class:`~autocat._linear.LinearClassifier`) and a
    :class:`~autocat._forest.ForestRegressor` (for classes,
    :class:`~autocat._forest.ForestClassifier`) on the same folds and the same
    encoding, which the encoding cache shares (computed once when they run at
    once), so each costs little more than its model's fits. Once ``after``
    trials are told (or before the last batch of a search of a fixed number of
    trials), the best trial so far is repeated as each of :data:`VARIANTS`
    (see :meth:`queue_variants`): XGBoost on another encoding of the same
    table. All are candidates of the ensemble only: kept out of the trials
    whose best gives ``pipeline_``, ``best_params_``, the final model's time
    reserve and the other measured trials' base, and, since their parameters
    are their base's, marked with a ``repeats`` user attribute, which keeps
    them out of the sampler's history
    (:class:`~autocat._sampler.RepeatBlindTPESampler`) and from pruning. Each
    counts as one of ``n_trials``.

    :func:`~autocat._tuning.tune` creates it with the queue of configurations
    to try first, and calls :meth:`asked` and :meth:`enqueue_attrs` when it
    enqueues one, :meth:`applies` before (and :meth:`drop` for an entry that
    does not apply), :meth:`learner` for each trial
    asked, :meth:`told` for each trial told and :meth:`queue_variants` after
    each batch.

    Parameters
    ----------
    queue : list of dict
        The configurations to try first; the learners' trials are inserted
        after its first, in the order of ``learners``.
    learners : tuple of str, default=LEARNERS
        The learners and variants that get a trial.

    Examples
    --------
    >>> queue = [{"n_components": 30}, {"n_components": 60}]
    >>> trials = LearnerTrials(queue)
    >>> [q["n_components"] for q in queue]
    [30, 30, 30, 60]
    >>> trials.asked(queue[0], 0)
    >>> trials.enqueue_attrs(queue[2])
    {'learner': 'forest', 'repeats': 0}
    >>> trials.learner(5, {"learner": "categorical"})
    'xgboost'
    >>> trials.overrides(5)
    {'low_cardinality': 'categorical', 'colsample_bytree': 1.0}
    """

    def __init__(
        self,
        queue: list[dict[str, Any]],
        learners: tuple[str, ...] = LEARNERS,
    ) -> None:
        self.base: dict[str, Any] | None = None  # the configuration they repeat
        self.base_number: int | None = None  # the trial that ran the base
        self.pending: list[tuple[dict[str, Any], str]] = []  # queued, not asked
        self.numbers: dict[int, str] = {}  # trial number -> learner, once asked
        self.finished: dict[str, Any] = {}  # learner -> its TrialRecord
        self.after = len(queue)  # the variants wait for as many trials
        self.variants = [label for label in learners if label in VARIANTS]
        self.n_told = 0
        self._bases: dict[int, Any] = {}  # id(entry) -> the record it repeats
        self.repeats: dict[int, Any] = {}  # trial number -> the record it repeats
        if queue:
            self.base = queue[0]
            others = [label for label in learners if label not in VARIANTS]
            for position, learner in enumerate(others, start=1):
                entry = dict(queue[0])
                self.pending.append((entry, learner))
                queue.insert(position, entry)

    def queue_variants(
        self,
        records: list[Any],
        queue: list[dict[str, Any]],
        distinct: dict[Any, int],
        last_batch: bool = False,
    ) -> None:
        """Queue the best trial so far as each variant, once.

        Once ``after`` trials are told (the configurations queued first), or
        before the ``last_batch`` of a search of a fixed number of trials. A
        variant is not queued when no string column of the table
        (``distinct``, from :func:`string_distinct`) has from 2 to the best
        trial's ``cardinality_threshold`` values: its encoding would be the
        best trial's.
        """
        if not self.variants or not records:
            return
        if self.n_told < self.after and not last_batch:
            return
        best = records[0]
        threshold = best.params.get("cardinality_threshold", 30)
        if any(2 <= n <= threshold for n in distinct.values()):
            for label in self.variants:
                entry = dict(best.params)
                self.pending.append((entry, label))
                self._bases[id(entry)] = best
                queue.insert(0, entry)
        self.variants = []

    def asked(self, params: dict[str, Any], number: int) -> None:
        """Note the number of the trial asked with the queued ``params``."""
        if params is self.base:
            self.base_number = number
        base = self._bases.pop(id(params), None)
        if base is not None:
            self.repeats[number] = base

    def enqueue_attrs(self, params: dict[str, Any]) -> dict[str, Any] | None:
        """Return the user attributes marking ``params`` as a learner's trial."""
        for index, (entry, learner) in enumerate(self.pending):
            if entry is params:
                del self.pending[index]
                base = self._bases.get(id(entry))
                number = self.base_number if base is None else base.number
                return {LEARNER_ATTR: learner, REPEATS: number}
        return None

    def applies(self, params: dict[str, Any], seconds_left: float | None) -> bool:
        """Whether the queued ``params`` should run now.

        With a time budget (``seconds_left``), a variant's trial is skipped when
        the trial it repeats took more than
        :data:`~autocat._trials.FOREST_SHARE` of the time left: a candidate of
        the ensemble, it would take the time of the search's own trials.
        """
        base = self._bases.get(id(params))
        if base is None or seconds_left is None:
            return True
        return bool(sum(base.fold_seconds) <= FOREST_SHARE * seconds_left)

    def drop(self, params: dict[str, Any]) -> None:
        """Forget the queued ``params``, taken off the queue without running."""
        self.pending = [(e, label) for e, label in self.pending if e is not params]
        self._bases.pop(id(params), None)

    def learner(self, number: int, user_attrs: dict[str, Any]) -> str:
        """Return the learner of trial ``number``, asked with ``user_attrs``."""
        label = str(user_attrs.get(LEARNER_ATTR, "xgboost"))
        if label != "xgboost" and label not in self.numbers.values():
            self.numbers[number] = label
        return "xgboost" if label in VARIANTS else label

    def overrides(self, number: int) -> dict[str, Any]:
        """Return the recipe parameters a variant's trial ``number`` adds."""
        return dict(VARIANTS.get(self.numbers.get(number, ""), {}))

    def told(self, number: int, record: Any) -> bool:
        """Keep a learner trial's record; return whether trial ``number`` is one."""
        self.n_told += 1
        learner = self.numbers.get(number)
        if learner is None:
            return False
        if record is not None:
            record.candidate_only = True
            self.finished[learner] = record
        return True

    @property
    def records(self) -> list[Any]:
        """The finished learner trials' records, in the order of their learners."""
        return list(self.finished.values())


def string_distinct(X: Any) -> dict[Any, int]:
    """Return the number of distinct values of each string column of ``X``.

    Missing values are not counted; columns stored as numbers, booleans, dates
    or times are left out. Strings the vectorizer reads as numbers or dates are
    counted too: a variant trial they make it run repeats its base's encoding.

    Examples
    --------
    >>> import pandas as pd
    >>> from autocat._learner_trials import string_distinct
    >>> string_distinct(pd.DataFrame({"a": ["x", "y", None], "b": [1.0, 2.0, 3.0]}))
    {'a': 2}
    """
    return {
        name: int(column.nunique(dropna=True))
        for name, column in X.items()
        if column_family(column) not in ("numeric", "boolean", "datetime", "time")
    }
