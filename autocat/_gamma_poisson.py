"""GammaPoissonEncoder: interpretable encoding by online Gamma-Poisson factorisation.

Paper section 3.2 and Algorithm 1; the compiled parts are in
``_gamma_poisson_kernels.py`` and the n-gram counting in ``_ngrams.py``.
"""

from __future__ import annotations

import string
from concurrent.futures import ThreadPoolExecutor
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from joblib import effective_n_jobs
from scipy import sparse
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.cluster import KMeans
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from autocat._budget import check_budget
from autocat._dataframe import column_values, encode_columns, to_2d
from autocat._factorize import factorize_strings
from autocat._gamma_poisson_kernels import e_step, fit_batches, row_sums
from autocat._ngrams import NgramVocabulary, check_ngram_range, hash_keys
from autocat._sklearn_compat import (
    Interval,
    StrOptions,
    _check_feature_names_in,
    _fit_context,
)

__all__ = ["GammaPoissonEncoder"]

# Hashing trick of the k-means initialisation (paper section 3.2.2).
_HASH_DIM = 128
# k-means runs on at most this many distinct values (the paper's streaming advice).
_KMEANS_MAX_VALUES = 1_000
_KMEANS_MAX_ITER = 30
# Smoothing added to the prototypes' counts (reference implementation: 0.1).
_INIT_SMOOTHING = 0.1
# Mini-batches between two checks of the time budget (autocat._budget).
_BATCHES_PER_CHECK = 16
# Initial B: the first mini-batch then overrides the initial topics' scale.
_B_INIT = 1e-10
_E_STEP_TOL = 1e-3  # paper Table 6, epsilon
_E_STEP_MAX_ITER_FIT = 10
# The first pass of a fit starts every activation cold, from the topics of the
# k-means initialisation, which are themselves rough: converging each E-step
# then buys little, and later passes (warm-started) refine. Measured: the first
# pass costs 1/3 less, recovery NMI unchanged (tests/benchmarks/bench_recovery.py).
_E_STEP_MAX_ITER_FIRST_PASS = 5
_E_STEP_MAX_ITER_TRANSFORM = 100
# Below this many distinct values per thread, threads cost more than they save.
_MIN_VALUES_PER_THREAD = 500
_LABEL_WORDS = 3
# Topic labels and top words read the most frequent distinct values only.
_LABEL_MAX_VALUES = 10_000
_SEPARATOR = " \x01 "
_PUNCTUATION_TO_SPACE = str.maketrans(dict.fromkeys(string.punctuation, " "))


class _ColumnModel:
    """Fitted state of one column: vocabulary, topics, online statistics, values."""

    def __init__(self, n_components: int) -> None:
        d = n_components
        self.vocabulary = NgramVocabulary()
        self.A_hat = np.zeros((0, d))  # topics, transposed and lazily scaled
        self.R = np.ones(d)
        self.B = np.full(d, _B_INIT)
        self.fresh = np.zeros(d)  # A_hat value of an n-gram never seen so far
        self.values: list[str] = []  # distinct training values
        self.index = pd.Index([], dtype=object)
        self.X = np.empty((0, d))  # their latest activations (warm restarts)
        self.weights = np.empty(0)  # their counts in the training rows
        self.n_batches = 0

    @property
    def n_columns(self) -> int:
        return len(self.vocabulary)

    def counts(self, strings: list[str], ngram_range, *, grow: bool):
        """N-gram counts of ``strings`` as CSR over this model's vocabulary.

        With ``grow``, unseen n-grams become new vocabulary columns (their topic
        weights start at ``fresh``); without, they are dropped.
        """
        before = self.n_columns
        indptr, cols, data = self.vocabulary.count(strings, ngram_range, grow=grow)
        if self.n_columns > before:
            if self.n_columns > self.A_hat.shape[0]:
                capacity = max(self.n_columns, 2 * self.A_hat.shape[0])
                grown = np.zeros((capacity, len(self.R)))
                grown[:before] = self.A_hat[:before]
                self.A_hat = grown
            self.A_hat[before : self.n_columns] = self.fresh
        return indptr, cols, data

    def add_values(self, strings: list[str], counts: np.ndarray, initial: np.ndarray):
        """Register distinct values; return their rows in ``values`` and ``X``."""
        rows = self.index.get_indexer(strings) if len(self.values) else None
        if rows is None:
            rows = np.full(len(strings), -1, dtype=np.intp)
        new = np.flatnonzero(rows < 0)
        rows[new] = len(self.values) + np.arange(len(new))
        self.values.extend(strings[k] for k in new)
        self.index = pd.Index(self.values, dtype=object)
        self.X = np.concatenate([self.X, initial[new]])
        self.weights = np.concatenate([self.weights, np.zeros(len(new))])
        np.add.at(self.weights, rows, counts)
        return rows

    def topics(self) -> np.ndarray:
        """Lambda, shape (d, vocabulary); each topic sums to one."""
        return (self.A_hat[: self.n_columns] / self.R).T


