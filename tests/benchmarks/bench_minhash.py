"""Benchmark: MinHashEncoder against skrub's MinHashEncoder on 1M dirty strings.

Question: how fast is the exact min-hash encoding of a large, dirty column, and
how does it compare with the encoder users pick today?

Data: ``--rows`` rows (default 1,000,000) drawn with Zipf-like frequencies from
``--unique`` distinct dirty strings (default 50,000; 2-5 words from a 2,000-word
vocabulary, 5% with a typo), as a column of Python ``str`` objects; d = 30, one
thread. Prints wall time (median of ``--repeat`` runs), rows/s, peak traced memory
beyond the output, and skrub's default (``hashing="fast"``) and
``hashing="murmur"`` encoders on the same data in the same run, with the ratios
and whether the murmur output is identical.

Run: ``python tests/benchmarks/bench_minhash.py`` (add ``--small`` for a quick check).

Decision (2026-11): the numba kernel mixes each n-gram's key words once and runs
only the seed-dependent part per seed, and columns are factorised by object
identity before comparing strings; see the module docstrings of
``autocat._murmur`` and ``autocat._factorize``.
"""

from __future__ import annotations

import argparse
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
from autocat import MinHashEncoder


def timed(function, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def peak_memory(function):
    tracemalloc.start()
    result = function()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak, result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--unique", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--small", action="store_true", help="10k rows, 2k values")
    parser.add_argument("--no-skrub", action="store_true")
    args = parser.parse_args(argv)
    if args.small:
        args.rows, args.unique, args.repeat = 10_000, 2_000, 3

    uniques, rows = make_dirty_strings(n_unique=args.unique, n_rows=args.rows)
    frame = pd.DataFrame({"title": pd.Series(rows, dtype=object)})
    n = len(frame)
    print(
        f"data: {n:,} rows, {len(uniques):,} distinct strings, d=30; "
        f"{platform.processor() or platform.machine()}, python "
        f"{platform.python_version()}, autocat {autocat.__version__}, numpy "
        f"{np.__version__}, pandas {pd.__version__}"
    )

    encoder = MinHashEncoder(n_components=30).fit(frame.head(10))
    encoder.transform(frame.head(10))  # compile or load the cached kernel
    ours_s, ours = timed(lambda: encoder.transform(frame), args.repeat)
    peak, _ = peak_memory(lambda: encoder.transform(frame))
    extra = peak - ours.nbytes
    codes_bytes = 4 * n  # int32 row codes
    table_bytes = 4 * 30 * len(uniques)  # float32 encodings of the distinct values
    distinct_bytes = sum(sys.getsizeof(s) for s in uniques)
    print(
        f"autocat MinHashEncoder          {ours_s:8.3f} s  {n / ours_s:12,.0f} rows/s  "
        f"peak {peak / 2**20:.1f} MiB = output {ours.nbytes / 2**20:.1f} MiB "
        f"+ {extra / 2**20:.1f} MiB (row codes {codes_bytes / 2**20:.1f} MiB, "
        f"distinct encodings {table_bytes / 2**20:.1f} MiB, distinct strings "
        f"{distinct_bytes / 2**20:.1f} MiB)"
    )
    pyarrow_frame = frame.astype({"title": "str"})
    arrow_s, _ = timed(lambda: encoder.transform(pyarrow_frame), args.repeat)
    print(
        f"autocat, pandas 'str' column    {arrow_s:8.3f} s  {n / arrow_s:12,.0f} rows/s"
    )
    if args.no_skrub:
        return 0
    try:
        import skrub
    except ImportError:
        print("skrub is not installed: pip install 'autocat[bench]' to compare")
        return 0
    column = frame["title"]
    for hashing in ["fast", "murmur"]:
        theirs_encoder = skrub.MinHashEncoder(n_components=30, hashing=hashing)
        start = time.perf_counter()
        theirs = theirs_encoder.fit_transform(column)
        theirs_s = time.perf_counter() - start
        line = (
            f"skrub MinHashEncoder({hashing!r:8}) {theirs_s:8.3f} s  "
            f"{n / theirs_s:12,.0f} rows/s  autocat is {theirs_s / ours_s:6.1f}x faster"
        )
        if hashing == "murmur":
            same = np.array_equal(np.asarray(theirs, dtype=np.float32), ours)
            line += f"; identical output: {same}"
        print(line + f" (skrub {skrub.__version__}, one run)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
