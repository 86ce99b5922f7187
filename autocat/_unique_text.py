"""The search's measured choices on names and titles, and on identifier codes."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from autocat._selection import trial_win_share

if TYPE_CHECKING:
    import numpy as np

    from autocat._trials import EncodingCache, TrialRecord

__all__ = ["DROP_CONFIDENCE", "IdentifierCodesTrial", "UniqueTextTrial"]

logger = logging.getLogger("autocat")

# Near-unique text is dropped from the portfolio's later trials (identifier
# codes kept) only when the trial that changes the default scores higher in
# this share of paired bootstrap resamples (a one-sided test at the usual 5%
# level).
DROP_CONFIDENCE = 0.95


class UniqueTextTrial:
    """Measure once whether dropping near-unique text helps this table.

    Names and titles (``TableVectorizer.near_unique_text_``) help a model when
    their words carry meaning and let it overfit when they do not, and which
    one holds differs between tables: a company's name tells its industry
    (``"Bank"``), a film's title says little of its rating. So on a table that
    has such text, once a trial that encodes it into many columns has finished
    (min-hash, Gamma-Poisson or text encoding: target encoding gives one
    column, which changes little either way), the next trial repeats the best
    such configuration without it. The portfolio's later entries drop the text
    only if that scored higher beyond the noise of the validation rows (in at
    least :data:`DROP_CONFIDENCE` of paired bootstrap resamples of the two
    trials' out-of-fold predictions): a column is not thrown away on a tie.
    The sampler searches the choice from then on, and the ensemble may use
    both trials. On other tables ``drop_unique_text`` is never suggested: the
    search is unchanged.

    :func:`~autocat._tuning.tune` calls :meth:`skip` before suggesting,
    :meth:`asked` and :meth:`told` for each trial, and :meth:`queue`, then
    :meth:`fill`, after each batch.
    """

    name = "drop_unique_text"
    # the value the measuring trial tries, and the one the others keep
    tried: Any = True
    default: Any = False
    what = "near-unique text"
    # whether the queue (the portfolio) keeps the default until the measurement
    # is told; else the sampler draws the choice for the trials asked before
    fill_queue = False

    def __init__(
        self, cache: EncodingCache, y: np.ndarray, scorer: Any, task: str
    ) -> None:
        self.cache, self.y, self.scorer, self.task = cache, y, scorer, task
        self.pending: dict[str, Any] | None = None  # queued, not asked yet
        self.number: int | None = None  # the trial that runs it
        self.base: TrialRecord | None = None  # the configuration it repeats
        self.started = False
        self.taken: bool | None = None  # whether the measured choice won

    def columns(self) -> tuple[Any, ...]:
        """Return the columns the choice is about, in the first fold (or none)."""
        return self.cache.unique_text.get(0, ())

    def skip(self) -> tuple[str, ...]:
        """Parameters not to suggest: this one, until the table is known to need it."""
        return () if self.columns() else (self.name,)

    def wide(self, record: TrialRecord) -> bool:
        """Whether ``record`` encodes the columns into many outputs."""
        kinds = {kind for _, kind in self.columns()}
        return "text" in kinds or record.params.get("encoder") != "target"

    def fill(
        self, queue: list[dict[str, Any]], measuring: list[dict[str, Any]]
    ) -> None:
        """Give queued configurations that lack the choice its default.

        Once the table is known to have the columns, the parameter is
        suggested. The ``measuring`` configurations (other choices' measuring
        trials, repeating a trial run before it was) keep the default rather
        than a sampled value, so that each differs from the trial it repeats in
        one choice only; with :attr:`fill_queue`, so does every queued one.
        """
        if self.name in self.skip():
            return
        for params in queue if self.fill_queue else measuring:
            params.setdefault(self.name, self.default)

    def queue(self, records: list[TrialRecord], queue: list[dict[str, Any]]) -> None:
        """Queue the best configuration with the other choice, once."""
        if self.started or not self.columns():
            return
        wide = [r for r in records if self.wide(r)]
        if not wide:
            return
        self.started = True
        best = wide[0]
        if best.params.get(self.name, self.default) == self.tried:
            return
        self.pending = {**best.params, self.name: self.tried}
        self.base = best
        queue.insert(0, self.pending)

    def asked(self, number: int, params: dict[str, Any]) -> None:
        """Note which trial runs the queued configuration."""
        if self.pending is not None and params == self.pending:
            self.pending, self.number = None, number

    def told(
        self, number: int, record: TrialRecord | None, queue: list[dict[str, Any]]
    ) -> None:
        """Give the queued configurations the choice that scored higher."""
        if number != self.number or self.base is None:
            return
        share = trial_win_share(self.y, self.base, record, self.scorer, task=self.task)
        change = self.taken = share >= DROP_CONFIDENCE
        for params in queue:
            params[self.name] = self.tried if change else self.default
        logger.info(
            "%s: %s=%r %s: %.5g before, %s with it (higher in %.0f%% of resamples)",
            self.what,
            self.name,
            self.tried,
            "taken" if change else "not taken",
            self.base.score,
            "not scored" if record is None else f"{record.score:.5g}",
            100 * share,
        )


class IdentifierCodesTrial(UniqueTextTrial):
    """Measure once whether keeping identifier codes helps this table.

    Codes in which nearly every row has its own value, with no space and few
    letters (``TableVectorizer.identifier_codes_``), are dropped by default:
    most are keys that tell nothing (``"ID00023"``, hashes). But some are
    built from parts that tell much: an aircraft's tail number its operator
    and its age, a product code its line, a course code its level. So on a
    table that has such codes, once a trial that encodes them into many
    columns has finished (min-hash, Gamma-Poisson or text encoding: target
    encoding gives a code seen in one row nothing but the mean), the next
    trial repeats the best such configuration with them kept
    (``drop_identifiers='indexes'``: row indexes still go). The portfolio's
    later entries keep them only if that scored higher beyond the noise of the
    validation rows (in at least :data:`DROP_CONFIDENCE` of paired bootstrap
    resamples): a key is not learnt on a tie. The sampler searches the choice
    from then on only if keeping them won: keys cost an encoding of as many
    distinct strings as rows each time a trial keeps them. The ensemble may
    use both trials. On other tables ``drop_identifiers`` is never suggested:
    the search is unchanged.
    """

    name = "drop_identifiers"
    tried = "indexes"
    default = True
    what = "identifier codes"
    fill_queue = True  # a key is learnt on evidence only

    def columns(self) -> tuple[Any, ...]:
        if self.taken is False:  # measured, and the codes lost: no more trials
            return ()
        return self.cache.identifier_codes.get(0, ())

    def told(
        self, number: int, record: TrialRecord | None, queue: list[dict[str, Any]]
    ) -> None:
        super().told(number, record, queue)
        if self.taken is False:  # no longer suggested: the queue holds the default
            for params in queue:
                params.pop(self.name, None)

    def wide(self, record: TrialRecord) -> bool:
        return record.params.get("encoder") != "target"
