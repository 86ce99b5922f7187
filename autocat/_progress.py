"""The search's live progress bar on stderr: trials, best score, time left."""

from __future__ import annotations

import sys
from typing import Any

from autocat._budget import Budget

__all__ = ["Progress"]


class Progress:
    """A live progress bar on stderr (trials, best score, time left)."""

    def __init__(
        self,
        enabled: bool,
        n_trials: int | None,
        budget: Budget,
        label: str = "autocat",
    ) -> None:
        self.budget = budget
        self.count = 0
        self.bar: Any = None
        if enabled:
            from tqdm.std import tqdm

            self.bar = tqdm(total=n_trials, desc=label, unit="trial", file=sys.stderr)

    def update(self, best: float) -> None:
        self.count += 1
        if self.bar is not None:
            postfix = {"best": f"{best:.4g}"}
            if self.budget.deadline is not None:
                postfix["left"] = f"{self.budget.left():.0f}s"
            self.bar.set_postfix(postfix, refresh=False)
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
