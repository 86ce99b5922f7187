"""AutoRegressor and AutoClassifier: auto_fit as scikit-learn estimators."""

from __future__ import annotations

import inspect
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, column_or_1d

from autocat._auto import auto_fit
from autocat._dataframe import (
    check_not_empty,
    input_names,
    is_pandas,
    is_polars,
    series_values,
    to_2d,
    to_pandas,
)
from autocat._sklearn_compat import Interval, _fit_context

__all__ = ["AutoClassifier", "AutoRegressor"]

# auto_fit's arguments that the estimators set themselves, so that
# ``auto_fit_params`` may not hold them.
_OWN_ARGUMENTS = frozenset(
    {
        "df",
        "target",
        "task",
        "time_budget",
        "n_trials",
        "cv",
        "metric",
        "random_state",
        "n_jobs",
        "show_progress",
    }
)
# Folds need this many rows, and auto_fit refuses fewer.
_MIN_ROWS = 4


class _AutoEstimator(BaseEstimator):
    """What AutoRegressor and AutoClassifier share: parameters, checks and fit."""

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "time_budget": [Interval(Real, 0, None, closed="neither"), None],
        "n_trials": [Interval(Integral, 1, None, closed="left"), None],
        "cv": [Interval(Integral, 2, None, closed="left"), "cv_object"],
        "metric": [str, None],
        "random_state": [Interval(Integral, 0, None, closed="left")],
        "n_jobs": [Integral],
        "show_progress": ["boolean"],
        "auto_fit_params": [dict, None],
    }

    def __init__(
        self,
        *,
        time_budget: float | None = 60,
        n_trials: int | None = None,
        cv: Any = 5,
        metric: str | None = None,
        random_state: int = 0,
        n_jobs: int = 1,
        show_progress: bool = False,
        auto_fit_params: dict[str, Any] | None = None,
    ) -> None:
        self.time_budget = time_budget
        self.n_trials = n_trials
        self.cv = cv
        self.metric = metric
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.show_progress = show_progress
        self.auto_fit_params = auto_fit_params

    def _extra_auto_fit_params(self) -> dict[str, Any]:
        params = dict(self.auto_fit_params or {})
        accepted = set(inspect.signature(auto_fit).parameters) - _OWN_ARGUMENTS
        for key in params:
            if key in _OWN_ARGUMENTS:
                raise ValueError(
                    f"auto_fit_params sets {key!r}, which is a parameter of "
                    f"{type(self).__name__} itself: pass {key}={params[key]!r} to "
                    f"{type(self).__name__}(...) instead."
                )
            if key not in accepted:
                raise ValueError(
                    f"auto_fit_params sets {key!r}, which is not a keyword of "
                    f"autocat.auto_fit. Accepted keys: {sorted(accepted)}."
                )
        return params

    def _frame(self, X: Any, *, reset: bool) -> pd.DataFrame:
        """Check ``X`` and return it as a pandas DataFrame with the fitted names."""
        name = type(self).__name__
        X = to_2d(X, estimator_name=name)
        if not (is_pandas(X) or is_polars(X)):
            # numbers or strings; infinities are an error, NaN is a missing value
            X = check_array(
                X,
                dtype=None,
                ensure_all_finite="allow-nan",
                ensure_min_samples=1,
                estimator=self,
            )
        check_not_empty(X, estimator_name=name)
        names = input_names(self, X, reset=reset)
        if is_pandas(X) or is_polars(X):
            frame = to_pandas(X)
            if [str(c) for c in frame.columns] != names:
                frame = frame.set_axis(names, axis=1)
            return frame
        return pd.DataFrame(X, columns=names)

    def _fit(self, X: Any, y: np.ndarray, task: str) -> Any:
        frame = self._frame(X, reset=True)
        if len(y) != len(frame):
            raise ValueError(
                f"X and y have different numbers of rows: X has {len(frame)}, y has "
                f"{len(y)}. Pass one target value per row of X."
            )
        if len(y) < _MIN_ROWS:
            raise ValueError(
                f"{type(self).__name__} cross-validates, so it needs at least "
                f"{_MIN_ROWS} samples; got n_samples = {len(y)}."
            )
        self.result_ = auto_fit(
            frame,
            y,
            task=task,
            time_budget=self.time_budget,
            n_trials=self.n_trials,
            cv=self.cv,
            metric=self.metric,
            random_state=self.random_state,
            n_jobs=self.n_jobs,
            show_progress=self.show_progress,
            **self._extra_auto_fit_params(),
        )
        return self

    def predict(self, X: Any) -> np.ndarray:
        """Predict with the refit recipe of the best trial.

        Parameters
        ----------
        X : pandas.DataFrame, polars.DataFrame or array-like of shape \
                (n_samples, n_features)
            Rows with the columns seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples,)
            Predicted values, or class labels.
        """
        check_is_fitted(self)
        return self.result_.predict(self._frame(X, reset=False))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        return tags


