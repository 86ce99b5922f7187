"""How close is the refit estimate to the refit's actual time?

Question (2026-11): the search keeps time for the best trial's refit on all rows,
and the final model refits a member only if its estimate fits in the time left.
The estimate (``autocat._members.refit_seconds``) comes from the trial's folds,
which ran with fewer threads, beside other trials, on fewer rows. Too high, and
members stay averaged fold models (which score lower: ``bench_final_model.py``)
while the search stops early; too low, and refits are cut.

Method: ``auto_fit(n_trials=--trials, n_jobs=--jobs)`` on the bundled employee
salaries table with no time budget; then, for every finished trial, its estimate
against the refit timed alone with the call's threads.

    python tests/benchmarks/bench_refit_estimate.py --trials 8 --jobs 2

Prints one line per trial and the median, smallest and largest ratio of estimate
to actual. Decision: a ratio a little above 1 (the final model adds a margin of
``REFIT_MARGIN``); the first member's refit leaves time for its fold models, so
a ratio below 1 costs a wasted refit, not the budget.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import autocat
import autocat._members
import autocat._splits
from autocat._budget import Budget

sys.path.insert(0, str(Path(__file__).resolve().parent))

from final_model_calls import record_final_model_calls


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=8)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    calls = record_final_model_calls()
    X, y = autocat.datasets.load_employee_salaries(return_X_y=True)
    autocat.auto_fit(
        X.assign(salary=y),
        "salary",
        n_trials=args.trials,
        n_jobs=args.jobs,
        random_state=0,
        show_progress=False,
    )
    call = calls["last"].arguments
    train, valid = call["splits"][0]
    fit_rows = len(train) * (1 - autocat._splits.STOP_FRACTION)
    ratios = []
    threads = call["n_threads"]
    print(f"{os.cpu_count()} CPU(s); n_jobs={args.jobs}, refit threads {threads}")
    for record in call["outcome"].records:
        estimate = autocat._members.refit_seconds(
            record, len(call["y"]), fit_rows, len(train) + len(valid), call["n_threads"]
        )
        start = time.perf_counter()
        training = autocat._members.TrainingRows(
            call["X"], call["y"], call["task"], 0, call["n_threads"],
            call.get("specific_transformers"),
        )  # fmt: skip
        autocat._members._refit(record, training, Budget(None))
        actual = time.perf_counter() - start
        ratios.append(estimate / actual)
        print(
            f"trial {record.number:3d} {record.params.get('encoder')!s:>13} "
            f"{record.threads} -> {call['n_threads']} threads, "
            f"{record.n_estimators:5d} trees: estimate {estimate:6.2f} s, "
            f"actual {actual:6.2f} s, ratio {estimate / actual:5.2f}"
        )
    print(
        f"estimate / actual: median {statistics.median(ratios):.2f}, "
        f"smallest {min(ratios):.2f}, largest {max(ratios):.2f}"
    )


if __name__ == "__main__":
    main()
