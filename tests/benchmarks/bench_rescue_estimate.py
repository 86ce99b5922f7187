"""How close is the time kept for the rescue recipe to the rescue's actual time?

Question (2026-12): while no trial has finished, a time-budgeted ``auto_fit`` of a
large table keeps the end of its budget for the rescue recipe
(``autocat._rescue.rescue_seconds``): the fallback's fit on 1,000 rows, scaled
linearly to all rows and to the threads, with the smaller fits on the way to all
rows. Too high, and the first trial is cut when it would have finished, and the
rescue then ends seconds before the budget does (dating profiles at 15 s: the
call ended at 10.5 to 11.6 s with no trial); too low, and the rescue trains on
fewer rows.

Method: for each table (one third held out, the rest as ``auto_fit`` gets it),
the fallback fitted on 1,000 rows as ``auto_fit`` fits it before a large table's
first trial (every thread), then ``autocat._rescue.rescue_model`` with no
deadline, its rows growing to all of them; ``--repeats`` times, medians. Prints
the estimate with and without the margin ``REFIT_MARGIN``, the rescue's actual
time and their ratio.

    python tests/benchmarks/bench_rescue_estimate.py --tasks dating_profiles \
        kdd99_intrusion traffic_violations adult kickstarter california_housing

Measured on 2026-12-03 (2 cores, 3 repeats, the command above and house sales):
the unmargined estimate over the actual time was 1.86 (dating profiles, 2.85 s
actual), 1.19 (traffic violations), 1.86 (adult), 1.88 (kickstarter), 1.99
(California housing) and 2.79 (house sales), but 1.08 on kdd99 intrusion, 0.37 in
one of its repeats (24.8 s actual at the median: 23 classes, a tree each per
round, and more rounds before early stopping on more rows). Decision: the margin
stays: a smaller one would leave dating profiles' first trial more of a 15 s budget,
and leave kdd99's rescue on fewer rows.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from autocat._final import warm_kernels
from autocat._rescue import (
    _RESCUE_GROWTH,
    FALLBACK_ROWS,
    fallback_model,
    rescue_model,
    rescue_seconds,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "recipes"))

from _tasks import load_task, splitter


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", default=["dating_profiles"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--budget", type=float, default=15.0)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    warm_kernels()
    print(
        f"{os.cpu_count()} CPU(s), {args.threads} thread(s), budget {args.budget:g} s"
    )
    for name in args.tasks:
        X, y, task = load_task(name, 100_000)
        train, _ = next(splitter(task, 1).split(X, y))
        X_train = X.iloc[train].reset_index(drop=True)
        y_train, kind = y[train], task["task"]
        estimates, plain, actual = [], [], []
        for repeat in range(args.repeats):
            start = time.perf_counter()
            model = fallback_model(X_train, y_train, kind, repeat, args.threads)
            fallback_s = time.perf_counter() - start
            kept = rescue_seconds(
                args.budget, fallback_s, len(y_train), args.threads, args.threads
            )
            estimates.append(kept)
            # the need before the margin and the budget's shares
            growth = _RESCUE_GROWTH / (_RESCUE_GROWTH - 1)
            plain.append(fallback_s * len(y_train) / FALLBACK_ROWS * growth)
            start = time.perf_counter()
            rescue_model(
                X_train, y_train, kind, repeat, args.threads,
                time.monotonic() + 1e6, (model, fallback_s),
            )  # fmt: skip
            actual.append(time.perf_counter() - start)
        est, raw, act = (statistics.median(v) for v in (estimates, plain, actual))
        print(
            f"{name:20s} {len(y_train):7,d} rows: kept {est:5.2f} s (unmargined "
            f"{raw:5.2f} s), rescue {act:5.2f} s, unmargined / actual {raw / act:4.2f} "
            f"(min {min(np.divide(plain, actual)):4.2f})"
        )


if __name__ == "__main__":
    main()
