"""Run autocat on Dask: encode, fit and ``auto_fit`` over Dask DataFrames.

Encoders run where the partitions are (``map_partitions``); the Gamma-Poisson
encoder fits by streaming ``partial_fit`` over partitions or by a map-reduce of
its sufficient statistics; ``auto_fit`` searches on a sample with Optuna trials
spread over the workers and trains the final model on all rows with
``xgboost.dask``. Requires ``pip install 'autocat[dask]'``.
"""

from __future__ import annotations

import copy
import importlib
import logging
import os
import tempfile
import time
import uuid
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.pipeline import Pipeline

from autocat._gamma_poisson import GammaPoissonEncoder
from autocat._log_target import LogTargetRegressor
from autocat._table_vectorizer import TableVectorizer
from autocat.integrations import _distributed as _d

if TYPE_CHECKING:
    from collections.abc import Sequence

    from autocat._result import AutoResult

__all__ = ["auto_fit", "fit", "predict", "transform"]

logger = logging.getLogger("autocat")

_INSTALL_HINT = "pip install 'autocat[dask]'"
# Rows of the in-memory sample per second of budget (auto_fit), and its bounds.
_SAMPLE_ROWS_PER_SECOND = 2_000
_MIN_SAMPLE_ROWS = 5_000
_MAX_SAMPLE_ROWS = 1_000_000


def _dask() -> Any:
    try:
        import dask.dataframe as dd
    except ImportError as error:  # pragma: no cover - exercised without dask
        raise ImportError(
            f"autocat.integrations.dask needs dask with its DataFrame: {_INSTALL_HINT}"
        ) from error
    return dd


def _dask_core() -> Any:
    """Return the ``dask`` module (``delayed``, ``compute``), typed loosely."""
    _dask()
    return importlib.import_module("dask")


def _check_frame(ddf: Any, function: str) -> None:
    dd = _dask()
    if not isinstance(ddf, dd.DataFrame):
        raise TypeError(
            f"autocat.integrations.dask.{function} takes a dask DataFrame; got "
            f"{type(ddf).__name__}. Convert with dask.dataframe.from_pandas(df, "
            "npartitions=...) or read with dask.dataframe.read_parquet(...)."
        )


def transform(estimator: Any, ddf: Any, *, cache_mib: float = _d.CACHE_MIB) -> Any:
    """Encode a Dask DataFrame, partition by partition, with a fitted estimator.

    Parameters
    ----------
    estimator : fitted transformer
        An encoder, a :class:`~autocat.TableVectorizer` or a pipeline of
        transformers, with ``get_feature_names_out``.
    ddf : dask.dataframe.DataFrame
        The rows to encode; the columns seen at fit (others are ignored).
    cache_mib : float, default=0
        Bound, in MiB, of each worker process's cache of min-hash rows of
        distinct strings; ``0`` (the default) disables it. See Notes.

        .. versionadded:: 0.2

    Returns
    -------
    dask.dataframe.DataFrame
        float32 columns named by ``estimator.get_feature_names_out()``, with the
        partitions and index of ``ddf``. Computed, it equals the in-memory
        ``estimator.transform(ddf.compute())`` bit for bit.

    Notes
    -----
    The estimator enters the graph once, as one key: each worker receives it once
    and encodes its partitions without further communication. Every row's
    encoding depends on that row's value only, so partitions never talk to each
    other. A partition with no rows gives no rows.

    The partitions of a high-cardinality column share most of their distinct
    values, and each partition min-hashes the distinct values it holds: with
    ``k`` partitions, up to ``k`` times what one in-memory transform hashes
    once. With ``cache_mib > 0``, each worker process keeps the min-hash rows
    of the strings it has met, for the partitions it encodes next, in a cache
    of at most ``cache_mib`` MiB that stays in the process after the
    computation (about ``4 x n_components + 215`` bytes per ASCII string of
    30 characters; past the bound its oldest half goes). A min-hash row
    depends on the string only, so a cached row is the computed row, bit for
    bit. The cache is off by default because a lookup and an insert cost
    about what hashing a string of a few tens of characters costs: on 10
    million rows of such strings (``tests/benchmarks/bench_scale_out.py
    --full``), two single-threaded workers encoded in 6.1 s without it and
    7.5 s with 256 MiB. It pays for long strings that recur across
    partitions (about 320 characters: 0.6 s against 0.9 s). A worker holds
    its partitions, the encoder and at most this cache.

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd
    >>> from autocat import MinHashEncoder
    >>> from autocat.integrations import dask as autocat_dask
    >>> df = pd.DataFrame({"job": ["nurse", "police officer", "bus driver"] * 2})
    >>> encoder = MinHashEncoder(n_components=2).fit(df)
    >>> encoded = autocat_dask.transform(encoder, dd.from_pandas(df, npartitions=2))
    >>> list(encoded.columns), encoded.npartitions
    (['job_0', 'job_1'], 2)
    >>> bool((encoded.compute().to_numpy() == encoder.transform(df)).all())
    True
    """
    _check_frame(ddf, "transform")
    dask = _dask_core()

    names = _d.feature_names(estimator)
    _d.check_columns(estimator, list(ddf.columns), "dask DataFrame")
    _d.check_cache_mib(cache_mib, "dask.transform")
    shared = dask.delayed(estimator, pure=True, traverse=False)
    return ddf.map_partitions(
        _d.encode_partition, shared, names, cache_mib, meta=_d.meta_frame(names)
    )


