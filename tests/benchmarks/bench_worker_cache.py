"""Benchmark: does a worker's cache of min-hash rows pay for itself?

Question (2026-11): a Dask or Spark worker encodes partition after partition,
and each partition min-hashes its own distinct values. Keeping the rows of the
strings already met (``cache_mib`` of ``autocat.integrations.dask.transform``)
saves their hashing but costs a dict lookup per distinct value and an insert per
new one. Which costs more, for short and for long strings?

Data: ``--rows`` rows (default 2,000,000) drawn with Zipf-like frequencies from
``--unique`` dirty strings (default 100,000; ``dirty_strings.py``) of about 30
characters, then from as many strings of about ``--long-words`` such values
joined (about 320 characters at the default 10), cut into partitions of
``--partition-rows`` rows; d = 30. One worker's share (every other partition)
is encoded in one process, as a single-threaded Dask worker does, with the
cache off and at ``--cache-mib`` MiB (emptied before each run), alternating;
medians of ``--repeat`` runs, rows/s, the cache's size, and the ratio of the
two times. Output identical in both (checked).

Run: ``python tests/benchmarks/bench_worker_cache.py``. On a shared machine,
read ratios, not absolute times.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scale_out import _cache_mib
from dirty_strings import make_dirty_strings

from autocat import MinHashEncoder, _encoding_cache
from autocat.integrations import _distributed


def make_column(n_rows, n_unique, words, seed=0):
    """Rows of ``n_unique`` distinct strings of ``words`` dirty values each."""
    rng = np.random.default_rng(seed)
    vocabulary, _ = make_dirty_strings(n_unique=n_unique, n_rows=10, seed=seed)
    vocabulary = np.asarray(vocabulary, dtype=object)
    if words > 1:
        picks = rng.integers(0, len(vocabulary), (len(vocabulary), words))
        vocabulary = np.asarray([" ".join(vocabulary[p]) for p in picks], dtype=object)
    rows = vocabulary[(rng.zipf(1.3, n_rows) - 1) % len(vocabulary)]
    return pd.DataFrame({"text": pd.Series(rows, dtype="str")}), vocabulary


def encode_share(encoder, names, partitions, cache_mib):
    _encoding_cache.clear()
    start = time.perf_counter()
    outs = [
        _distributed.encode_partition(p, encoder, names, cache_mib) for p in partitions
    ]
    return time.perf_counter() - start, outs


def bench(label, frame, vocabulary, args):
    encoder = MinHashEncoder(n_components=30).fit(frame.head(100))
    names = _distributed.feature_names(encoder)
    share = [
        frame.iloc[first : first + args.partition_rows]
        for first in range(0, len(frame), args.partition_rows)
    ][::2]
    encode_share(encoder, names, [share[0].head(100)], 0)  # compile the kernels
    times = {0: [], args.cache_mib: []}
    same = True
    for _ in range(args.repeat):
        reference = None
        for cache_mib in times:
            seconds, outs = encode_share(encoder, names, share, cache_mib)
            times[cache_mib].append(seconds)
            if reference is None:
                reference = outs
            else:
                same &= all(a.equals(b) for a, b in zip(reference, outs, strict=True))
    cache_mib_used = _cache_mib()  # after the last run, the cache's
    rows = sum(len(p) for p in share)
    off = statistics.median(times[0])
    on = statistics.median(times[args.cache_mib])
    length = np.mean([len(s) for s in vocabulary[:1_000]])
    print(
        f"{label} ({length:.0f} characters on average), one worker's "
        f"{len(share)} partitions, {rows:,} rows: cache off {rows / off:,.0f} "
        f"rows/s ({off:.2f} s), cache {args.cache_mib:g} MiB {rows / on:,.0f} "
        f"rows/s ({on:.2f} s, {cache_mib_used:.0f} MiB held): on / off time "
        f"{on / off:.2f}; identical: {same}; runs off "
        f"{[round(t, 2) for t in times[0]]}, on "
        f"{[round(t, 2) for t in times[args.cache_mib]]}"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--unique", type=int, default=100_000)
    parser.add_argument("--partition-rows", type=int, default=250_000)
    parser.add_argument("--long-words", type=int, default=10)
    parser.add_argument("--cache-mib", type=float, default=1024)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(
        f"{platform.machine()}, {os.cpu_count()} logical cores, python "
        f"{platform.python_version()}, pandas {pd.__version__}"
    )
    for label, words in [("short strings", 1), ("long strings", args.long_words)]:
        frame, vocabulary = make_column(args.rows, args.unique, words)
        bench(label, frame, vocabulary, args)


if __name__ == "__main__":
    main()
