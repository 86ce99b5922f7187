"""An ensemble of FLAML's trials: a metric that records them, and their weighted mean.

FLAML keeps one configuration. :class:`TrialRecorder`, passed as FLAML's metric,
scores each trial exactly as FLAML would and keeps its out-of-fold predictions and
the fold models of the best trials; :meth:`TrialRecorder.ensemble` selects a
weighted ensemble of the trials on those predictions, as ``auto_fit`` does with its
own (:class:`FlamlEnsemble`). :mod:`autocat.integrations.flaml` exports both.
"""

from __future__ import annotations

import copy
import time
from typing import Any

import numpy as np

from autocat._ensemble import blend

__all__ = ["ENSEMBLE_METRICS", "FlamlEnsemble", "FoldAverage", "TrialRecorder"]

#: FLAML's metric names and the scikit-learn scorers that rank as they do.
ENSEMBLE_METRICS: dict[str, str] = {
    "r2": "r2",
    "mse": "neg_mean_squared_error",
    "rmse": "neg_root_mean_squared_error",
    "mae": "neg_mean_absolute_error",
    "accuracy": "accuracy",
    "log_loss": "neg_log_loss",
    "roc_auc": "roc_auc",
    "ap": "average_precision",
    "f1": "f1",
    "macro_f1": "f1_macro",
    "micro_f1": "f1_micro",
}