def predict(result: Any, ddf: Any) -> Any:
    """Predict a Dask DataFrame with a fitted pipeline or an ``AutoResult``.

    Parameters
    ----------
    result : AutoResult or fitted Pipeline
        What :func:`auto_fit` (or :func:`autocat.auto_fit`) returned, or a
        ``Pipeline`` of transformers ending with a model.
    ddf : dask.dataframe.DataFrame
        Rows with the feature columns (extra columns are ignored).

    Returns
    -------
    dask.dataframe.Series
        Predictions per partition: values, or class labels for an
        ``AutoResult`` of a classification.
    """
    _check_frame(ddf, "predict")
    dask = _dask_core()

    shared = dask.delayed(result, pure=True, traverse=False)
    meta = pd.Series(np.empty(0, dtype=_prediction_dtype(result)), name="prediction")
    return ddf.map_partitions(_predict_partition, shared, meta=meta)


def _prediction_dtype(result: Any) -> Any:
    classes = getattr(result, "classes_", None)
    if classes is None:
        return np.float32
    return np.asarray(classes).dtype


def _predict_partition(partition: pd.DataFrame, result: Any) -> pd.Series:
    if len(partition) == 0:
        values = np.empty(0, dtype=_prediction_dtype(result))
    else:
        values = result.predict(partition)
    return pd.Series(values, index=partition.index, name="prediction")


