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
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "Budget",
    "BudgetExhausted",
    "budget_scope",
    "check_budget",
]


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