class TrialRecorder:
    """A FLAML metric that keeps every trial's out-of-fold predictions.

    Pass it as ``AutoML.fit(metric=...)``: each trial is scored exactly as
    FLAML scores the named ``metric`` (its own ``get_y_pred`` and
    ``metric_loss_score``), so FLAML's search is unchanged, and the trial's
    predictions on its validation rows (each cross-validation fold, or the
    holdout) are kept, with the fold models of the ``keep_models`` best
    trials. After the search, :meth:`ensemble` selects a weighted ensemble of
    the trials by greedy ensemble selection (Caruana et al., ICML 2004) on
    those predictions, as ``auto_fit`` does with its own trials. Its members
    are refit on all rows when the time allows, and are otherwise the mean of
    their kept fold models, so the ensemble needs no time beyond FLAML's.
    FLAML keeps one configuration; an ensemble of its trials averages away
    part of their variance.

    Parameters
    ----------
    metric : str, default='r2'
        FLAML's name of the metric, one of :data:`ENSEMBLE_METRICS`.
    max_trials : int, default=50
        The predictions of at most this many trials are kept (those of lowest
        loss): each costs a float64 per row (per class, for classification).
    keep_models : int, default=10
        The fold models (FLAML's fitted learners, vectorizer included) of at
        most this many trials are kept: those of lowest loss on the most rows.
        Each holds a model per fold (one with a holdout), so memory grows
        with it; 0 keeps none, and every member is then refit.

    Attributes
    ----------
    trials_ : list of dict
        Per trial kept: ``learner`` (the FLAML estimator's class), ``config``,
        ``loss`` (FLAML's, averaged over folds), ``rows`` (the validated rows,
        as FLAML numbers them after shuffling), ``target`` and ``predictions``
        on them (class probabilities in the columns of ``labels``), ``n_rows``
        (the rows the trial trained and validated on: FLAML's sample size),
        ``refit_seconds`` (its folds' fit time, scaled to ``n_rows``) and
        ``models`` (its fitted fold models; empty once dropped).

    Examples
    --------
    >>> from flaml import AutoML  # doctest: +SKIP
    >>> from autocat.integrations.flaml import TrialRecorder, add_learners
    >>> recorder = TrialRecorder("r2")
    >>> automl = AutoML()  # doctest: +SKIP
    >>> automl.fit(X, y, task="regression", metric=recorder, time_budget=30,
    ...            estimator_list=add_learners(automl),
    ...            skip_transform=True)  # doctest: +SKIP
    >>> model = recorder.ensemble(X, y, automl=automl, time_budget=0)  # doctest: +SKIP
    >>> model.predict(X_new)  # doctest: +SKIP
    """

    def __init__(
        self, metric: str = "r2", max_trials: int = 50, keep_models: int = 10
    ) -> None:
        if metric not in ENSEMBLE_METRICS:
            raise ValueError(
                f"TrialRecorder cannot ensemble for metric={metric!r}: choose among "
                f"{sorted(ENSEMBLE_METRICS)}."
            )
        if int(max_trials) < 1:
            raise ValueError(f"max_trials must be at least 1, got {max_trials!r}.")
        if int(keep_models) < 0:
            raise ValueError(f"keep_models must be at least 0, got {keep_models!r}.")
        self.metric = metric
        self.max_trials = int(max_trials)
        self.keep_models = int(keep_models)
        self.trials_: list[dict[str, Any]] = []
        self._current: dict[str, Any] | None = None
        self._current_estimator: Any = None
        self._last_call = time.monotonic()

    def __call__(
        self,
        X_val: Any,
        y_val: Any,
        estimator: Any,
        labels: Any,
        X_train: Any,
        y_train: Any,
        *args: Any,
    ) -> tuple[float, dict[str, Any]]:
        """Score one validation fold as FLAML would; keep its predictions."""
        from flaml.automl.ml import get_y_pred, metric_loss_score

        start = time.monotonic()
        fit_seconds = start - self._last_call  # FLAML fitted the fold just before
        task = estimator._task
        predicted = get_y_pred(estimator, X_val, self.metric, task)
        pred_time = (time.monotonic() - start) / max(len(X_val), 1)
        weight_val = args[0] if args else None
        loss = float(
            metric_loss_score(self.metric, predicted, y_val, labels, weight_val)
        )
        if task.is_classification():
            if labels is None:  # FLAML's holdout passes none
                labels = np.unique(np.concatenate([np.asarray(y_train), y_val]))
            labels = np.asarray(labels)
            kept = _probabilities(estimator, X_val, labels)
        else:
            kept, labels = np.asarray(predicted, dtype=np.float64), None
        fold = {"rows": np.asarray(getattr(X_val, "index", np.arange(len(X_val)))),
                "target": np.asarray(y_val), "predictions": kept}  # fmt: skip
        config = dict(args[2]) if len(args) > 2 and args[2] is not None else {}
        self._keep(estimator, config, fold, labels, len(X_train), loss, fit_seconds)
        self._last_call = time.monotonic()
        return loss, {"pred_time": pred_time}

    def _keep(
        self,
        estimator: Any,
        config: dict[str, Any],
        fold: dict[str, np.ndarray],
        labels: np.ndarray | None,
        n_train: int,
        loss: float,
        fit_seconds: float,
    ) -> None:
        rows = fold["rows"]
        n_rows = n_train + len(rows)
        trial = self._current
        # A trial's folds come one after the other, with one estimator object
        # (FLAML builds a new one per trial).
        if (
            trial is None
            or self._current_estimator is not estimator
            or trial["config"] != config
            or trial["n_rows"] != n_rows
        ):
            self._current_estimator = estimator
            trial = {"task": estimator._task, "learner": type(estimator),
                     "config": config, "n_rows": n_rows, "labels": labels,
                     "losses": [], "fold_seconds": [], "models": [],
                     **fold}  # fmt: skip
            self.trials_.append(trial)
            self._current = trial
        else:
            for key, new in fold.items():
                trial[key] = np.concatenate([trial[key], new])
        trial["losses"].append(loss)
        trial["loss"] = float(np.mean(trial["losses"]))
        if self.keep_models and len(trial["models"]) == len(trial["losses"]) - 1:
            # FLAML fits the same estimator object on the next fold, binding
            # a new model to it: a shallow copy keeps this fold's (a trial
            # whose models were dropped keeps none of its later folds)
            trial["models"].append(copy.copy(estimator))
        # a refit on all rows: a fold's fit, scaled to the rows
        trial["fold_seconds"].append(fit_seconds)
        trial["refit_seconds"] = (
            float(np.mean(trial["fold_seconds"])) * n_rows / max(n_train, 1)
        )
        if len(self.trials_) > self.max_trials:
            worst = max(
                (t for t in self.trials_ if t is not trial), key=lambda t: t["loss"]
            )
            self.trials_.remove(worst)
        self._drop_models()

    def _drop_models(self) -> None:
        """Keep the fold models of the ``keep_models`` best trials only.

        Best: of FLAML's largest sample first (the trials an ensemble may use),
        then of lowest loss (for a trial in progress, that of its folds so far).
        """
        most = max(t["n_rows"] for t in self.trials_)
        ranked = sorted(
            (t for t in self.trials_ if t["models"]),
            key=lambda t: (t["n_rows"] != most, t["loss"]),
        )
        for trial in ranked[self.keep_models :]:
            trial["models"] = []

    def candidates(self) -> list[dict[str, Any]]:
        """Return the trials an ensemble may use: all rows, each one validated.

        FLAML may search first on samples of the rows (its sample sizes grow)
        and may stop a trial between folds; only trials of the largest sample
        that validated all of its rows are comparable, row for row.
        """
        if not self.trials_:
            return []
        n_rows = max(t["n_rows"] for t in self.trials_)
        full = [t for t in self.trials_ if t["n_rows"] == n_rows]
        most = max(len(t["rows"]) for t in full)
        return sorted(
            (t for t in full if len(t["rows"]) == most), key=lambda t: t["loss"]
        )

    def ensemble(
        self,
        X: Any,
        y: Any,
        *,
        automl: Any = None,
        time_budget: float | None = None,
        n_jobs: int = 1,
    ) -> FlamlEnsemble:
        """Select an ensemble of the recorded trials and build its members.

        Each member, heaviest first, is FLAML's final model when it is FLAML's
        best configuration (``automl``); else it is refit on ``X, y`` when its
        estimate (its folds' fit time, scaled to all rows) fits in the time
        left; else it is the mean of its kept fold models (a
        :class:`FoldAverage`), which costs no fit. A member with neither is
        refit when it is the first; otherwise the selection is made again
        without it, so the weights are those of the members built.

        Parameters
        ----------
        X, y : DataFrame, array-like
            The rows ``AutoML.fit`` searched on.
        automl : flaml.AutoML, optional
            The fitted ``AutoML``: its final model (FLAML's best configuration,
            retrained) is the member of that configuration, not refit again.
        time_budget : float, optional
            Seconds for the refits (``None``: every member is refit; 0: none
            that has its fold models).
        n_jobs : int, default=1
            Threads of each refit.

        Returns
        -------
        FlamlEnsemble
            Fitted; ``description_`` says how each member was built.

        Raises
        ------
        ValueError
            When no trial validated all rows of the search (e.g. FLAML was not
            given this recorder as its metric, or ran no trial).
        """
        from autocat._selection import select_weights

        start = time.monotonic()
        trials = self.candidates()
        if not trials:
            raise ValueError(
                "TrialRecorder has no trial to ensemble: pass it to AutoML.fit as "
                "metric=recorder, and let the search finish at least one trial."
            )
        order = np.argsort(trials[0]["rows"], kind="stable")
        keys = trials[0]["rows"][order]
        target = trials[0]["target"][order]
        predictions = []
        for trial in trials:
            own = np.argsort(trial["rows"], kind="stable")
            if not np.array_equal(trial["rows"][own], keys):
                raise ValueError("the recorded trials did not validate the same rows")
            predictions.append(trial["predictions"][own])
        labels = trials[0]["labels"]
        if labels is not None:
            codes = np.searchsorted(labels, target)
            task = "binary" if len(labels) == 2 else "multiclass"
        else:
            codes, task = target.astype(np.float64), "regression"
        metric = ENSEMBLE_METRICS[self.metric]
        final = getattr(automl, "model", None)  # FLAML's best configuration, retrained
        built: dict[int, tuple[Any, str]] = {}
        usable = list(range(len(trials)))
        while True:
            weights = np.zeros(len(trials))
            weights[usable] = select_weights(
                [predictions[i] for i in usable], codes, metric, task, True
            )
            chosen = [int(i) for i in np.argsort(-weights, kind="stable") if weights[i]]
            lacking = None
            for index in chosen:
                if index in built:
                    continue
                left = None if time_budget is None else (
                    time_budget - (time.monotonic() - start))  # fmt: skip
                made = _build(
                    trials[index], final, automl, X, y, labels, n_jobs, left,
                    first=not built,
                )  # fmt: skip
                if made is None:
                    lacking = index
                    break
                built[index] = made
            if lacking is None:
                break
            usable.remove(lacking)  # select again among the members that can be
        return FlamlEnsemble(
            [built[i][0] for i in chosen], weights[chosen] / weights[chosen].sum(),
            task, labels,
            [{"learner": trials[i]["learner"].__name__, "config": trials[i]["config"],
              "loss": trials[i]["loss"], "built": built[i][1]} for i in chosen],
            float(time.monotonic() - start),
        )  # fmt: skip