def fit(
    estimator: Any,
    ddf: Any,
    y: Any = None,
    *,
    method: str = "map_reduce",
    n_epochs: int = 5,
    sample_rows: int = 100_000,
    random_state: int = 0,
) -> Any:
    """Fit a :class:`~autocat.GammaPoissonEncoder` or :class:`~autocat.TableVectorizer`.

    Parameters
    ----------
    estimator : GammaPoissonEncoder or TableVectorizer
        Unfitted (it is cloned; the fitted clone is returned).
    ddf : dask.dataframe.DataFrame
        The training rows: for the encoder, its string columns.
    y : None
        Ignored.
    method : {'map_reduce', 'partial_fit'}, default='map_reduce'
        Gamma-Poisson only. ``'map_reduce'``: initialise on a sample, then
        ``n_epochs`` EM epochs, each one map of every partition (E-step of its
        distinct values with the topics fixed, sufficient statistics out) and
        one reduce (sum, new topics). ``'partial_fit'``: initialise on the first
        partition, then one pass of the online algorithm per partition, in order;
        the encoder travels from worker to worker, the rows never move.
    n_epochs : int, default=5
        EM epochs of ``'map_reduce'``.
    sample_rows : int, default=100_000
        Rows sampled to initialise the Gamma-Poisson topics (``'map_reduce'``) or
        to decide the TableVectorizer's column kinds.
    random_state : int, default=0
        Seeds the sample.

    Returns
    -------
    estimator
        A fitted clone.

    Notes
    -----
    The TableVectorizer decides column kinds and fits its encoders on a sample of
    ``sample_rows`` rows. Dask then computes, for every text column, its distinct
    values up to ``cardinality_threshold + 1`` of them (each partition sends at
    most that many): a column is low-cardinality exactly when it has at most
    ``cardinality_threshold`` distinct values over all rows, and its one-hot
    encoder knows all of them. Beyond the threshold, distinct values are not
    counted (only "more than the threshold" matters); numbers and dates are read
    as the sample says, and values elsewhere that do not read give NaN with a
    warning at transform.
    """
    _check_frame(ddf, "fit")
    if isinstance(estimator, type):
        raise TypeError(
            f"Pass an instance of {estimator.__name__} rather than the class itself."
        )
    if isinstance(estimator, GammaPoissonEncoder):
        if method not in ("map_reduce", "partial_fit"):
            raise ValueError(
                f"method must be 'map_reduce' or 'partial_fit'; got {method!r}."
            )
        if method == "partial_fit":
            return _fit_partial(clone(estimator), ddf)
        return _fit_map_reduce(
            clone(estimator), ddf, n_epochs, sample_rows, random_state
        )
    if isinstance(estimator, TableVectorizer):
        return _fit_vectorizer(clone(estimator), ddf, sample_rows, random_state)
    raise TypeError(
        "autocat.integrations.dask.fit fits a GammaPoissonEncoder or a "
        f"TableVectorizer; got {type(estimator).__name__}. A MinHashEncoder "
        "learns nothing: fit it on ddf.head() and use transform."
    )


def _sample(ddf: Any, n_rows: int, random_state: int) -> pd.DataFrame:
    total = int(ddf.shape[0].compute())
    if total == 0:
        raise ValueError("The dask DataFrame has no rows; fit needs at least one.")
    if n_rows >= total:
        return ddf.compute()
    sample = ddf.sample(frac=n_rows / total, random_state=random_state).compute()
    if len(sample) == 0:
        sample = ddf.head(n_rows, npartitions=-1)
    return sample


def _partial_fit(encoder: GammaPoissonEncoder, partition: pd.DataFrame) -> Any:
    encoder = copy.deepcopy(encoder)  # never write to an input of a task
    if len(partition):
        encoder.partial_fit(partition)
    return encoder


def _fit_partial(encoder: GammaPoissonEncoder, ddf: Any) -> GammaPoissonEncoder:
    dask = _dask_core()

    state = dask.delayed(encoder, pure=True, traverse=False)
    for part in ddf.to_delayed():
        state = dask.delayed(_partial_fit, pure=True)(state, part)
    fitted: GammaPoissonEncoder = state.compute()
    if not hasattr(fitted, "_models"):
        raise ValueError("Every partition of the dask DataFrame is empty.")
    return fitted


