"""Weights of the finished trials in the final model, and their honest score."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.special import log_softmax
from sklearn.exceptions import UndefinedMetricWarning

from autocat._ensemble import (
    _ReplayClassifier,
    _ReplayRegressor,
    greedy_ensemble,
    score_predictions,
)
from autocat._linear import softmax_calibration

__all__ = [
    "cross_validated_selection_score",
    "paired_loss_share",
    "paired_win_share",
    "row_losses",
    "select_weights",
    "selection_groups",
    "trial_win_share",
]

# Groups of validation rows for the cross-validated score of a selection on a
# holdout, of at least _MIN_GROUP_ROWS rows each (R² of one row is undefined).
_HOLDOUT_GROUPS = 5
_MIN_GROUP_ROWS = 2
# What the greedy selection optimises for a classification metric it would
# otherwise take as is: accuracy counts right answers, so on the rows a selection
# sees most additions change none of them, and the few that flip a row decide;
# the log loss of the probabilities ranks every addition.
SELECTION_METRICS = {"accuracy": "neg_log_loss"}
# Classification metrics that are the mean of the rows' errors (weighted by
# class for balanced accuracy): a paired bootstrap compares those errors.
_ERROR_METRICS = frozenset({"accuracy", "balanced_accuracy"})
# Binary metrics of the rows' ranking: a paired bootstrap compares the log loss
# of recalibrated predictions (Platt's scaling).
_RANKING_METRICS = frozenset({"roc_auc", "average_precision"})


def select_weights(
    predictions: list[np.ndarray],
    y: np.ndarray,
    metric: str,
    task: str,
    ensemble: bool,
) -> np.ndarray:
    """Weights of the candidates: greedy ensemble, or all on the best one.

    Parameters
    ----------
    predictions : list of ndarray
        Out-of-fold predictions of each candidate, aligned with ``y``.
    y : ndarray
        True values, or class codes.
    metric, task : str
        As in :func:`greedy_ensemble`; the selection optimises
        ``SELECTION_METRICS[metric]`` where there is one (the log loss for
        accuracy), the single best candidate is chosen on ``metric``.
    ensemble : bool
        Greedy ensemble selection, or the single best candidate.

    Returns
    -------
    ndarray of shape (n_candidates,)
        Non-negative weights summing to 1.
    """
    if ensemble and len(predictions) > 1:
        if task != "regression":
            metric = SELECTION_METRICS.get(metric, metric)
        return np.asarray(greedy_ensemble(predictions, y, metric, task=task))
    scores = [score_predictions(y, p, metric, task=task) for p in predictions]
    weights = np.zeros(len(predictions))
    weights[int(np.argmax(scores))] = 1.0
    return weights


def selection_groups(
    splits: Sequence[tuple[np.ndarray, np.ndarray]], n_rows: int, random_state: int
) -> np.ndarray:
    """Group of each validated row: its fold, or a random fifth of a holdout.

    A holdout of fewer than ``_HOLDOUT_GROUPS * _MIN_GROUP_ROWS`` rows is cut
    into fewer groups, of at least ``_MIN_GROUP_ROWS`` rows each.

    Parameters
    ----------
    splits : sequence of (train, valid) index arrays
        The folds the candidates were scored on; one is a holdout.
    n_rows : int
        Rows of the training table.
    random_state : int
        Seeds the holdout's groups.

    Returns
    -------
    ndarray of int of shape (n_rows,)
        The group of each validated row, -1 for rows never validated.
    """
    groups = np.full(n_rows, -1)
    if len(splits) > 1:
        for fold, (_, valid) in enumerate(splits):
            groups[valid] = fold
        return groups
    valid = splits[0][1]
    n_groups = max(1, min(_HOLDOUT_GROUPS, len(valid) // _MIN_GROUP_ROWS))
    rng = np.random.default_rng([random_state, 17])
    groups[valid] = rng.permutation(len(valid)) % n_groups
    return groups


def cross_validated_selection_score(
    predictions: list[np.ndarray],
    y: np.ndarray,
    metric: str,
    task: str,
    ensemble: bool,
    groups: np.ndarray,
) -> float:
    """Score of the selection procedure on rows it did not see, averaged.

    The selection (:func:`select_weights`) is made on all groups but one and
    scored on the one left out, in turn. Groups whose score is undefined (one
    class only, a constant target) are left out.

    Parameters
    ----------
    predictions : list of ndarray
        Out-of-fold predictions of each candidate, on the validated rows.
    y : ndarray
        True values, or class codes, of those rows.
    metric, task : str
        As in :func:`greedy_ensemble`; the selection optimises
        ``SELECTION_METRICS[metric]`` where there is one (the log loss for
        accuracy), the single best candidate is chosen on ``metric``.
    ensemble : bool
        Greedy ensemble selection, or the single best candidate.
    groups : ndarray of int
        The group of each row (:func:`selection_groups`).

    Returns
    -------
    float
        The mean score over groups; NaN when no group has a score.
    """
    scores = []
    for group in np.unique(groups[groups >= 0]):
        chosen = groups == group
        others = (groups >= 0) & ~chosen
        if not others.any():
            continue
        weights = select_weights(
            [p[others] for p in predictions], y[others], metric, task, ensemble
        )
        mixed = sum(w * p[chosen] for w, p in zip(weights, predictions, strict=True))
        with warnings.catch_warnings():
            warnings.simplefilter("error", UndefinedMetricWarning)
            try:
                score = score_predictions(y[chosen], mixed, metric, task=task)
            except (ValueError, UndefinedMetricWarning):
                continue
        if np.isfinite(score):
            scores.append(score)
    return float(np.mean(scores)) if scores else float("nan")


def paired_win_share(
    y: np.ndarray,
    base: np.ndarray,
    other: np.ndarray,
    scorer: Any,
    *,
    task: str,
    n_resamples: int = 200,
    random_state: int = 0,
) -> float:
    """Share of bootstrap resamples of the rows on which ``other`` scores higher.

    A paired bootstrap: both out-of-fold predictions are scored on the same
    resampled validation rows, so what the rows have in common (hard rows,
    a lucky fold) cancels out and only the difference between the two is
    left. A share near 1 says ``other`` is better beyond the noise of the rows.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        The target (class codes for classification).
    base, other : ndarray of shape (n_samples,) or (n_samples, k)
        Out-of-fold predictions (NaN on rows no fold validated; those are
        left out).
    scorer : callable
        ``scorer(model, X, y)``, greater is better.
    task : {'regression', 'binary', 'multiclass'}
        The task.
    n_resamples : int, default=200
        Bootstrap resamples.
    random_state : int, default=0
        Seed of the resamples.

    Returns
    -------
    float
        In ``[0, 1]``; ties count for neither.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.metrics import get_scorer
    >>> from autocat._selection import paired_win_share
    >>> rng = np.random.default_rng(0)
    >>> y = rng.normal(size=300)
    >>> close, far = y + rng.normal(0, 0.5, 300), y + rng.normal(0, 1.0, 300)
    >>> paired_win_share(y, far, close, get_scorer("r2"), task="regression")
    1.0
    """
    rows = np.flatnonzero(_both_predicted(base, other))
    if len(rows) < 2:
        return 0.0
    replay = _ReplayRegressor if task == "regression" else _ReplayClassifier
    models = replay(base.astype(np.float64)), replay(other.astype(np.float64))
    rng = np.random.default_rng(random_state)
    wins = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for _ in range(n_resamples):
            sample = rng.choice(rows, len(rows))
            index = sample[:, None]
            base_score, other_score = (
                scorer(model, index, y[sample]) for model in models
            )
            wins += bool(other_score > base_score)
    return wins / n_resamples


def row_losses(y: np.ndarray, prediction: np.ndarray, metric: str, task: str) -> Any:
    """Each row's loss: its error, or the log loss of its class.

    A regression scored by an absolute error (``neg_mean_absolute_error``, ...)
    gets absolute errors, any other one squared errors (R² and the squared
    errors rank predictions alike). A classification scored by accuracy gets
    each row's error (1 where the most probable class is wrong), by balanced
    accuracy that error divided by its class's share of the rows (their mean
    is one minus the balanced accuracy): the mean of the losses is the metric,
    so a model whose probabilities are not yet confident (a booster cut after
    a few rounds at a low learning rate) is compared on the answers it gives.
    A binary classification scored by how it ranks the rows (AUC, average
    precision) gets the log loss of each row's class after a logistic
    recalibration of the prediction's log-odds on these rows (Platt's scaling,
    two parameters): the ranking, not the confidence, is compared, for the
    same reason. Any other metric gets the log loss of each row's true class
    (probabilities clipped at 1e-15), a proper score where the metric does not
    split into rows (F1).

    Examples
    --------
    >>> import numpy as np
    >>> row_losses(np.array([1.0, 2.0]), np.array([1.5, 0.0]), "r2", "regression")
    array([0.25, 4.  ])
    >>> proba = np.array([[0.5, 0.5], [0.1, 0.9], [0.4, 0.6]])
    >>> row_losses(np.array([0, 1, 0]), proba, "f1", "binary").round(3)
    array([0.693, 0.105, 0.916])
    >>> row_losses(np.array([0, 1, 0]), proba, "accuracy", "binary")
    array([0., 0., 1.])
    >>> row_losses(np.array([0, 1, 0]), proba, "balanced_accuracy", "binary")
    array([0.  , 0.  , 0.75])
    """
    prediction = np.asarray(prediction, dtype=np.float64)
    if task == "regression":
        error = np.abs(prediction - np.asarray(y, dtype=np.float64))
        return error if "absolute" in metric else error**2
    codes = np.asarray(y, dtype=np.int64)
    if metric in _ERROR_METRICS:
        # ties go to the first class, as np.argmax and the accuracy scorer do
        wrong = (np.argmax(prediction, axis=1) != codes).astype(np.float64)
        if metric == "balanced_accuracy":
            counts = np.bincount(codes)
            wrong *= len(codes) / (np.count_nonzero(counts) * counts[codes])
        return wrong
    proba = prediction / prediction.sum(axis=1, keepdims=True)
    if metric in _RANKING_METRICS and proba.shape[1] == 2:
        return _recalibrated_log_loss(codes, proba[:, 1])
    chosen = proba[np.arange(len(proba)), codes]
    return -np.log(np.clip(chosen, 1e-15, 1.0))


def _recalibrated_log_loss(y: np.ndarray, positive: np.ndarray) -> np.ndarray:
    """Each row's log loss once ``a * logit(p) + b`` is fitted to ``y`` (Platt).

    The fit is the linear classifier's calibration of its scores (a temperature
    and class offsets of least log loss), on the log-probabilities.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> unsure = np.array([0.46, 0.47, 0.48, 0.52, 0.53, 0.54])  # ranks them all
    >>> float(np.mean(-np.log(np.where(y == 1, unsure, 1 - unsure))).round(3))
    0.635
    >>> float(_recalibrated_log_loss(y, unsure).mean().round(3))
    0.0
    """
    p = np.clip(positive, 1e-15, 1 - 1e-15)
    scores = np.log(np.column_stack([1 - p, p]))
    temperature, *offsets = softmax_calibration(scores, y)
    log_p = log_softmax(temperature * scores + np.asarray(offsets), axis=1)
    losses: np.ndarray = -log_p[np.arange(len(y)), y]
    return losses


def paired_loss_share(
    y: np.ndarray,
    base: np.ndarray,
    other: np.ndarray,
    metric: str,
    task: str,
    *,
    n_resamples: int = 200,
    random_state: int = 0,
) -> float:
    """Share of bootstrap resamples of the rows where ``other``'s mean loss is lower.

    As :func:`paired_win_share`, on the rows' losses (:func:`row_losses`)
    rather than a scorer: the mean of a resample's paired differences takes
    one gather, where a scorer such as one-vs-rest AUC takes 0.1 s on 20,000
    rows, 200 times over. Rows where either prediction is NaN are left out.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.normal(size=300)
    >>> close, far = y + rng.normal(0, 0.5, 300), y + rng.normal(0, 1.0, 300)
    >>> paired_loss_share(y, far, close, "r2", "regression")
    1.0
    >>> paired_loss_share(y, close, far, "r2", "regression")
    0.0
    """
    both = _both_predicted(base, other)
    if both.sum() < 2:
        return 0.0
    gain = row_losses(y[both], base[both], metric, task) - row_losses(
        y[both], other[both], metric, task
    )
    rng = np.random.default_rng(random_state)
    wins = 0
    for start in range(0, n_resamples, 25):  # 25 resamples of the rows at a time
        draws = rng.integers(0, len(gain), (min(25, n_resamples - start), len(gain)))
        wins += int((gain[draws].mean(axis=1) > 0).sum())
    return wins / n_resamples


def _both_predicted(base: np.ndarray, other: np.ndarray) -> np.ndarray:
    """Rows where neither prediction is NaN (rows no fold validated)."""
    return np.asarray(
        ~np.isnan(base.reshape(len(base), -1)).any(axis=1)
        & ~np.isnan(other.reshape(len(other), -1)).any(axis=1)
    )


def trial_win_share(
    y: np.ndarray, base: Any, other: Any | None, scorer: Any, *, task: str
) -> float:
    """Return :func:`paired_win_share` of two trials' out-of-fold predictions.

    ``base`` and ``other`` are trial records (``.oof``); a trial that was cut,
    or has no predictions, wins no resample: the share is 0.
    """
    if other is None or other.oof is None or base.oof is None:
        return 0.0
    return paired_win_share(y, base.oof, other.oof, scorer, task=task)
