"""The forest learners: extremely randomised trees beside XGBoost, as flat arrays."""

from __future__ import annotations

import itertools
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from numbers import Integral
from typing import Any, ClassVar

import numpy as np
from joblib import effective_n_jobs
from numba import njit
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.tree import ExtraTreeClassifier, ExtraTreeRegressor
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from autocat._budget import BudgetExhausted, check_budget, current_budget
from autocat._sklearn_compat import Interval

__all__ = ["ForestClassifier", "ForestRegressor"]

# Trees grown between two checks of the time budget (autocat._budget), or one per
# thread if more; the first batch also times a tree, to stop a forest that would
# not finish in time.
TREES_PER_CHECK = 5
# Rows predicted per thread and call of the kernel.
_ROWS_PER_TASK = 4_096
# The bound of the trees' seeds, as scikit-learn's forests draw them.
_MAX_SEED = np.iinfo(np.int32).max


@njit(cache=True, nogil=True)
def _forest_sum(
    X: np.ndarray,
    roots: np.ndarray,
    feature: np.ndarray,
    threshold: np.ndarray,
    left: np.ndarray,
    right: np.ndarray,
    missing_left: np.ndarray,
    values: np.ndarray,
    out: np.ndarray,
    start: int,
    stop: int,
) -> None:  # pragma: no cover - compiled
    """Add each tree's leaf values for rows ``start:stop`` of ``X`` into ``out``."""
    n_outputs = values.shape[1]
    for i in range(start, stop):
        for root in roots:
            node = root
            while left[node] >= 0:
                x = X[i, feature[node]]
                if np.isnan(x):
                    node = left[node] if missing_left[node] else right[node]
                elif x <= threshold[node]:
                    node = left[node]
                else:
                    node = right[node]
            leaf = right[node]
            for j in range(n_outputs):
                out[i, j] += values[leaf, j]


def _flatten(trees: list[Any], normalise: bool) -> dict[str, np.ndarray]:
    """Return fitted scikit-learn trees as flat arrays (:class:`ForestRegressor`)."""
    feature, threshold, left, right, missing, values, roots = [], [], [], [], [], [], []
    n_nodes = n_leaves = 0
    for estimator in trees:
        tree = estimator.tree_
        is_leaf = tree.children_left < 0
        leaf_index = np.cumsum(is_leaf) - 1 + n_leaves
        value = tree.value[is_leaf].reshape(int(is_leaf.sum()), -1)
        if normalise:  # class fractions, as scikit-learn's predict_proba divides
            value = value / value.sum(axis=1, keepdims=True)
        # A float32 value compares with a threshold as with the largest float32
        # not above it: the kernel reads the rows as float32, as scikit-learn does.
        cut = tree.threshold.astype(np.float32)
        above = cut.astype(np.float64) > tree.threshold
        cut[above] = np.nextafter(cut[above], np.float32(-np.inf))
        roots.append(n_nodes)
        feature.append(np.where(is_leaf, 0, tree.feature).astype(np.int32))
        threshold.append(cut)
        children_left = tree.children_left + n_nodes
        children_right = tree.children_right + n_nodes
        left.append(np.where(is_leaf, -1, children_left).astype(np.int32))
        right.append(np.where(is_leaf, leaf_index, children_right).astype(np.int32))
        missing.append(np.asarray(tree.missing_go_to_left, dtype=np.bool_))
        values.append(value.astype(np.float32))
        n_nodes += tree.node_count
        n_leaves += len(value)
    return {
        "roots_": np.asarray(roots, dtype=np.int32),
        "feature_": np.concatenate(feature),
        "threshold_": np.concatenate(threshold),
        "left_": np.concatenate(left),
        "right_": np.concatenate(right),
        "missing_left_": np.concatenate(missing),
        "values_": np.concatenate(values),
    }