class AutoRegressor(RegressorMixin, _AutoEstimator):
    """Tune and refit autocat's recipe on a regression target, as an estimator.

    ``fit(X, y)`` calls :func:`~autocat.auto_fit` with ``task='regression'`` and
    keeps the :class:`~autocat.AutoResult`; ``predict`` uses its refit pipeline.
    As a scikit-learn estimator it can be cloned, cross-validated
    (``cross_val_score``), put at the end of a ``Pipeline`` or handed to any
    framework that takes one.

    Parameters
    ----------
    time_budget : float or None, default=60
        Seconds for each ``fit``, final refit included. ``None``: no time limit
        (then ``n_trials``, or 20 trials, bound the search).
    n_trials : int, optional
        Trials to run at most.
    cv : int or scikit-learn splitter, default=5
        Folds of each trial (shuffled with ``random_state``).
    metric : str, optional
        The scikit-learn scorer that the search maximizes; default ``'r2'``.
        :meth:`score` is always R², as for every scikit-learn regressor.
    random_state : int, default=0
        Seeds folds, sampler, encoders and XGBoost.
    n_jobs : int, default=1
        CPU threads for the search and the refit; ``-1``: all cores.
    show_progress : bool, default=False
        Show auto_fit's progress bar on stderr.
    auto_fit_params : dict, optional
        Any other keyword of :func:`~autocat.auto_fit` (``storage``,
        ``callbacks``, and keywords that later versions add), checked against
        its signature in ``fit``.

    Attributes
    ----------
    result_ : AutoResult
        What ``auto_fit`` returned: the refit pipeline, the study, the scores.
    n_features_in_ : int
        Number of columns seen in ``fit``.
    feature_names_in_ : ndarray of str
        Their names, when ``X`` was a DataFrame with string column names.

    See Also
    --------
    AutoClassifier : The same for classification.
    auto_fit : The function behind ``fit``.

    Notes
    -----
    Each ``fit`` runs a whole search: ``cross_val_score(AutoRegressor(), X, y,
    cv=5)`` costs five times ``time_budget``. Numpy input gets the column names
    ``x0, x1, ...``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from autocat import AutoRegressor
    >>> rng = np.random.default_rng(0)
    >>> jobs = rng.choice(["police officer", "bus operator", "nurse"], 120)
    >>> X = pd.DataFrame({"job": jobs, "years": rng.integers(0, 30, 120)})
    >>> y = X["years"] * 2.0 + (X["job"] == "nurse") * 10.0
    >>> model = AutoRegressor(time_budget=None, n_trials=2, cv=3).fit(X, y)
    >>> model.predict(X.head(2)).shape, model.n_features_in_
    ((2,), 2)
    >>> round(model.score(X, y), 2)
    1.0
    """

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, y: Any) -> AutoRegressor:
        """Search the recipe's space with ``auto_fit`` and refit the best recipe.

        Parameters
        ----------
        X : pandas.DataFrame, polars.DataFrame or array-like of shape \
                (n_samples, n_features)
            The features: numbers, strings, dates.
        y : array-like of shape (n_samples,)
            The numeric target, without missing values.

        Returns
        -------
        AutoRegressor
            The fitted estimator.
        """
        values = column_or_1d(series_values(y) if _is_column(y) else y, warn=True)
        values = check_array(
            values, ensure_2d=False, dtype="numeric", input_name="y", estimator=self
        )
        return self._fit(X, np.asarray(values, dtype=np.float64), "regression")


