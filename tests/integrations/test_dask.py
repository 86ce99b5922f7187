"""autocat on a real dask.distributed LocalCluster (2 worker processes)."""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

from autocat import (  # noqa: E402
    GammaPoissonEncoder,
    MinHashEncoder,
    TableVectorizer,
)
from autocat._log_target import LogTargetRegressor  # noqa: E402
from autocat.datasets import make_dirty_categories  # noqa: E402
from autocat.integrations import _distributed  # noqa: E402
from autocat.integrations import dask as autocat_dask  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            # a free port: the default 8787 may be taken, by another test
            # process's cluster for one (the fallback to another port warns)
            dashboard_address="127.0.0.1:0",
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def _table(n, seed, *, offset=0):
    rng = np.random.default_rng(seed)
    jobs = np.array([f"officer grade {i % 50} unit {i % 7}" for i in range(300)])
    return pd.DataFrame(
        {
            "job": jobs[rng.integers(0, 300, n)],
            "dept": rng.choice(["police", "fire", "health"], n),
            "x": rng.normal(size=n),
            "when": pd.Timestamp("2020-01-01")
            + pd.to_timedelta(rng.integers(0, 500, n), unit="D"),
        },
        index=pd.RangeIndex(offset, offset + n),
    )


def _parquet_files(frame, n_files, folder):
    """Write ``frame`` as ``n_files`` Parquet files and read them with Dask."""
    folder.mkdir()
    for k, part in enumerate(np.array_split(np.arange(len(frame)), n_files)):
        frame.iloc[part].to_parquet(folder / f"part-{k:03d}.parquet", index=False)
    return dd.read_parquet(folder)


def _from_frames(frames, meta):
    """A dask DataFrame whose partitions are exactly ``frames``."""
    return dd.from_delayed(
        [dask.delayed(f) for f in frames], meta=meta, verify_meta=False
    )


def test_transform_is_bit_identical_to_in_memory(client):
    df = _table(3_000, 0)
    vectorizer = TableVectorizer(n_components=8).fit(df)
    encoded = autocat_dask.transform(vectorizer, dd.from_pandas(df, npartitions=5))
    assert list(encoded.columns) == list(vectorizer.get_feature_names_out())
    assert (encoded.dtypes == np.float32).all()  # meta says what compute gives
    out = encoded.compute()
    assert out.to_numpy().tobytes() == vectorizer.transform(df).tobytes()
    assert out.index.equals(df.index)


def _cache_state():
    from autocat import _encoding_cache

    cache = _encoding_cache._cache
    return None if cache is None else (len(cache), cache.nbytes, cache.max_bytes)


@pytest.mark.parametrize("cache_mib", [None, 0, 0.05, 256])
def test_workers_cache_min_hash_rows_within_their_bound(client, cache_mib):
    """Partitions sharing values: same bytes with the cache off, tiny or large.

    ``None`` is the default, which keeps nothing: for short strings a lookup
    costs about what hashing costs (docs/cluster.md).
    """
    from autocat._encoding_cache import clear

    rng = np.random.default_rng(3)
    titles = np.array([f"{r} clerk, unit {u}" for r in "abcdef" for u in range(400)])
    df = pd.DataFrame({"title": titles[rng.integers(0, len(titles), 6_000)]})
    encoder = MinHashEncoder(n_components=16).fit(df)
    client.run(clear)
    ddf = dd.from_pandas(df, npartitions=6)
    options = {} if cache_mib is None else {"cache_mib": cache_mib}
    out = autocat_dask.transform(encoder, ddf, **options).compute()
    assert out.to_numpy().tobytes() == encoder.transform(df).tobytes()
    states = [s for s in client.run(_cache_state).values() if s is not None]
    if cache_mib:
        assert states and any(n > 0 for n, _, _ in states)
        for _, nbytes, bound in states:
            assert nbytes <= bound == int(cache_mib * 2**20)
    else:
        assert all(n == 0 for n, _, _ in states)
    client.run(clear)


