"""Run autocat on Spark: encode Spark DataFrames, fit Gamma-Poisson and XGBoost there.

Encoders run in the executors through ``mapInPandas`` (the fitted encoder is
broadcast once); the Gamma-Poisson encoder fits by a map-reduce of its
sufficient statistics; :func:`fit_xgboost` trains XGBoost's own
``xgboost.spark`` estimator on the encoded rows. Requires
``pip install 'autocat[spark]'``.
"""

from __future__ import annotations

import logging
import pickle
import time
from collections.abc import Iterator
from numbers import Integral
from typing import Any

import pandas as pd
from sklearn.base import clone
from sklearn.pipeline import Pipeline

from autocat._gamma_poisson import GammaPoissonEncoder
from autocat.integrations import _distributed as _d

__all__ = ["fit", "fit_xgboost", "transform"]

logger = logging.getLogger("autocat")

_INSTALL_HINT = "pip install 'autocat[spark]'"


def _pyspark() -> Any:
    try:
        import pyspark.sql
    except ImportError as error:  # pragma: no cover - exercised without pyspark
        raise ImportError(
            f"autocat.integrations.spark needs pyspark: {_INSTALL_HINT}"
        ) from error
    return pyspark.sql


def _check_frame(sdf: Any, function: str) -> None:
    sql = _pyspark()
    if not isinstance(sdf, sql.DataFrame):
        raise TypeError(
            f"autocat.integrations.spark.{function} takes a Spark DataFrame; got "
            f"{type(sdf).__name__}. Convert with spark.createDataFrame(df) or read "
            "with spark.read.parquet(...)."
        )


