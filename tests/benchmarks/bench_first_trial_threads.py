"""How fast is a time-budgeted search's first trial, with 1 or 2 XGBoost threads?

Question (2026-11): with a ``time_budget``, ``auto_fit`` first fits its fallback
model (one XGBoost thread, in the calling thread), then runs the first trial
alone, in a pool thread; that trial's time plans the protocol (k-fold CV or a
holdout) and the final model's reserve. XGBoost sizes some parallel regions by
its global thread count (every core by default), not by the model's
``n_jobs``, so a fit left an idle OpenMP team behind it in its thread; libgomp,
managing more threads than cores, then sleeps between parallel regions instead
of spinning, and a trial of many small regions (small tables, many classes)
pays a wake-up per region. ``autocat._recipe.xgboost_threads`` now caps the
global count in every thread that fits; this script measures what is left.

Method: the first portfolio configuration on one holdout fold, as
``autocat._trials.TrialRunner`` runs it, timed in a pool thread with 1 and with
2 XGBoost threads, in a fresh process, after (``--before``) nothing
(``none``); the fallback fit in the calling thread (``fallback``, what
``auto_fit`` once did) or in a short-lived thread (``fallback-thread``: its
OpenMP team ends with it); a result's predictions in the calling thread
(``result-predict``, as between two calls); an XGBoost model's own, with 2
threads (``xgboost-predict``, a user's model). Tables: the bundled employee
salaries and a synthetic 10-class table of dirty titles (``--rows``).

    python tests/benchmarks/bench_first_trial_threads.py
    python tests/benchmarks/bench_first_trial_threads.py --before none result-predict

Run two at once (``... & ...; wait``) to see the same under two processes
sharing the cores: spinning threads of both then wait on each other.

Prints, per table and setting, the median seconds of ``--repeat`` trials and
the ratio of 2 threads to 1. Decision: a ratio above 1 means the second thread
costs more than it gives on that table and in that setting.

Measured on 2026-11-27 (2 cores), seconds with 1 / 2 threads, fallback in the
calling thread, before the cap and with it:

=============================  ============  ============
table                          before        with the cap
=============================  ============  ============
employee salaries, 3,000 rows  0.29 / 0.68   0.28 / 0.21
dirty classes, 3,000 rows      0.40 / 3.39   0.38 / 0.38
dirty classes, 10,000 rows                   1.35 / 1.07
dirty classes, 30,000 rows                   3.84 / 2.36
=============================  ============  ============

Measured on 2026-12-02 (2 cores), seconds with 2 threads, two runs each,
before and after a result's predictions ran their models in a thread of their
own (the user's XGBoost model: both versions, four runs):

=================  ===========  ==============  ===========  ===============
table              none         result-predict  now          xgboost-predict
=================  ===========  ==============  ===========  ===============
employee salaries  0.26 - 0.29  0.58 - 0.65     0.30         0.47 - 0.71
dirty classes      0.45 - 0.48  2.76 - 2.80     0.44 - 0.50  2.51 - 3.60
=================  ===========  ==============  ===========  ===============

Measured on 2026-12-03 (2 cores), seconds with 2 threads (``--before none hgb
hgb-released xgboost-predict xgboost-predict-released``; the ``none`` column
of two runs): the caller's team, released as ``auto_fit`` now releases it when
it starts, costs nothing more:

=================  ===========  ===========  ===========  =============  ========
table              none         hgb          released     xgboost        released
=================  ===========  ===========  ===========  =============  ========
employee salaries  0.16 - 0.19  0.43 - 0.51  0.15 - 0.16  0.49           0.15
dirty classes      0.32         2.17 - 2.27  0.32 - 0.33  2.23           0.29
=================  ===========  ===========  ===========  =============  ========

Two processes at once, with the cap: 3,000 rows 0.46 / 1.5, 30,000 rows
3.9 / 27: both processes' teams spin, each waiting for a core the other holds.
Hence ``autocat._tuning.ALONE_ALL_THREADS_ROWS``: the trial that runs alone gets
every thread only on tables large enough for them to pay.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import xgboost
from sklearn.ensemble import HistGradientBoostingRegressor

import autocat
from autocat._budget import Budget
from autocat._ensemble import fold_scorer
from autocat._final import warm_kernels
from autocat._rescue import fallback_model
from autocat._search_space import portfolio
from autocat._splits import inner_splits, make_splits
from autocat._threads import release_callers_openmp_team
from autocat._trials import EncodingCache, TrialRunner


def employee_salaries(rows: int) -> tuple[pd.DataFrame, np.ndarray, str, str]:
    X, y = autocat.datasets.load_employee_salaries(return_X_y=True)
    return X, np.asarray(y, dtype=float), "regression", "r2"


def dirty_classes(rows: int) -> tuple[pd.DataFrame, np.ndarray, str, str]:
    rng = np.random.default_rng(0)
    classes = rng.integers(0, 10, rows)
    jobs = ["clerk", "officer", "nurse", "driver", "manager", "analyst"]
    titles = [
        f"{jobs[c % 6]} {['i', 'ii', 'iii'][c % 3]} unit {rng.integers(0, 400)}"
        for c in classes
    ]
    X = pd.DataFrame(
        {
            "title": titles,
            "city": rng.choice([f"town {i}" for i in range(300)], rows),
            "years": rng.normal(size=rows) + classes * 0.1,
        }
    )
    return X, classes, "multiclass", "accuracy"


TABLES = {"employee_salaries": employee_salaries, "dirty_classes": dirty_classes}
# What runs in the calling thread before the trials (see ``measure``).
BEFORE = (
    "none",
    "fallback",
    "fallback-thread",
    "result-predict",
    "xgboost-predict",
    "hgb",
    "hgb-released",
    "xgboost-predict-released",
)


def first_trial_seconds(
    X: pd.DataFrame, y: np.ndarray, task: str, metric: str, threads: int
) -> float:
    """Seconds of the first portfolio configuration on one holdout fold."""
    splits = make_splits(X, y, task, 5, 0)[:1]
    n_classes = 0 if task == "regression" else len(np.unique(y))
    runner = TrialRunner(
        X=X,
        y=y,
        task=task,
        scorer=fold_scorer(metric, task=task, n_classes=n_classes or None),
        splits=splits,
        inner=inner_splits(splits, y, task, 0),
        n_folds=1,
        random_state=0,
        xgb_threads=threads,
        cache=EncodingCache(),
        budget=Budget(None),
        n_classes=n_classes,
    )
    start = time.perf_counter()
    runner.run(None, portfolio()[0], threads)
    return time.perf_counter() - start


def measure(name: str, rows: int, before: str, repeat: int) -> list[float]:
    """Median seconds with 1 and 2 threads, in this (fresh) process."""
    warnings.simplefilter("ignore")
    X, y, task, metric = TABLES[name](rows)
    warm_kernels()
    before, released, _ = before.partition("-released")
    if before == "fallback":  # in the calling thread, as auto_fit once did
        fallback_model(X, y, task, 0, 1, None)
    elif before == "fallback-thread":  # its OpenMP team ends with the thread
        with ThreadPoolExecutor(1) as once:
            once.submit(fallback_model, X, y, task, 0, 1, None).result()
    elif before == "result-predict":  # a result's predictions, as between calls
        frame = X.assign(target=y)
        result = autocat.auto_fit(
            frame, "target", task=task, n_trials=1, n_jobs=2, show_progress=False
        )
        result.predict(X)
    elif before == "xgboost-predict":  # the caller's own XGBoost model
        model = xgboost.XGBRegressor(n_estimators=10, n_jobs=2)
        model.fit(X.select_dtypes("number"), y).predict(X.select_dtypes("number"))
    elif before == "hgb":  # the caller's scikit-learn model
        numbers = X.select_dtypes("number")
        HistGradientBoostingRegressor(max_iter=10).fit(numbers, y)
    if released:  # the caller's team released, as auto_fit does when it starts
        release_callers_openmp_team()
    medians = []
    with ThreadPoolExecutor(1) as pool:
        for threads in (1, 2):
            runs = [
                pool.submit(first_trial_seconds, X, y, task, metric, threads).result()
                for _ in range(repeat)
            ]
            medians.append(statistics.median(runs))
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", nargs="*", default=list(TABLES))
    parser.add_argument("--rows", type=int, default=3_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--before", nargs="*", default=list(BEFORE), choices=list(BEFORE),
        help="what ran in the calling thread before the trials",
    )  # fmt: skip
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPU(s); autocat {autocat.__version__}")
    print(f"{'table':>18} {'before':>24} {'1 thread':>9} {'2 threads':>9} {'2/1':>5}")
    # Each setting in a fresh process: an OpenMP team, once started in the
    # main thread, stays for the life of the process.
    spawn = multiprocessing.get_context("spawn")
    for name in args.tables:
        for before in args.before:
            with spawn.Pool(1) as process:
                setting = (name, args.rows, before, args.repeat)
                one, two = process.apply(measure, setting)
            print(
                f"{name:>18} {before:>24} {one:9.2f} {two:9.2f} {two / one:5.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