def test_bad_partitions_give_the_in_memory_encoding(client):
    df = _table(400, 1)
    vectorizer = TableVectorizer(n_components=4).fit(df)
    empty = df.iloc[:0]
    all_missing = _table(50, 2, offset=400).assign(
        job=pd.Series([None] * 50, dtype=object, index=range(400, 450)),
        x=np.nan,
    )
    # x is int64 in this partition, float64 elsewhere; job is object, not str
    other_dtypes = _table(60, 3, offset=450).assign(
        x=np.arange(60, dtype=np.int64),
        job=lambda f: f["job"].astype(object),
    )
    # categories never seen at fit, on this partition only
    unseen = _table(40, 4, offset=510).assign(
        dept="coast guard", job="harbour master of the docks"
    )
    frames = [df.iloc[:200], empty, all_missing, other_dtypes, unseen, df.iloc[200:]]
    ddf = _from_frames(frames, meta=df.iloc[:0])
    out = autocat_dask.transform(vectorizer, ddf).compute()
    expected = np.concatenate([vectorizer.transform(f) for f in frames if len(f)])
    assert out.to_numpy().tobytes() == expected.tobytes()
    # the unseen category one-hot encodes as zeros, exactly as in memory
    dept = [c for c in out.columns if c.startswith("dept_")]
    assert (out.loc[510:549, dept].to_numpy() == 0).all()
    in_memory = vectorizer.transform(pd.concat(frames))
    np.testing.assert_array_equal(out.to_numpy(), in_memory)


def test_result_survives_a_worker_killed_mid_transform(client):
    rows = 40_000
    df = pd.DataFrame({"job": [f"value {i % 9_000} of row" for i in range(rows)]})
    encoder = MinHashEncoder(n_components=30).fit(df)
    expected = encoder.transform(df)
    ddf = dd.from_pandas(df, npartitions=40)
    future = client.compute(autocat_dask.transform(encoder, ddf))
    pids = client.run(os.getpid)
    deadline = time.monotonic() + 60
    while not any(client.processing().values()):
        assert time.monotonic() < deadline, "no task started"
        time.sleep(0.01)
    victim = next(w for w, tasks in client.processing().items() if tasks)
    os.kill(pids[victim], signal.SIGKILL)
    out = future.result(timeout=120)
    assert out.to_numpy().tobytes() == expected.tobytes()
    # the nanny restarted a worker: the kill did happen
    assert client.run(os.getpid).get(victim) != pids[victim]


def test_transform_rejects_bad_arguments(client):
    df = _table(30, 5)
    vectorizer = TableVectorizer().fit(df)
    with pytest.raises(TypeError, match=r"takes a dask DataFrame; got DataFrame"):
        autocat_dask.transform(vectorizer, df)
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['when'\]"):
        autocat_dask.transform(vectorizer, dd.from_pandas(df.drop(columns="when")))
    with pytest.raises(TypeError, match="rather than the class"):
        autocat_dask.transform(TableVectorizer, dd.from_pandas(df))
    with pytest.raises(TypeError, match="needs transform and get_feature_names_out"):
        autocat_dask.transform(object(), dd.from_pandas(df))
    with pytest.raises(ValueError, match=r"'cache_mib' .* must be a number >= 0"):
        autocat_dask.transform(vectorizer, dd.from_pandas(df), cache_mib=-1)


def test_gamma_poisson_statistics_add_up_across_partitions():
    X, _ = make_dirty_categories(kind="typos", n_samples=600, random_state=0)
    encoder = GammaPoissonEncoder(n_components=3, max_iter=2, random_state=0).fit(X)
    whole = _distributed.gamma_poisson_statistics(X, encoder)[0]
    parts = [
        _distributed.gamma_poisson_statistics(p, encoder)[0]
        for p in (X.iloc[:250], X.iloc[250:])
    ]
    total = np.zeros((encoder._models[0].n_columns, 3))
    for touched, rows, _ in parts:
        np.add.at(total, touched, rows)
    np.testing.assert_allclose(total[whole[0]], whole[1], rtol=1e-9)
    np.testing.assert_allclose(parts[0][2] + parts[1][2], whole[2], rtol=1e-12)


