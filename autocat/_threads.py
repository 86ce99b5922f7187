"""Where autocat's OpenMP work runs: in threads that end with it, not the caller's.

XGBoost's OpenMP runtime (libgomp) keeps a team of worker threads for each
thread that ran a parallel region, idle, for that thread's life. Once it
manages more threads than there are cores, every parallel region ends with
its workers put to sleep rather than spinning, and a fit of many small
regions (a small table, many classes) pays a wake-up per region: two to eight
times slower, in any thread of the process. A team left in the caller's
thread lives as long as the caller does (the main thread: the process), so
autocat fits and predicts in threads that end with their work
(:func:`in_own_thread`), and caps XGBoost's global thread count where it fits
(:func:`xgboost_threads`). ``tests/benchmarks/bench_first_trial_threads.py``
measures both.
"""

from __future__ import annotations

import contextvars
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import xgboost

__all__ = ["THREAD_PREFIX", "in_own_thread", "xgboost_threads"]

#: Names of autocat's own short-lived threads start with it.
THREAD_PREFIX = "autocat-"


def xgboost_threads(n_threads: int | None) -> AbstractContextManager[None]:
    """Cap XGBoost's global thread count in the calling thread, for a block of fits.

    XGBoost sizes some parallel regions (once per thread, building its first
    matrix) by its global ``nthread``, every core by default, whatever the
    model's ``n_jobs``: such a region would leave a team of every core in the
    thread (see the module's docstring). The setting is XGBoost's own and
    local to the thread; XGBoost before 3.0 has none, and there this caps
    nothing.

    Parameters
    ----------
    n_threads : int or None
        The threads the block's models are given (their ``n_jobs``);
        ``None`` caps nothing.

    Returns
    -------
    context manager

    Examples
    --------
    >>> import numpy as np, xgboost
    >>> from autocat._threads import xgboost_threads
    >>> with xgboost_threads(1):
    ...     model = xgboost.XGBRegressor(n_estimators=2, n_jobs=1)
    ...     model = model.fit(np.arange(10.0).reshape(-1, 1), np.arange(10.0))
    ...     xgboost.get_config()["nthread"]
    1
    """
    if n_threads is None or "nthread" not in xgboost.get_config():
        return nullcontext()
    return xgboost.config_context(nthread=int(n_threads))


def in_own_thread(
    n_threads: int | None, function: Any, *args: Any, name: str = "fit"
) -> Any:
    """Return ``function(*args)``, run in a thread that ends with it.

    The OpenMP team that the function's fits or predictions start ends with
    the thread: none is left in the calling thread to slow the fits of a later
    search (a second ``auto_fit`` in the same process, after predictions in
    the first one's thread). The thread's XGBoost is capped at ``n_threads``
    (:func:`xgboost_threads`; ``None``: not capped). Called from one of
    autocat's own threads (a trial's, a refit's), which end with their work
    too, ``function`` runs there. Context variables are carried over; an
    exception is raised in the caller. An interrupt (Ctrl-C) returns at once,
    and the thread finishes its work in the background.

    Parameters
    ----------
    n_threads : int or None
        XGBoost's global thread count in the thread.
    function : callable
        What to run, on ``args``.
    name : str, default='fit'
        The thread's name, after ``'autocat-'``.

    Returns
    -------
    object
        What ``function`` returned.

    Examples
    --------
    >>> import threading
    >>> from autocat._threads import in_own_thread
    >>> in_own_thread(1, lambda: threading.current_thread().name).startswith(
    ...     "autocat-fit")
    True
    """
    if threading.current_thread().name.startswith(THREAD_PREFIX):
        with xgboost_threads(n_threads):
            return function(*args)
    context = contextvars.copy_context()

    def run() -> Any:
        with xgboost_threads(n_threads):
            return context.run(function, *args)

    thread = ThreadPoolExecutor(1, thread_name_prefix=THREAD_PREFIX + name)
    try:
        result = thread.submit(run).result()
    except BaseException:
        thread.shutdown(wait=False)
        raise
    thread.shutdown(wait=True)  # the thread, and its OpenMP team, are gone
    return result