class AutoClassifier(ClassifierMixin, _AutoEstimator):
    """Tune and refit autocat's recipe on a class target, as an estimator.

    ``fit(X, y)`` calls :func:`~autocat.auto_fit` with ``task='binary'`` or
    ``'multiclass'`` (from the number of classes in ``y``) and keeps the
    :class:`~autocat.AutoResult`; ``predict`` and ``predict_proba`` use its
    refit pipeline. Labels may be strings or numbers.

    Parameters
    ----------
    time_budget : float or None, default=60
        Seconds for each ``fit``, final refit included. ``None``: no time limit
        (then ``n_trials``, or 20 trials, bound the search).
    n_trials : int, optional
        Trials to run at most.
    cv : int or scikit-learn splitter, default=5
        Folds of each trial (shuffled and stratified with ``random_state``).
    metric : str, optional
        The scikit-learn scorer that the search maximizes; default
        ``'average_precision'`` for two classes, ``'accuracy'`` for more.
        :meth:`score` is always the accuracy, as for every scikit-learn
        classifier.
    random_state : int, default=0
        Seeds folds, sampler, encoders and XGBoost.
    n_jobs : int, default=1
        CPU threads for the search and the refit; ``-1``: all cores.
    show_progress : bool, default=False
        Show auto_fit's progress bar on stderr.
    auto_fit_params : dict, optional
        Any other keyword of :func:`~autocat.auto_fit` (``storage``,
        ``callbacks``, and keywords that later versions add), checked against
        its signature in ``fit``.

    Attributes
    ----------
    result_ : AutoResult
        What ``auto_fit`` returned: the refit pipeline, the study, the scores.
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted; the columns of :meth:`predict_proba`.
    n_features_in_ : int
        Number of columns seen in ``fit``.
    feature_names_in_ : ndarray of str
        Their names, when ``X`` was a DataFrame with string column names.

    See Also
    --------
    AutoRegressor : The same for regression.
    auto_fit : The function behind ``fit``.

    Notes
    -----
    Every class needs at least two rows (auto_fit validates each class).
    Each ``fit`` runs a whole search, so cross-validating the estimator costs
    one ``time_budget`` per fold.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from autocat import AutoClassifier
    >>> rng = np.random.default_rng(0)
    >>> jobs = rng.choice(["police officer", "bus operator", "nurse"], 120)
    >>> X = pd.DataFrame({"job": jobs, "years": rng.integers(0, 30, 120)})
    >>> y = np.where(X["job"] == "nurse", "health", "other")
    >>> model = AutoClassifier(time_budget=None, n_trials=2, cv=3).fit(X, y)
    >>> model.classes_.tolist(), model.predict_proba(X.head(2)).shape
    (['health', 'other'], (2, 2))
    >>> model.score(X, y)
    1.0
    """

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, y: Any) -> AutoClassifier:
        """Search the recipe's space with ``auto_fit`` and refit the best recipe.

        Parameters
        ----------
        X : pandas.DataFrame, polars.DataFrame or array-like of shape \
                (n_samples, n_features)
            The features: numbers, strings, dates.
        y : array-like of shape (n_samples,)
            The class labels, at least two distinct ones.

        Returns
        -------
        AutoClassifier
            The fitted estimator.
        """
        values = column_or_1d(series_values(y) if _is_column(y) else y, warn=True)
        if values.dtype.kind in "fc":
            check_array(values, ensure_2d=False, dtype=None, input_name="y")
        check_classification_targets(values)
        if pd.isna(values).any():
            raise ValueError(
                "Input y contains NaN: AutoClassifier needs a label for every row. "
                "Drop the rows whose label is missing."
            )
        classes = np.unique(values)
        if len(classes) < 2:
            raise ValueError(
                "AutoClassifier needs at least 2 classes to learn, but y has 1 "
                f"class: {classes.tolist()}."
            )
        self._fit(X, values, "binary" if len(classes) == 2 else "multiclass")
        self.classes_ = self.result_.classes_
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        """Predict class probabilities with the refit recipe of the best trial.

        Parameters
        ----------
        X : pandas.DataFrame, polars.DataFrame or array-like of shape \
                (n_samples, n_features)
            Rows with the columns seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            One column per class, in the order of ``classes_``.
        """
        check_is_fitted(self)
        return np.asarray(self.result_.predict_proba(self._frame(X, reset=False)))


def _is_column(y: Any) -> bool:
    return isinstance(y, pd.Series) or type(y).__module__.startswith("polars")
