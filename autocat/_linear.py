"""The linear learners: ridge regressions on standardised encodings, beside XGBoost."""

from __future__ import annotations

from numbers import Integral
from typing import Any, ClassVar

import numpy as np
from scipy.optimize import minimize
from scipy.special import log_softmax
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, check_random_state, validate_data

from autocat._sklearn_compat import Interval

__all__ = ["ALPHAS", "LinearClassifier", "LinearRegressor", "softmax_calibration"]

#: The penalties :class:`LinearRegressor` chooses among, for standardised features.
ALPHAS: tuple[float, ...] = tuple(float(a) for a in np.logspace(-2, 6, 17))
# Its fit costs about 2 x rows x features^2 floating-point operations: the rows are
# capped to keep that near 4e9 (half a second on one core), but not below MIN_ROWS.
MAX_WORK = 2e9
MIN_ROWS = 1_000


def _ridge_loo(Z: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """Ridge coefficients of centred ``Z`` and ``Y``, the penalty by leave-one-out.

    From the eigendecomposition of ``Z'Z`` (or of ``ZZ'`` when ``Z`` has more
    columns than rows), for each penalty ``a`` of :data:`ALPHAS`: the
    coefficients, the fitted values, and each row's leverage (the intercept's
    ``1/n`` included), whose exact leave-one-out residuals are ``(Y - fitted) /
    (1 - leverage)``. ``Y`` is one target (shape ``(n,)``) or several (``(n,
    k)``, one penalty for all, of least mean squared error over them). The
    cost is two products of ``Z`` with a square matrix of its smaller side,
    whatever the number of penalties.

    Returns the coefficients (shape ``(p,)`` or ``(p, k)``), the penalty and
    the leave-one-out predictions of the centred ``Y`` at that penalty.
    """
    n_rows, n_features = Z.shape
    if n_features <= n_rows:  # Z'Z = V diag(s) V': ZV holds the rows' coordinates
        eigenvalues, V = np.linalg.eigh(Z.T @ Z)
        rows = Z @ V
    else:  # ZZ' = U diag(s) U': the rows' coordinates are U diag(sqrt(s))
        eigenvalues, U = np.linalg.eigh(Z @ Z.T)
        rows = U * np.sqrt(np.maximum(eigenvalues, 0.0))
    eigenvalues = np.maximum(eigenvalues, 0.0)
    projected = rows.T @ Y
    squared = rows**2
    best_error, best_shrink, best_alpha, best_loo = np.inf, None, ALPHAS[0], Y
    for alpha in ALPHAS:
        shrink = 1.0 / (eigenvalues + alpha)
        weights = projected * (shrink if Y.ndim == 1 else shrink[:, None])
        fitted = rows @ weights
        leverage = 1.0 / n_rows + squared @ shrink
        if Y.ndim > 1:
            leverage = leverage[:, None]
        with np.errstate(all="ignore"):
            residuals = (Y - fitted) / (1.0 - leverage)
            error = float(np.mean(residuals**2))
        if best_shrink is None or error < best_error:
            best_error, best_shrink, best_alpha = error, shrink, alpha
            best_loo = Y - residuals
    shrink = best_shrink if Y.ndim == 1 else best_shrink[:, None]
    weights = projected * shrink  # the coefficients on the rows' coordinates
    if n_features <= n_rows:
        return V @ weights, best_alpha, best_loo
    # coefficients Z'U diag(1 / (s + a)) U'Y, with rows = U diag(sqrt(s))
    root = np.sqrt(eigenvalues) if Y.ndim == 1 else np.sqrt(eigenvalues)[:, None]
    with np.errstate(all="ignore"):
        dual = U @ np.where(root > 0, weights / root, 0.0)
    return Z.T @ dual, best_alpha, best_loo


def _max_rows(max_rows: int, n_features: int) -> int:
    """Rows fitted on: ``max_rows``, fewer when rows x features² would pass MAX_WORK."""
    return min(max_rows, max(MIN_ROWS, int(MAX_WORK / max(n_features, 1) ** 2)))


def _sample(
    n_rows: int, n_kept: int, random_state: Any, y: np.ndarray | None = None
) -> np.ndarray:
    """Sorted indices of ``n_kept`` of ``n_rows`` rows drawn at random (all if fewer).

    With class codes ``y``, each class keeps at least its first drawn row.
    """
    if n_rows <= n_kept:
        return np.arange(n_rows)
    order = check_random_state(random_state).permutation(n_rows)
    rows = order[:n_kept]
    if y is not None:
        _, first = np.unique(y[order], return_index=True)
        rows = np.union1d(rows, order[first])
    return np.sort(rows)


def _standardise(model: Any, X: np.ndarray) -> np.ndarray:
    """Learn the columns' means, scales and clip ranges; return ``X`` standardised.

    A missing value becomes its column's mean; a constant column keeps a scale of
    1; the clip range is the column's range widened by its width on each side.
    """
    with np.errstate(all="ignore"):
        observed = ~np.isnan(X)
        counts = observed.sum(axis=0)
        mean = np.where(observed, X, 0.0).sum(axis=0) / np.maximum(counts, 1)
        X = np.where(observed, X, mean)
        low, high = X.min(axis=0), X.max(axis=0)
        scale = X.std(axis=0)
    scale[~(scale > 0)] = 1.0
    model.mean_, model.scale_ = mean, scale
    width = high - low
    model.low_, model.high_ = low - width, high + width
    return (X - mean) / scale


def _standardised(model: Any, X: np.ndarray) -> np.ndarray:
    """``X`` with missing values at the training mean, clipped and standardised."""
    X = np.where(np.isnan(X), model.mean_, X)
    X = np.clip(X, model.low_, model.high_)
    return (X - model.mean_) / model.scale_


class _LinearLearner(BaseEstimator):
    """Parameters, tags and prediction shared by the two linear learners."""

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "max_rows": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, max_rows: int = 10_000, random_state: Any = None) -> None:
        self.max_rows = max_rows
        self.random_state = random_state

    def _scores(self, X: Any) -> np.ndarray:
        """Return the ridge's predictions for ``X``'s rows (one column per class)."""
        check_is_fitted(self, "coef_")
        X = validate_data(
            self, X, dtype=np.float64, ensure_all_finite="allow-nan", reset=False
        )
        return _standardised(self, X) @ self.coef_ + self.intercept_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