def _fit_map_reduce(
    encoder: GammaPoissonEncoder,
    ddf: Any,
    n_epochs: int,
    sample_rows: int,
    random_state: int,
) -> GammaPoissonEncoder:
    dask = _dask_core()

    start = time.perf_counter()
    encoder.fit(_sample(ddf, sample_rows, random_state))
    parts = ddf.to_delayed()
    shared = dask.delayed(encoder, pure=False, traverse=False)
    found = dask.compute(*[dask.delayed(_d.new_ngram_values)(p, shared) for p in parts])
    _d.grow_vocabularies(encoder, list(found))
    for epoch in range(n_epochs):
        shared = dask.delayed(encoder, pure=False, traverse=False)
        statistics = dask.compute(
            *[dask.delayed(_d.gamma_poisson_statistics)(p, shared) for p in parts]
        )
        _d.apply_statistics(encoder, list(statistics))
        logger.info(
            "Gamma-Poisson map-reduce: epoch %d/%d done after %.1f s",
            epoch + 1, n_epochs, time.perf_counter() - start,
        )  # fmt: skip
    _d.refresh_activations(encoder)
    encoder.n_iter_ = n_epochs
    return encoder


def _bounded_uniques(column: pd.Series, limit: int) -> pd.Series:
    return pd.Series(pd.unique(column.dropna().astype(str))[:limit], dtype=object)


def _fit_vectorizer(
    vectorizer: TableVectorizer, ddf: Any, sample_rows: int, random_state: int
) -> TableVectorizer:
    sample = _sample(ddf, sample_rows, random_state).reset_index(drop=True)
    limit = vectorizer.cardinality_threshold + 1
    text = [
        c
        for c in sample.columns
        if not (
            pd.api.types.is_numeric_dtype(sample[c])
            or pd.api.types.is_bool_dtype(sample[c])
            or pd.api.types.is_datetime64_any_dtype(sample[c])
        )
    ]
    extra_rows = []
    for column in text:
        found = (
            ddf[column]
            .map_partitions(_bounded_uniques, limit, meta=pd.Series([], dtype=object))
            .compute()
        )
        values = pd.unique(found.to_numpy())[:limit]
        seen = set(sample[column].dropna().astype(str))
        new = [v for v in values if v not in seen]
        if new:
            # rows that differ from the first sample row only in this column
            rows = sample.iloc[[0] * len(new)].copy()
            rows[column] = pd.Series(new, index=rows.index).astype(
                sample[column].dtype if sample[column].dtype != object else object
            )
            extra_rows.append(rows)
            logger.info(
                "Column %r: %d distinct value(s) beyond the sample added to the fit",
                column, len(new),
            )  # fmt: skip
    if extra_rows:
        sample = pd.concat([sample, *extra_rows], ignore_index=True)
    fitted: TableVectorizer = vectorizer.fit(sample)
    return fitted