class _ForestLearner(BaseEstimator):
    """Parameters, the budgeted fit and the prediction kernel of the two forests."""

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "max_tree_rows": [Interval(Integral, 2, None, closed="left")],
        "n_jobs": [None, Integral],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        n_estimators: int = 50,
        max_tree_rows: int = 10_000,
        n_jobs: int | None = None,
        random_state: Any = None,
    ) -> None:
        self.n_estimators = n_estimators
        self.max_tree_rows = max_tree_rows
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _grow(self, make_tree: Any, X: np.ndarray, y: np.ndarray) -> list[Any]:
        """Grow the trees in batches between budget checks; return them.

        Each tree draws its seed, and a large table's rows, as scikit-learn's
        forests do, so the trees are theirs, however many threads grew them.
        The threads are autocat's own: scikit-learn's ``Parallel`` resets the
        warning filters in each of its threads, which before Python 3.14 races
        with any other thread's ``warnings.catch_warnings`` and can leave the
        process with no filters at all.
        """
        seeds = check_random_state(self.random_state).randint(
            _MAX_SEED, size=self.n_estimators
        )
        large = len(y) > self.max_tree_rows

        def grow(seed: int) -> Any:
            weight = None
            if large:  # drawn with replacement: a row drawn twice weighs twice
                rows = np.random.RandomState(seed).randint(
                    0, len(y), self.max_tree_rows, dtype=np.int32
                )
                weight = np.bincount(rows, minlength=len(y)).astype(np.float64)
            return make_tree(random_state=seed).fit(X, y, sample_weight=weight)

        n_threads = max(1, min(effective_n_jobs(self.n_jobs), self.n_estimators))
        batch = max(TREES_PER_CHECK, n_threads)
        start = time.perf_counter()
        trees: list[Any] = []
        with ThreadPoolExecutor(n_threads) as pool:
            while len(trees) < self.n_estimators:
                chunk = seeds[len(trees) : len(trees) + batch]
                trees.extend(pool.map(grow, chunk.tolist()))
                if len(trees) == self.n_estimators:
                    break
                if check_budget():  # a settling budget: keep the trees grown
                    break
                budget = current_budget()
                elapsed = time.perf_counter() - start
                rest = elapsed / len(trees) * (self.n_estimators - len(trees))
                if budget is not None and not budget.settle and rest > budget.left():
                    raise BudgetExhausted(
                        f"the forest would need {rest:.1f}s more for its "
                        f"{self.n_estimators - len(trees)} other trees"
                    )
        return trees

    def _fit_trees(self, make_tree: Any, X: np.ndarray, y: np.ndarray) -> None:
        self._validate_params()
        trees = self._grow(make_tree, X, y)
        for name, array in _flatten(trees, self._normalise).items():
            setattr(self, name, array)
        self.n_trees_ = len(trees)

    def _mean(self, X: Any) -> np.ndarray:
        """Return the trees' mean leaf values for ``X``'s rows."""
        check_is_fitted(self, "values_")
        X = validate_data(
            self, X, dtype=np.float32, ensure_all_finite="allow-nan", reset=False
        )
        X = np.ascontiguousarray(X)
        out = np.zeros((X.shape[0], self.values_.shape[1]), dtype=np.float64)
        arrays = (self.roots_, self.feature_, self.threshold_, self.left_,
                  self.right_, self.missing_left_, self.values_)  # fmt: skip
        bounds = [*range(0, X.shape[0], _ROWS_PER_TASK), X.shape[0]]
        n_threads = min(effective_n_jobs(self.n_jobs), len(bounds) - 1)
        if n_threads <= 1:
            _forest_sum(X, *arrays, out, 0, X.shape[0])
        else:
            with ThreadPoolExecutor(n_threads) as pool:
                list(pool.map(lambda b: _forest_sum(X, *arrays, out, *b),
                              itertools.pairwise(bounds)))  # fmt: skip
        return out / self.n_trees_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


