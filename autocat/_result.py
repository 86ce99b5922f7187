"""AutoResult: what auto_fit returns, and what the report and model files share."""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from autocat._column_kinds import as_numbers
from autocat._dataframe import series_values, to_pandas
from autocat._ensemble import final_step_predictions, fold_scorer
from autocat._leaderboard import leaderboard
from autocat._target import check_same_order, tokens_as_missing

if TYPE_CHECKING:
    import pathlib
    from collections.abc import Callable

    import optuna
    from sklearn.pipeline import Pipeline

__all__ = ["AutoResult"]

logger = logging.getLogger("autocat")
# Label metrics of a binary result that stay defined with a third label in y.
_ANY_LABEL_METRICS = frozenset({"accuracy", "balanced_accuracy", "matthews_corrcoef"})


class AutoResult:
    """The outcome of :func:`auto_fit`: a fitted pipeline, its study and scores.

    Built by :func:`auto_fit` (or :func:`autocat.load`), not by hand: each
    keyword sets the attribute of the same name, with a trailing underscore
    except for ``time_budget`` and ``random_state``.

    Parameters
    ----------
    model, pipeline, study, best_params, cv_score, baseline_score : object
        See the attributes ``model_`` ... ``baseline_score_``.
    task, metric, target, classes, feature_names_in : object
        See the attributes ``task_`` ... ``feature_names_in_``.
    n_rows, n_folds, sample, elapsed_s, refit_s, cache_info, interrupted : object
        See the attributes ``n_rows_`` ... ``interrupted_``.
    time_budget : float or None
        The budget given to :func:`auto_fit`.
    random_state : int
        The seed given to :func:`auto_fit`.
    ensemble : list of dict, optional
        The members of ``model_``: ``trial``, ``weight``, ``fit``, ``score``.
    notes : list of str, optional
        Sentences for :meth:`summary` (e.g. members that could not be refit).

    Attributes
    ----------
    model_ : estimator
        The final model, which :meth:`predict` uses: the weighted ensemble of the
        selected trials (a plain scikit-learn estimator with ``predict`` and
        ``predict_proba``), or one pipeline. A classifier predicts class codes
        ``0 .. k-1`` (indices into ``classes_``).
    pipeline_ : sklearn.pipeline.Pipeline
        The best single trial: ``[("vectorizer", TableVectorizer), ("model",
        XGBRegressor | XGBClassifier)]``, refit on all rows when the budget
        allowed it, else its first fold's model.
    ensemble_ : pandas.DataFrame
        One row per member of ``model_``: ``trial``, ``weight``, ``fit``
        (``'refit'`` on all rows or ``'fold models'``), ``score``.
    study_ : optuna.Study or None
        Every trial (None when a time budget allowed none).
    best_params_ : dict
        Flat recipe parameters of the best trial (that of ``pipeline_``), with
        the ``n_estimators`` of its refit on all rows (its folds' early-stopping
        choice scaled to the rows, see :func:`autocat._members.refit_trees`):
        ``Recipe(task, **best_params_)`` rebuilds the refit model. The best
        trial may be one the time budget cut after some of its folds, when it
        scored above the best finished trial on their rows (see ``notes_``).
        When no trial finished, those of the rescue recipe that was returned
        (min-hash, ``learning_rate=0.1``, subsampled, its early-stopped trees).
    cv_score_ : float
        Cross-validated score of the final model's selection (greater is
        better): the ensemble (or best trial) is chosen on all folds but one and
        scored on the one left out, in turn, so it is not inflated by the
        choice among trials. When no trial finished and the model is the
        rescue recipe, its score on rows outside its training sample (a
        holdout; NaN when it trained on all rows).
    baseline_score_ : float
        Score of the paper's recipe (min-hash, d = 30, default XGBoost); ``nan``
        if that trial did not finish.
    leaderboard_ : pandas.DataFrame
        One row per trial, best first.
    task_ : {'regression', 'binary', 'multiclass'}
        The task.
    metric_ : str
        The scikit-learn scorer name.
    target_ : str
        The target's name (``'target'`` when passed as an array).
    classes_ : ndarray or None
        The class labels, for classification: the label of each class code and
        the order of the ``predict_proba`` columns. Sorted, except that a
        binary target's positive class (``pos_label``) is last.
    feature_names_in_ : ndarray of str
        The feature columns.
    n_trials_ : int
        Finished trials in the study.
    n_rows_ : int
        Rows used for training.
    n_folds_ : int
        Folds per trial (1: holdout).
    sample_ : tuple of (pandas.DataFrame, ndarray) or None
        At most 2,000 training rows and their targets (user labels); None
        after :func:`autocat.load` of a file saved without them.
    elapsed_s_ : float
        Duration of the whole call.
    refit_s_ : float
        Duration of the final refit.
    cache_info_ : dict
        Encoding cache: ``hits``, ``misses``, ``hit_rate``, ``encode_seconds``.
    interrupted_ : bool
        Whether the search was stopped with Ctrl-C.
    time_budget : float or None
        The budget given.
    random_state : int
        The seed used.
    """

    def __init__(
        self,
        *,
        model: Any = None,
        pipeline: Pipeline,
        study: optuna.Study | None,
        best_params: dict[str, Any],
        cv_score: float,
        baseline_score: float,
        task: str,
        metric: str,
        target: str,
        classes: np.ndarray | None,
        feature_names_in: np.ndarray,
        n_rows: int,
        n_folds: int,
        sample: tuple[pd.DataFrame, np.ndarray],
        elapsed_s: float,
        refit_s: float,
        cache_info: dict[str, float],
        interrupted: bool,
        time_budget: float | None,
        random_state: int,
        ensemble: list[dict[str, Any]] | None = None,
        notes: list[str] | None = None,
    ) -> None:
        self.model_ = pipeline if model is None else model
        self.pipeline_ = pipeline
        self._ensemble = [dict(member) for member in ensemble or []]
        self.notes_ = list(notes or [])
        self.study_ = study
        self.best_params_ = best_params
        self.cv_score_ = cv_score
        self.baseline_score_ = baseline_score
        self.task_ = task
        self.metric_ = metric
        self.target_ = target
        self.classes_ = classes
        self.feature_names_in_ = feature_names_in
        self.n_rows_ = n_rows
        self.n_folds_ = n_folds
        self.sample_ = sample
        self.elapsed_s_ = elapsed_s
        self.refit_s_ = refit_s
        self.cache_info_ = cache_info
        self.interrupted_ = interrupted
        self.time_budget = time_budget
        self.random_state = random_state

    @property
    def ensemble_(self) -> pd.DataFrame:
        """The members of ``model_``: ``trial``, ``weight``, ``fit``, ``score``."""
        return pd.DataFrame(self._ensemble, columns=["trial", "weight", "fit", "score"])

    @property
    def n_trials_(self) -> int:
        """Finished (complete) trials in the study."""
        from optuna.trial import TrialState

        if self.study_ is None:
            return 0
        return len(
            self.study_.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        )

    @property
    def leaderboard_(self) -> pd.DataFrame:
        """One row per trial, best first (complete trials by score, then the rest).

        Columns of :func:`~autocat._leaderboard.leaderboard`, and ``weight``: the
        trial's weight in ``model_`` (0 when not a member).
        """
        if self.study_ is None:
            return pd.DataFrame(columns=["trial", "state", "score", "weight"])
        board = leaderboard(self.study_)
        weights = dict(
            zip(self.ensemble_["trial"], self.ensemble_["weight"], strict=True)
        )
        board["weight"] = [float(weights.get(t, 0.0)) for t in board["trial"]]
        return board

    def _features(self, X: Any) -> pd.DataFrame:
        X = to_pandas(X)
        by_name = {str(c): c for c in X.columns}
        names = [str(n) for n in self.feature_names_in_]
        missing = [n for n in names if n not in by_name]
        if missing:
            raise ValueError(
                f"X lacks {len(missing)} column(s) seen in auto_fit: {missing[:10]}. "
                f"Expected the columns {names[:20]}."
            )
        if list(by_name) == names:
            return X
        return X[[by_name[n] for n in names]]  # drops extra columns (the target)

    def predict(self, X: Any) -> np.ndarray:
        """Predict targets (user labels for classification).

        Parameters
        ----------
        X : pandas.DataFrame or polars.DataFrame
            Rows with the feature columns (extra columns, e.g. the target, are
            ignored).

        Returns
        -------
        ndarray of shape (n_samples,)
            Predicted values, or class labels as given to :func:`auto_fit`.
        """
        [predictions] = final_step_predictions(
            [self.model_], "predict", self._features(X)
        )
        if self.classes_ is None:
            return np.asarray(predictions)
        return self.classes_[np.asarray(predictions, dtype=np.int64)]

    @property
    def predict_proba(self) -> Callable[[Any], np.ndarray]:
        """Predict class probabilities: ``result.predict_proba(X)``.

        ``X`` is a pandas or polars DataFrame with the feature columns; the result
        is an array of shape (n_samples, n_classes), columns in the order of
        ``classes_``. Only for classification results: on a regression result
        the attribute does not exist (``hasattr(result, "predict_proba")`` is
        False) and using it raises an ``AttributeError`` that says so.
        """
        if self.task_ == "regression":
            raise AttributeError(
                "predict_proba is only available for classification, and this "
                f"result is a regression of {self.target_!r}. Use predict instead."
            )
        return self._predict_proba

    def _predict_proba(self, X: Any) -> np.ndarray:
        [proba] = final_step_predictions(
            [self.model_], "predict_proba", self._features(X)
        )
        return np.asarray(proba)

    def score(self, X: Any, y: Any) -> float:
        """Score predictions of ``X`` against ``y`` with ``metric_``.

        Parameters
        ----------
        X : pandas.DataFrame or polars.DataFrame
            Rows with the feature columns.
        y : array-like of shape (n_samples,)
            True targets (user labels for classification). A regression
            target written as text or held as ``decimal.Decimal`` objects is
            read as :func:`~autocat.auto_fit` read it ("100,235", "$1,234.50",
            "94,71" with a decimal comma, a few stray tokens such as "N/A" as
            missing), and so are class labels written as numbers ("1" to "5",
            as a CSV file holds them). Rows whose target is missing are left
            out, as ``auto_fit`` leaves them out of training, with a warning.
            A class label ``auto_fit`` never saw (a rare class that fell in
            the held-out rows) counts as a wrong prediction, with a warning,
            when ``metric_`` scores predicted labels (accuracy, ``f1_macro``,
            ...); a metric on probabilities cannot score it and raises a
            ``ValueError`` that names the labels.

        Returns
        -------
        float
            Greater is better.
        """
        check_same_order(y, X, "y", "X", "score")
        y = series_values(y)
        features = self._features(X)
        if len(y) != len(features):
            raise ValueError(
                f"X has {len(features)} rows and y {len(y)}: pass the true "
                "target of each row of X."
            )
        if pd.isna(y).all():
            raise ValueError(
                f"y holds no known target ({len(y)} missing values): nothing to score."
            )
        y = self._read_target(y)
        n_classes = None
        if self.classes_ is None and y.dtype.kind in "OUST":
            # numbers written as text (or Decimals), read as auto_fit read them
            numbers = as_numbers(np.asarray(y, dtype=object))
            if numbers is None:
                raise ValueError(
                    f"y holds text that does not read as numbers (e.g. "
                    f"{pd.unique(y)[:5].tolist()}), and this model regresses "
                    f"{self.target_!r}: pass the true values as numbers."
                )
            y = numbers
        elif (
            self.classes_ is not None
            and np.asarray(self.classes_).dtype.kind in "biuf"
            and y.dtype.kind in "OUST"
        ):
            # class labels written as numbers ("1" to "5", as a CSV gives them):
            # auto_fit read them as numbers, so the classes are numbers
            numbers = as_numbers(np.asarray(y, dtype=object))
            if numbers is not None:
                y = numbers
        known = ~np.asarray(pd.isna(y), dtype=bool)
        if not known.all():
            logger.warning(
                "scoring the %d of %d rows whose target is known (%d missing)",
                int(known.sum()), len(y), int((~known).sum()),
            )  # fmt: skip
            y, features = y[known], features.iloc[np.flatnonzero(known)]
        if self.classes_ is not None:
            # classes_ is not sorted when pos_label made the first label positive
            codes = pd.Index(self.classes_).get_indexer(y)
            unknown = codes < 0
            count_hint = ""
            if unknown.any() and np.asarray(self.classes_).dtype.kind in "iu":
                count_hint = (
                    " The target was read as classes (an integer target with "
                    "few distinct values): if it is a count or a measure, fit "
                    "with task='regression'."
                )
            on_labels = unknown.any() and self._scores_labels()
            if on_labels and (
                self.task_ == "multiclass" or self.metric_ in _ANY_LABEL_METRICS
            ):
                # the model never predicts a class it has not seen: a miss
                logger.warning(
                    "%d of %d rows hold labels not seen in auto_fit (e.g. %s): "
                    "scored as wrong predictions.%s",
                    int(unknown.sum()), len(y), pd.unique(y[unknown])[:5].tolist(),
                    count_hint,
                )  # fmt: skip
                codes = np.where(unknown, len(self.classes_), codes)
            elif unknown.any():
                if on_labels:  # a binary metric on the two labels (f1, ...)
                    reason = "is defined on the two classes auto_fit saw"
                else:
                    reason = (
                        "scores probabilities, and the model has none for a "
                        "label it has not seen"
                    )
                hint = (
                    f" {self.metric_!r} {reason}: leave those rows out, or score "
                    "with a metric on predicted labels (accuracy)." + count_hint
                )
                raise ValueError(
                    "y holds labels not seen in auto_fit: "
                    f"{pd.unique(y[unknown])[:10].tolist()}; known: "
                    f"{self.classes_.tolist()}.{hint}"
                )
            y, n_classes = codes, len(self.classes_)
        scorer = fold_scorer(self.metric_, task=self.task_, n_classes=n_classes)
        return float(scorer(self.model_, features, y))

    def _scores_labels(self) -> bool:
        """Whether ``metric_`` scores predicted labels (not probabilities).

        Such a metric scores a label the model never saw as a miss, on a
        multiclass result, and on a binary one with the metrics that take any
        labels (:data:`_ANY_LABEL_METRICS`); binary ``f1``, ``precision`` and
        ``recall`` are defined on two labels.
        """
        from sklearn.metrics import get_scorer

        return getattr(get_scorer(self.metric_), "_response_method", None) == "predict"

    def _read_target(self, y: np.ndarray) -> np.ndarray:
        """``y`` with a regression's few stray tokens ("N/A") missing, as at fit."""
        if self.classes_ is not None:
            return y
        return tokens_as_missing(y, str(self.target_), "regression")

    def summary(self) -> str:
        """Return a short text: task, data, trials, scores, model, time.

        Returns
        -------
        str
            The lines printed by ``autocat fit`` and ``autocat demo``: task,
            data, trials, scores, the final model, best parameters, time, then
            any notes (e.g. members that the budget left as fold models).
        """
        from optuna.trial import TrialState

        n_cols = len(self.feature_names_in_)
        ended = (TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL)
        n_run = (
            0
            if self.study_ is None
            else len(self.study_.get_trials(deepcopy=False, states=ended))
        )
        if math.isnan(self.baseline_score_):
            baseline = "paper's recipe: did not finish"
        else:
            baseline = f"paper's recipe: {self.baseline_score_:.4f}"
        folds = "holdout" if self.n_folds_ == 1 else f"{self.n_folds_}-fold CV"
        protocol = f" ({folds})" if self.n_folds_ >= 1 else ""  # none: no search ran
        params = ", ".join(
            f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
            for k, v in self.best_params_.items()
        )
        board = self.leaderboard_
        best = board["score"].max() if self.n_trials_ else math.nan
        learners = (
            dict(board.loc[board["learner"] != "xgboost", ["trial", "learner"]].values)
            if "learner" in board
            else {}
        )
        if len(self.ensemble_) > 1:
            parts = ", ".join(
                f"#{t}{' ' + learners[t] if t in learners else ''} ({w:.2f}, {fit})"
                for t, w, fit in self.ensemble_[["trial", "weight", "fit"]].itertuples(
                    index=False
                )
            )
            model = f"model: ensemble of {len(self.ensemble_)} trials: {parts}"
        elif len(self.ensemble_) == 1:
            row = self.ensemble_.iloc[0]
            kind = f" {learners[row['trial']]}" if row["trial"] in learners else ""
            model = f"model: trial #{row['trial']}{kind} ({row['fit']})"
        else:
            model = "model: the rescue recipe on a sample (no trial finished)"
        lines = [
            f"task: {self.task_} (target {self.target_!r}), metric: {self.metric_}",
            f"data: {self.n_rows_} rows x {n_cols} columns",
            f"trials: {self.n_trials_} complete of {n_run} run{protocol}",
            f"CV {self.metric_} of the model: {self.cv_score_:.4f} ("
            + ("no trial finished" if math.isnan(best) else f"best trial {best:.4f}")
            + f"; {baseline})",
            model,
            f"best params: {params}",
            f"elapsed: {self.elapsed_s_:.1f}s (final model {self.refit_s_:.1f}s)",
        ]
        lines.extend(f"note: {note}" for note in self.notes_)
        return "\n".join(lines)

    def report(self, path: str | pathlib.Path) -> pathlib.Path:
        """Write the self-contained HTML report.

        Parameters
        ----------
        path : str or pathlib.Path
            The HTML file to write.

        Returns
        -------
        pathlib.Path
            The path written.
        """
        from autocat._report import write_report

        return write_report(self, path)

    def save(
        self, path: str | pathlib.Path, *, include_sample: bool = False
    ) -> pathlib.Path:
        """Save to ``path``; read it back with :func:`autocat.load`.

        The file (``.autocat`` by convention) is a zip archive of JSON, numpy
        arrays and XGBoost's own model format, with the library versions that
        wrote it: loading it runs no code from the file, so a model file can be
        shared. A study kept in a database or journal is copied into the file.

        Parameters
        ----------
        path : str or pathlib.Path
            The file to write; its folder is created if needed.
        include_sample : bool, default=False
            Also store ``sample_``: up to 2,000 raw training rows and their
            targets, which the report uses for permutation importances. Off by
            default, since a shared model file would disclose those rows; a
            loaded result then has ``sample_ = None``, and its report omits the
            importances. Write the report before saving, or pass ``True``.
            The encoders' fitted state is always stored; one-hot and target
            encoding keep categories, Gamma-Poisson and the text encoder n-gram
            vocabularies, all taken from the training values.

        Returns
        -------
        pathlib.Path
            The path written.

        Raises
        ------
        TypeError
            The result holds an object that a model file cannot hold (not
            plain data nor a class autocat trusts); the message names it.
        """
        from autocat._persistence import save

        return save(self, path, include_sample=include_sample)

    def __repr__(self) -> str:
        return (
            f"AutoResult(task={self.task_!r}, metric={self.metric_!r}, "
            f"cv_score={self.cv_score_:.4g}, trials={self.n_trials_})"
        )
