"""What the Dask and Spark integrations share: encoding one partition, map-reduce fits.

Nothing here imports an engine: partitions are plain pandas DataFrames, and the
Gamma-Poisson statistics are numpy arrays that any engine can sum.
"""

from __future__ import annotations

import copy
import logging
from numbers import Real
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

from autocat._dataframe import column_values, to_2d
from autocat._encoding_cache import caching
from autocat._gamma_poisson import GammaPoissonEncoder

__all__ = [
    "CACHE_MIB",
    "apply_statistics",
    "check_cache_mib",
    "check_columns",
    "encode_partition",
    "feature_names",
    "gamma_poisson_statistics",
    "grow_vocabularies",
    "new_ngram_values",
]

logger = logging.getLogger("autocat")

# Default bound of each worker process's cache of min-hash rows, in MiB: off,
# since hashing a string of a few tens of characters costs less than the cache's
# lookup and insert (docs/cluster.md); long strings that recur are the exception.
CACHE_MIB = 0

# Floor of (x Lambda)_j, as in the fit's kernels.
_TINY = 1e-300


def feature_names(estimator: Any) -> list[str]:
    """Return the output names of a fitted encoder, vectorizer or pipeline.

    Raises a ``TypeError`` naming the estimator when it has no
    ``get_feature_names_out`` (e.g. a pipeline that ends with a model).
    """
    if isinstance(estimator, type):
        raise TypeError(
            f"Pass a fitted instance of {estimator.__name__} rather than the class."
        )
    if not hasattr(estimator, "transform") or not hasattr(
        estimator, "get_feature_names_out"
    ):
        raise TypeError(
            f"{type(estimator).__name__} cannot encode partitions: it needs transform "
            "and get_feature_names_out (a fitted encoder, TableVectorizer or a "
            "pipeline of transformers). For a pipeline that ends with a model, "
            "pass pipeline[:-1]."
        )
    check_is_fitted(estimator[-1] if isinstance(estimator, Pipeline) else estimator)
    return [str(name) for name in estimator.get_feature_names_out()]


def check_cache_mib(cache_mib: Any, function: str) -> None:
    """Refuse a ``cache_mib`` that is not a number >= 0, naming ``function``."""
    if not isinstance(cache_mib, Real) or cache_mib < 0:
        raise ValueError(
            f"The 'cache_mib' parameter of autocat.integrations.{function} must "
            f"be a number >= 0 (MiB; 0 disables the cache). Got {cache_mib!r}."
        )


def check_columns(estimator: Any, columns: list[Any], where: str) -> None:
    """Raise a ``ValueError`` before any work when fit's columns are missing."""
    first = estimator[0] if isinstance(estimator, Pipeline) else estimator
    expected = getattr(first, "feature_names_in_", None)
    if expected is None:
        return
    present = {str(c) for c in columns}
    missing = [str(c) for c in expected if str(c) not in present]
    if missing:
        raise ValueError(
            f"The {where} lacks column(s) {missing} that "
            f"{type(first).__name__} was fitted on. Columns: "
            f"{[str(c) for c in columns][:20]}. Select or rename them first."
        )


def encode_partition(
    partition: pd.DataFrame,
    estimator: Any,
    names: list[str],
    cache_mib: float = 0,
) -> pd.DataFrame:
    """Encode one partition: float32 columns ``names``, the partition's index.

    With ``cache_mib > 0``, min-hash rows of strings met in earlier partitions
    of this process come from a cache of at most ``cache_mib`` MiB that stays
    in the process (``autocat._encoding_cache``); the output is the same.
    """
    first = estimator[0] if isinstance(estimator, Pipeline) else estimator
    expected = getattr(first, "feature_names_in_", None)
    if expected is not None and list(partition.columns) != list(expected):
        partition = partition[list(expected)]  # extra columns, e.g. the target
    if len(partition) == 0:
        values = np.empty((0, len(names)), dtype=np.float32)
    else:
        with caching(int(cache_mib * 2**20)):
            values = estimator.transform(partition)
        if hasattr(values, "toarray"):
            values = values.toarray()
        values = np.asarray(values, dtype=np.float32)
    return pd.DataFrame(values, columns=names, index=partition.index, copy=False)


def meta_frame(names: list[str]) -> pd.DataFrame:
    """Return the empty frame that describes encoded partitions."""
    return pd.DataFrame(
        {name: np.empty(0, dtype=np.float32) for name in names}, index=pd.RangeIndex(0)
    )


# ---------------------------------------------------- Gamma-Poisson map-reduce


def _columns(encoder: GammaPoissonEncoder, partition: pd.DataFrame) -> list[Any]:
    X = to_2d(partition[list(encoder.feature_names_in_)], estimator_name="fit")
    return [column_values(X, index) for index in range(X.shape[1])]


