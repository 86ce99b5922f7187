"""Keep the arguments of auto_fit's last final-model build, for benchmarks."""

from __future__ import annotations

import inspect
from typing import Any

import autocat._auto
import autocat._final


def record_final_model_calls() -> dict[str, Any]:
    """Make ``auto_fit`` record its calls of ``final_model``; return the record.

    After each call, ``record["last"]`` holds its ``inspect.BoundArguments``, so a
    benchmark can build the final model again from the same search.
    """
    build = autocat._final.final_model
    record: dict[str, Any] = {"build": build}

    def keep_arguments(*args: Any, **kwargs: Any) -> Any:
        record["last"] = inspect.signature(build).bind(*args, **kwargs)
        return build(*args, **kwargs)

    autocat._auto.final_model = keep_arguments
    return record
