"""The search's leaderboard: one row per ended trial of a study, best first."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from optuna.trial import TrialState

from autocat._learner_trials import LEARNER_ATTR, VARIANTS
from autocat._log_target import LogTargetTrial
from autocat._recipe import VECTORIZER_PARAMS
from autocat._search_space import SEARCH_SPACE

if TYPE_CHECKING:
    import optuna
    import pandas as pd

__all__ = [
    "FOLD_SCORES",
    "FOLD_SECONDS",
    "N_ESTIMATORS",
    "STOPPED_BY",
    "TARGET_TRANSFORM",
    "leaderboard",
]

# What autocat stores on a finished trial (user attributes): the validation
# score and the seconds of each fold, the trees of the fold models, and what
# stopped a trial that did not finish ('pruner' or 'time_budget').
FOLD_SCORES = "fold_scores"
FOLD_SECONDS = "fold_seconds"
N_ESTIMATORS = "n_estimators"
STOPPED_BY = "stopped_by"
# ... and what it learnt: 'none' or 'log' (set when the target is measured).
TARGET_TRANSFORM = LogTargetTrial.name
# Learner labels whose model is XGBoost with the trial's parameters.
_XGBOOST = ("xgboost", *VARIANTS)


def leaderboard(study: optuna.Study) -> pd.DataFrame:
    """One row per ended trial of ``study``, best first.

    Waiting and running trials (e.g. of other processes sharing the study) are
    left out.

    Columns: ``trial``, ``state``, ``score`` (the mean validation score of a
    complete trial; NaN for others), ``score_std`` (its standard deviation over
    folds), ``duration_s``, the recipe parameters in search-space order
    (``encoder``, ``n_components``, ...; another learner's trial has no
    XGBoost parameters), ``target_transform`` (only when some trial learnt a
    log target), ``learner`` (only when another learner's trial ran:
    ``'xgboost'``, ``'linear'``, ``'forest'`` or ``'categorical'``, XGBoost on
    the low-cardinality columns' category codes), ``n_estimators`` and
    ``stopped_by``.
    Complete trials come first by score, then pruned ones.

    Examples
    --------
    >>> import optuna
    >>> from autocat._leaderboard import leaderboard
    >>> optuna.logging.set_verbosity(optuna.logging.WARNING)
    >>> study = optuna.create_study(direction="maximize")
    >>> study.add_trial(optuna.trial.create_trial(
    ...     params={"max_depth": 3},
    ...     distributions={"max_depth": optuna.distributions.IntDistribution(2, 12)},
    ...     value=0.8, user_attrs={"fold_scores": [0.7, 0.9]}))
    >>> board = leaderboard(study)
    >>> board[["trial", "state", "score", "score_std", "max_depth"]]
       trial     state  score  score_std  max_depth
    0      0  COMPLETE    0.8        0.1          3
    """
    import pandas as pd

    order = {TrialState.COMPLETE: 0, TrialState.PRUNED: 1}
    names = [spec.name for spec in SEARCH_SPACE]
    rows = []
    ended = (TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL)
    for trial in study.get_trials(deepcopy=False, states=ended):
        score = trial.value
        folds = trial.user_attrs.get(FOLD_SCORES) or []
        # Trials of a batch are told together: their own cost is their folds'.
        seconds = trial.user_attrs.get(FOLD_SECONDS)
        if seconds:
            duration = float(sum(seconds))
        elif trial.duration is not None:
            duration = trial.duration.total_seconds()
        else:
            duration = math.nan
        row: dict[str, Any] = {
            "trial": trial.number,
            "state": trial.state.name,
            "score": math.nan if score is None else float(score),
            "score_std": float(np.std(folds)) if len(folds) > 1 else math.nan,
            "duration_s": duration,
        }
        learner = trial.user_attrs.get(LEARNER_ATTR, "xgboost")
        row.update(
            {
                name: trial.params.get(name)
                # another learner's XGBoost parameters are its base's, unused
                if learner in _XGBOOST or name in VECTORIZER_PARAMS
                else None
                for name in names
            }
        )
        # a variant's own settings (see autocat._learner_trials.VARIANTS)
        row.update((k, v) for k, v in VARIANTS.get(learner, {}).items() if k in names)
        row[LEARNER_ATTR] = learner
        row[TARGET_TRANSFORM] = trial.user_attrs.get(TARGET_TRANSFORM, "none")
        row["n_estimators"] = trial.user_attrs.get(N_ESTIMATORS)
        row["stopped_by"] = trial.user_attrs.get(STOPPED_BY)
        row["_rank"] = order.get(trial.state, 2)
        rows.append(row)
    columns = [
        "trial",
        "state",
        "score",
        "score_std",
        "duration_s",
        *names,
        "n_estimators",
        "stopped_by",
    ]
    if not rows:
        return pd.DataFrame(columns=columns)
    frame = pd.DataFrame(rows)
    frame = frame.sort_values(
        ["_rank", "score", "trial"], ascending=[True, False, True], na_position="last"
    )
    frame["n_estimators"] = frame["n_estimators"].astype("Int64")
    if (frame[TARGET_TRANSFORM] != "none").any():  # a log target was measured
        columns.insert(columns.index("n_estimators"), TARGET_TRANSFORM)
    if (frame[LEARNER_ATTR] != "xgboost").any():  # another learner's trial ran
        columns.insert(columns.index("n_estimators"), LEARNER_ATTR)
        frame.loc[~frame[LEARNER_ATTR].isin(_XGBOOST), "n_estimators"] = pd.NA
    return frame[columns].reset_index(drop=True)