def _initial_activations(indptr, data, n_components, alpha, beta):
    """Uniform activations whose total is the E-step fixed point's total."""
    totals = row_sums(indptr, data)
    total = (totals + n_components * (alpha - 1.0)) / (1.0 + 1.0 / beta)
    return np.repeat((total / n_components)[:, None], n_components, axis=1)


class GammaPoissonEncoder(TransformerMixin, BaseEstimator):
    """Encode string columns as activations of latent categories (Gamma-Poisson).

    Each column's distinct values are represented by the counts ``f`` of their
    character n-grams (lower-cased, white space collapsed, one space of padding:
    the n-grams of :class:`MinHashEncoder`) and factorised as ``f ~ Poisson(x
    Lambda)`` with a ``Gamma(alpha, beta)`` prior on the activations ``x``. The
    ``n_components`` rows of ``Lambda`` are *topics* over n-grams, which behave as
    latent categories; a value is encoded by its activations ``x``: non-negative,
    mostly concentrated on few topics, and each topic is named by the words of the
    training values that load on it (:meth:`get_feature_names_out`).

    Read more in Cerda & Varoquaux (2020), section 3.2.

    Parameters
    ----------
    n_components : int, default=10
        Number of topics (output features) per input column.
    ngram_range : tuple of (int, int), default=(2, 4)
        Smallest and largest n-gram length, both included.
    alpha : float, default=1.1
        Shape of the Gamma prior on activations; at least 1.
    beta : float, default=1.0
        Scale of the Gamma prior on activations.
    rho : float, default=0.95
        Discount of the online statistics at each mini-batch (Algorithm 1).
    batch_size : int, default=256
        Distinct values per mini-batch.
    max_iter : int, default=20
        Maximum number of passes over the distinct values in :meth:`fit`. Small
        columns need many passes (20 on the paper's simulations, 1,000 rows:
        ``bench_recovery.py``); on tens of thousands of distinct values, one to
        five passes give most of the fit.
    tol : float, default=1e-4
        :meth:`fit` stops when the last mini-batch of a pass changes the topics by
        less than ``tol`` in relative Frobenius norm.
    init : {'k-means++', 'random'}, default='k-means++'
        Initial topics: the n-gram counts of the values nearest to the k-means
        centroids of a hashed 128-dimensional projection of the counts (on at most
        1,000 distinct values), or Gamma noise.
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation and the order of mini-batches.
    handle_missing : {'zero', 'nan', 'error'}, default='zero'
        What a missing value (``None``, ``NaN``, ``pd.NA``, ``NaT``) becomes: a row
        of zeros, a row of ``NaN``, or a ``ValueError`` naming the column.
    n_jobs : int, default=None
        Threads used by :meth:`transform` on the factorisation of a column, the
        E-step of its distinct values and the gather of rows. ``None`` means 1,
        ``-1`` all cores. The output does not depend on it, bit for bit; the
        fit is sequential.

        .. versionadded:: 0.2

    Attributes
    ----------
    topic_labels_ : list of str
        For each output feature, its three most representative words, e.g.
        ``'manager, management, property'``.
    n_iter_ : int
        Whole passes run by the last :meth:`fit` (the most over columns); fewer
        than ``max_iter`` once the topics converge or a settling time budget
        (the FLAML learners') stops the fit, keeping the topics reached.
    n_features_in_ : int
        Number of columns seen in :meth:`fit`.
    feature_names_in_ : ndarray of str of shape (n_features_in_,)
        Column names seen in :meth:`fit`, when they are all strings.

    See Also
    --------
    MinHashEncoder : Faster, stateless encoding; better for prediction at scale.

    Notes
    -----
    Only distinct values are factorised, each weighted by its number of rows, so
    the cost of a pass is ``O(nnz x n_components x e-step iterations)`` where
    ``nnz`` counts the distinct n-grams of the distinct values: it grows with the
    number of distinct values, not of rows. Each mini-batch updates only the
    topic columns of the n-grams it contains (a lazy, exact form of Algorithm
    1's discounted statistics). Memory is ``8 x n_components`` bytes per
    vocabulary n-gram and per distinct value (activations are kept to warm-start
    the values when they come again, section 3.2.2).

    :meth:`partial_fit` fits by streaming chunks of rows: the first chunk
    initialises the topics, each call runs one pass over the chunk's distinct
    values. N-grams are identified by a 64-bit hash of their characters, so
    n-grams first seen in a later chunk get a topic column (starting where an
    unseen n-gram of the first chunk would be) and contribute at once.

    :meth:`transform` runs the E-step with the topics fixed, starting from the
    stored activations of training values; it does not modify the encoder.
    N-grams never seen in training are ignored; a value with none of the known
    n-grams, and the empty string, encode as zeros.

    Topic labels score a word ``w`` for topic ``k`` by ``n(w) p(k | w)**2``, where
    ``n(w)`` is the number of training rows containing ``w`` and ``p(k | w)`` the
    share of topic ``k`` in their l1-normalised activations: frequent words that
    belong to one topic win, rare typos and words spread over all topics do not.
    Labels, :meth:`top_words` and :meth:`top_categories` read the 10,000 most
    frequent distinct training values (all of them when there are fewer).

    References
    ----------
    P. Cerda and G. Varoquaux, "Encoding high-cardinality string categorical
    variables", IEEE Transactions on Knowledge and Data Engineering, 2020.

    Examples
    --------
    >>> import pandas as pd
    >>> from autocat import GammaPoissonEncoder
    >>> titles = ["Police Officer", "police officer III", "Police Sergeant",
    ...           "Bus Operator", "bus operator trainee", "Bus Driver"] * 5
    >>> encoder = GammaPoissonEncoder(n_components=2, random_state=0)
    >>> encoder.fit(pd.DataFrame({"title": titles})).topic_labels_
    ['police, officer, iii', 'bus, operator, trainee']
    >>> new = pd.DataFrame({"title": ["police chief", "school bus driver", None]})
    >>> encoder.transform(new).round(1)
    array([[ 9. ,  0.1],
           [ 1.2, 14.9],
           [ 0. ,  0. ]], dtype=float32)
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "ngram_range": [tuple],
        "alpha": [Interval(Real, 1, None, closed="left")],
        "beta": [Interval(Real, 0, None, closed="neither")],
        "rho": [Interval(Real, 0, 1, closed="right")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "init": [StrOptions({"k-means++", "random"})],
        "random_state": ["random_state"],
        "handle_missing": [StrOptions({"zero", "nan", "error"})],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        *,
        n_components: int = 10,
        ngram_range: tuple[int, int] = (2, 4),
        alpha: float = 1.1,
        beta: float = 1.0,
        rho: float = 0.95,
        batch_size: int = 256,
        max_iter: int = 20,
        tol: float = 1e-4,
        init: str = "k-means++",
        random_state: Any = None,
        handle_missing: str = "zero",
        n_jobs: int | None = None,
    ) -> None:
        self.n_components = n_components
        self.ngram_range = ngram_range
        self.alpha = alpha
        self.beta = beta
        self.rho = rho
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.random_state = random_state
        self.handle_missing = handle_missing
        self.n_jobs = n_jobs

    def _check_params(self) -> None:
        check_ngram_range(self.ngram_range, type(self).__name__)

    # ------------------------------------------------------------------ fitting

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, y: Any = None) -> GammaPoissonEncoder:
        """Learn the topics of each column.

        Parameters
        ----------
        X : dataframe or array-like of shape (n_samples, n_features)
            The string columns to factorise.
        y : None
            Ignored.

        Returns
        -------
        self : GammaPoissonEncoder
            The fitted encoder.
        """
        X = self._validate(X, reset=True)
        self._rng = check_random_state(self.random_state)
        self._models = []
        self.n_iter_ = 0
        for index, name in enumerate(self._input_names()):
            model = _ColumnModel(self.n_components)
            self._models.append(model)
            n_iter = self._fit_chunk(model, column_values(X, index), name, first=True)
            self.n_iter_ = max(self.n_iter_, n_iter)
        self.topic_labels_ = self._labels()
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X: Any, y: Any = None) -> GammaPoissonEncoder:
        """Update the topics with one chunk of rows (one pass over its values).

        The first call initialises the topics from its chunk. Memory depends on
        the number of distinct values and n-grams seen, not on the number of rows.

        Parameters
        ----------
        X : dataframe or array-like of shape (n_samples, n_features)
            A chunk of the string columns, in the same column order every call.
        y : None
            Ignored.

        Returns
        -------
        self : GammaPoissonEncoder
            The updated encoder.
        """
        first = not hasattr(self, "_models")
        if not first and self._models[0].A_hat.shape[1] != self.n_components:
            raise ValueError(
                "partial_fit cannot change n_components: the encoder was fitted "
                f"with {self._models[0].A_hat.shape[1]} topics per column and "
                f"n_components is now {self.n_components}. Call fit to start over."
            )
        X = self._validate(X, reset=first)
        if first:
            self._rng = check_random_state(self.random_state)
            self._models = [_ColumnModel(self.n_components) for _ in range(X.shape[1])]
            self.n_iter_ = 0
        for index, name in enumerate(self._input_names()):
            model = self._models[index]
            self._fit_chunk(model, column_values(X, index), name, first=first, passes=1)
        self.n_iter_ += 1
        self.topic_labels_ = self._labels()
        return self

    def _validate(self, X: Any, *, reset: bool) -> Any:
        self._check_params()
        X = to_2d(X, estimator_name=type(self).__name__)
        if isinstance(X, np.ndarray) and np.iscomplexobj(X):
            raise ValueError(
                "Complex data not supported: GammaPoissonEncoder encodes string "
                f"columns and got an array of dtype {X.dtype}. Convert it to "
                "strings first, e.g. X.astype(str), if that is what you mean."
            )
        validate_data(self, X, skip_check_array=True, reset=reset)
        for axis, what in enumerate(["sample(s)", "feature(s)"]):
            if X.shape[axis] == 0:
                raise ValueError(
                    f"Found array with 0 {what} (shape={X.shape}) while a minimum "
                    "of 1 is required by GammaPoissonEncoder."
                )
        return X

    def _factorize(
        self, values: Any, name: str, n_jobs: int | None = None
    ) -> tuple[np.ndarray, list[str]]:
        codes, strings = factorize_strings(values, name, n_jobs)
        missing = codes < 0
        if self.handle_missing == "error" and missing.any():
            first = int(np.flatnonzero(missing)[0])
            raise ValueError(
                f"Column {name!r} has {int(missing.sum())} missing value(s), the "
                f"first at row {first}, and handle_missing='error'. Fill them "
                "(e.g. df[col].fillna('missing')) or use handle_missing='zero' or "
                "'nan'."
            )
        return codes, strings

    def _fit_chunk(
        self,
        model: _ColumnModel,
        values: Any,
        name: str,
        *,
        first: bool,
        passes: int | None = None,
    ) -> int:
        """Run passes of Algorithm 1 over one chunk of a column; return passes run."""
        d = self.n_components
        for attribute in ("A_hat", "R", "B", "fresh", "X", "weights"):
            array = getattr(model, attribute)
            if not array.flags.writeable:  # unpickled from a read-only buffer
                setattr(model, attribute, array.copy())
        codes, strings = self._factorize(values, name)
        counts = np.bincount(codes[codes >= 0], minlength=len(strings)).astype(float)
        indptr, cols, data = model.counts(strings, self.ngram_range, grow=True)
        initial = _initial_activations(indptr, data, d, self.alpha, self.beta)
        rows = model.add_values(strings, counts, initial)
        # The empty string has n-grams ("  ") but encodes as zeros: leave it out.
        active = np.flatnonzero(
            (np.diff(indptr) > 0) & np.array([s != "" for s in strings], dtype=bool)
        )
        if first:
            self._init_topics(model, indptr, cols, data, counts, active)
        X_chunk = model.X[rows]
        slot = np.full(model.A_hat.shape[0], -1, dtype=np.int64)
        n_passes = self.max_iter if passes is None else passes
        n_done = 0
        for _ in range(n_passes):
            if len(active) == 0:
                break
            cold = first and n_done == 0
            args = (
                self.alpha - 1.0, 1.0 + 1.0 / self.beta, self.rho, _E_STEP_TOL,
                _E_STEP_MAX_ITER_FIRST_PASS if cold else _E_STEP_MAX_ITER_FIT,
                slot, model.fresh,
            )  # fmt: skip
            order = self._rng.permutation(active)
            cut = ((len(order) - 1) // self.batch_size) * self.batch_size
            # Runs of whole mini-batches, with a budget check between runs: the
            # same updates in the same order as one call.
            # A settling budget stops there, keeping the (usable) state reached.
            step = self.batch_size * _BATCHES_PER_CHECK
            settled = False
            for start in range(0, cut, step):
                if settled := check_budget():
                    break
                model.n_batches += fit_batches(
                    indptr, cols, data, order[start : min(cut, start + step)],
                    self.batch_size, counts, model.A_hat, model.R, model.B,
                    X_chunk, *args,
                )  # fmt: skip
            if settled or check_budget():
                break
            before = model.topics()
            model.n_batches += fit_batches(
                indptr, cols, data, order[cut:], self.batch_size, counts,
                model.A_hat, model.R, model.B, X_chunk, *args,
            )  # fmt: skip
            n_done += 1
            change = np.linalg.norm(model.topics() - before)
            if change <= self.tol * np.linalg.norm(before):
                break
        model.X[rows] = X_chunk
        return n_done

    def _init_topics(self, model, indptr, cols, data, counts, active) -> None:
        """Set the initial topics (section 3.2.2) as ``A_hat``, with ``R = 1``."""
        d = self.n_components
        m = model.n_columns
        topics = np.zeros((d, m))
        n_prototypes = 0
        if self.init == "k-means++" and len(active):
            prototypes = self._kmeans_prototypes(
                model, indptr, cols, data, counts, active
            )
            n_prototypes = len(prototypes)
            topics[:n_prototypes] = _dense_rows(indptr, cols, data, prototypes, m)
            topics[:n_prototypes] += _INIT_SMOOTHING
            floor = _INIT_SMOOTHING
        else:
            floor = self.alpha * self.beta  # the mean of the Gamma noise
        topics[n_prototypes:] = self._rng.gamma(
            self.alpha, self.beta, size=(d - n_prototypes, m)
        )
        totals = topics.sum(axis=1) if m else np.ones(d)
        totals[totals == 0] = 1.0
        model.A_hat = np.ascontiguousarray((topics / totals[:, None]).T)
        model.R = np.ones(d)
        model.B = np.full(d, _B_INIT)
        model.fresh = floor / totals

    def _kmeans_prototypes(self, model, indptr, cols, data, counts, active):
        """Return the distinct values nearest to k-means centroids of hashed counts."""
        if len(active) > _KMEANS_MAX_VALUES:
            active = np.sort(
                self._rng.choice(active, _KMEANS_MAX_VALUES, replace=False)
            )
        bucket = (hash_keys(model.vocabulary.keys(), 1) % _HASH_DIM).astype(np.int64)
        projected = _dense_rows(indptr, cols, data, active, _HASH_DIM, bucket)
        n_points = len({row.tobytes() for row in projected})
        n_clusters = min(self.n_components, n_points)
        kmeans = KMeans(
            n_clusters=n_clusters,
            n_init=1,
            max_iter=_KMEANS_MAX_ITER,
            random_state=int(self._rng.randint(2**31 - 1)),
        )
        # a small problem: threads would cost more than they save
        with threadpool_limits(limits=1):
            kmeans.fit(projected, sample_weight=counts[active])
        distances = (projected**2).sum(axis=1)[
            None, :
        ] - 2 * kmeans.cluster_centers_ @ projected.T
        chosen: list[int] = []
        for row in distances:
            for candidate in np.argsort(row, kind="stable"):
                if candidate not in chosen:
                    chosen.append(int(candidate))
                    break
        return active[np.array(chosen, dtype=np.intp)]

    # ------------------------------------------------------------- transforming

    def transform(self, X: Any) -> np.ndarray:
        """Encode each column as its activations of the column's topics.

        Parameters
        ----------
        X : dataframe or array-like of shape (n_samples, n_features)
            The string columns to encode, in the order seen in :meth:`fit`.

        Returns
        -------
        ndarray of float32 of shape (n_samples, n_features * n_components)
            The activations, columns of the first input column first.
        """
        check_is_fitted(self, "topic_labels_")
        X = to_2d(X, estimator_name=type(self).__name__)
        validate_data(self, X, skip_check_array=True, reset=False)
        names = self._input_names()
        return encode_columns(
            X,
            len(self._models),
            self._models[0].A_hat.shape[1],
            lambda index, values: self._encode_distinct(
                self._models[index], values, names[index]
            ),
            self.n_jobs,
        )

    def _encode_distinct(self, model: _ColumnModel, values: Any, name: str):
        codes, strings = self._factorize(values, name, self.n_jobs)
        X = self._activations(model, strings)
        table = np.empty((len(strings) + 1, X.shape[1]), dtype=np.float32)
        table[:-1] = X
        table[-1] = np.nan if self.handle_missing == "nan" else 0.0
        return codes, table

    def _activations(self, model: _ColumnModel, strings: list[str]) -> np.ndarray:
        """E-step of ``strings`` with the topics fixed; never writes to ``model``."""
        d = model.A_hat.shape[1]
        indptr, cols, data = model.counts(strings, self.ngram_range, grow=False)
        X = _initial_activations(indptr, data, d, self.alpha, self.beta)
        known = model.index.get_indexer(strings) if len(model.values) else None
        if known is not None and (known >= 0).any():
            X[known >= 0] = model.X[known[known >= 0]]
        has_grams = np.diff(indptr) > 0
        rows = np.flatnonzero(has_grams)
        # each value's E-step is independent of the others': threads over chunks
        n_threads = min(
            effective_n_jobs(self.n_jobs), max(1, len(rows) // _MIN_VALUES_PER_THREAD)
        )
        parts = np.array_split(rows, n_threads)

        def run(part: np.ndarray) -> None:
            e_step(
                indptr, cols, data, part, model.A_hat, model.R, X, self.alpha - 1.0,
                1.0 + 1.0 / self.beta, _E_STEP_TOL, _E_STEP_MAX_ITER_TRANSFORM,
            )  # fmt: skip

        if n_threads == 1:
            run(rows)
        else:
            with ThreadPoolExecutor(n_threads) as pool:
                list(pool.map(run, parts))
        empty = ~has_grams | np.array([s == "" for s in strings], dtype=bool)
        X[empty] = 0.0
        return X

    # ---------------------------------------------------------- interpretation

    def _labels(self) -> list[str]:
        return [", ".join(words) for words in self._ranked(_LABEL_WORDS, words=True)]

    def _ranked(self, n: int, *, words: bool) -> list[list[str]]:
        ranked: list[list[str]] = []
        for model in self._models:
            d = model.A_hat.shape[1]
            keep = np.arange(len(model.values))
            if len(keep) > _LABEL_MAX_VALUES:
                by_weight = np.argsort(-model.weights, kind="stable")
                keep = np.sort(by_weight[:_LABEL_MAX_VALUES])
            X, weights = model.X[keep], model.weights[keep]
            values = [model.values[k] for k in keep]
            shares = X / np.maximum(X.sum(axis=1, keepdims=True), 1e-300)
            if words:
                names, incidence = _word_incidence(values)
            else:
                names = np.asarray(values, dtype=object)
                incidence = sparse.identity(len(names), format="csr")
            weighted = incidence @ sparse.diags(weights)
            mass = np.asarray(weighted @ shares).reshape(len(names), d)
            freq = np.asarray(weighted.sum(axis=1)).ravel()
            score = mass**2 / np.maximum(freq, 1e-300)[:, None]
            for k in range(d):
                top = np.argsort(-score[:, k], kind="stable")[:n]
                ranked.append([str(names[t]) for t in top if score[t, k] > 0])
        return ranked

    def top_words(self, n: int = 3) -> list[list[str]]:
        """Return the ``n`` most representative words of each output feature.

        A word's score for a topic is its number of training rows times the
        squared share of the topic in their activations (see Notes).

        Parameters
        ----------
        n : int, default=3
            Words per output feature.

        Returns
        -------
        list of list of str
            One list per output feature, in the order of
            :meth:`get_feature_names_out`, best word first.

        See Also
        --------
        top_categories : The training values that load most on each feature.

        Examples
        --------
        >>> import pandas as pd
        >>> from autocat import GammaPoissonEncoder
        >>> df = pd.DataFrame({"job": ["bus driver", "bus operator", "nurse",
        ...                            "head nurse", "school bus driver"] * 4})
        >>> GammaPoissonEncoder(n_components=2, random_state=0).fit(df).top_words(2)
        [['nurse', 'head'], ['bus', 'driver']]
        """
        check_is_fitted(self, "topic_labels_")
        return self._ranked(n, words=True)

    def top_categories(self, n: int = 3) -> list[list[str]]:
        """Return the ``n`` training values that load most on each output feature.

        Scored like :meth:`top_words`, with whole values instead of words.

        Parameters
        ----------
        n : int, default=3
            Values per output feature.

        Returns
        -------
        list of list of str
            One list per output feature, best value first.

        See Also
        --------
        top_words : The words that represent each feature.

        Examples
        --------
        >>> import pandas as pd
        >>> from autocat import GammaPoissonEncoder
        >>> df = pd.DataFrame({"job": ["bus driver", "bus operator", "nurse",
        ...                            "head nurse", "school bus driver"] * 4})
        >>> encoder = GammaPoissonEncoder(n_components=2, random_state=0).fit(df)
        >>> encoder.top_categories(2)
        [['head nurse', 'nurse'], ['school bus driver', 'bus operator']]
        """
        check_is_fitted(self, "topic_labels_")
        return self._ranked(n, words=False)

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Return the names of the output features: ``'<column>: <topic label>'``.

        Parameters
        ----------
        input_features : array-like of str, default=None
            Input column names; by default those seen in :meth:`fit`.

        Returns
        -------
        ndarray of str
            ``n_features_in_ * n_components`` names, made unique by a suffix
            ``' (2)'``, ``' (3)'``... when two topics of a column share a label.
        """
        check_is_fitted(self, "topic_labels_")
        names = _check_feature_names_in(self, input_features)
        d = len(self.topic_labels_) // len(names)
        out = []
        for c, name in enumerate(names):
            seen: dict[str, int] = {}
            for label in self.topic_labels_[c * d : (c + 1) * d]:
                seen[label] = seen.get(label, 0) + 1
                suffix = f" ({seen[label]})" if seen[label] > 1 else ""
                out.append(f"{name}: {label}{suffix}")
        return np.asarray(out, dtype=object)

    def _input_names(self) -> list[str]:
        return [str(name) for name in _check_feature_names_in(self, None)]

    def _kl_divergence(self, X: Any) -> float:
        """Generalised KL divergence of ``X``'s counts to their reconstruction.

        Summed over rows (the rows' distinct values weighted by their counts) and
        the n-grams known to the model; the data term of the model's negative
        log-likelihood.
        """
        check_is_fitted(self, "topic_labels_")
        X = to_2d(X, estimator_name=type(self).__name__)
        total = 0.0
        for index, name in enumerate(self._input_names()):
            model = self._models[index]
            codes, strings = self._factorize(column_values(X, index), name)
            weights = np.bincount(codes[codes >= 0], minlength=len(strings))
            H = self._activations(model, strings)
            indptr, cols, f = model.counts(strings, self.ngram_range, grow=False)
            row = np.repeat(np.arange(len(strings)), np.diff(indptr))
            Lam = model.topics()
            f = f.astype(np.float64)
            fitted = np.einsum("pd,dp->p", H[row], Lam[:, cols])
            per_gram = f * np.log(f / np.maximum(fitted, 1e-300)) - f + fitted
            per_row = np.bincount(row, per_gram, minlength=len(strings))
            # + (x Lambda) 1 over n-grams absent from the row, = x . 1 - sum fitted
            rest = H.sum(axis=1) - np.bincount(row, fitted, len(strings))
            total += float(weights @ (per_row + rest))
        return total

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        tags.input_tags.allow_nan = True
        tags.transformer_tags.preserves_dtype = []
        tags.non_deterministic = False
        return tags


