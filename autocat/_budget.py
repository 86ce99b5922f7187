"""Deadlines that long computations check between steps, so a time budget can cut them.

:func:`auto_fit` runs the search inside :func:`budget_scope`; the slow loops of the
encoders and of the table vectorizer call :func:`check_budget` between columns,
passes and mini-batches, which raises :class:`BudgetExhausted` once the deadline has
passed or the search was cancelled (Ctrl-C). Outside a scope the checks cost one
context-variable lookup and never raise. A *settling* budget (``Budget(deadline,
settle=True)``, for callers that need a fitted result by the deadline, such as the
FLAML learners) never raises: :func:`check_budget` returns True once it is spent,
and the iterative fits that hold a usable state at every step (the Gamma-Poisson
passes) stop there, keeping it.
The scope lives in a context variable, so each thread of a search sees its own;
pools that run work for a scope must copy the context
(:func:`contextvars.copy_context`).
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "Budget",
    "BudgetExhausted",
    "FirstResultDeadline",
    "budget_scope",
    "budget_slack",
    "check_budget",
]


def budget_slack(time_budget: float) -> float:
    """Return the seconds a call may run past ``time_budget``: 10% of it, or 2 s.

    Examples
    --------
    >>> budget_slack(5.0), budget_slack(60.0)
    (2.0, 6.0)
    """
    return max(0.1 * float(time_budget), 2.0)


class BudgetExhausted(Exception):
    """Raised inside a :func:`budget_scope` once its deadline has passed."""


class Budget:
    """A deadline on ``time.monotonic()`` and a cancellation flag.

    Parameters
    ----------
    deadline : float or None
        ``time.monotonic()`` after which work stops; ``None``: no deadline.
    settle : bool, default=False
        Once spent, let the work finish early instead of cutting it: iterative
        fits stop at their next step and keep the state reached
        (:func:`check_budget` returns True instead of raising).
    """

    def __init__(self, deadline: float | None, *, settle: bool = False) -> None:
        self.deadline = deadline
        self.settle = settle
        self.cancelled = False

    def exhausted(self) -> bool:
        """Whether work under this budget must stop now."""
        if self.cancelled:
            return True
        return self.deadline is not None and time.monotonic() > self.deadline

    def left(self) -> float:
        """Seconds left (``inf`` without a deadline, 0 once cancelled)."""
        if self.cancelled:
            return 0.0
        if self.deadline is None:
            return float("inf")
        return max(0.0, self.deadline - time.monotonic())

    def cancel(self) -> None:
        """Stop all work under this budget at its next check."""
        self.cancelled = True

    def until(self, when: float) -> Budget:
        """Return a part of this budget that ends at ``when`` at the latest.

        The part follows this budget: it is spent when this one is (whose
        deadline may move) and cancelled with it.

        Examples
        --------
        >>> import time
        >>> budget = Budget(time.monotonic() + 100.0)
        >>> part = budget.until(time.monotonic() + 40.0)
        >>> 39.0 < part.left() <= 40.0
        True
        >>> budget.deadline = time.monotonic() + 30.0
        >>> 29.0 < part.left() <= 30.0
        True
        >>> budget.cancel()
        >>> part.exhausted()
        True
        """
        return _BudgetPart(self, when)


class _BudgetPart(Budget):
    """The part of a budget that ends at its own ``deadline`` at the latest."""

    def __init__(self, whole: Budget, when: float) -> None:
        super().__init__(when, settle=whole.settle)
        self.whole = whole

    def exhausted(self) -> bool:
        return self.whole.exhausted() or super().exhausted()

    def left(self) -> float:
        return min(self.whole.left(), super().left())

    def cancel(self) -> None:
        self.whole.cancel()


class FirstResultDeadline:
    """An earlier deadline that holds until a search's first trial finishes.

    ``auto_fit`` keeps the end of its time budget for the rescue recipe while no
    trial has finished. How much it keeps depends on the fallback model's fit,
    which may still be running beside the first trial: :meth:`set` may come
    from that thread, before or after the search has started, and brings the
    deadline forward only while no trial has finished (a lock orders it with
    :meth:`arrived`).

    Parameters
    ----------
    when : float or None, default=None
        ``time.monotonic()`` by which a trial must have finished; ``None``: no
        earlier deadline until :meth:`set` gives one.

    Examples
    --------
    >>> budget = Budget(100.0)
    >>> first = FirstResultDeadline()
    >>> first.bind(budget, 100.0)
    >>> first.set(60.0)
    >>> budget.deadline
    60.0
    >>> first.arrived()
    >>> budget.deadline
    100.0
    >>> first.set(50.0)  # too late: a trial has finished
    >>> budget.deadline
    100.0
    """

    def __init__(self, when: float | None = None) -> None:
        self._lock = threading.Lock()
        self._when = when
        self._budget: Budget | None = None
        self._deadline: float | None = None
        self._arrived = False

    @property
    def when(self) -> float | None:
        """The earlier deadline, ``None`` until one is set."""
        return self._when

    def bind(self, budget: Budget, deadline: float | None) -> None:
        """Apply the earlier deadline to ``budget``, whose own end is ``deadline``."""
        with self._lock:
            self._budget, self._deadline = budget, deadline
            self._apply()

    def set(self, when: float) -> None:
        """Bring the deadline forward to ``when``, unless a trial has finished."""
        with self._lock:
            self._when = when if self._when is None else min(self._when, when)
            self._apply()

    def arrived(self) -> None:
        """Record a finished trial: the search runs to its own deadline again."""
        with self._lock:
            if not self._arrived and self._budget is not None:
                self._budget.deadline = self._deadline
            self._arrived = True

    def _apply(self) -> None:
        if self._arrived or self._budget is None or self._when is None:
            return
        if self._deadline is not None:
            self._budget.deadline = min(self._deadline, self._when)


_CURRENT: contextvars.ContextVar[Budget | None] = contextvars.ContextVar(
    "autocat_budget", default=None
)


@contextlib.contextmanager
def budget_scope(budget: Budget | None) -> Iterator[Budget | None]:
    """Make ``budget`` the one that :func:`check_budget` checks in this context."""
    token = _CURRENT.set(budget)
    try:
        yield budget
    finally:
        _CURRENT.reset(token)


def current_budget() -> Budget | None:
    """Return the budget of this context, if any."""
    return _CURRENT.get()


def check_budget() -> bool:
    """Raise :class:`BudgetExhausted` if this context's budget is spent.

    Returns
    -------
    bool
        True once this context's budget is a spent *settling* budget, which
        never raises: an iterative fit that calls this where its state is
        usable should stop there and keep it. False otherwise.
    """
    budget = _CURRENT.get()
    if budget is None or not budget.exhausted():
        return False
    if budget.settle:
        return True
    raise BudgetExhausted("the time budget of this computation is spent")
