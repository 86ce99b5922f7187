"""The linear learner: ridge regression on standardised encodings, beside XGBoost."""

from __future__ import annotations

from numbers import Integral
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, check_random_state, validate_data

from autocat._sampler import REPEATS
from autocat._sklearn_compat import Interval

__all__ = ["ALPHAS", "LinearRegressor", "LinearTrial"]

#: The penalties :class:`LinearRegressor` chooses among, for standardised features.
ALPHAS: tuple[float, ...] = tuple(float(a) for a in np.logspace(-2, 6, 17))
# Its fit costs about 2 x rows x features^2 floating-point operations: the rows are
# capped to keep that near 4e9 (half a second on one core), but not below MIN_ROWS.
MAX_WORK = 2e9
MIN_ROWS = 1_000


def _ridge_loo(Z: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    """Ridge coefficients of centred ``Z`` and ``y``, the penalty by leave-one-out.

    From the eigendecomposition of ``Z'Z`` (or of ``ZZ'`` when ``Z`` has more
    columns than rows), for each penalty ``a`` of :data:`ALPHAS`: the
    coefficients, the fitted values, and each row's leverage (the intercept's
    ``1/n`` included), whose exact leave-one-out residuals are ``(y - fitted) /
    (1 - leverage)``. The cost is two products of ``Z`` with a square matrix of
    its smaller side, whatever the number of penalties.
    """
    n_rows, n_features = Z.shape
    if n_features <= n_rows:  # Z'Z = V diag(s) V': ZV holds the rows' coordinates
        eigenvalues, V = np.linalg.eigh(Z.T @ Z)
        rows = Z @ V
    else:  # ZZ' = U diag(s) U': the rows' coordinates are U diag(sqrt(s))
        eigenvalues, U = np.linalg.eigh(Z @ Z.T)
        rows = U * np.sqrt(np.maximum(eigenvalues, 0.0))
    eigenvalues = np.maximum(eigenvalues, 0.0)
    projected = rows.T @ y
    squared = rows**2
    best_error, best_shrink, best_alpha = np.inf, None, ALPHAS[0]
    for alpha in ALPHAS:
        shrink = 1.0 / (eigenvalues + alpha)
        fitted = rows @ (projected * shrink)
        leverage = 1.0 / n_rows + squared @ shrink
        with np.errstate(all="ignore"):
            error = float(np.mean(((y - fitted) / (1.0 - leverage)) ** 2))
        if best_shrink is None or error < best_error:
            best_error, best_shrink, best_alpha = error, shrink, alpha
    weights = projected * best_shrink  # the coefficients on the rows' coordinates
    if n_features <= n_rows:
        return V @ weights, best_alpha
    # coefficients Z'U diag(1 / (s + a)) U'y, with rows = U diag(sqrt(s))
    with np.errstate(all="ignore"):
        dual = U @ np.where(eigenvalues > 0, weights / np.sqrt(eigenvalues), 0.0)
    return Z.T @ dual, best_alpha


class LinearRegressor(RegressorMixin, BaseEstimator):
    """Ridge regression on standardised features, its penalty chosen by leave-one-out.

    Trees predict a constant beyond the largest value they were trained on, and
    they need many splits to follow a trend; a linear model extrapolates and
    follows a trend with one coefficient. Averaged with the trees, it helps
    where the target grows with a numeric column (sales and market value,
    population and votes), and the ensemble gives it no weight elsewhere.

    1. A missing value becomes its column's mean on the training rows.
    2. Each column is centred and scaled to unit variance (a constant column
       gets no weight).
    3. Ridge regression with the penalty among :data:`ALPHAS` of least exact
       leave-one-out squared error (computed in closed form from one
       eigendecomposition, as scikit-learn's ``RidgeCV`` does), fitted on at
       most ``max_rows`` training rows drawn at random.

    At prediction, values are clipped to the training rows' range widened by
    that range on each side: a linear model extrapolates, but a value far
    beyond anything seen (a typo, a unit error) moves its prediction by at most
    that much.

    Parameters
    ----------
    max_rows : int, default=10_000
        Most training rows fitted on: a linear model of a few hundred
        features learns little more from more, and its cost grows with the
        rows times the squared features, so wide encodings get fewer (as many
        as keep rows x features^2 at most :data:`MAX_WORK`, and at least
        :data:`MIN_ROWS`).
    random_state : int, RandomState instance or None, default=None
        Seed of the rows drawn when there are more than ``max_rows``.

    Attributes
    ----------
    mean_, scale_ : ndarray of shape (n_features,)
        Each feature's training mean (which fills its missing values) and
        standard deviation (1 for a constant feature).
    low_, high_ : ndarray of shape (n_features,)
        The range predictions clip values to.
    coef_ : ndarray of shape (n_features,)
        Coefficients of the standardised features.
    intercept_ : float
        Intercept.
    alpha_ : float
        The chosen penalty.
    n_features_in_ : int
        Number of features seen during ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._linear import LinearRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 3))
    >>> y = 2 * X[:, 0] - X[:, 1] + rng.normal(scale=0.1, size=300)
    >>> model = LinearRegressor().fit(X, y)
    >>> round(model.score(X, y), 2)
    1.0
    >>> X_new = np.array([[np.nan, 0.0, 0.0], [100.0, 0.0, 0.0]])
    >>> prediction = model.predict(X_new)  # the mean, then a clipped extrapolation
    >>> bool(abs(prediction[0] - 2 * model.mean_[0]) < 0.1), bool(prediction[1] < 40)
    (True, True)
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "max_rows": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, max_rows: int = 10_000, random_state: Any = None) -> None:
        self.max_rows = max_rows
        self.random_state = random_state

    def fit(self, X: Any, y: Any) -> LinearRegressor:
        """Fit the ridge regression.

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
        self._validate_params()
        X, y = validate_data(
            self, X, y, dtype=np.float64, ensure_all_finite="allow-nan", y_numeric=True
        )
        y = np.asarray(y, dtype=np.float64)
        n_rows = min(self.max_rows, max(MIN_ROWS, int(MAX_WORK / X.shape[1] ** 2)))
        if len(y) > n_rows:
            rows = check_random_state(self.random_state).choice(
                len(y), n_rows, replace=False
            )
            rows.sort()
            X, y = X[rows], y[rows]
        with np.errstate(all="ignore"):
            observed = ~np.isnan(X)
            counts = observed.sum(axis=0)
            mean = np.where(observed, X, 0.0).sum(axis=0) / np.maximum(counts, 1)
            X = np.where(observed, X, mean)
            low, high = X.min(axis=0), X.max(axis=0)
            scale = X.std(axis=0)
        scale[~(scale > 0)] = 1.0
        self.mean_, self.scale_ = mean, scale
        width = high - low
        self.low_, self.high_ = low - width, high + width
        self.coef_, self.alpha_ = _ridge_loo((X - mean) / scale, y - y.mean())
        self.intercept_ = float(y.mean())
        return self

    def predict(self, X: Any) -> np.ndarray:
        """Predict the target of ``X``'s rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric features; missing values allowed.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "coef_")
        X = validate_data(
            self, X, dtype=np.float64, ensure_all_finite="allow-nan", reset=False
        )
        X = np.where(np.isnan(X), self.mean_, X)
        X = np.clip(X, self.low_, self.high_)
        return ((X - self.mean_) / self.scale_) @ self.coef_ + self.intercept_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


class LinearTrial:
    """One linear trial in a regression's search, on its first configuration's encoding.

    The trial after the first repeats the first configuration's parameters with
    ``learner='linear'``: a :class:`LinearRegressor` on the same folds and the
    same encoding, which the encoding cache shares (computed once when both run
    at once), so the trial costs little more than the ridge fits. It is a
    candidate of the ensemble only: it is kept out of the trials whose best
    gives ``pipeline_``, ``best_params_``, the final model's time reserve and
    the other measured trials' base, and, since its parameters are its base's,
    it is marked with a ``repeats`` user attribute, which keeps it out of the
    sampler's history (:class:`~autocat._sampler.RepeatBlindTPESampler`) and
    from pruning. It counts as one of ``n_trials``. Classification searches
    have none yet: a logistic regression helped on some tables and hurt on
    others, and its fits cost as much as an XGBoost trial on small tables.

    :func:`~autocat._tuning.tune` creates it with the queue of configurations
    to try first, and calls :meth:`asked` and :meth:`enqueue_attrs` when it
    enqueues one, :meth:`learner` for each trial asked and :meth:`told` for
    each trial told.
    """

    name = "learner"

    def __init__(self, task: str, queue: list[dict[str, Any]]) -> None:
        self.base: dict[str, Any] | None = None  # the configuration it repeats
        self.pending: dict[str, Any] | None = None  # queued, not asked yet
        self.base_number: int | None = None  # the trial that ran the base
        self.number: int | None = None  # the trial that runs it
        self.record: Any = None  # its TrialRecord, once finished
        if task == "regression" and queue:
            self.base, self.pending = queue[0], dict(queue[0])
            queue.insert(1, self.pending)

    def asked(self, params: dict[str, Any], number: int) -> None:
        """Note the number of the trial asked with the queued ``params``."""
        if params is self.base:
            self.base_number = number

    def enqueue_attrs(self, params: dict[str, Any]) -> dict[str, Any] | None:
        """Return the user attributes marking ``params`` as the queued trial."""
        if params is not self.pending:
            return None
        return {self.name: "linear", REPEATS: self.base_number}

    def learner(self, number: int, user_attrs: dict[str, Any]) -> str:
        """Return the learner of trial ``number``, asked with ``user_attrs``."""
        if user_attrs.get(self.name) == "linear":
            if self.pending is not None:
                self.pending, self.number = None, number
            return "linear"
        return "xgboost"

    def told(self, number: int, record: Any) -> bool:
        """Keep the linear trial's record; return whether trial ``number`` is it."""
        if number != self.number:
            return False
        self.record = record
        return True
