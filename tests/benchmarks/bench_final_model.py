"""Which final model scores higher on unseen rows: refits, or averaged fold models?

Question (2026-11): when the search ends, each ensemble member can be refit on all
training rows, or be the average of the models its CV folds trained (each on 4/5
of the rows, no refit needed). Bagging the fold models is what some AutoML tools
return; the refit sees every row. Which is better decides what the time budget
should keep time for.

Method: for each task of ``../shared/data`` named on the command line and each of
``--splits`` random splits (one third held out, as ``recipes/10_benchmark...``),
``auto_fit(n_trials=--trials)`` with no time budget, so that every member is
refit; then the same search's final model is built again with fold models only,
and both are scored on the held-out rows with the task's metric.

    python tests/benchmarks/bench_final_model.py employee_salaries cacao_flavors

Prints one line per split and, per task and overall, the median difference
(refit minus fold models) with its range. Decision: refit whenever the budget
allows (``autocat/_final.py``); the search keeps time for the best trial's refit.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "recipes"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _tasks import load_task, score, splitter
from final_model_calls import record_final_model_calls

import autocat
import autocat._final


def _predict(result, kind, rows):
    if kind == "binary":  # the metric scores the probability of class 1
        return result.predict_proba(rows)[:, list(result.classes_).index(1)]
    return result.predict(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tasks", nargs="+")
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--splits", type=int, default=3)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    calls = record_final_model_calls()
    build = calls["build"]
    differences = {}
    print("task, split, refit, fold models, members")
    for name in args.tasks:
        X, y, task = load_task(name, 100_000)
        for split, (train, test) in enumerate(splitter(task, args.splits).split(X, y)):
            result = autocat.auto_fit(
                X.iloc[train].assign(**{task["target"]: y[train]}),
                task["target"],
                task=task["task"],
                metric=task["metric"],
                n_trials=args.trials,
                random_state=0,
                show_progress=False,
            )
            predict = functools.partial(_predict, result, task["task"])
            refit = score(task, predict, X.iloc[test], y[test])
            # The same search, a deadline far away and no refit that "fits":
            # every member becomes the average of its fold models.
            bound = calls["last"]
            bound.arguments["deadline"] = time.monotonic() + 1e6
            estimate = autocat._final.refit_seconds
            autocat._final.refit_seconds = lambda *a: float("inf")
            try:
                folds = build(*bound.args, **bound.kwargs)
            finally:
                autocat._final.refit_seconds = estimate
            result.model_ = folds.model
            bagged = score(task, predict, X.iloc[test], y[test])
            differences.setdefault(name, []).append(refit - bagged)
            print(f"{name}, {split}, {refit:.4f}, {bagged:.4f}, {len(folds.members)}")
    every = [d for values in differences.values() for d in values]
    for name, values in differences.items():
        print(
            f"{name}: refit - fold models, median {statistics.median(values):+.4f} "
            f"({min(values):+.4f} to {max(values):+.4f})"
        )
    print(
        f"all: refit higher on {sum(d > 0 for d in every)} of {len(every)} splits, "
        f"median {statistics.median(every):+.4f}"
    )


if __name__ == "__main__":
    main()
