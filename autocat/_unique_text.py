"""The search's measured choice on names and titles: keep them, or drop them."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from autocat._selection import trial_win_share

if TYPE_CHECKING:
    import numpy as np

    from autocat._trials import EncodingCache, TrialRecord

__all__ = ["DROP_CONFIDENCE", "UniqueTextTrial"]

logger = logging.getLogger("autocat")

# Near-unique text is dropped from the portfolio's later trials only when the
# trial without it scores higher in this share of paired bootstrap resamples
# (a one-sided test at the usual 5% level).
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
    :meth:`asked` and :meth:`told` for each trial, and :meth:`queue` after
    each batch.
    """

    name = "drop_unique_text"

    def __init__(
        self, cache: EncodingCache, y: np.ndarray, scorer: Any, task: str
    ) -> None:
        self.cache, self.y, self.scorer, self.task = cache, y, scorer, task
        self.pending: dict[str, Any] | None = None  # queued, not asked yet
        self.number: int | None = None  # the trial that runs it
        self.base: TrialRecord | None = None  # the configuration it repeats
        self.started = False

    def skip(self) -> tuple[str, ...]:
        """Parameters not to suggest: this one, until the table is known to need it."""
        return () if self.cache.unique_text.get(0) else (self.name,)

    def queue(self, records: list[TrialRecord], queue: list[dict[str, Any]]) -> None:
        """Queue the best configuration without near-unique text, once."""
        if self.started or not self.cache.unique_text.get(0):
            return
        kinds = {kind for _, kind in self.cache.unique_text[0]}
        wide = [
            r for r in records if "text" in kinds or r.params.get("encoder") != "target"
        ]
        if not wide:
            return
        self.started = True
        best = wide[0]
        if best.params.get(self.name):
            return
        self.pending = {**best.params, self.name: True}
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
        drop = share >= DROP_CONFIDENCE
        for params in queue:
            params[self.name] = drop
        logger.info(
            "near-unique text %s: %.5g with it, %s without it (higher in %.0f%% "
            "of resamples)",
            "dropped" if drop else "kept",
            self.base.score,
            "not scored" if record is None else f"{record.score:.5g}",
            100 * share,
        )
