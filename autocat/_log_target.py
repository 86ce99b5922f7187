"""Learning a skewed target on the log scale, and the search's measured choice of it."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.stats import skew
from xgboost import XGBRegressor

from autocat._sampler import REPEATS
from autocat._selection import trial_win_share

if TYPE_CHECKING:
    from autocat._trials import TrialRecord

__all__ = [
    "LOG_CONFIDENCE",
    "SKEWNESS",
    "TARGET_TRANSFORMS",
    "TARGET_TRANSFORM_MODES",
    "LogTargetRegressor",
    "LogTargetTrial",
    "check_log_target",
    "log_target_applies",
]

logger = logging.getLogger("autocat")

#: What a regression may learn: the target itself, or ``log(1 + target)``.
TARGET_TRANSFORMS: tuple[str, ...] = ("none", "log")
#: What ``auto_fit(target_transform=...)`` takes: those, or ``'auto'`` (measure).
TARGET_TRANSFORM_MODES: tuple[str, ...] = ("none", "auto", "log")
# The search measures a log target only on targets of non-negative values whose
# skewness is above 1, the usual bound of a "highly skewed" distribution: there
# the squared error of a few large values decides every split of the trees.
SKEWNESS = 1.0
# The later trials learn the log target only when its trial scores higher in this
# share of paired bootstrap resamples (a one-sided test at the usual 5% level).
LOG_CONFIDENCE = 0.95


def check_log_target(y: Any, what: str = "the target") -> np.ndarray:
    """Return ``y`` as floats, or raise if ``log(1 + y)`` is not defined for it.

    Parameters
    ----------
    y : array-like
        Target values.
    what : str, default='the target'
        How the error names ``y``.

    Returns
    -------
    ndarray of float64

    Examples
    --------
    >>> from autocat._log_target import check_log_target
    >>> check_log_target([0, 1.5, 30]).tolist()
    [0.0, 1.5, 30.0]
    >>> check_log_target([2.0, -1.0])
    Traceback (most recent call last):
    ...
    ValueError: target_transform='log' needs a target of finite values >= 0; \
the target's smallest value is -1.0. Use target_transform='none' for such a target.
    """
    values = np.asarray(y, dtype=np.float64).ravel()
    finite = np.isfinite(values)
    if not finite.all() or (values.size and values.min() < 0):
        smallest = values[~finite][0] if not finite.all() else values.min()
        raise ValueError(
            "target_transform='log' needs a target of finite values >= 0; "
            f"{what}'s smallest value is {smallest}. Use target_transform='none' "
            "for such a target."
        )
    return values


def log_target_applies(y: np.ndarray, task: str) -> bool:
    """Whether the search measures a log target: a skewed target of values >= 0.

    Parameters
    ----------
    y : ndarray
        The training target.
    task : str
        The task; only ``'regression'`` can apply.

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._log_target import log_target_applies
    >>> rng = np.random.default_rng(0)
    >>> log_target_applies(rng.lognormal(size=500), "regression")
    True
    >>> log_target_applies(rng.normal(10, 1, size=500), "regression")
    False
    >>> log_target_applies(rng.lognormal(size=500) - 1, "regression")  # below 0
    False
    """
    if task != "regression":
        return False
    values = np.asarray(y, dtype=np.float64)
    if values.size < 3 or not np.isfinite(values).all() or values.min() < 0:
        return False
    if values.min() == values.max():  # constant: no skewness
        return False
    return bool(skew(values) > SKEWNESS)


class LogTargetRegressor(XGBRegressor):
    """XGBoost regression trained on ``log(1 + y)``, predicting on ``y``'s scale.

    On a heavy-tailed target (prices, counts, citations), squared error on the
    raw values lets a few large ones decide every split; on the log scale the
    trees see relative differences. Back on ``y``'s scale, ``exp`` of the mean
    of the logs is a geometric mean, below the mean that R² and squared error
    reward, so predictions are multiplied by Duan's smearing factor, the mean of
    ``exp(residual)`` on rows the trees were not fitted to: the evaluation set
    when one is given (the early stopping rows of ``auto_fit``'s trials), else
    the training rows (which understate it), unless ``smearing`` fixes it (a
    refit on all rows takes its trial's). Predictions are clipped at 0.

    Parameters
    ----------
    smearing : float, optional
        A fixed smearing factor; ``None`` estimates it in :meth:`fit`.
    **kwargs
        :class:`xgboost.XGBRegressor`'s parameters.

    Attributes
    ----------
    smearing_ : float
        The factor the predictions are multiplied by.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._log_target import LogTargetRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 3))
    >>> y = np.exp(X[:, 0] + rng.normal(scale=0.5, size=400))
    >>> model = LogTargetRegressor(n_estimators=50, max_depth=3)
    >>> stop = [(X[300:], y[300:])]
    >>> model = model.fit(X[:300], y[:300], eval_set=stop, verbose=False)
    >>> bool(model.smearing_ > 1), bool((model.predict(X) >= 0).all())
    (True, True)
    """

    def __init__(self, *, smearing: float | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.smearing = smearing

    def get_xgb_params(self) -> dict[str, Any]:
        """XGBoost's booster parameters: those of the regressor, less ``smearing``."""
        params = super().get_xgb_params()
        params.pop("smearing", None)
        return params

    def fit(
        self,
        X: Any,
        y: Any,
        *,
        eval_set: list[tuple[Any, Any]] | None = None,
        **kwargs: Any,
    ) -> LogTargetRegressor:
        """Fit on ``log(1 + y)``; the evaluation sets' targets are logged too."""
        logged = np.log1p(check_log_target(y))
        logged_sets = None
        if eval_set is not None:
            logged_sets = [
                (X_set, np.log1p(check_log_target(y_set, "an evaluation set")))
                for X_set, y_set in eval_set
            ]
        super().fit(X, logged, eval_set=logged_sets, **kwargs)
        if self.smearing is not None:
            self.smearing_ = float(self.smearing)
        else:
            X_rows, y_rows = (X, logged) if not logged_sets else logged_sets[0]
            residuals = y_rows - super().predict(X_rows).astype(np.float64)
            self.smearing_ = float(np.mean(np.exp(residuals)))
        return self

    def predict(self, X: Any, **kwargs: Any) -> np.ndarray:
        """Predict on ``y``'s scale: ``smearing_ * exp(prediction) - 1``, at least 0."""
        logged = np.asarray(super().predict(X, **kwargs))
        if kwargs.get("output_margin"):
            return logged
        values = self.smearing_ * np.exp(logged.astype(np.float64)) - 1.0
        return np.asarray(np.maximum(values, 0.0), dtype=logged.dtype)