def _build(
    trial: dict[str, Any],
    final: Any,
    automl: Any,
    X: Any,
    y: Any,
    labels: np.ndarray | None,
    n_jobs: int,
    left: float | None,
    *,
    first: bool,
) -> tuple[Any, str] | None:
    """Return a trial's member and how it was built, or None if it cannot be.

    FLAML's final model for FLAML's best configuration; else a refit on all
    rows if its estimate fits in the ``left`` seconds (or it is the ``first``
    member and has no fold models); else the mean of its kept fold models.
    """
    if type(final) is trial["learner"] and automl.best_config == trial["config"]:
        return final, "FLAML's final model"  # retrained already
    fits = left is None or left >= trial["refit_seconds"]
    if fits or (first and not trial["models"]):
        member = trial["learner"](**trial["config"], task=trial["task"], n_jobs=n_jobs)
        member.fit(X, y)
        return member, "refit on all rows"
    if trial["models"]:
        return FoldAverage(trial["models"], labels), (
            f"mean of {len(trial['models'])} fold models"
        )
    return None


def _probabilities(estimator: Any, X_val: Any, labels: np.ndarray) -> np.ndarray:
    """Class probabilities in the columns of all ``labels`` (a class absent: 0)."""
    proba = np.asarray(estimator.predict_proba(X_val), dtype=np.float64)
    columns = np.searchsorted(labels, np.asarray(estimator.classes_))
    full = np.zeros((len(proba), len(labels)))
    full[:, columns] = proba
    return full