class ForestRegressor(RegressorMixin, _ForestLearner):
    """Extremely randomised trees for regression, stored as flat arrays.

    Boosted trees each correct the last; a forest averages deep trees grown
    independently, each on split points drawn at random (Geurts et al., 2006).
    Its errors differ from the boosted ones, which the ensemble of ``auto_fit``
    averages away: on tables where the target depends on many interacting
    columns (market values, citation counts, prices), such a forest beside
    XGBoost lowers the error where neither alone does.

    The trees are those of scikit-learn's
    :class:`~sklearn.ensemble.ExtraTreesRegressor` (every feature considered at
    each split, leaves of one row), grown on autocat's threads in batches of
    :data:`TREES_PER_CHECK` (or one per thread) between checks of the time budget of
    :func:`~autocat.auto_fit` (which stops a forest that its first batch shows
    would not finish in time), then kept as flat arrays that a compiled kernel
    walks: the model file holds numbers only, and predictions equal
    scikit-learn's up to the rounding of the leaf values to float32. Each tree
    is grown on all rows, or on ``max_tree_rows`` rows drawn with replacement
    from a larger table, which bounds the size of a tree.

    Parameters
    ----------
    n_estimators : int, default=50
        Number of trees.
    max_tree_rows : int, default=10_000
        Largest number of rows a tree is grown on.
    n_jobs : int or None, default=None
        Threads that grow the trees and predict (``None``: one; ``-1``: all).
    random_state : int, RandomState instance or None, default=None
        Seed of the split points and of the rows drawn.

    Attributes
    ----------
    n_trees_ : int
        Trees grown: ``n_estimators``, or fewer where a settling time budget
        stopped the growth.
    roots_ : ndarray of shape (n_trees_,)
        Index of each tree's root node.
    feature_, threshold_, missing_left_ : ndarray of shape (n_nodes,)
        Each split node's feature, threshold (rows with a value at most that go
        left) and the side of a missing value.
    left_, right_ : ndarray of shape (n_nodes,)
        A split node's children; a leaf has ``left_ == -1`` and its row of
        ``values_`` in ``right_``.
    values_ : ndarray of shape (n_leaves, 1)
        The leaves' values.
    n_features_in_ : int
        Number of features seen during ``fit``.

    References
    ----------
    Geurts, P., Ernst, D. and Wehenkel, L. (2006). Extremely randomized trees.
    Machine Learning, 63(1), 3-42.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._forest import ForestRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 3))
    >>> y = np.where(X[:, 0] > 0, 2.0, -1.0) * X[:, 1]
    >>> model = ForestRegressor(random_state=0).fit(X, y)
    >>> model.n_trees_, bool(model.score(X, y) > 0.99)
    (50, True)
    >>> float(model.predict([[np.nan, 1.0, 0.0]])[0]) != 0.0  # missing values go a side
    True
    """

    _normalise = False

    def fit(self, X: Any, y: Any) -> ForestRegressor:
        """Grow the trees.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric features; missing values allowed.
        y : array-like of shape (n_samples,)
            Target values.

        Returns
        -------
        self
        """
        X, y = validate_data(
            self, X, y, dtype=np.float32, ensure_all_finite="allow-nan", y_numeric=True
        )
        self._fit_trees(
            partial(ExtraTreeRegressor, max_features=1.0),
            X, np.asarray(y, dtype=np.float64),
        )  # fmt: skip
        return self

    def predict(self, X: Any) -> np.ndarray:
        """Predict the target of ``X``'s rows: the mean of the trees' leaves.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric features; missing values allowed.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self._mean(X)[:, 0]


class ForestClassifier(ClassifierMixin, _ForestLearner):
    """Extremely randomised trees for classes, stored as flat arrays.

    As :class:`ForestRegressor`, with scikit-learn's
    :class:`~sklearn.ensemble.ExtraTreesClassifier` (the square root of the
    features considered at each split, leaves of one class); a leaf holds its
    rows' class fractions, and the probabilities are their mean over the trees.

    Parameters
    ----------
    n_estimators : int, default=50
        Number of trees.
    max_tree_rows : int, default=10_000
        Largest number of rows a tree is grown on.
    n_jobs : int or None, default=None
        Threads that grow the trees and predict (``None``: one; ``-1``: all).
    random_state : int, RandomState instance or None, default=None
        Seed of the split points and of the rows drawn.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_trees_, roots_, feature_, threshold_, missing_left_, left_, right_ : ndarray
        As in :class:`ForestRegressor`.
    values_ : ndarray of shape (n_leaves, n_classes)
        The leaves' class fractions.
    n_features_in_ : int
        Number of features seen during ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._forest import ForestClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 2))
    >>> y = np.where(X[:, 0] * X[:, 1] > 0, "same", "opposite")
    >>> model = ForestClassifier(random_state=0).fit(X, y)
    >>> model.classes_
    array(['opposite', 'same'], dtype='<U8')
    >>> model.predict([[1.0, 1.0], [-1.0, 1.0]])
    array(['same', 'opposite'], dtype='<U8')
    """

    _normalise = True

    def fit(self, X: Any, y: Any) -> ForestClassifier:
        """Grow the trees.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric features; missing values allowed.
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self
        """
        X, y = validate_data(
            self, X, y, dtype=np.float32, ensure_all_finite="allow-nan"
        )
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        self._fit_trees(partial(ExtraTreeClassifier, max_features="sqrt"), X, codes)
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities of ``X``'s rows (columns in the order of ``classes_``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric features; missing values allowed.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        return self._mean(X)

    def predict(self, X: Any) -> np.ndarray:
        """Predict the most probable class of each of ``X``'s rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric features; missing values allowed.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        codes = np.argmax(self._mean(X), axis=1)
        return self.classes_[codes]