def auto_fit(
    ddf: Any,
    target: str,
    *,
    client: Any = None,
    time_budget: float = 120.0,
    sample_rows: int | None = None,
    n_trials: int | None = None,
    storage: Any = None,
    study_name: str | None = None,
    random_state: int = 0,
    **kwargs: Any,
) -> AutoResult:
    """Search on a sample, then train the final model on all rows with xgboost.dask.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        The table, target column included.
    target : str
        The target column.
    client : distributed.Client, optional
        The cluster; default: the current client (one is required).
    time_budget : float, default=120
        Seconds for the search on the sample (the final training on all rows comes
        on top of it).
    sample_rows : int, optional
        Rows of the in-memory sample; default ``2,000 x time_budget`` between
        5,000 and 1,000,000 (what the search can use in that time).
    n_trials : int, optional
        Trials per process (driver and each worker); default: until the budget.
    storage : str, optional
        Optuna storage shared by the driver and the workers: a database URL, or a
        journal file path that every worker can write (shared file system).
        Default: a journal file in the temporary folder (one machine only).
    study_name : str, optional
        The study's name in ``storage``; default a fresh one.
    random_state : int, default=0
        Seeds the sample, the search and XGBoost. Every process runs the same
        :func:`autocat.auto_fit` call on the shared study (the study checks that
        data and seed agree); Optuna's sampler then reads every finished trial.
    **kwargs
        Passed to :func:`autocat.auto_fit` (``cv``, ``metric``, ``task`` ...).

    Returns
    -------
    AutoResult
        Its ``model_`` and ``pipeline_`` are one pipeline, ``[vectorizer fitted
        on the sample, XGBoost model
        trained on all rows]``, a plain in-memory XGBoost model (the booster of
        the ``xgboost.dask`` model): ``result.predict(pandas_df)`` works as
        usual, and :func:`predict` maps it over a Dask DataFrame. ``n_rows_`` is
        the number of rows of the final training; ``cv_score_`` and the study
        are those of the search on the sample. The driver picks the best trial
        of the study when its own search ends; the workers' trials, finished by
        then, inform its sampler and count among the candidates; a note in
        ``notes_`` (and ``summary()``) says on how many of the cluster's workers
        the search ran.
    """
    _check_frame(ddf, "auto_fit")
    import autocat

    if target not in ddf.columns:
        raise ValueError(
            f"target={target!r} is not a column of the dask DataFrame. Columns: "
            f"{[str(c) for c in ddf.columns][:20]}."
        )
    client = _client(client)
    n_total = int(ddf.shape[0].compute())
    if sample_rows is None:
        sample_rows = int(
            min(
                _MAX_SAMPLE_ROWS,
                max(_MIN_SAMPLE_ROWS, _SAMPLE_ROWS_PER_SECOND * time_budget),
            )
        )
    start = time.monotonic()
    sample = _sample(ddf, sample_rows, random_state).reset_index(drop=True)
    if storage is None:
        storage = os.path.join(
            tempfile.gettempdir(), f"autocat-dask-{uuid.uuid4().hex}.journal"
        )
    study_name = study_name or f"autocat-dask-{target}-{uuid.uuid4().hex[:8]}"
    remaining = max(1.0, time_budget - (time.monotonic() - start))
    settings = {
        "storage": os.fspath(storage),
        "study_name": study_name,
        "n_trials": n_trials,
        "show_progress": False,
        **kwargs,
    }
    workers = list(client.scheduler_info()["workers"])
    sample_future = client.scatter(sample, broadcast=True)
    futures = []
    for address in workers:
        future = client.submit(
            _search_on_worker, sample_future, target, remaining, settings,
            random_state, workers=[address], pure=False,
        )  # fmt: skip
        futures.append(future)
    result = autocat.auto_fit(
        sample,
        target,
        time_budget=remaining,
        random_state=random_state,
        **settings,
    )
    searched = 0
    for address, (_, error) in zip(workers, client.gather(futures), strict=True):
        if error is not None:
            logger.warning("the search on worker %s added no trial: %s", address, error)
        else:
            searched += 1
    result.notes_.append(
        f"the search ran in this process and on {searched} of the cluster's "
        f"{len(workers)} Dask worker(s), in one shared study"
    )
    _train_on_all_rows(result, ddf, target, client, random_state)
    result.n_rows_ = n_total
    result.elapsed_s_ = time.monotonic() - start
    return result


def _client(client: Any) -> Any:
    try:
        from distributed import get_client
    except ImportError as error:  # pragma: no cover - exercised without dask
        raise ImportError(
            f"auto_fit on Dask needs dask.distributed: {_INSTALL_HINT}"
        ) from error
    if client is not None:
        return client
    try:
        return get_client()
    except ValueError as error:
        raise ValueError(
            "auto_fit on Dask needs a distributed client: pass client=Client(...) "
            "or create one first (distributed.Client(LocalCluster()))."
        ) from error


def _search_on_worker(
    sample: pd.DataFrame,
    target: str,
    time_budget: float,
    settings: dict[str, Any],
    random_state: int,
) -> tuple[int, str | None]:
    """Run trials of the shared study from one worker.

    Returns the study's number of trials as this worker's search ended, and why
    it ended without a trial of its own, if it did (``None`` otherwise).
    """
    import autocat

    try:
        result = autocat.auto_fit(
            sample,
            target,
            time_budget=time_budget,
            random_state=random_state,
            **settings,
        )
    except RuntimeError as exc:  # no trial of its own finished: the driver's count
        return 0, f"{type(exc).__name__}: {exc}"
    return int(result.n_trials_), None


