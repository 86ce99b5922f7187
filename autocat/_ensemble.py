"""Greedy ensemble selection over out-of-fold predictions, and the ensemble model."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.metrics import get_scorer

__all__ = ["EnsembleModel", "greedy_ensemble", "score_predictions"]


class _Replay(BaseEstimator):
    def __init__(self, predictions: Any = None, task: str = "regression") -> None:
        self.predictions = predictions
        self.task = task

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.estimator_type = "regressor" if self.task == "regression" else "classifier"
        return tags

    @property
    def classes_(self) -> np.ndarray:
        return np.arange(self.predictions.shape[1])

    def predict(self, X: Any) -> np.ndarray:
        if self.task == "regression":
            return self.predictions
        return np.argmax(self.predictions, axis=1)

    def predict_proba(self, X: Any) -> np.ndarray:
        return self.predictions

    def decision_function(self, X: Any) -> np.ndarray:
        if self.predictions.shape[1] == 2:
            return self.predictions[:, 1]
        return self.predictions


def score_predictions(predictions: Any, y: Any, metric: str, *, task: str) -> float:
    """Score precomputed predictions with a scikit-learn scorer name."""
    predictions = np.asarray(predictions, dtype=np.float64)
    X = np.zeros((len(y), 0))
    return float(get_scorer(metric)(_Replay(predictions, task), X, y))


def greedy_ensemble(
    predictions: list[np.ndarray],
    y: np.ndarray,
    metric: str,
    *,
    task: str,
    max_size: int = 25,
) -> np.ndarray:
    """Caruana et al. (2004) selection with replacement; weights sum to one."""
    counts = np.zeros(len(predictions))
    scores = [score_predictions(p, y, metric, task=task) for p in predictions]
    best = int(np.argmax(scores))
    counts[best] = 1
    total = predictions[best].astype(np.float64)
    current = scores[best]
    stale = 0
    for size in range(2, max_size + 1):
        trial = [
            score_predictions((total * (size - 1) + p) / size, y, metric, task=task)
            for p in predictions
        ]
        pick = int(np.argmax(trial))
        counts[pick] += 1
        total = (total * (size - 1) + predictions[pick]) / size
        if trial[pick] <= current:
            stale += 1
            if stale >= 3:
                break
        else:
            stale = 0
            current = trial[pick]
    return counts / counts.sum()


class EnsembleModel(BaseEstimator):
    """Weighted average of fitted models."""

    def __init__(
        self, estimators: Any = None, weights: Any = None, *, task: str = "regression"
    ) -> None:
        self.estimators = estimators
        self.weights = weights
        self.task = task

    @classmethod
    def from_fitted(cls, estimators: Any, weights: Any, *, task: str) -> EnsembleModel:
        model = cls(list(estimators), list(weights), task=task)
        model.weights_ = np.asarray(weights, dtype=np.float64)
        return model

    def predict_proba(self, X: Any) -> np.ndarray:
        return sum(
            w * np.asarray(e.predict_proba(X))
            for e, w in zip(self.estimators, self.weights_, strict=True)
        )

    def predict(self, X: Any) -> np.ndarray:
        if self.task == "regression":
            return sum(
                w * np.asarray(e.predict(X), dtype=np.float64)
                for e, w in zip(self.estimators, self.weights_, strict=True)
            )
        return np.argmax(self.predict_proba(X), axis=1)
