"""Benchmark: TableVectorizer against skrub's TableVectorizer on a 1M-row table.

Question: how long does vectorizing a large, mixed table take, and how much memory
beyond the output matrix does it need, compared with the dispatcher users pick today?

Data: ``--rows`` rows (default 1,000,000) and 11 columns: 5 numeric (float64, 1%
NaN), 3 low-cardinality strings (4, 12 and 30 distinct values), 2 high-cardinality
dirty strings (50,000 and 5,000 distinct values, Zipf-like frequencies, 5% typos;
see ``dirty_strings.py``) and 1 date column as text (``"09/12/1986"``, 10,000
distinct days), all strings in pandas' default ``str`` dtype, as ``read_csv``
gives them. Both vectorizers run with their defaults (min-hash with 30
components, one thread). Prints the fit_transform wall time (median of
``--repeat`` runs for autocat, one run for skrub, which is slower), rows/s, the
peak memory traced by ``tracemalloc`` during one more call (numpy and Python
allocations; Arrow buffers are not traced; the input table is not counted)
next to the output size, and the ratios measured in the same run.

The same table as a polars DataFrame (``pl.from_pandas``, built before timing)
is then encoded too, and ``MinHashEncoder`` encodes the 50,000-value column from
pandas and from polars: polars strings reach the encoders through Arrow, not
``to_numpy()`` (skipped when polars is not installed, or with ``--no-polars``).

Run: ``python tests/benchmarks/bench_table_vectorizer.py`` (add ``--small`` for a
quick check, ``--no-skrub`` to skip the peer).

Decision (2026-11): every non-numeric column is factorised once; numbers and
dates are parsed, and encoders run, on the distinct values only; rows are then
gathered into one preallocated float32 matrix.
"""

from __future__ import annotations

import argparse
import gc
import platform
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dirty_strings import make_dirty_strings

import autocat
from autocat import TableVectorizer

FRAME: pd.DataFrame  # the table every run encodes, built once in main()


def make_table(n_rows: int, seed: int = 0) -> pd.DataFrame:
    """Return the benchmark table (see the module docstring)."""
    rng = np.random.default_rng(seed)
    columns: dict[str, object] = {}
    for i in range(5):
        values = rng.normal(loc=i, scale=1 + i, size=n_rows)
        values[rng.random(n_rows) < 0.01] = np.nan
        columns[f"num_{i}"] = values
    for i, n_values in enumerate([4, 12, 30]):
        pool = np.array(
            [f"level {chr(65 + i)}{j}" for j in range(n_values)], dtype=object
        )
        columns[f"low_{i}"] = pd.Series(
            pool[rng.integers(0, n_values, n_rows)], dtype="str"
        )
    for i, n_unique in enumerate([50_000, 5_000]):
        _, rows = make_dirty_strings(
            n_unique=min(n_unique, n_rows), n_rows=n_rows, seed=i
        )
        columns[f"high_{i}"] = pd.Series(rows, dtype="str")
    days = np.datetime64("1980-01-01") + rng.integers(0, 10_000, n_rows).astype(
        "timedelta64[D]"
    )
    columns["date"] = pd.Series(
        pd.DatetimeIndex(days).strftime("%m/%d/%Y"), dtype="str"
    )
    return pd.DataFrame(columns)


def timed(vectorizer_factory, frame=None) -> tuple[float, np.ndarray]:
    """Return the wall time and output of one fit_transform of a fresh vectorizer."""
    vectorizer = vectorizer_factory()
    gc.collect()
    start = time.perf_counter()
    out = vectorizer.fit_transform(FRAME if frame is None else frame)
    return time.perf_counter() - start, np.asarray(out)


def polars_runs(frame: pd.DataFrame, repeat: int, pandas_s: float) -> None:
    """Time the vectorizer on a polars copy and min-hash on one column of each."""
    try:
        import polars as pl
    except ImportError:
        print("polars is not installed: pip install 'autocat[polars]' to compare")
        return
    from autocat import MinHashEncoder

    polars_frame = pl.from_pandas(frame)
    n = len(frame)
    seconds = statistics.median(
        timed(TableVectorizer, polars_frame)[0] for _ in range(repeat)
    )
    print(
        f"autocat TableVectorizer  {seconds:8.2f} s  {n / seconds:11,.0f} rows/s  "
        f"on polars (median of {repeat} runs; {seconds / pandas_s:.2f}x pandas)"
    )
    column = {"pandas": frame[["high_0"]], "polars": polars_frame.select("high_0")}
    spent = {}
    for name, table in column.items():
        spent[name] = statistics.median(
            timed(MinHashEncoder, table)[0] for _ in range(repeat)
        )
    print(
        f"MinHashEncoder on high_0 {spent['pandas']:8.2f} s from pandas, "
        f"{spent['polars']:.2f} s from polars "
        f"({spent['polars'] / spent['pandas']:.2f}x; "
        f"median of {repeat} runs)"
    )


def traced_peak(vectorizer_factory) -> int:
    """Return the peak memory traced during one fit_transform (run apart from the
    timed runs: tracing slows Python allocations down)."""
    vectorizer = vectorizer_factory()
    gc.collect()
    tracemalloc.start()
    vectorizer.fit_transform(FRAME)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--small", action="store_true", help="20k rows, one run")
    parser.add_argument("--no-skrub", action="store_true")
    parser.add_argument("--no-polars", action="store_true")
    args = parser.parse_args(argv)
    if args.small:
        args.rows, args.repeat = 20_000, 1
    global FRAME
    FRAME = frame = make_table(args.rows)
    n = len(frame)
    print(
        f"data: {n:,} rows x {frame.shape[1]} columns (5 numeric, 3 low-cardinality, "
        f"2 high-cardinality, 1 date as text); "
        f"{platform.processor() or platform.machine()}, python "
        f"{platform.python_version()}, autocat {autocat.__version__}, numpy "
        f"{np.__version__}, pandas {pd.__version__}"
    )
    TableVectorizer().fit_transform(frame.head(100))  # compile or load the kernels

    times = []
    for _ in range(args.repeat):
        seconds, out = timed(TableVectorizer)  # keep one output alive at a time
        times.append(seconds)
    ours_s = statistics.median(times)
    peak = traced_peak(TableVectorizer)
    print(
        f"autocat TableVectorizer  {ours_s:8.2f} s  {n / ours_s:11,.0f} rows/s  "
        f"output {out.shape[1]} float32 columns = {out.nbytes / 2**20:7.1f} MiB  "
        f"peak {peak / 2**20:7.1f} MiB = {peak / out.nbytes:.2f}x output "
        f"(median of {args.repeat} runs)"
    )
    if not args.no_polars:
        polars_runs(frame, args.repeat, ours_s)
    if args.no_skrub:
        return 0
    try:
        import skrub
    except ImportError:
        print("skrub is not installed: pip install 'autocat[bench]' to compare")
        return 0
    theirs_s, theirs = timed(skrub.TableVectorizer)
    theirs_peak = traced_peak(skrub.TableVectorizer)
    print(
        f"skrub TableVectorizer    {theirs_s:8.2f} s  {n / theirs_s:11,.0f} rows/s  "
        f"output {theirs.shape[1]} {theirs.dtype} columns = "
        f"{theirs.nbytes / 2**20:7.1f} MiB  peak {theirs_peak / 2**20:7.1f} MiB = "
        f"{theirs_peak / theirs.nbytes:.2f}x output "
        f"(skrub {skrub.__version__}, one run)"
    )
    print(
        f"autocat is {theirs_s / ours_s:.1f}x faster and peaks at "
        f"{peak / theirs_peak:.2f}x skrub's traced memory"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