def _train_on_all_rows(
    result: Any, ddf: Any, target: str, client: Any, random_state: int
) -> None:
    """Replace the model of ``result.pipeline_`` by one trained on all rows."""
    import xgboost as xgb
    import xgboost.dask as dxgb

    vectorizer = result.pipeline_[0]
    model = result.pipeline_[-1]
    X, labels = _features_and_labels(vectorizer, ddf, result.feature_names_in_, target)
    params = {
        k: v
        for k, v in model.get_params().items()
        if k not in ("n_jobs", "nthread", "callbacks", "early_stopping_rounds")
    }
    params["random_state"] = random_state
    if "n_estimators" in result.best_params_:  # the search's tree count
        params["n_estimators"] = int(result.best_params_["n_estimators"])
    # a log target (see autocat._log_target): xgboost.dask learns log(1 + y), and
    # the local model predicts on y's scale with the search's smearing factor
    params.pop("smearing", None)
    if isinstance(model, LogTargetRegressor):
        y = np.log1p(labels.astype(np.float64)).astype(np.float32)
        estimator: Any = dxgb.DaskXGBRegressor(**params)
        local: Any = LogTargetRegressor(smearing=model.smearing_, **params)
        local.smearing_ = model.smearing_  # loaded below, not fitted
    elif result.classes_ is None:
        y = labels.astype(np.float32)
        estimator = dxgb.DaskXGBRegressor(**params)
        local = xgb.XGBRegressor(**params)
    else:
        y = labels.map_partitions(
            _class_codes, result.classes_, meta=pd.Series([], dtype=np.int64)
        )
        estimator = dxgb.DaskXGBClassifier(**params)
        local = xgb.XGBClassifier(**params)
    estimator.client = client
    start = time.monotonic()
    estimator.fit(X, y)
    booster = estimator.get_booster()
    local.load_model(booster.save_raw("ubj"))
    pipeline = Pipeline([("vectorizer", vectorizer), ("model", local)])
    # the final model is this one pipeline: an ensemble of the sample's trials
    # would not have seen the other rows
    result.model_ = result.pipeline_ = pipeline
    result.refit_s_ = time.monotonic() - start
    if hasattr(result, "notes_"):
        result.notes_.append(
            "final model: the best trial's XGBoost trained by xgboost.dask on all "
            "rows; the search and the vectorizer used a sample"
        )
    logger.info("xgboost.dask trained on all rows in %.1f s", result.refit_s_)


def _features_and_labels(
    vectorizer: Any, ddf: Any, columns: Sequence[str], target: str
) -> tuple[Any, Any]:
    """Return the encoded features and the target column, partitioned alike.

    xgboost.dask needs both split alike. Projected apart (``ddf[target]``),
    Dask's optimizer reads one column of the Parquet files and fuses its
    partitions (40 files of 250,000 rows gave 20 partitions of features and 6
    of labels); both are therefore mapped from the one projection.
    """
    frame = ddf[[*columns, target]]
    X = transform(vectorizer, frame)
    labels = frame.map_partitions(
        _column, target, meta=frame._meta[target], enforce_metadata=False
    )
    return X, labels


def _column(part: pd.DataFrame, name: str) -> pd.Series:
    return part[name]


def _class_codes(labels: pd.Series, classes: np.ndarray) -> pd.Series:
    values = np.asarray(labels)
    codes = np.searchsorted(classes, values)
    codes = np.clip(codes, 0, len(classes) - 1)
    unknown = classes[codes] != values
    if unknown.any():
        raise ValueError(
            f"The target holds {values[unknown][0]!r}, a class absent from the "
            f"sample the search ran on (classes: {list(classes)[:20]}). Use a "
            "larger sample_rows or stratify the data."
        )
    return pd.Series(codes.astype(np.int64), index=labels.index)