def transform(
    estimator: Any,
    sdf: Any,
    *,
    keep: Any = (),
    cache_mib: float = _d.CACHE_MIB,
    batch_rows: int | None = 100_000,
) -> Any:
    """Encode a Spark DataFrame with a fitted estimator, through ``mapInPandas``.

    Parameters
    ----------
    estimator : fitted transformer
        An encoder, a :class:`~autocat.TableVectorizer` or a pipeline of
        transformers, with ``get_feature_names_out``.
    sdf : pyspark.sql.DataFrame
        The rows; the columns seen at fit (others are ignored).
    keep : sequence of str, default=()
        Columns of ``sdf`` copied after the features (e.g. the target or an id).
    cache_mib : float, default=0
        Bound, in MiB, of each Python worker's cache of min-hash rows of
        distinct strings; ``0`` (the default) disables it. See Notes.

        .. versionadded:: 0.2
    batch_rows : int or None, default=100_000
        Consecutive Arrow batches of a partition are encoded together, in
        groups of at least this many rows (the last may be shorter); ``None``
        encodes each Arrow batch alone. See Notes.

        .. versionadded:: 0.2

    Returns
    -------
    pyspark.sql.DataFrame
        One float column per name of ``estimator.get_feature_names_out()`` (the
        encoder's float32 values), then the ``keep`` columns; rows in the order
        of ``sdf``. Collected, the features equal the in-memory
        ``estimator.transform`` of the same rows, bit for bit.

    Notes
    -----
    The estimator is broadcast once to the executors; every row's encoding
    depends on its value only, so groups of rows are encoded alone.

    Spark hands a partition to Python in Arrow batches of
    ``spark.sql.execution.arrow.maxRecordsPerBatch`` rows (10,000 by default),
    and each encode has a fixed cost (about 12 ms for a TableVectorizer) plus a
    cost per distinct value of the batch. Encoding groups of ``batch_rows``
    rows instead cuts both: in one process, with the cache warm, 200,000 rows
    of ``tests/benchmarks/bench_scale_out.py`` took 0.69 s in batches of 10,000
    and 0.26 s in batches of 50,000. A Python worker then holds up to
    ``batch_rows`` rows (plus one batch) and their encoding.

    Each group min-hashes the distinct values it holds. With ``cache_mib >
    0``, the Python worker keeps their rows for the next groups in a cache of
    at most ``cache_mib`` MiB, as :func:`autocat.integrations.dask.transform`
    does (a cached row is the computed row, bit for bit; off by default, as
    there, since it pays for long recurring strings only). The cache lives
    as long as the Python worker (Spark reuses them,
    ``spark.python.worker.reuse``).
    """
    _check_frame(sdf, "transform")
    from pyspark.sql.types import FloatType, StructField, StructType

    names = _d.feature_names(estimator)
    _d.check_columns(estimator, list(sdf.columns), "Spark DataFrame")
    _d.check_cache_mib(cache_mib, "spark.transform")
    if batch_rows is not None and (
        not isinstance(batch_rows, Integral) or batch_rows < 1
    ):
        raise ValueError(
            "The 'batch_rows' parameter of autocat.integrations.spark.transform "
            f"must be an int >= 1 or None. Got {batch_rows!r}."
        )
    keep = list(keep)
    absent = [c for c in keep if c not in sdf.columns]
    if absent:
        raise ValueError(
            f"keep={absent} are not columns of the Spark DataFrame. Columns: "
            f"{sdf.columns[:20]}."
        )
    fields = [StructField(name, FloatType()) for name in names]
    fields += [sdf.schema[c] for c in keep]
    shared = sdf.sparkSession.sparkContext.broadcast(estimator)

    def encode(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for batch in _grouped(batches, batch_rows):
            batch = batch.reset_index(drop=True)
            out = _d.encode_partition(batch, shared.value, names, cache_mib)
            for column in keep:
                out[column] = batch[column]
            yield out

    return sdf.mapInPandas(encode, StructType(fields))


def _grouped(
    batches: Iterator[pd.DataFrame], rows: int | None
) -> Iterator[pd.DataFrame]:
    """Concatenate consecutive batches into frames of at least ``rows`` rows."""
    if rows is None:
        yield from batches
        return
    pending: list[pd.DataFrame] = []
    count = 0
    for batch in batches:
        pending.append(batch)
        count += len(batch)
        if count >= rows:
            yield pending[0] if len(pending) == 1 else pd.concat(pending)
            pending, count = [], 0
    if pending:
        yield pending[0] if len(pending) == 1 else pd.concat(pending)


def fit(
    estimator: GammaPoissonEncoder,
    sdf: Any,
    y: Any = None,
    *,
    n_epochs: int = 5,
    sample_rows: int = 100_000,
    random_state: int = 0,
) -> GammaPoissonEncoder:
    """Fit a :class:`~autocat.GammaPoissonEncoder` by map-reduce over a Spark frame.

    The topics start from a fit on a sample of about ``sample_rows`` rows; one
    pass adds every n-gram of the data to the vocabulary; each of ``n_epochs``
    EM epochs then maps every batch of rows to its sufficient statistics (the
    E-step of its distinct values with the topics fixed) and sums them on the
    driver, which sets the new topics. Only statistics move: about ``8 x
    n_components`` bytes per distinct n-gram of a batch, per epoch.

    Parameters
    ----------
    estimator : GammaPoissonEncoder
        Unfitted (it is cloned; the fitted clone is returned).
    sdf : pyspark.sql.DataFrame
        The string columns to fit on.
    y : None
        Ignored.
    n_epochs : int, default=5
        EM epochs.
    sample_rows : int, default=100_000
        Rows sampled to initialise the topics.
    random_state : int, default=0
        Seeds the sample.

    Returns
    -------
    GammaPoissonEncoder
        A fitted clone.
    """
    _check_frame(sdf, "fit")
    if not isinstance(estimator, GammaPoissonEncoder):
        raise TypeError(
            "autocat.integrations.spark.fit fits a GammaPoissonEncoder; got "
            f"{type(estimator).__name__}. Fit a TableVectorizer on a sample "
            "(sdf.sample(...).toPandas()) and encode with transform."
        )
    encoder: GammaPoissonEncoder = clone(estimator)
    start = time.perf_counter()
    total = sdf.count()
    if total == 0:
        raise ValueError("The Spark DataFrame has no rows; fit needs at least one.")
    fraction = min(1.0, sample_rows / total)
    sample = sdf.sample(fraction=fraction, seed=random_state).toPandas()
    if len(sample) == 0:
        sample = sdf.limit(sample_rows).toPandas()
    encoder.fit(sample)
    columns = [str(c) for c in encoder.feature_names_in_]
    found = _map_batches(sdf.select(*columns), encoder, _d.new_ngram_values)
    _d.grow_vocabularies(encoder, found)
    for epoch in range(n_epochs):
        statistics = _map_batches(
            sdf.select(*columns), encoder, _d.gamma_poisson_statistics
        )
        _d.apply_statistics(encoder, statistics)
        logger.info(
            "Gamma-Poisson map-reduce on Spark: epoch %d/%d done after %.1f s",
            epoch + 1, n_epochs, time.perf_counter() - start,
        )  # fmt: skip
    _d.refresh_activations(encoder)
    encoder.n_iter_ = n_epochs
    return encoder


def _map_batches(sdf: Any, encoder: GammaPoissonEncoder, function: Any) -> list[Any]:
    """``[function(batch, encoder) for each Arrow batch]``, in the order of ``sdf``."""
    from pyspark.sql.types import BinaryType, StructField, StructType

    shared = sdf.sparkSession.sparkContext.broadcast(encoder)

    def run(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for batch in batches:
            if len(batch):
                payload = pickle.dumps(function(batch, shared.value))
                yield pd.DataFrame({"payload": [payload]})

    schema = StructType([StructField("payload", BinaryType())])
    rows = sdf.mapInPandas(run, schema).collect()
    shared.unpersist()
    # our own executors' arrays, pickled by the function above
    return [pickle.loads(row["payload"]) for row in rows]


def fit_xgboost(
    vectorizer: Any,
    sdf: Any,
    target: str,
    *,
    classification: bool = False,
    num_workers: int = 1,
    **params: Any,
) -> Pipeline:
    """Encode ``sdf`` and train XGBoost on all its rows with ``xgboost.spark``.

    Parameters
    ----------
    vectorizer : fitted TableVectorizer (or any fitted transformer)
        Encodes the feature columns (fitted on a sample, e.g. by
        :func:`autocat.auto_fit` on ``sdf.sample(...).toPandas()``:
        ``result.pipeline_[0]``).
    sdf : pyspark.sql.DataFrame
        Features and target.
    target : str
        The target column: numbers, or class codes ``0 .. k-1`` with
        ``classification=True``.
    classification : bool, default=False
        Train ``SparkXGBClassifier`` rather than ``SparkXGBRegressor``.
    num_workers : int, default=1
        Spark tasks that train together (XGBoost's collective).
    **params
        XGBoost parameters, e.g. ``result.best_params_``'s ``n_estimators``,
        ``max_depth``, ``learning_rate``.

    Returns
    -------
    sklearn.pipeline.Pipeline
        ``[("vectorizer", vectorizer), ("model", XGBRegressor | XGBClassifier)]``:
        the Spark model's booster as a plain in-memory XGBoost model, so the
        pipeline predicts pandas DataFrames, and :func:`transform` with a
        pipeline can be followed by any Spark model.
    """
    _check_frame(sdf, "fit_xgboost")
    import xgboost as xgb
    from xgboost.spark import SparkXGBClassifier, SparkXGBRegressor

    if target not in sdf.columns:
        raise ValueError(
            f"target={target!r} is not a column of the Spark DataFrame. Columns: "
            f"{sdf.columns[:20]}."
        )
    names = _d.feature_names(vectorizer)
    encoded = transform(vectorizer, sdf, keep=[target])
    # positional names: encoded names may hold dots or spaces Spark would parse
    safe = [f"f{i}" for i in range(len(names))]
    encoded = encoded.toDF(*safe, "label")
    spark_class = SparkXGBClassifier if classification else SparkXGBRegressor
    model = spark_class(
        features_col=safe, label_col="label", num_workers=num_workers, **params
    ).fit(encoded)
    local: Any = (xgb.XGBClassifier if classification else xgb.XGBRegressor)(**params)
    local.load_model(model.get_booster().save_raw("ubj"))
    return Pipeline([("vectorizer", vectorizer), ("model", local)])
