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
(:func:`xgboost_threads`). A team that the caller's own work left there (a
scikit-learn ``HistGradientBoosting`` fit before ``auto_fit``: the same libgomp)
is released when a search starts (:func:`release_callers_openmp_team`).
``tests/benchmarks/bench_first_trial_threads.py`` measures all three.
"""

from __future__ import annotations

import contextvars
import ctypes
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import xgboost

__all__ = [
    "THREAD_PREFIX",
    "in_own_thread",
    "release_callers_openmp_team",
    "xgboost_threads",
]

#: Names of autocat's own short-lived threads start with it.
THREAD_PREFIX = "autocat-"
# OpenMP 5.0's ``omp_pause_soft``: release the resources, keep the settings.
_OMP_PAUSE_SOFT = 1


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


def release_callers_openmp_team() -> int:
    """Release the idle OpenMP team the calling thread holds, if any.

    A fit or a prediction on several threads in the caller's thread before
    ``auto_fit`` (the user's own: scikit-learn's ``HistGradientBoosting``, an
    XGBoost model) leaves the caller an idle libgomp team for the rest of its
    life, and with it the slowdown of every trial that the module's docstring
    describes: on Daily Show guests at 15 s, after a ``HistGradientBoosting``
    fit of 2,000 rows in the caller, five or six trials finished as without it,
    but their final model scored 0.962 on the test third where it scored 0.972.
    OpenMP 5.0's ``omp_pause_resource_all`` frees the calling thread's pool in
    libgomp (``gomp_pause_host``): its workers exit, and the caller's next
    parallel region starts new ones, as its first did. Only libgomp's are
    paused: LLVM's and Intel's runtimes put idle workers to sleep after a short
    spin and pause every thread's work, not the caller's. Nothing is paused
    inside a parallel region, nor where ``threadpoolctl`` (scikit-learn's
    dependency) or the function is missing.

    Returns
    -------
    int
        How many OpenMP runtimes released the caller's pool (0 if none could).

    Examples
    --------
    >>> from autocat._threads import release_callers_openmp_team
    >>> release_callers_openmp_team() >= 0
    True
    """
    try:
        from threadpoolctl import threadpool_info
    except ImportError:  # pragma: no cover - scikit-learn depends on it
        return 0
    released = 0
    paths = {
        info["filepath"]
        for info in threadpool_info()
        if info.get("internal_api") == "openmp" and info.get("prefix") == "libgomp"
    }
    for path in sorted(paths):
        try:
            pause = ctypes.CDLL(path).omp_pause_resource_all
        except (OSError, AttributeError):  # a libgomp before OpenMP 5.0
            continue
        pause.argtypes, pause.restype = [ctypes.c_int], ctypes.c_int
        released += pause(_OMP_PAUSE_SOFT) == 0
    return released
