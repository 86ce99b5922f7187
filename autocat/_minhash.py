"""MinHashEncoder: the stateless min-hash encoding of string columns (paper §3.1)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from numbers import Integral
from typing import Any, ClassVar

import numpy as np
from joblib import effective_n_jobs
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from autocat._dataframe import check_not_empty, encode_columns, to_2d
from autocat._encoding_cache import active_cache
from autocat._factorize import factorize_strings
from autocat._murmur import minhash_strings
from autocat._ngrams import check_ngram_range, pack_normalized
from autocat._sklearn_compat import (
    Interval,
    StrOptions,
    _check_feature_names_in,
    _fit_context,
)

__all__ = ["MinHashEncoder"]

# Below this many distinct values, threads cost more than they save.
_MIN_VALUES_PER_THREAD = 2_000


class MinHashEncoder(TransformerMixin, BaseEstimator):
    """Encode string columns with the min-hash of their character n-grams.

    Each value ``s`` becomes ``n_components`` numbers in [0, 1] that are exactly:

    1. ``s`` lower-cased, runs of white space collapsed to one space
       (``" ".join(s.split())``), one space of padding on each side;
    2. the set ``G(s)`` of its character n-grams for ``n`` in ``ngram_range``;
    3. coordinate ``j`` (``j = 0 .. n_components - 1``) is
       ``min(mmh3.hash(g, seed=j, signed=False) for g in G(s)) / (2**32 - 1)``,
       hashing the UTF-8 bytes of ``g``.

    The empty string gives zeros. This is the encoding of skrub's
    ``MinHashEncoder(hashing="murmur")``, bit for bit, so switching keeps features
    identical. Two values share a coordinate with probability equal to the Jaccard
    similarity of their n-gram sets, and if the n-grams of ``a`` are a subset of
    those of ``b`` every coordinate of ``b`` is at most that of ``a``: trees split on
    these inclusions cheaply.

    Read more in Cerda & Varoquaux (2020), section 3.1.

    Parameters
    ----------
    n_components : int, default=30
        Number of output features per input column. With ``minmax=True`` it must
        be even: half are minima and half maxima.
    ngram_range : tuple of (int, int), default=(2, 4)
        Smallest and largest n-gram length, both included.
    minmax : bool, default=False
        Output ``n_components // 2`` minimum hashes followed by the
        ``n_components // 2`` maximum hashes over the same seeds (the min-max hash,
        footnote 5 of the paper), which lowers the variance of similarity estimates.
    handle_missing : {'zero', 'nan', 'error'}, default='zero'
        What a missing value (``None``, ``NaN``, ``pd.NA``, ``NaT``) becomes: a row
        of zeros, a row of ``NaN`` (which XGBoost routes with its learned default
        direction), or a ``ValueError`` naming the column. A missing value is not
        the empty string, although both give zeros under ``'zero'``.
    n_jobs : int, default=None
        Threads used on every stage of :meth:`transform`: the factorisation of a
        column into distinct values, their hashing and the gather of rows.
        ``None`` means 1, ``-1`` all cores. The output does not depend on it,
        bit for bit.

    Attributes
    ----------
    n_features_in_ : int
        Number of columns seen in :meth:`fit`.
    feature_names_in_ : ndarray of str of shape (n_features_in_,)
        Column names seen in :meth:`fit`, when they are all strings.

    See Also
    --------
    GammaPoissonEncoder : Interpretable encoding by Gamma-Poisson factorisation.
    TableVectorizer : Applies this encoder to the high-cardinality columns of a table.

    Notes
    -----
    The encoder is stateless: :meth:`fit` only records the input schema and
    :meth:`transform` never writes to the estimator, so it is thread-safe and any
    worker can encode any row without communication. Only the distinct values of a
    column are hashed (``pandas.factorize``, then a row gather), in time
    ``O(n_distinct x n_ngrams x n_components)`` with a compiled, exact
    MurmurHash3 kernel. Memory is the float32 output plus one packed copy of the
    distinct strings. On Dask and Spark workers
    (:func:`autocat.integrations.dask.transform`), the rows of strings met in
    earlier partitions come from a bounded per-process cache instead (the same
    bytes); in memory, nothing is kept between calls.

    Values that are not strings are encoded as ``str(value)``: ``1`` and ``"1"``
    get the same features, ``1``, ``1.0`` and ``True`` do not. ``bytes`` values
    are rejected because their ``str`` (``"b'...'"``) is rarely what was meant.

    References
    ----------
    P. Cerda and G. Varoquaux, "Encoding high-cardinality string categorical
    variables", IEEE Transactions on Knowledge and Data Engineering, 2020.

    Examples
    --------
    >>> import pandas as pd
    >>> from autocat import MinHashEncoder
    >>> df = pd.DataFrame({"title": ["Police Officer III", "police officer II",
    ...                              "Bus Operator", None]})
    >>> encoder = MinHashEncoder(n_components=4).fit(df)
    >>> encoder.transform(df).round(3)
    array([[0.   , 0.003, 0.002, 0.008],
           [0.   , 0.003, 0.002, 0.008],
           [0.023, 0.033, 0.04 , 0.014],
           [0.   , 0.   , 0.   , 0.   ]], dtype=float32)
    >>> encoder.get_feature_names_out().tolist()
    ['title_0', 'title_1', 'title_2', 'title_3']
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "ngram_range": [tuple],
        "minmax": ["boolean"],
        "handle_missing": [StrOptions({"zero", "nan", "error"})],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        *,
        n_components: int = 30,
        ngram_range: tuple[int, int] = (2, 4),
        minmax: bool = False,
        handle_missing: str = "zero",
        n_jobs: int | None = None,
    ) -> None:
        self.n_components = n_components
        self.ngram_range = ngram_range
        self.minmax = minmax
        self.handle_missing = handle_missing
        self.n_jobs = n_jobs

    def _check_params(self) -> None:
        check_ngram_range(self.ngram_range, type(self).__name__)
        if self.minmax and self.n_components % 2:
            raise ValueError(
                "With minmax=True, the 'n_components' parameter of MinHashEncoder "
                "must be even (half minima, half maxima). Got "
                f"n_components={self.n_components}; use {self.n_components + 1}."
            )

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, y: Any = None) -> MinHashEncoder:
        """Record the input schema; min-hashing learns nothing from the data.

        Parameters
        ----------
        X : dataframe or array-like of shape (n_samples, n_features)
            The string columns to encode.
        y : None
            Ignored.

        Returns
        -------
        self : MinHashEncoder
            The fitted encoder.
        """
        self._check_params()
        X = to_2d(X, estimator_name=type(self).__name__)
        validate_data(self, X, skip_check_array=True, reset=True)
        check_not_empty(X, estimator_name=type(self).__name__)
        return self

    def transform(self, X: Any) -> np.ndarray:
        """Encode each column of ``X`` into ``n_components`` float32 features.

        Parameters
        ----------
        X : dataframe or array-like of shape (n_samples, n_features)
            The string columns to encode, in the order seen in :meth:`fit`.

        Returns
        -------
        ndarray of float32 of shape (n_samples, n_features * n_components)
            The encoding, columns of the first input column first.
        """
        check_is_fitted(self, "n_features_in_")
        X = to_2d(X, estimator_name=type(self).__name__)
        validate_data(self, X, skip_check_array=True, reset=False)
        names = self._input_names()
        return encode_columns(
            X,
            len(names),
            self.n_components,
            lambda index, values: self._encode_distinct(values, names[index]),
            self.n_jobs,
        )

    def _input_names(self) -> list[str]:
        return [str(name) for name in _check_feature_names_in(self, None)]

    def _encode_distinct(self, values: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Hash the distinct values of one column.

        Returns ``codes`` (row -> row of ``table``, -1 for a missing value) and
        ``table``, whose last row is the encoding of a missing value.
        """
        codes, strings = factorize_strings(values, name, self.n_jobs)
        if self.handle_missing == "error":
            missing = np.flatnonzero(codes < 0)
            if missing.size:
                raise ValueError(
                    f"Column {name!r} has {missing.size} missing value(s), the first "
                    f"at row {missing[0]}, and handle_missing='error'. Fill them "
                    "(e.g. df[col].fillna('missing')) or use handle_missing='zero' "
                    "or 'nan'."
                )
        return codes, self._distinct_table(strings)

    def _distinct_table(self, strings: list[str]) -> np.ndarray:
        """Rows of the distinct ``strings``, then the row of a missing value.

        :class:`TableVectorizer` calls it on a column's distinct values, which
        it has already factorised, so they are not factorised again.
        """
        table = np.empty((len(strings) + 1, self.n_components), dtype=np.float32)
        self._hash(strings, table[:-1])
        table[-1] = np.nan if self.handle_missing == "nan" else 0.0
        return table

    def _hash(self, strings: list[str], out: np.ndarray) -> None:
        """Min-hash ``strings`` into ``out``, float32 of shape (len, n_components).

        While a distributed engine encodes partitions (``_encoding_cache.caching``),
        rows of strings met in earlier partitions of this process come from its
        bounded cache, and only the others are hashed: the rows are the same.
        """
        cache = active_cache()
        if cache is None:
            self._hash_all(strings, out)
            return
        key = (self.n_components, tuple(self.ngram_range), bool(self.minmax))
        missing = cache.fill(key, strings, out)
        if len(missing) == len(strings):
            self._hash_all(strings, out)
            cache.add(key, strings, out)
        elif len(missing):
            absent = [strings[i] for i in missing]
            values = np.empty((len(absent), out.shape[1]), dtype=out.dtype)
            self._hash_all(absent, values)
            out[missing] = values
            cache.add(key, absent, values)

    def _hash_all(self, strings: list[str], out: np.ndarray) -> None:
        """Min-hash every string of ``strings`` into ``out``."""
        n_seeds = self.n_components // 2 if self.minmax else self.n_components
        codepoints, offsets = pack_normalized(strings)
        low, high = self.ngram_range
        n_threads = min(
            effective_n_jobs(self.n_jobs),
            max(1, len(strings) // _MIN_VALUES_PER_THREAD),
        )
        bounds = np.linspace(0, len(strings), n_threads + 1).astype(np.int64)

        def run(part: int) -> None:
            minhash_strings(
                codepoints, offsets, bounds[part], bounds[part + 1],
                low, high, n_seeds, self.minmax, out, True,
            )  # fmt: skip

        if n_threads == 1:
            run(0)
        else:
            with ThreadPoolExecutor(n_threads) as pool:
                list(pool.map(run, range(n_threads)))
        out[np.fromiter((s == "" for s in strings), bool, len(strings))] = 0.0

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Get the output feature names, ``<column>_<j>``.

        Parameters
        ----------
        input_features : array-like of str, default=None
            Input column names; by default those seen in :meth:`fit` (or
            ``x0, x1, ...`` when there were none).

        Returns
        -------
        ndarray of str
            ``n_features_in_ * n_components`` names.
        """
        check_is_fitted(self, "n_features_in_")
        names = _check_feature_names_in(self, input_features)
        return np.asarray(
            [f"{name}_{j}" for name in names for j in range(self.n_components)],
            dtype=object,
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        tags.input_tags.allow_nan = True
        tags.transformer_tags.preserves_dtype = []
        return tags
