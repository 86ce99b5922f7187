"""The order in which the search runs the portfolio's queued configurations."""

from __future__ import annotations

import logging
from typing import Any

from autocat._trials import EARLY_STOPPING_ROUNDS, MAX_ROUNDS, TrialRecord

__all__ = ["faster_first", "still_learning"]

logger = logging.getLogger("autocat")


def still_learning(record: TrialRecord) -> bool:
    """Whether a trial's loss still fell in its last rounds on some fold.

    Such a fold boosted all :data:`MAX_ROUNDS` rounds and kept a tree among the
    last :data:`EARLY_STOPPING_ROUNDS`: early stopping never stopped it, and it
    wanted more rounds than it was allowed. The table then supports a faster
    learning rate than the trial's.

    Examples
    --------
    >>> from autocat._trials import TrialRecord
    >>> still_learning(TrialRecord(0, {}, rounds=[996], boosted_rounds=[1000]))
    True
    >>> still_learning(TrialRecord(0, {}, rounds=[400], boosted_rounds=[450]))
    False
    """
    return any(
        boosted >= MAX_ROUNDS and kept > MAX_ROUNDS - EARLY_STOPPING_ROUNDS
        for kept, boosted in zip(record.rounds, record.boosted_rounds, strict=True)
    )


def faster_first(
    queue: list[dict[str, Any]], movable: set[int], record: TrialRecord
) -> None:
    """Run the queued configurations that learn faster than ``record`` first.

    A trial that was still learning when it ran out of rounds
    (:func:`still_learning`) underfits the table, and its learning rate wastes
    the time of the configurations queued with an equal or lower one: they
    need at least as many rounds. Those of the portfolio (``movable``: ids of
    its entries) whose learning rate is higher go first, each group in its
    order; other queued trials (measurements) keep their places. The order
    depends on the trials' results only, never on time, so a search of a fixed
    number of trials stays reproducible.

    Examples
    --------
    >>> from autocat._trials import TrialRecord
    >>> queue = [{"learning_rate": r} for r in (0.05, 0.3, 0.1, 0.4)]
    >>> record = TrialRecord(0, {"learning_rate": 0.1})
    >>> faster_first(queue, {id(params) for params in queue}, record)
    >>> [params["learning_rate"] for params in queue]
    [0.3, 0.4, 0.05, 0.1]
    """
    rate = record.params["learning_rate"]
    places = [i for i, params in enumerate(queue) if id(params) in movable]
    entries = [queue[i] for i in places]
    faster = [params for params in entries if params["learning_rate"] > rate]
    ordered = faster + [params for params in entries if params["learning_rate"] <= rate]
    if ordered == entries:
        return
    for place, params in zip(places, ordered, strict=True):
        queue[place] = params
    logger.info(
        "trial %d was still learning after %d rounds: the %d queued configurations "
        "of higher learning rates run first",
        record.number,
        MAX_ROUNDS,
        len(faster),
    )