class LogTargetTrial:
    """Measure once whether a skewed target is better learnt on the log scale.

    On a regression target of values >= 0 whose skewness is above
    :data:`SKEWNESS` (:func:`log_target_applies`), once the portfolio's
    configurations have been tried (``after`` trials told, complete or not;
    in a search of ``n_trials``, in its last batch at the latest), the next
    trial repeats the best of them with ``target_transform='log'``
    (:class:`LogTargetRegressor`), on the same folds. The later trials, the
    sampler's, learn the log target only if that trial scored higher beyond the
    noise of the validation rows (in at least :data:`LOG_CONFIDENCE` of paired
    bootstrap resamples of the two trials' out-of-fold predictions); the
    ensemble may use both. Which is better differs between tables and between
    configurations: house prices and citation counts gain, a market value whose
    few giants decide R² loses, so the base is the best of several diverse
    configurations rather than the first trial. The sampler does not search
    the choice (its trials' parameters do not hold it): it is made once, and
    each trial's ``target_transform`` user attribute says which it learnt. The
    measured trial's parameters are its base's, so it is marked with a
    ``repeats`` user attribute (the base's number), which keeps it out of the
    sampler's history (:class:`~autocat._sampler.RepeatBlindTPESampler`): a
    point told twice would draw the sampler towards it. On other targets
    nothing changes.

    ``mode`` is ``auto_fit``'s ``target_transform``: ``'auto'`` measures,
    ``'log'`` has every trial learn the log, ``'none'`` none.

    :func:`~autocat._tuning.tune` calls :meth:`queue` after each batch,
    :meth:`enqueue_attrs` when enqueuing, :meth:`transform` for each trial
    asked, and :meth:`told` for each trial told.
    """

    name = "target_transform"

    def __init__(
        self,
        y: np.ndarray,
        scorer: Any,
        task: str,
        mode: str = "auto",
        after: int = 1,
    ) -> None:
        self.y, self.scorer, self.task = y, scorer, task
        self.applies = mode == "auto" and log_target_applies(y, task)
        self.after = after  # trials told before the measurement is queued
        self.n_told = 0
        self.pending: dict[str, Any] | None = None  # queued, not asked yet
        self.number: int | None = None  # the trial that runs it
        self.base: TrialRecord | None = None  # the configuration it repeats
        # what the other trials learn
        self.chosen = "log" if mode == "log" and task == "regression" else "none"

    def queue(
        self,
        records: list[TrialRecord],
        queue: list[dict[str, Any]],
        last_batch: bool = False,
    ) -> None:
        """Queue the best configuration on the log scale, once.

        Once ``after`` trials are told, or before the ``last_batch`` of a
        search of a fixed number of trials, whichever comes first.
        """
        if not self.applies or self.base is not None or not records:
            return
        if self.n_told < self.after and not last_batch:
            return
        self.base = records[0]
        self.pending = dict(self.base.params)
        queue.insert(0, self.pending)

    def enqueue_attrs(self, params: dict[str, Any]) -> dict[str, Any] | None:
        """Return the user attributes that mark ``params`` as the queued trial, or None.

        The queued parameters equal those of the trial they repeat, so they are
        enqueued with this mark (and without Optuna's check for equal trials),
        which names that trial under :data:`~autocat._sampler.REPEATS`.
        """
        if params is not self.pending or self.base is None:
            return None
        return {self.name: "log", REPEATS: self.base.number}

    def transform(
        self,
        number: int,
        user_attrs: dict[str, Any],
        repeats: TrialRecord | None = None,
    ) -> str:
        """Return what trial ``number``, asked with ``user_attrs``, learns.

        A trial that ``repeats`` another (to measure something else) learns
        what that one learnt.
        """
        if user_attrs.get(self.name) == "log":  # enqueued as the log trial
            if self.pending is not None:  # (in a shared study, maybe another's)
                self.pending, self.number = None, number
            return "log"
        if repeats is not None:
            return repeats.target_transform
        return self.chosen

    def told(self, number: int, record: TrialRecord | None) -> None:
        """Choose what the later trials learn, from the queued trial's score."""
        self.n_told += 1
        if number != self.number or self.base is None:
            return
        share = trial_win_share(self.y, self.base, record, self.scorer, task=self.task)
        self.chosen = "log" if share >= LOG_CONFIDENCE else "none"
        logger.info(
            "log target %s: %.5g on the target, %s on its log (higher in %.0f%% of "
            "resamples)",
            "chosen" if self.chosen == "log" else "not chosen",
            self.base.score,
            "not scored" if record is None else f"{record.score:.5g}",
            100 * share,
        )