def _dense_rows(indptr, cols, data, rows, n_cols, column_map=None) -> np.ndarray:
    """Dense ``F[rows]`` of the CSR matrix ``F``, columns optionally mapped.

    With ``column_map``, entry ``(i, j)`` goes to column ``column_map[j]``;
    entries landing on the same cell are summed.
    """
    lengths = indptr[rows + 1] - indptr[rows]
    ends = np.cumsum(lengths)
    positions = np.arange(ends[-1] if len(ends) else 0) + np.repeat(
        indptr[rows] - ends + lengths, lengths
    )
    selected = cols[positions] if column_map is None else column_map[cols[positions]]
    out = np.zeros((len(rows), n_cols))
    np.add.at(
        out, (np.repeat(np.arange(len(rows)), lengths), selected), data[positions]
    )
    return out


def _word_incidence(values: list[str]) -> tuple[np.ndarray, sparse.csr_matrix]:
    """Distinct words of ``values`` and the (word x value) 0/1 incidence matrix.

    Words are the lower-cased, white-space separated tokens of at least two
    characters, ASCII punctuation acting as white space.
    """
    # One str.translate and one str.split over all values; a separator token
    # (not white space) ends each value.
    text = _SEPARATOR.join([*values, ""]).lower().translate(_PUNCTUATION_TO_SPACE)
    tokens = np.asarray(text.split(), dtype=object)
    ends = tokens == _SEPARATOR.strip()
    if int(ends.sum()) != len(values):  # a value held the separator itself
        split = [v.lower().translate(_PUNCTUATION_TO_SPACE).split() for v in values]
        lengths = np.fromiter(map(len, split), np.int64, len(split))
        ends = np.zeros(int(lengths.sum()) + len(values), dtype=bool)
        ends[np.cumsum(lengths + 1) - 1] = True
        tokens = np.empty(len(ends), dtype=object)
        tokens[~ends] = [t for words in split for t in words]
    value_ids = np.cumsum(ends)[~ends]
    word_ids, words = pd.factorize(tokens[~ends])
    long_enough = np.fromiter(map(len, words), np.int64, len(words)) >= 2
    keep = long_enough[word_ids] if len(word_ids) else np.zeros(0, dtype=bool)
    incidence = sparse.csr_matrix(
        (np.ones(int(keep.sum())), (word_ids[keep], value_ids[keep])),
        shape=(len(words), len(values)),
    )
    incidence.sum_duplicates()
    incidence.data[:] = 1.0  # a word repeated in a value counts once
    return np.asarray(words, dtype=object), incidence