class FoldAverage:
    """The mean of one trial's fold models: an ensemble member with no refit.

    Parameters
    ----------
    models : list
        The trial's fitted FLAML learners, one per fold (one with a holdout).
    classes : ndarray or None
        All labels, for classification; a fold model that lacks a class gives
        it probability 0.
    """

    def __init__(self, models: list[Any], classes: np.ndarray | None) -> None:
        self.models_ = list(models)
        self.classes_ = classes

    def predict_proba(self, X: Any) -> np.ndarray:
        """Mean of the fold models' class probabilities (columns: ``classes_``)."""
        if self.classes_ is None:
            raise AttributeError("predict_proba is for classification")
        each = [_probabilities(model, X, self.classes_) for model in self.models_]
        mean: np.ndarray = np.mean(each, axis=0)
        return mean

    def predict(self, X: Any) -> np.ndarray:
        """Mean of the fold models' predictions, or the likeliest label."""
        if self.classes_ is not None:
            labels: np.ndarray = self.classes_[np.argmax(self.predict_proba(X), axis=1)]
            return labels
        mean: np.ndarray = np.mean([model.predict(X) for model in self.models_], axis=0)
        return mean


class FlamlEnsemble:
    """A weighted mean of FLAML's trials (:meth:`TrialRecorder.ensemble`).

    Attributes
    ----------
    members_ : list
        FLAML estimators refit on all rows (or FLAML's final model), or
        :class:`FoldAverage` of a trial's fold models.
    weights_ : ndarray
        Their weights, summing to 1.
    task : {'regression', 'binary', 'multiclass'}
        The task.
    classes_ : ndarray or None
        The labels, for classification.
    description_ : list of dict
        Per member: ``learner``, ``config``, ``loss`` (FLAML's, in the search)
        and ``built`` (FLAML's final model, refit on all rows, or the mean of
        its fold models).
    refit_seconds_ : float
        The time :meth:`TrialRecorder.ensemble` took.
    """

    def __init__(
        self,
        members: list[Any],
        weights: np.ndarray,
        task: str,
        classes: np.ndarray | None,
        description: list[dict[str, Any]],
        refit_seconds: float,
    ) -> None:
        self.members_ = members
        self.weights_ = weights
        self.task = task
        self.classes_ = classes
        self.description_ = description
        self.refit_seconds_ = refit_seconds

    def predict_proba(self, X: Any) -> np.ndarray:
        """Weighted mean of the members' class probabilities (columns: ``classes_``)."""
        if self.classes_ is None:
            raise AttributeError("predict_proba is for classification")
        each = [_probabilities(member, X, self.classes_) for member in self.members_]
        return blend(each, self.weights_, task=self.task)

    def predict(self, X: Any) -> np.ndarray:
        """Weighted mean of the members' predictions, or the likeliest label."""
        if self.classes_ is not None:
            labels: np.ndarray = self.classes_[np.argmax(self.predict_proba(X), axis=1)]
            return labels
        each = [member.predict(X) for member in self.members_]
        return blend(each, self.weights_, task=self.task)