@pytest.mark.parametrize("method", ["map_reduce", "partial_fit"])
def test_gamma_poisson_fit_over_partitions(client, method):
    X, _ = make_dirty_categories(kind="typos", n_samples=2_000, random_state=0)
    ddf = dd.from_pandas(X, npartitions=4)
    encoder = GammaPoissonEncoder(n_components=4, random_state=0)
    fitted = autocat_dask.fit(encoder, ddf, method=method, sample_rows=500)
    assert not hasattr(encoder, "topic_labels_")  # the input is not fitted
    in_memory = GammaPoissonEncoder(n_components=4, random_state=0).fit(X)
    # topic quality: the loss on all rows within 10% of a fit on all of them
    assert fitted._kl_divergence(X) <= 1.10 * in_memory._kl_divergence(X)
    # every partition's n-grams reached the vocabulary
    assert fitted._models[0].n_columns == in_memory._models[0].n_columns
    again = autocat_dask.fit(encoder, ddf, method=method, sample_rows=500)
    assert again.transform(X).tobytes() == fitted.transform(X).tobytes()
    out = autocat_dask.transform(fitted, ddf).compute()
    assert out.to_numpy().tobytes() == fitted.transform(X).tobytes()


def test_fit_rejects_other_estimators(client):
    ddf = dd.from_pandas(pd.DataFrame({"a": ["x", "y"]}))
    with pytest.raises(TypeError, match="MinHashEncoder learns nothing"):
        autocat_dask.fit(MinHashEncoder(), ddf)
    with pytest.raises(ValueError, match="method must be 'map_reduce' or"):
        autocat_dask.fit(GammaPoissonEncoder(), ddf, method="online")


def test_vectorizer_fit_counts_distinct_values_over_all_rows(client):
    rng = np.random.default_rng(0)
    n = 4_000
    frame = pd.DataFrame(
        {
            # 25 values: low-cardinality, but rare ones miss a small sample
            "few": np.where(
                rng.random(n) < 0.97, "common", [f"rare {i % 24}" for i in range(n)]
            ),
            # 40 values overall, only 2 in the first half
            "many": np.where(
                np.arange(n) < n // 2,
                rng.choice(["a", "b"], n),
                [f"v{i % 40}" for i in range(n)],
            ),
            "x": rng.normal(size=n),
        }
    )
    ddf = dd.from_pandas(frame, npartitions=4)
    fitted = autocat_dask.fit(TableVectorizer(), ddf, sample_rows=40)
    reference = TableVectorizer().fit(frame)
    assert fitted.column_kinds_ == reference.column_kinds_
    assert fitted.input_to_outputs_["few"] == reference.input_to_outputs_["few"]
    out = autocat_dask.transform(fitted, ddf).compute()
    assert out.to_numpy().tobytes() == fitted.transform(frame).tobytes()


# dask 2026.8's Parquet reader still passes ``inplace=`` to pandas 3.1
@pytest.mark.filterwarnings("ignore:The inplace keyword:pandas.errors.Pandas4Warning")
def test_features_and_labels_keep_the_partitions_of_a_parquet_source(tmp_path):
    # xgboost.dask needs features and labels partitioned alike. Read from
    # Parquet, a projection of the target alone is fused into fewer partitions
    # by Dask's optimizer (a 10M-row auto_fit failed so); mapped from one
    # projection, both keep the same partitions and rows.
    from autocat.integrations.dask import _features_and_labels

    frame = _table(1_200, 3).assign(y=np.arange(1_200, dtype=float))
    ddf = _parquet_files(frame, 12, tmp_path / "rows")
    assert ddf["y"].optimize().npartitions < 12  # the trap is there
    columns = ["job", "dept", "x", "when"]
    vectorizer = TableVectorizer().fit(frame[columns])
    X, y = _features_and_labels(vectorizer, ddf, columns, "y")
    assert X.optimize().npartitions == y.optimize().npartitions == 12
    with dask.config.set(scheduler="sync"):
        encoded, labels, rows = dask.compute(X, y, ddf)
    expected = vectorizer.transform(rows[columns])
    assert encoded.to_numpy().tobytes() == expected.tobytes()
    np.testing.assert_array_equal(labels.to_numpy(), frame["y"].to_numpy())


