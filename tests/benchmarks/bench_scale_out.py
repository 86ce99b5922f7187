"""Benchmark: autocat on Dask and Spark against the in-memory transform, same rows.

Question (2026-11): does encoding through Dask (``LocalCluster``, 2 workers x 1
thread) or Spark (``local[2]``) keep up with the in-memory
``TableVectorizer.transform(n_jobs=2)``, with identical output, and does every
worker hold only its partitions plus the encoder? Target: Dask >= 80% of the
in-memory throughput.

Data: ``--rows`` rows (default 1,000,000; ``--full`` for the issue's 10,000,000)
of 2 dirty string columns with ``rows / 100`` and ``rows / 10`` distinct values
(100k and 1M at full size; ``dirty_strings.py``), 3 numeric columns, 1 date and
a numeric target, written as Parquet partitions of ``--partition-rows`` rows.
The TableVectorizer (min-hash, d = 30) is fitted on a 50,000-row sample.

Measured, in one run (medians of ``--repeat`` runs each): rows/s of the
in-memory transform (Parquet read excluded, then included), of Dask (Parquet
read + encode in the workers, each run with empty caches of min-hash rows; only
row counts come back, as the in-memory run checks nothing) and of Spark
(``noop`` sink, a fresh session per run); peak resident memory of each Dask
worker, and its cache of min-hash rows, against its largest partition plus the
pickled encoder; identical output (per-partition SHA-256 for Dask, computed
after the timed runs; a 1% sample of rows for Spark); the Gamma-Poisson fit of
the smaller dirty column over the partitions (map-reduce, streaming
``partial_fit``, in-memory: time and loss on a 100,000-row sample);
``autocat.integrations.dask.auto_fit`` with ``--budget`` seconds on every
Parquet file but the last, its final model trained with ``xgboost.dask`` on all
those rows, scored on the last file's rows.

Run: ``python tests/benchmarks/bench_scale_out.py --rows 1000000 --repeat 3``
(skip parts with ``--no-spark``, ``--no-gp``, ``--no-auto``; ``--cache-mib 256``
turns on the workers' cache of min-hash rows, off by default; ``--batch-rows 0``
encodes each of Spark's Arrow batches alone).
The machine may be shared: compare figures of one run only.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import pickle
import platform
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dirty_strings import make_dirty_strings

from autocat import GammaPoissonEncoder, TableVectorizer


def make_table(n_rows, seed=0):
    """Return the benchmark table (pandas, default dtypes)."""
    rng = np.random.default_rng(seed)
    _, small = make_dirty_strings(n_unique=max(n_rows // 100, 10), n_rows=n_rows)
    _, large = make_dirty_strings(n_unique=max(n_rows // 10, 10), n_rows=n_rows, seed=1)
    frame = pd.DataFrame(
        {
            "id": np.arange(n_rows, dtype=np.int64),
            "employer": pd.Series(small, dtype="str"),
            "title": pd.Series(large, dtype="str"),
            "x0": rng.normal(size=n_rows),
            "x1": rng.exponential(size=n_rows),
            "x2": rng.integers(0, 100, n_rows).astype(np.float64),
            "hired": pd.Timestamp("2000-01-01")
            + pd.to_timedelta(rng.integers(0, 9_000, n_rows), unit="D"),
        }
    )
    frame.loc[rng.random(n_rows) < 0.02, "x1"] = np.nan
    frame["y"] = (
        frame["x0"] * 2 + frame["employer"].str.len() / 10 + rng.normal(size=n_rows)
    )
    return frame


def _checksum(encoded):
    return pd.DataFrame(
        {
            "first": [int(encoded.index[0]) if len(encoded) else -1],
            "rows": [len(encoded)],
            "sha": [hashlib.sha256(encoded.to_numpy().tobytes()).hexdigest()],
        }
    )


class _ResidentPeaks:
    """Sample the resident memory of processes every 50 ms; keep each's peak.

    ``getrusage``'s ``ru_maxrss`` is no measure here: a worker started by
    forking reports its parent's peak (the benchmark's table) as its own, and
    both workers then showed the same figure.
    """

    def __init__(self, pids):
        import psutil

        self.processes = [psutil.Process(pid) for pid in pids]
        self.peaks = [p.memory_info().rss / 2**20 for p in self.processes]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self):
        while not self._stop.wait(0.05):
            for i, process in enumerate(self.processes):
                self.peaks[i] = max(self.peaks[i], process.memory_info().rss / 2**20)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def _cache_mib():
    from autocat import _encoding_cache

    cache = _encoding_cache._cache
    return 0.0 if cache is None else cache.nbytes / 2**20


def _rate(n, seconds):
    return f"{n / seconds:,.0f} rows/s ({seconds:.1f} s)"


def bench_in_memory(folder, vectorizer, n_rows, repeat=1):
    """Time the read and the 2-thread transform; medians of ``repeat`` runs."""
    reads, encodes = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        frame = pd.read_parquet(folder)
        reads.append(time.perf_counter() - start)
        features = frame[list(vectorizer.feature_names_in_)]
        start = time.perf_counter()
        out = vectorizer.set_params(n_jobs=2).transform(features)
        encodes.append(time.perf_counter() - start)
        vectorizer.set_params(n_jobs=None)
        del frame, features
    encode_s = float(np.median(encodes))
    read_s = float(np.median(reads))
    print(
        f"in memory, 2 threads: {_rate(n_rows, encode_s)}; with the Parquet read "
        f"{_rate(n_rows, encode_s + read_s)}; output {out.nbytes / 2**20:,.0f} MiB; "
        f"medians of {repeat}, encode runs {[round(v, 2) for v in encodes]} s"
    )
    return out, encode_s, encode_s + read_s


def _row_count(encoded):
    return pd.DataFrame({"rows": [len(encoded)]})


def bench_dask(folder, vectorizer, n_rows, reference, repeat=1, cache_mib=None):
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    from autocat._encoding_cache import clear
    from autocat.integrations import dask as autocat_dask

    cluster = LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
        memory_limit="6GiB",
    )
    client = Client(cluster)
    columns = list(vectorizer.feature_names_in_)
    # the ids are sorted within and across files: read them as the index, with
    # no shuffle; all columns (transform ignores the target), since a projection
    # lets dask fuse files into fewer, larger partitions than --partition-rows
    ddf = dd.read_parquet(folder, index="id", calculate_divisions=True)
    options = {} if cache_mib is None else {"cache_mib": cache_mib}
    encoded = autocat_dask.transform(vectorizer, ddf, **options)
    meta = pd.DataFrame(
        {"first": pd.Series([], dtype=np.int64), "rows": [], "sha": []}
    ).astype({"rows": np.int64, "sha": object})
    checksums = encoded.map_partitions(_checksum, meta=meta)
    # the timed run brings back row counts only, as the in-memory run checks nothing
    counts = encoded.map_partitions(_row_count, meta={"rows": np.int64})
    # workers import autocat and load the compiled kernels before the clock starts,
    # as the in-memory run did when the vectorizer was fitted
    warm = pd.read_parquet(next(Path(folder).glob("*.parquet")))[columns].head(1_000)
    client.run(vectorizer.transform, warm)
    runs = []
    pids = list(client.run(os.getpid).values())
    with _ResidentPeaks(pids) as resident:
        for _ in range(repeat):
            client.run(clear)  # each run starts with empty caches of min-hash rows
            start = time.perf_counter()
            rows = int(counts.compute()["rows"].sum())
            runs.append(time.perf_counter() - start)
    seconds = float(np.median(runs))
    client.run(clear)
    result = checksums.compute()
    same = (
        all(
            hashlib.sha256(reference[r.first : r.first + r.rows].tobytes()).hexdigest()
            == r.sha
            for r in result.itertuples()
        )
        and int(result["rows"].sum()) == n_rows == rows
    )
    caches = client.run(_cache_mib)
    partition_mib = (
        ddf.map_partitions(lambda p: pd.Series([p.memory_usage(deep=True).sum()]))
        .compute()
        .max()
        / 2**20
    )
    encoder_mib = len(pickle.dumps(vectorizer)) / 2**20
    print(
        f"dask, 2 workers x 1 thread: {_rate(n_rows, seconds)}; identical: {same}; "
        f"peak RSS per worker in the timed runs (MiB, sampled every 50 ms): "
        f"{[round(v) for v in resident.peaks]}, of which "
        f"min-hash cache {[round(v, 1) for v in caches.values()]}; largest "
        f"partition in memory {partition_mib:,.0f} MiB + its output "
        f"{result['rows'].max() * reference.shape[1] * 4 / 2**20:,.0f} MiB; "
        f"encoder {encoder_mib:,.1f} MiB; medians of {repeat}, runs "
        f"{[round(v, 2) for v in runs]} s"
    )
    return client, cluster, seconds


def _spark_session():
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.memory", "4g")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def bench_spark(
    folder, vectorizer, n_rows, reference, repeat=1, cache_mib=None, batch_rows=-1
):
    """Time Spark's encode into a ``noop`` sink; one fresh session per run.

    A fresh session starts fresh Python workers, so every run starts with empty
    caches of min-hash rows; a first, untimed encode of all rows with the cache
    off starts the workers (import autocat, load the compiled kernels) before
    the clock starts.
    """
    from autocat.integrations import spark as autocat_spark

    options = {} if cache_mib is None else {"cache_mib": cache_mib}
    if batch_rows != -1:
        options["batch_rows"] = batch_rows
    runs = []
    for run in range(repeat):
        spark = _spark_session()
        sdf = spark.read.parquet(str(folder))
        autocat_spark.transform(vectorizer, sdf, keep=["id"], cache_mib=0).write.format(
            "noop"
        ).mode("overwrite").save()
        encoded = autocat_spark.transform(vectorizer, sdf, keep=["id"], **options)
        start = time.perf_counter()
        encoded.write.format("noop").mode("overwrite").save()
        runs.append(time.perf_counter() - start)
        if run < repeat - 1:
            spark.stop()
    seconds = float(np.median(runs))
    sample = encoded.filter("id % 100 = 0").toPandas().sort_values("id")
    names = list(vectorizer.get_feature_names_out())
    same = np.array_equal(
        sample[names].to_numpy(np.float32),
        reference[sample["id"].to_numpy()],
        equal_nan=True,
    )
    print(
        f"spark local[2]: {_rate(n_rows, seconds)}; identical (1% of rows): {same}; "
        f"medians of {repeat}, runs {[round(v, 2) for v in runs]} s"
    )
    spark.stop()
    return seconds


def bench_gamma_poisson(folder, client):
    import dask.dataframe as dd

    from autocat.integrations import dask as autocat_dask

    ddf = dd.read_parquet(folder, columns=["employer"])
    evaluation = ddf.sample(frac=min(1.0, 100_000 / len(ddf)), random_state=0)
    evaluation = evaluation.compute()
    encoder = GammaPoissonEncoder(n_components=10, random_state=0)
    rows = []
    for label, fit in [
        ("map-reduce, 3 epochs", lambda: autocat_dask.fit(encoder, ddf, n_epochs=3)),
        (
            "partial_fit stream",
            lambda: autocat_dask.fit(encoder, ddf, method="partial_fit"),
        ),
        (
            "in memory (all rows)",
            lambda: GammaPoissonEncoder(n_components=10, random_state=0).fit(
                ddf.compute()
            ),
        ),
    ]:
        start = time.perf_counter()
        fitted = fit()
        seconds = time.perf_counter() - start
        loss = fitted._kl_divergence(evaluation) / len(evaluation)
        rows.append((label, seconds, loss))
        print(
            f"Gamma-Poisson {label}: {seconds:.1f} s, KL per row {loss:.3f}, "
            f"topics {fitted.topic_labels_[:3]}"
        )
    return rows


def _n_trials(result):
    """Trials in the shared study (none when the budget allowed none)."""
    return 0 if result.study_ is None else len(result.study_.trials)


def bench_auto_fit(folder, client, budget, n_rows):
    """``dask.auto_fit`` on every Parquet file but the last, scored on the last."""
    import dask.dataframe as dd

    from autocat.integrations import dask as autocat_dask

    files = sorted(Path(folder).glob("*.parquet"))
    ddf = dd.read_parquet([str(f) for f in files[:-1]]).drop(columns=["id"])
    held_out = pd.read_parquet(files[-1]).drop(columns=["id"])
    start = time.perf_counter()
    result = autocat_dask.auto_fit(ddf, "y", client=client, time_budget=budget, cv=3)
    seconds = time.perf_counter() - start
    print(
        f"dask auto_fit, budget {budget:.0f} s: {seconds:.1f} s in all; sample "
        f"search cv {result.metric_} {result.cv_score_:.3f} "
        f"({_n_trials(result)} trials over driver and workers); final "
        f"xgboost.dask on {result.n_rows_:,} rows in {result.refit_s_:.1f} s, "
        f"{result.best_params_.get('n_estimators')} trees; {result.metric_} on "
        f"the {len(held_out):,} rows of the last file, not trained on: "
        f"{result.score(held_out, held_out['y']):.3f}"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--full", action="store_true", help="10,000,000 rows")
    parser.add_argument("--partition-rows", type=int, default=250_000)
    parser.add_argument("--budget", type=float, default=120.0)
    parser.add_argument("--no-spark", action="store_true")
    parser.add_argument("--no-gp", action="store_true")
    parser.add_argument("--no-auto", action="store_true")
    parser.add_argument(
        "--repeat", type=int, default=1, help="timed runs of each encode (medians)"
    )
    parser.add_argument(
        "--cache-mib",
        type=float,
        default=None,
        help="bound of each worker's min-hash cache (default: the library's; 0: off)",
    )
    parser.add_argument(
        "--batch-rows",
        type=int,
        default=-1,
        help="Spark's batch_rows (default: the library's; 0: Arrow batches alone)",
    )
    args = parser.parse_args(argv)
    n_rows = 10_000_000 if args.full else args.rows
    import dask
    import xgboost

    spark_version = "not run"
    if not args.no_spark:
        import pyspark

        spark_version = pyspark.__version__
    print(
        f"{platform.machine()}, {os.cpu_count()} logical cores, python "
        f"{platform.python_version()}, pandas {pd.__version__}, dask "
        f"{dask.__version__}, pyspark {spark_version}, xgboost "
        f"{xgboost.__version__}; {n_rows:,} rows, partitions of "
        f"{args.partition_rows:,}"
    )
    folder = Path(tempfile.mkdtemp(prefix="autocat-scale-out-"))
    try:
        frame = make_table(n_rows)
        for k, first in enumerate(range(0, n_rows, args.partition_rows)):
            frame.iloc[first : first + args.partition_rows].to_parquet(
                folder / f"part-{k:05d}.parquet", index=False
            )
        features = frame.drop(columns=["id", "y"])
        vectorizer = TableVectorizer().fit(
            features.sample(min(50_000, n_rows), random_state=0)
        )
        del frame, features
        reference, memory_s, memory_read_s = bench_in_memory(
            folder, vectorizer, n_rows, args.repeat
        )
        client, cluster, dask_s = bench_dask(
            folder, vectorizer, n_rows, reference, args.repeat, args.cache_mib
        )
        print(
            f"dask / in-memory throughput: {memory_s / dask_s:.0%} (target >= 80%); "
            f"against the in-memory read + transform: {memory_read_s / dask_s:.0%}"
        )
        if not args.no_gp:
            bench_gamma_poisson(folder, client)
        if not args.no_auto:
            bench_auto_fit(folder, client, args.budget, n_rows)
        client.close()
        cluster.close()
        if not args.no_spark:
            spark_s = bench_spark(
                folder,
                vectorizer,
                n_rows,
                reference,
                args.repeat,
                args.cache_mib,
                None if args.batch_rows == 0 else args.batch_rows,
            )
            print(
                f"spark / in-memory throughput: {memory_s / spark_s:.0%}; against "
                f"the in-memory read + transform: {memory_read_s / spark_s:.0%}"
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
