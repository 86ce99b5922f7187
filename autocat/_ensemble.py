"""Greedy ensemble selection over out-of-fold predictions, and the fitted ensemble."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import rankdata
from sklearn import metrics
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.metrics import get_scorer, make_scorer
from sklearn.pipeline import Pipeline
from sklearn.utils import ClassifierTags, RegressorTags, Tags, get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, column_or_1d

from autocat._threads import in_own_thread

__all__ = [
    "EnsembleModel",
    "blend",
    "fold_scorer",
    "greedy_ensemble",
    "score_predictions",
]

_TASKS = ("regression", "binary", "multiclass")
# An addition must beat the ensemble's score by more than this to count as a gain
# (adding a member again can move a score by rounding noise alone).
_TOL = 1e-12


def _roc_auc_ovr(
    y_true: np.ndarray, y_score: np.ndarray, *, labels: Any, average: str
) -> float:
    # One-vs-rest AUC over the classes present in y_true: an absent class has
    # no AUC, and scikit-learn's multiclass form refuses or returns nan.
    labels = np.asarray(labels)
    present = np.isin(labels, y_true)
    onehot = (np.asarray(y_true)[:, None] == labels[None, :]).astype(np.int64)
    return float(
        metrics.roc_auc_score(onehot[:, present], y_score[:, present], average=average)
    )


# Scorers whose default form fails when a class is absent from the scored rows:
# name -> (function, greater_is_better, keyword arguments), given labels=0..k-1.
_LABELLED: dict[str, tuple[Any, bool, dict[str, Any]]] = {
    "neg_log_loss": (metrics.log_loss, False, {}),
    "neg_brier_score": (metrics.brier_score_loss, False, {}),
    "d2_log_loss_score": (getattr(metrics, "d2_log_loss_score", None), True, {}),
    "d2_brier_score": (getattr(metrics, "d2_brier_score", None), True, {}),
    "top_k_accuracy": (metrics.top_k_accuracy_score, True, {}),
    "roc_auc_ovo": (metrics.roc_auc_score, True, {"multi_class": "ovo"}),
    "roc_auc_ovo_weighted": (
        metrics.roc_auc_score,
        True,
        {"multi_class": "ovo", "average": "weighted"},
    ),
    "roc_auc_ovr": (_roc_auc_ovr, True, {"average": "macro"}),
    "roc_auc_ovr_weighted": (_roc_auc_ovr, True, {"average": "weighted"}),
}
_LABELLED_BINARY = ("neg_log_loss", "d2_log_loss_score")


def fold_scorer(metric: str, *, task: str, n_classes: int | None = None) -> Any:
    """Return a scorer for ``metric`` that stays defined when classes are absent.

    A validation fold (or the rows of out-of-fold predictions that exist) may
    lack some classes: a class with one row is never validated, a class with
    fewer rows than folds is absent from some folds. scikit-learn's
    probabilistic scorers then fail ("y_true and y_prob contain different number
    of classes"); this one passes ``labels=range(n_classes)`` to ``log_loss``,
    ``brier_score_loss``, ``d2_*``, ``top_k_accuracy_score`` and the one-vs-one
    AUC, and averages one-vs-rest AUC over the classes present. Other scorers
    are ``get_scorer(metric)`` unchanged: accuracy and balanced accuracy need
    nothing; ``f1_macro`` & co. average over the classes present or predicted
    (scikit-learn warns when a predicted class is absent). A binary ranking
    metric (``average_precision``, ``roc_auc``) is undefined on rows of one class:
    scikit-learn warns and returns 0 or nan; scores pooled over all folds'
    predictions (:func:`score_predictions`) avoid that.

    Parameters
    ----------
    metric : str
        A scikit-learn scorer name (greater is better, as ``get_scorer``).
    task : {'regression', 'binary', 'multiclass'}
        The task; estimators predict class codes ``0 .. n_classes-1``.
    n_classes : int, optional
        Number of classes; required for 'multiclass'.

    Returns
    -------
    callable
        ``scorer(estimator, X, y) -> float``, greater is better.

    Examples
    --------
    >>> from autocat._ensemble import fold_scorer
    >>> fold_scorer("neg_log_loss", task="multiclass", n_classes=3)
    make_scorer(log_loss, greater_is_better=False,
                response_method='predict_proba', labels=[0, 1, 2])
    """
    _check_task(task)
    scorer = get_scorer(metric)
    if task == "regression" or metric not in _LABELLED:
        return scorer
    if task == "binary":
        n_classes = 2
        if metric not in _LABELLED_BINARY:
            return scorer
    if n_classes is None or n_classes < 2:
        raise ValueError(f"n_classes must be an int >= 2 for {task}, got {n_classes}.")
    func, greater, kwargs = _LABELLED[metric]
    if func is None:  # not in this scikit-learn version
        return scorer
    return make_scorer(
        func,
        greater_is_better=greater,
        response_method="predict_proba",
        labels=list(range(n_classes)),
        **kwargs,
    )


class _ReplayRegressor(RegressorMixin, BaseEstimator):
    # Returns precomputed predictions: X holds row indices into them.
    def __init__(self, values: np.ndarray) -> None:
        self.values = values

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(self.values[X[:, 0]])


class _ReplayClassifier(ClassifierMixin, BaseEstimator):
    def __init__(self, values: np.ndarray) -> None:
        self.values = values

    @property
    def classes_(self) -> np.ndarray:
        return np.arange(self.values.shape[1])

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(self.values[X[:, 0]])

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(np.argmax(self.values[X[:, 0]], axis=1))


def _check_task(task: str) -> None:
    if task not in _TASKS:
        raise ValueError(f"task must be one of {list(_TASKS)}, got {task!r}.")


def _stack(predictions: Any, task: str) -> np.ndarray:
    P = np.asarray(
        [np.asarray(p, dtype=np.float64) for p in predictions], dtype=np.float64
    )
    ndim = 2 if task == "regression" else 3
    if P.ndim != ndim or P.shape[0] == 0:
        what = "values" if task == "regression" else "class-probability matrices"
        raise ValueError(
            f"predictions must be a non-empty list of {what} of the same shape "
            f"(an array of {ndim} dimensions for {task}), got shape {P.shape}."
        )
    if task != "regression" and P.shape[2] < 2:
        raise ValueError(
            f"class-probability matrices need a column per class (>= 2), got {P.shape}."
        )
    return P


def score_predictions(
    y: Any, prediction: Any, metric: str, *, task: str, n_classes: int | None = None
) -> float:
    """Score precomputed predictions with a scikit-learn scorer name.

    Rows where ``prediction`` is NaN (e.g. rows no fold validated) are left out.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        True values, or class codes ``0 .. k-1``.
    prediction : array-like of shape (n_samples,) or (n_samples, k)
        Predicted values, or class probabilities (columns = codes).
    metric : str
        A scikit-learn scorer name; scored by :func:`fold_scorer`.
    task : {'regression', 'binary', 'multiclass'}
        The task.
    n_classes : int, optional
        Defaults to the number of columns of ``prediction``.

    Returns
    -------
    float
        Greater is better.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._ensemble import score_predictions
    >>> proba = np.array([[0.9, 0.1], [0.2, 0.8], [np.nan, np.nan]])
    >>> score_predictions([0, 1, 1], proba, "accuracy", task="binary")
    1.0
    """
    _check_task(task)
    values = np.asarray(prediction, dtype=np.float64)
    y = np.asarray(y)
    rows = ~np.isnan(values.reshape(len(values), -1)).any(axis=1)
    values, y = values[rows], y[rows]
    if task != "regression":
        values = values / values.sum(axis=1, keepdims=True)
    return _score(y, values, metric, task, n_classes)


def _score(
    y: np.ndarray, values: np.ndarray, metric: str, task: str, n_classes: int | None
) -> float:
    # values: clean rows (no NaN), probabilities renormalised.
    fast = (_FAST_REGRESSION if task == "regression" else _FAST_CLASSIFICATION).get(
        metric
    )
    value = None if fast is None else fast(y, values)
    if value is not None:
        return value
    if task == "regression":
        estimator: BaseEstimator = _ReplayRegressor(values)
    else:
        n_classes = values.shape[1] if n_classes is None else n_classes
        estimator = _ReplayClassifier(values)
    scorer = fold_scorer(metric, task=task, n_classes=n_classes)
    return float(scorer(estimator, np.arange(len(y))[:, None], y))


# Direct numpy forms of common scorers, equal to scikit-learn's to rounding
# (tests/test_ensemble.py checks it): a scorer call costs milliseconds of input
# checks, and selection makes thousands. None: use scikit-learn.
def _r2(y: np.ndarray, p: np.ndarray) -> float | None:
    total = float(np.sum((y - y.mean()) ** 2))
    return None if total == 0 else 1.0 - float(np.sum((y - p) ** 2)) / total


def _neg_mse(y: np.ndarray, p: np.ndarray) -> float:
    return -float(np.mean((y - p) ** 2))


def _neg_rmse(y: np.ndarray, p: np.ndarray) -> float:
    return -float(np.sqrt(np.mean((y - p) ** 2)))


def _neg_mae(y: np.ndarray, p: np.ndarray) -> float:
    return -float(np.mean(np.abs(y - p)))


def _accuracy(y: np.ndarray, P: np.ndarray) -> float:
    return float(np.mean(np.argmax(P, axis=1) == y))


def _neg_log_loss(y: np.ndarray, P: np.ndarray) -> float:
    eps = np.finfo(np.float64).eps
    if P.shape[1] == 2:  # as scikit-learn: [1 - p, p] from the positive column
        p = P[:, 1]
        chosen = np.where(
            y == 1, np.clip(p, eps, 1 - eps), np.clip(1 - p, eps, 1 - eps)
        )
    else:
        chosen = np.clip(P[np.arange(len(y)), y.astype(np.intp)], eps, 1 - eps)
    return float(np.mean(np.log(chosen)))


def _both_classes(y: np.ndarray, P: np.ndarray) -> bool:
    return P.shape[1] == 2 and 0 < int(np.sum(y == 1)) < len(y)


def _average_precision(y: np.ndarray, P: np.ndarray) -> float | None:
    if not _both_classes(y, P):
        return None
    order = np.argsort(-P[:, 1], kind="mergesort")
    score, positive = P[order, 1], (y[order] == 1)
    last = np.r_[np.flatnonzero(np.diff(score)), len(score) - 1]  # of each tie
    tps = np.cumsum(positive)[last]
    precision = tps / (last + 1)
    recall = tps / tps[-1]
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def _roc_auc(y: np.ndarray, P: np.ndarray) -> float | None:
    if not _both_classes(y, P):
        return None
    positive = y == 1
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    ranks = rankdata(P[:, 1])  # ties share their mean rank: AUC counts them 1/2
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


_FAST_REGRESSION: dict[str, Callable[[np.ndarray, np.ndarray], float | None]] = {
    "r2": _r2,
    "neg_mean_squared_error": _neg_mse,
    "neg_root_mean_squared_error": _neg_rmse,
    "neg_mean_absolute_error": _neg_mae,
}
_FAST_CLASSIFICATION: dict[str, Callable[[np.ndarray, np.ndarray], float | None]] = {
    "accuracy": _accuracy,
    "neg_log_loss": _neg_log_loss,
    "average_precision": _average_precision,
    "roc_auc": _roc_auc,
}


def blend(predictions: Any, weights: Any, *, task: str) -> np.ndarray:
    """Return the weighted mean of candidates' predictions.

    Parameters
    ----------
    predictions : list of array-like, or ndarray
        Per candidate: values of shape (n_samples,) for regression, or class
        probabilities of shape (n_samples, k).
    weights : array-like of shape (n_candidates,)
        Non-negative; normalised to sum to 1. Candidates of weight 0 are ignored
        (their NaN rows too).
    task : {'regression', 'binary', 'multiclass'}
        The task.

    Returns
    -------
    ndarray of shape (n_samples,) or (n_samples, k)

    Examples
    --------
    >>> from autocat._ensemble import blend
    >>> blend([[1.0, 2.0], [3.0, 4.0]], [1, 3], task="regression")
    array([2.5, 3.5])
    """
    _check_task(task)
    P = _stack(predictions, task)
    w = np.asarray(weights, dtype=np.float64)
    used = w > 0
    w = w[used] / w[used].sum()
    return np.tensordot(w, P[used], axes=1)


def greedy_ensemble(
    predictions: Any,
    y: Any,
    metric: str,
    *,
    task: str,
    max_size: int = 25,
    n_init: int = 1,
    patience: int = 5,
) -> np.ndarray:
    """Choose ensemble weights by greedy forward selection with replacement.

    Caruana et al.'s ensemble selection: start from the ``n_init`` best single
    candidates (sorted initialisation), then add, with replacement, the candidate
    whose addition gives the best score, until ``max_size`` additions or
    ``patience`` additions in a row without a gain. The weights are the counts
    of the best ensemble met, over its size.

    Parameters
    ----------
    predictions : list of array-like, or ndarray
        Per candidate, predictions aligned with ``y`` from models that did not
        train on those rows (out-of-fold or holdout): values of shape
        (n_samples,) for regression, class probabilities of shape
        (n_samples, k) for classification (columns = class codes, binary too).
        NaN marks rows a candidate has no prediction for; rows where any
        candidate has NaN are left out for all.
    y : array-like of shape (n_samples,)
        True values, or class codes ``0 .. k-1``.
    metric : str
        Any scikit-learn scorer name ('r2', 'neg_log_loss', 'average_precision',
        'roc_auc', 'f1_macro', ...); scikit-learn scorers are greater-is-better.
    task : {'regression', 'binary', 'multiclass'}
        The task.
    max_size : int, default=25
        Most additions (so most members, counted with repeats).
    n_init : int, default=1
        Best single candidates the ensemble starts from, once each.
    patience : int, default=5
        Stop after this many additions in a row that do not beat the best score.

    Returns
    -------
    weights : ndarray of shape (n_candidates,)
        Non-negative, summing to 1; 0 for candidates never chosen.

    See Also
    --------
    EnsembleModel : The fitted ensemble built from these weights.

    Notes
    -----
    Cost: each addition scores every candidate once, so at most
    ``max_size x n_candidates`` scores of ``n_samples`` rows. 'r2', 'neg_mean_*',
    'accuracy', 'neg_log_loss', 'average_precision' and 'roc_auc' are computed
    in numpy (equal to scikit-learn's to rounding): 40 candidates x 2,000 rows
    take about a second; other scorers go through scikit-learn, with its input
    checks (milliseconds a call: tens of seconds for the same selection).

    Overfitting: selection fits the weights to the rows it scores, so the
    selected ensemble's score on them is optimistic, the more so with many
    candidates and few rows. Caruana et al. limit it with selection with
    replacement and sorted initialisation (both here) and bagged selection.
    The search runs this on the out-of-fold predictions of its finished trials,
    whose trees were chosen on an inner split of each training part
    (:func:`autocat._auto.inner_split`): each candidate's score comes from data
    that chose nothing, and only this selection fits those rows. An honest
    ensemble score needs rows the selection did not see (e.g. select on half
    the rows, score on the other half). Ties go to the earlier candidate: the
    result is deterministic.

    References
    ----------
    R. Caruana, A. Niculescu-Mizil, G. Crew and A. Ksikes, "Ensemble selection
    from libraries of models", ICML 2004.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._ensemble import greedy_ensemble
    >>> y = np.array([0.0, 1.0, 2.0, 3.0])
    >>> low, high = y - 0.5, y + 0.5
    >>> greedy_ensemble([low, high, np.zeros(4)], y, "r2", task="regression")
    array([0.5, 0.5, 0. ])
    """
    _check_task(task)
    sizes = {"max_size": max_size, "n_init": n_init, "patience": patience}
    for name, value in sizes.items():
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
            raise TypeError(f"{name} must be an int, got {value!r}.")
        if value < 1:
            raise ValueError(f"{name} must be >= 1, got {value}.")
    P = _stack(predictions, task)
    y = np.asarray(y)
    if len(y) != P.shape[1]:
        raise ValueError(
            f"y has {len(y)} rows but the predictions have {P.shape[1]}; they must "
            "be aligned."
        )
    rows = ~np.isnan(P.reshape(P.shape[0], P.shape[1], -1)).any(axis=(0, 2))
    if not rows.any():
        raise ValueError("no row has a prediction from every candidate.")
    P, y = P[:, rows], y[rows]
    n_classes = None
    if task != "regression":
        n_classes = P.shape[2]
        P = P / P.sum(axis=2, keepdims=True)  # float32 rows sum to 1 +- 1e-7

    def score(prediction: np.ndarray) -> float:
        value = _score(y, prediction, metric, task, n_classes)
        return value if np.isfinite(value) else -np.inf

    singles = np.array([score(p) for p in P])
    counts = np.zeros(len(P), dtype=np.int64)
    order = np.argsort(-singles, kind="stable")
    for j in order[: min(n_init, len(P))]:
        counts[j] += 1
    total = P[counts > 0].sum(axis=0)
    best_score, best_counts = score(total / counts.sum()), counts.copy()
    stale = 0
    while counts.sum() < max_size and stale < patience:
        size = counts.sum() + 1
        trial_scores = np.array([score((total + p) / size) for p in P])
        j = int(np.argmax(trial_scores))  # first of the ties
        counts[j] += 1
        total = total + P[j]
        if trial_scores[j] > best_score + _TOL:
            best_score, best_counts, stale = trial_scores[j], counts.copy(), 0
        else:
            stale += 1
    return np.asarray(best_counts / best_counts.sum())


def _is_classification(self: EnsembleModel) -> bool:
    return bool(self.task != "regression")


def final_step_predictions(estimators: list[Any], method: str, X: Any) -> list[Any]:
    """Each estimator's ``method(X)``, its final step's part in a short-lived thread.

    A Pipeline's transformers run in the calling thread; the final steps (an
    XGBoost model's predictions would leave an idle OpenMP team in the
    caller's thread, to slow later fits: see :mod:`autocat._threads`) run
    together in a thread that ends with them. An :class:`EnsembleModel` does
    the same for its members.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn.linear_model import LinearRegression
    >>> from autocat._ensemble import final_step_predictions
    >>> X, y = np.arange(4.0)[:, None], np.arange(4.0)
    >>> models = [make_pipeline(StandardScaler(), LinearRegression()).fit(X, y),
    ...           LinearRegression().fit(X, y)]
    >>> [p.round(6).tolist() for p in final_step_predictions(models, "predict", X[:2])]
    [[0.0, 1.0], [0.0, 1.0]]
    """
    results: list[Any] = [None] * len(estimators)
    steps = []
    for index, estimator in enumerate(estimators):
        if isinstance(estimator, EnsembleModel):  # it does the same for its members
            results[index] = getattr(estimator, method)(X)
        elif isinstance(estimator, Pipeline) and len(estimator) > 1:
            final = getattr(estimator[-1], method)
            steps.append((index, final, estimator[:-1].transform(X)))
        else:
            steps.append((index, getattr(estimator, method), X))
    if steps:
        outputs = in_own_thread(
            None, lambda: [final(inputs) for _, final, inputs in steps], name="predict"
        )
        for (index, _, _), output in zip(steps, outputs, strict=True):
            results[index] = output
    return results


class EnsembleModel(BaseEstimator):
    """A weighted mean of fitted models' predictions.

    Regression averages ``predict``; classification averages ``predict_proba``
    (members predict class codes ``0 .. k-1``) and predicts its argmax.

    Parameters
    ----------
    estimators : list of estimators
        The members, e.g. ``Pipeline([("vectorizer", TableVectorizer), ("model",
        XGBRegressor)])``; :meth:`fit` clones and fits those of positive weight.
    weights : array-like of shape (n_estimators,)
        Non-negative, not all 0; normalised to sum to 1.
    task : {'regression', 'binary', 'multiclass'}, default='regression'
        The task.
    trial_numbers : list of int, optional
        The Optuna trial each member comes from, shown by :meth:`describe`.

    Attributes
    ----------
    members_ : list of fitted estimators
        The members of positive weight.
    weights_ : ndarray of shape (n_members,)
        Their weights, summing to 1.
    trial_numbers_ : list of int or None
        Their trial numbers.
    classes_ : ndarray of shape (k,)
        Class codes (classification only).
    n_features_in_ : int
        As the first member's, when it has one (and ``feature_names_in_``).

    See Also
    --------
    greedy_ensemble : Chooses the weights.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> from sklearn.dummy import DummyRegressor
    >>> from autocat._ensemble import EnsembleModel
    >>> X, y = np.arange(6.0)[:, None], np.arange(6.0)
    >>> model = EnsembleModel([LinearRegression(), DummyRegressor()], [3, 1]).fit(X, y)
    >>> model.predict(X[:2])
    array([0.625, 1.375])
    >>> model.describe()
       member  trial  weight
    0       0   <NA>    0.75
    1       1   <NA>    0.25
    """

    def __init__(
        self,
        estimators: list[Any],
        weights: Any,
        *,
        task: str = "regression",
        trial_numbers: list[int] | None = None,
    ) -> None:
        self.estimators = estimators
        self.weights = weights
        self.task = task
        self.trial_numbers = trial_numbers

    def _kept(self) -> tuple[list[int], np.ndarray]:
        _check_task(self.task)
        w = np.asarray(self.weights, dtype=np.float64)
        if w.shape != (len(self.estimators),) or not np.all(np.isfinite(w)):
            raise ValueError(
                f"weights must be {len(self.estimators)} finite numbers, one per "
                f"estimator, got {self.weights!r}."
            )
        if (w < 0).any() or w.sum() <= 0:
            raise ValueError(f"weights must be >= 0 and not all 0, got {w.tolist()}.")
        if self.trial_numbers is not None and len(self.trial_numbers) != len(w):
            raise ValueError(
                f"trial_numbers has {len(self.trial_numbers)} entries for "
                f"{len(w)} estimators."
            )
        kept = [int(i) for i in np.flatnonzero(w > 0)]
        return kept, w[kept] / w[kept].sum()

    def _set_members(self, members: list[Any], kept: list[int], w: np.ndarray) -> None:
        self.members_ = members
        self.weights_ = w
        for name in ("n_features_in_", "feature_names_in_"):
            if hasattr(members[0], name):
                setattr(self, name, getattr(members[0], name))
        trials = self.trial_numbers
        self.trial_numbers_ = None if trials is None else [int(trials[i]) for i in kept]
        if self.task != "regression":
            classes = [np.asarray(m.classes_) for m in members]
            if any(not np.array_equal(c, classes[0]) for c in classes):
                raise ValueError(f"members disagree on classes_: {classes}.")
            self.classes_ = classes[0]

    def fit(self, X: Any, y: Any) -> EnsembleModel:
        """Fit a clone of each member of positive weight on ``X, y``.

        Parameters
        ----------
        X : table or array-like of shape (n_samples, n_features)
            What the members take.
        y : array-like of shape (n_samples,)
            Targets (class codes for classification).

        Returns
        -------
        EnsembleModel
            self, fitted.
        """
        kept, w = self._kept()
        y = column_or_1d(y, warn=True)
        members = [clone(self.estimators[i]).fit(X, y) for i in kept]
        self._set_members(members, kept, w)
        return self

    @classmethod
    def from_fitted(
        cls,
        estimators: list[Any],
        weights: Any,
        *,
        task: str = "regression",
        trial_numbers: list[int] | None = None,
    ) -> EnsembleModel:
        """Build a fitted ensemble from members already fitted, without refitting.

        Parameters
        ----------
        estimators, weights, task, trial_numbers
            As for the constructor; ``estimators`` are fitted. The returned
            model's ``estimators`` parameter holds unfitted clones, so no fitted
            state is stored twice.

        Returns
        -------
        EnsembleModel
            A fitted ensemble.
        """
        model = cls(
            [clone(e) for e in estimators],
            weights,
            task=task,
            trial_numbers=trial_numbers,
        )
        kept, w = model._kept()
        model._set_members([estimators[i] for i in kept], kept, w)
        return model

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        if self.task == "regression":
            tags.estimator_type = "regressor"
            tags.regressor_tags = RegressorTags()
        else:
            tags.estimator_type = "classifier"
            tags.classifier_tags = ClassifierTags()
        member_tags = [get_tags(e) for e in self.estimators]
        tags.input_tags.allow_nan = all(t.input_tags.allow_nan for t in member_tags)
        tags.input_tags.sparse = all(t.input_tags.sparse for t in member_tags)
        return tags

    @available_if(_is_classification)
    def predict_proba(self, X: Any) -> np.ndarray:
        """Weighted mean of the members' class probabilities.

        Parameters
        ----------
        X : table or array-like
            What the members take.

        Returns
        -------
        ndarray of shape (n_samples, k)
            Columns in the order of ``classes_``.
        """
        check_is_fitted(self)
        proba = self._mean("predict_proba", X)
        # members' float32 rows sum to 1 within float32 precision only
        return proba / proba.sum(axis=1, keepdims=True)

    def predict(self, X: Any) -> np.ndarray:
        """Predict values (weighted mean) or class codes (argmax of probabilities).

        Parameters
        ----------
        X : table or array-like
            What the members take.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        if self.task != "regression":
            return np.asarray(self.classes_[np.argmax(self.predict_proba(X), axis=1)])
        return self._mean("predict", X)

    def _mean(self, method: str, X: Any) -> np.ndarray:
        total = np.zeros(0)
        predictions = final_step_predictions(self.members_, method, X)
        for part, weight in zip(predictions, self.weights_, strict=True):
            part = weight * np.asarray(part, dtype=np.float64)
            total = part if total.size == 0 else total + part
        return total

    def score(self, X: Any, y: Any) -> float:
        """Return R² (regression) or accuracy (classification) on ``X, y``.

        Parameters
        ----------
        X : table or array-like
            What the members take.
        y : array-like of shape (n_samples,)
            True values or class codes.

        Returns
        -------
        float
        """
        name = "r2" if self.task == "regression" else "accuracy"
        return float(get_scorer(name)(self, X, y))

    def describe(self) -> pd.DataFrame:
        """Return the members: index, trial number (if given) and weight.

        Returns
        -------
        pandas.DataFrame
            Columns ``member``, ``trial`` (nullable int), ``weight``; one row
            per member of positive weight, in the order of ``estimators``.
        """
        check_is_fitted(self)
        kept, _ = self._kept()
        trials: list[Any] = self.trial_numbers_ or [None] * len(kept)
        return pd.DataFrame(
            {
                "member": kept,
                "trial": pd.array(trials, dtype="Int64"),
                "weight": self.weights_,
            }
        )