def new_ngram_values(
    partition: pd.DataFrame, encoder: GammaPoissonEncoder
) -> list[list[str]]:
    """Map step of the vocabulary pass: per column, values with unseen n-grams.

    Never writes to ``encoder`` (a worker may share it between tasks).
    """
    out = []
    for index, values in enumerate(_columns(encoder, partition)):
        model = encoder._models[index]
        _, strings = encoder._factorize(values, encoder._input_names()[index])
        vocabulary = copy.deepcopy(model.vocabulary)
        before = len(vocabulary)
        indptr, cols, _ = vocabulary.count(strings, encoder.ngram_range, grow=True)
        rows = np.repeat(np.arange(len(strings)), np.diff(indptr))
        new = np.unique(rows[cols >= before])
        out.append([strings[k] for k in new])
    return out


def grow_vocabularies(
    encoder: GammaPoissonEncoder, found: list[list[list[str]]]
) -> None:
    """Reduce step of the vocabulary pass: add the partitions' new n-grams.

    ``found`` holds :func:`new_ngram_values` of each partition, in partition
    order, so the vocabulary's column order is deterministic.
    """
    for index, model in enumerate(encoder._models):
        strings = pd.unique(
            np.asarray([s for part in found for s in part[index]], dtype=object)
        )
        if len(strings):
            model.counts(list(strings), encoder.ngram_range, grow=True)


def gamma_poisson_statistics(
    partition: pd.DataFrame, encoder: GammaPoissonEncoder
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Map step of one EM epoch: per column, this partition's sufficient statistics.

    With the topics ``Lambda`` fixed, each distinct value ``l`` (``w_l`` rows,
    n-gram counts ``f_l``) gets its activations ``x_l`` by the E-step of
    :meth:`GammaPoissonEncoder.transform`; the statistics are
    ``A[j, i] = Lambda[i, j] sum_l w_l x_li f_lj / (x_l Lambda)_j`` over the
    n-grams ``j`` the partition holds, and ``B[i] = sum_l w_l x_li``. They add up
    across partitions. Returns ``(n-gram columns, A rows, B)`` per column.
    """
    out = []
    for index, values in enumerate(_columns(encoder, partition)):
        model = encoder._models[index]
        codes, strings = encoder._factorize(values, encoder._input_names()[index])
        d = model.A_hat.shape[1]
        if not strings:
            out.append((np.zeros(0, np.int64), np.zeros((0, d)), np.zeros(d)))
            continue
        weights = np.bincount(codes[codes >= 0], minlength=len(strings)).astype(float)
        X = encoder._activations(model, strings)
        indptr, cols, f = model.counts(strings, encoder.ngram_range, grow=False)
        rows = np.repeat(np.arange(len(strings)), np.diff(indptr))
        lam = model.A_hat[: model.n_columns] / model.R  # vocabulary x d
        fitted = np.einsum("pd,pd->p", X[rows], lam[cols])
        ratio = weights[rows] * f / np.maximum(fitted, _TINY)
        touched, inverse = np.unique(cols, return_inverse=True)
        S = (
            sparse.csr_matrix(
                (ratio, (inverse, rows)), shape=(len(touched), len(strings))
            )
            @ X
        )
        out.append((touched.astype(np.int64), lam[touched] * S, weights @ X))
    return out


def apply_statistics(
    encoder: GammaPoissonEncoder,
    statistics: list[list[tuple[np.ndarray, np.ndarray, np.ndarray]]],
) -> None:
    """Reduce step of one EM epoch: sum the partitions' statistics, set the topics.

    The new topic ``i`` is ``A[:, i]`` normalised to sum to one (the batch
    M-step of the Gamma-Poisson model); ``B`` becomes the online statistic a
    later :meth:`~GammaPoissonEncoder.partial_fit` continues from.
    """
    for index, model in enumerate(encoder._models):
        d = model.A_hat.shape[1]
        A = np.zeros((model.n_columns, d))
        B = np.zeros(d)
        for part in statistics:
            touched, rows, mass = part[index]
            np.add.at(A, touched, rows)
            B += mass
        totals = A.sum(axis=0)
        totals[totals == 0] = 1.0
        model.A_hat = np.ascontiguousarray(A / totals)
        model.R = np.ones(d)
        model.B = np.maximum(B, 1e-10)


def refresh_activations(encoder: GammaPoissonEncoder) -> None:
    """Recompute the stored activations of training values with the final topics."""
    for model in encoder._models:
        if model.values:
            model.X = encoder._activations(model, model.values)
    encoder.topic_labels_ = encoder._labels()