class LinearRegressor(RegressorMixin, _LinearLearner):
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
        rows = _sample(len(y), _max_rows(self.max_rows, X.shape[1]), self.random_state)
        X, y = X[rows], y[rows]
        Z = _standardise(self, X)
        self.coef_, self.alpha_, _ = _ridge_loo(Z, y - y.mean())
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
        return self._scores(X)


def softmax_calibration(scores: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Temperature and class offsets of least log-loss of ``softmax(t * scores + b)``.

    Returns ``[t, b_0, ..., b_{k-1}]``, fitted by L-BFGS with the exact gradient:
    ``k + 1`` numbers, so a few milliseconds whatever the rows.
    """
    n_rows, n_classes = scores.shape
    onehot = np.zeros_like(scores)
    onehot[np.arange(n_rows), codes] = 1.0

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        log_p = log_softmax(theta[0] * scores + theta[1:], axis=1)
        gap = (np.exp(log_p) - onehot) / n_rows
        gradient = np.concatenate([[np.sum(gap * scores)], gap.sum(axis=0)])
        return -float(np.sum(log_p * onehot)) / n_rows, gradient

    start = np.concatenate([[1.0], np.zeros(n_classes)])
    bounds = [(0.0, 1e3)] + [(-50.0, 50.0)] * n_classes
    return minimize(loss, start, jac=True, method="L-BFGS-B", bounds=bounds).x


class LinearClassifier(ClassifierMixin, _LinearLearner):
    """Ridge regression of the class indicators, turned into probabilities by softmax.

    A linear model adds to the trees what they find hard: an effect that
    grows steadily with a column, or the sum of many small effects (each
    category of a one-hot or min-hash column nudging the odds). The ensemble
    averages its probabilities with the trees' and gives it no weight where it
    does not help.

    1. Missing values, standardisation and clipping as in
       :class:`LinearRegressor`.
    2. A ridge regression of each class's indicator (1 for the rows of the
       class, 0 elsewhere), one penalty for all classes, the one among
       :data:`ALPHAS` of least exact leave-one-out squared error (the Brier
       score), as scikit-learn's ``RidgeClassifierCV`` chooses it.
    3. Probabilities ``softmax(t * scores + b)``: the temperature ``t`` and the
       class offsets ``b`` minimise the log-loss of the leave-one-out scores,
       rows that did not fit the coefficients, so the probabilities are
       calibrated on data they were not fitted to.

    It costs one eigendecomposition, as the regressor does, where a logistic
    regression iterates over the rows until it converges: measured on eight
    tables, a blend with XGBoost gained about as much with it as with a
    logistic regression, whose fits took 1.4 to 3.2 times as long on seven of
    them (half as long on the eighth).

    Parameters
    ----------
    max_rows : int, default=10_000
        Most training rows fitted on, as in :class:`LinearRegressor`; each
        class keeps at least one row.
    random_state : int, RandomState instance or None, default=None
        Seed of the rows drawn when there are more than ``max_rows``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    mean_, scale_, low_, high_ : ndarray of shape (n_features,)
        As in :class:`LinearRegressor`.
    coef_ : ndarray of shape (n_features, n_classes)
        Coefficients of the standardised features, one column per class.
    intercept_ : ndarray of shape (n_classes,)
        Each class's share of the training rows.
    alpha_ : float
        The chosen penalty.
    temperature_ : float
        The scores' multiplier in the softmax.
    offsets_ : ndarray of shape (n_classes,)
        The classes' offsets in the softmax.
    n_features_in_ : int
        Number of features seen during ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._linear import LinearClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 2))
    >>> y = np.where(X[:, 0] + rng.normal(scale=0.5, size=400) > 0, "yes", "no")
    >>> model = LinearClassifier().fit(X, y)
    >>> model.classes_
    array(['no', 'yes'], dtype='<U3')
    >>> proba = model.predict_proba([[-2.0, 0.0], [0.0, 0.0], [2.0, 0.0]])
    >>> proba[:, 1].round(1)
    array([0. , 0.5, 1. ])
    """

    def fit(self, X: Any, y: Any) -> LinearClassifier:
        """Fit the ridge regression of the class indicators and its softmax.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric features; missing values allowed.
        y : array-like of shape (n_samples,)
            Class labels (at least two classes).

        Returns
        -------
        self
        """
        self._validate_params()
        X, y = validate_data(
            self, X, y, dtype=np.float64, ensure_all_finite="allow-nan"
        )
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(
                "LinearClassifier needs at least two classes in y; got one class, "
                f"{self.classes_[0]!r}."
            )
        rows = _sample(
            len(codes), _max_rows(self.max_rows, X.shape[1]), self.random_state, codes
        )
        X, codes = X[rows], codes[rows]
        Z = _standardise(self, X)
        indicators = np.zeros((len(codes), len(self.classes_)))
        indicators[np.arange(len(codes)), codes] = 1.0
        self.intercept_ = indicators.mean(axis=0)
        self.coef_, self.alpha_, loo = _ridge_loo(Z, indicators - self.intercept_)
        theta = softmax_calibration(loo + self.intercept_, codes)
        self.temperature_, self.offsets_ = float(theta[0]), theta[1:]
        return self

    def _logits(self, X: Any) -> np.ndarray:
        """Return the softmax's inputs ``t * scores + b``, one column per class."""
        scores = self._scores(X)
        return self.temperature_ * scores + self.offsets_

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
        return np.exp(log_softmax(self._logits(X), axis=1))

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
        codes = np.argmax(self._logits(X), axis=1)
        return self.classes_[codes]