# dask 2026.8's Parquet reader still passes ``inplace=`` to pandas 3.1
@pytest.mark.filterwarnings("ignore:The inplace keyword:pandas.errors.Pandas4Warning")
@pytest.mark.slow
# the toy target is a function of one column, which autocat rightly flags
@pytest.mark.filterwarnings("ignore::autocat._column_kinds.SuspiciousColumnWarning")
@pytest.mark.parametrize("kind", ["regression", "classification", "log-regression"])
def test_auto_fit_trains_on_all_rows_and_predicts_pandas_and_dask(
    client, tmp_path, kind
):
    rng = np.random.default_rng(0)
    n = 1_500
    jobs = rng.choice([f"job {i}" for i in range(60)], n)
    years = rng.integers(0, 30, n)
    df = pd.DataFrame({"job": jobs, "years": years})
    digit = pd.Series(jobs).str[-1].astype(int).to_numpy()
    if kind == "regression":
        df["y"] = years * 2.0 + digit
    elif kind == "log-regression":  # skewed: the search measures the log target
        df["y"] = np.exp(years / 6 + digit / 4 + rng.normal(0, 0.3, n))
    else:
        df["y"] = np.where(years > 15, "senior", "junior")
    # From Parquet files: Dask's optimizer fuses the partitions of a projection
    # of few columns, so features and labels projected apart would not align.
    ddf = _parquet_files(df, 12, tmp_path / "rows")
    # a worker that an earlier test killed may still be restarting
    client.wait_for_workers(2, timeout=120)
    result = autocat_dask.auto_fit(
        ddf,
        "y",
        client=client,
        time_budget=600,  # n_trials ends each search: the machine may be slow
        sample_rows=500,
        n_trials=2,
        cv=2,
        storage=str(tmp_path / "study.journal"),
        # "log", not "auto": with 2 trials a process, which process runs the
        # trial that measures the log target, and on which base, depends on the
        # processes' timing, and so whether it wins; the log model is what is
        # checked here ("auto" is in tests/test_log_target.py)
        target_transform="log" if kind == "log-regression" else "none",
    )
    assert result.n_rows_ == n
    # the driver and both workers ran their 2 trials in the shared study
    assert "on 2 of the cluster's 2 Dask worker(s)" in result.summary()
    states = [trial.state.name for trial in result.study_.trials]
    assert len(states) >= 6, states
    assert result.pipeline_[-1].n_estimators == result.best_params_["n_estimators"]
    predictions = result.predict(df)
    from_dask = autocat_dask.predict(result, ddf).compute()
    np.testing.assert_array_equal(from_dask.to_numpy(), predictions)
    if kind == "log-regression":
        # xgboost.dask learnt log(1 + y), and the model predicts on y's scale
        # with the search's smearing factor
        assert result.best_params_["target_transform"] == "log"
        model = result.pipeline_[-1]
        assert isinstance(model, LogTargetRegressor) and model.smearing_ > 1
        assert result.score(df, df["y"]) > 0.8
    elif kind == "regression":
        assert result.score(df, df["y"]) > 0.9
    else:
        assert set(predictions) <= {"senior", "junior"}
        assert (predictions == df["y"]).mean() > 0.95


def test_a_worker_search_says_why_it_added_no_trial(monkeypatch, tmp_path):
    # a worker whose search ends without a trial of its own reports why, so that
    # auto_fit can warn instead of silently counting on it
    import autocat

    rng = np.random.default_rng(0)
    sample = pd.DataFrame(
        {"job": rng.choice([f"job {i}" for i in range(40)], 200), "x": rng.random(200)}
    ).assign(y=lambda d: d["x"] * 3 + rng.normal(0, 1, 200))
    settings = {
        "storage": str(tmp_path / "study.journal"),
        "study_name": "s",
        "n_trials": 1,
        "cv": 2,
        "show_progress": False,
    }
    count, error = autocat_dask._search_on_worker(sample, "y", 60.0, settings, 0)
    assert (count, error) == (1, None)

    def no_trial(*args, **kwargs):
        raise RuntimeError("No trial of this call finished")

    monkeypatch.setattr(autocat, "auto_fit", no_trial)
    count, error = autocat_dask._search_on_worker(sample, "y", 60.0, settings, 0)
    assert (count, error) == (0, "RuntimeError: No trial of this call finished")
