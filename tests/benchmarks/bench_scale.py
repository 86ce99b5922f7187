"""Benchmark: does MinHashEncoder.transform use its threads on every stage?

Question (2026-11): with ``n_jobs`` threads, which share of the encoding of a
large column still runs on one thread? Before, only the hashing of distinct
values was threaded; factorisation and the row gather were serial (measured on a
16-core machine: 2.4x on 16 cores). Now every stage proportional to the rows is
threaded over chunks of rows, with output identical bit for bit.

Data: ``--rows`` rows (default 2,000,000) drawn from ``--unique`` dirty strings
(default 200,000; see ``dirty_strings.py``), as pandas' default Arrow-backed
``str`` column and as a column of Python objects; d = 30. For 1 and ``--threads``
threads (default 2): wall time of the whole transform (median of ``--repeat``),
rows/s, traced peak memory beyond the output, and each stage alone
(factorisation, hashing of the distinct values, row gather). The serial fraction
``f`` follows from Amdahl's law, ``S = 1 / (f + (1 - f) / p)``:
``f = (p / S - 1) / (p - 1)``.

Run: ``python tests/benchmarks/bench_scale.py`` (``--rows 200000`` for a quick
check). On a shared machine, read ratios, not absolute times.
"""

from __future__ import annotations

import argparse
import functools
import os
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

from autocat import MinHashEncoder
from autocat._factorize import factorize_strings, take_rows


def _median_time(function, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _stages(encoder, values, threads, repeat):
    """Time each stage of one column's transform alone."""
    codes, strings = factorize_strings(values, "c", threads)
    table = np.empty((len(strings) + 1, 30), dtype=np.float32)
    out = np.empty((len(values), 30), dtype=np.float32)
    return {
        "factorise": _median_time(
            functools.partial(factorize_strings, values, "c", threads), repeat
        ),
        "hash distinct": _median_time(
            functools.partial(encoder._hash, strings, table[:-1]), repeat
        ),
        "gather": _median_time(
            functools.partial(take_rows, table, codes, out, threads), repeat
        ),
    }


def _serial_fraction(speedup, threads):
    return (threads / speedup - 1) / (threads - 1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--unique", type=int, default=200_000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} logical "
        f"cores, python {platform.python_version()}, pandas {pd.__version__}, "
        f"numpy {np.__version__}; {args.rows:,} rows, {args.unique:,} distinct, d=30"
    )
    _, rows = make_dirty_strings(n_unique=args.unique, n_rows=args.rows)
    columns = {
        "str (Arrow)": pd.DataFrame({"c": pd.Series(rows, dtype="str")}),
        "object": pd.DataFrame({"c": pd.Series(rows, dtype=object)}),
    }
    MinHashEncoder(n_components=30).fit_transform(columns["object"].iloc[:1_000])
    for label, frame in columns.items():
        print(f"\n== column of {label}")
        outputs = {}
        totals = {}
        for threads in (1, args.threads):
            encoder = MinHashEncoder(n_components=30, n_jobs=threads).fit(frame)
            tracemalloc.start()
            outputs[threads] = encoder.transform(frame)
            peak = tracemalloc.get_traced_memory()[1] - outputs[threads].nbytes
            tracemalloc.stop()
            totals[threads] = _median_time(
                functools.partial(encoder.transform, frame), args.repeat
            )
            stages = _stages(encoder, frame["c"], threads, args.repeat)
            print(
                f"n_jobs={threads}: {totals[threads]:.3f} s, "
                f"{args.rows / totals[threads]:,.0f} rows/s, peak beyond output "
                f"{peak / 2**20:,.0f} MiB; stages: "
                + ", ".join(f"{k} {v:.3f} s" for k, v in stages.items())
            )
            totals[(threads, "stages")] = stages
        same = outputs[1].tobytes() == outputs[args.threads].tobytes()
        speedup = totals[1] / totals[args.threads]
        print(
            f"speed-up {speedup:.2f}x on {args.threads} threads, serial fraction "
            f"{_serial_fraction(speedup, args.threads):.2f}; identical output: {same}"
        )
        for stage, one in totals[(1, "stages")].items():
            many = totals[(args.threads, "stages")][stage]
            print(
                f"  {stage}: {one / many:.2f}x, serial fraction "
                f"{_serial_fraction(one / many, args.threads):.2f}"
            )


if __name__ == "__main__":
    main()
