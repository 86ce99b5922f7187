"""auto_fit: time-budget adherence, encoding-cache hit rate, XGBoost threads.

Questions settled here (2026-11, 2-core shared machine, employee salaries 9,228 rows):

1. Does ``auto_fit(time_budget=B)`` return within 10% of ``B``, refit included?
2. How often do trials reuse an encoded fold (``EncodingCache``)?
3. Is one XGBoost thread per model faster than XGBoost's default thread count
   on this data? Decision: each trial's model gets one thread; parallelism comes
   from running ``n_jobs`` trials at once, never from oversubscribing cores.

Run from the repository root (needs ``../shared/data``)::

    PYTHONPATH=$PWD python tests/benchmarks/bench_auto_fit.py --budgets 30 60
    PYTHONPATH=$PWD python tests/benchmarks/bench_auto_fit.py --only threads

Prints wall time, peak memory and ratios measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import time
from pathlib import Path

import pandas as pd

import autocat
from autocat._recipe import Recipe

DATA = Path(
    os.environ.get(
        "AUTOCAT_SHARED_DATA", Path(__file__).resolve().parents[3] / "shared" / "data"
    )
)
TARGET = "current_annual_salary"


def load() -> pd.DataFrame:
    path = DATA / "employee_salaries" / "employee_salaries.csv.gz"
    if not path.exists():
        raise SystemExit(
            f"{path} is missing: set AUTOCAT_SHARED_DATA to ../shared/data"
        )
    return pd.read_csv(path, low_memory=False).drop(columns=["is_eval"])


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_budget(df: pd.DataFrame, budgets: list[float]) -> None:
    print("\n== time budget (whole call, refit included) ==")
    for budget in budgets:
        start = time.monotonic()
        result = autocat.auto_fit(df, TARGET, time_budget=budget, show_progress=False)
        elapsed = time.monotonic() - start
        print(
            f"budget {budget:5.0f}s  elapsed {elapsed:6.1f}s  "
            f"ratio {elapsed / budget:.3f}"
            f"  trials {result.n_trials_:3d}  folds {result.n_folds_}"
            f"  refit {result.refit_s_:.1f}s  cv r2 {result.cv_score_:.4f}"
            f"  (paper's recipe {result.baseline_score_:.4f})"
        )


def bench_cache(df: pd.DataFrame, n_trials: int) -> None:
    print("\n== encoding cache ==")
    start = time.monotonic()
    result = autocat.auto_fit(df, TARGET, n_trials=n_trials, cv=3, show_progress=False)
    elapsed = time.monotonic() - start
    info = result.cache_info_
    print(
        f"{n_trials} trials x 3 folds on {len(df)} rows in {elapsed:.1f}s: "
        f"hits {info['hits']}, misses {info['misses']}, hit rate "
        f"{info['hit_rate']:.2f}, encoding {info['encode_seconds']:.1f}s"
    )


def bench_threads(df: pd.DataFrame, repeats: int) -> None:
    print("\n== XGBoost threads (same encoded matrix, 300 trees, depth 6) ==")
    X = df.drop(columns=[TARGET])
    y = df[TARGET].to_numpy()
    encoded = Recipe().build_vectorizer().fit_transform(X)
    timings: dict[str, float] = {}
    for label, n_jobs in [("n_jobs=1", 1), ("default (None)", None), ("n_jobs=2", 2)]:
        runs = []
        for _ in range(repeats):
            model = Recipe(n_estimators=300).build_model(n_jobs=n_jobs)
            start = time.perf_counter()
            model.fit(encoded, y)
            runs.append(time.perf_counter() - start)
        timings[label] = statistics.median(runs)
        print(
            f"{label:15s} median {timings[label]:.2f}s  "
            f"({len(y) * 300 / timings[label]:,.0f} row-trees/s)"
        )
    one = timings["n_jobs=1"]
    for label, seconds in timings.items():
        print(f"{label:15s} / n_jobs=1: {seconds / one:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", type=float, nargs="+", default=[30.0, 60.0])
    parser.add_argument("--cache-trials", type=int, default=30)
    parser.add_argument("--cache-rows", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", choices=["budget", "cache", "threads"])
    args = parser.parse_args()
    import numpy
    import optuna
    import sklearn
    import xgboost

    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
        f"python {platform.python_version()}, autocat {autocat.__version__}, "
        f"xgboost {xgboost.__version__}, optuna {optuna.__version__}, "
        f"scikit-learn {sklearn.__version__}, numpy {numpy.__version__}"
    )
    df = load()
    print(f"employee salaries: {df.shape[0]} rows x {df.shape[1] - 1} features")
    if args.only in (None, "threads"):
        bench_threads(df, args.repeats)
    if args.only in (None, "cache"):
        bench_cache(df.sample(args.cache_rows, random_state=0), args.cache_trials)
    if args.only in (None, "budget"):
        bench_budget(df, args.budgets)
    print(f"\npeak memory {peak_mib():.0f} MiB")


if __name__ == "__main__":
    main()
