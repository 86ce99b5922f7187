# %% [markdown]
# # autocat inside FLAML
#
# `autocat.integrations.flaml.add_learners(automl)` registers autocat's learners
# with a FLAML `AutoML`: `'autocat'` (the TableVectorizer then XGBoost, tuned on
# autocat's search-space table) and `'autocat_<learner>'` (the vectorizer in front
# of FLAML's own learners). FLAML's search then tunes the encoder with the model.
#
# This recipe compares, on the dirty tasks of `../shared/data`, on the same splits
# (one third held out) and with the same time budget:
#
# - **flaml**: `AutoML().fit(X, y)` with FLAML's defaults;
# - **flaml+autocat**: the same with `estimator_list=add_learners(automl)`,
#   `skip_transform=True` (the learners see the raw columns) and
#   `starting_points=starting_points(len(X))` (FLAML tries autocat's portfolio
#   first, then searches around the best);
# - **flaml+autocat+ensemble**: the same search with a `TrialRecorder` as its
#   metric (FLAML scores each trial as with the metric's name and the recorder
#   keeps the trials' out-of-fold predictions and its best trials' fold models),
#   then `recorder.ensemble(X, y)`: greedy ensemble selection over FLAML's
#   trials. FLAML gets 90% of the budget; its final model stands for its best
#   configuration, the other members are refit on all rows when the rest of
#   the budget allows, else they are the mean of their fold models;
# - **auto_fit**: autocat's own search, for reference.
#
# The full protocol (about 4 tasks x 3 splits x 4 x 60 s):
#
#     python recipes/30_flaml.py --splits 3 --time-budget 60 --out /tmp/flaml.csv
#
# `AUTOCAT_RECIPE_SMALL=1` runs one split of 600 rows with 5 s budgets.

# %%
from __future__ import annotations

import importlib.util
import time

from _tasks import SMALL, nothing_measured, parse_args, predictor, run

import autocat

args = parse_args(
    "FLAML alone against FLAML with autocat's learners",
    contenders=(
        "flaml,flaml+autocat,flaml+autocat+ensemble,auto_fit",
        "comma-separated contenders to run",
    ),
)
if importlib.util.find_spec("flaml") is None:
    nothing_measured("FLAML is not installed: pip install 'autocat[flaml]'.")

import flaml

from autocat.integrations.flaml import TrialRecorder, add_learners, starting_points

FLAML_METRICS = {"r2": "r2", "accuracy": "accuracy", "average_precision": "ap"}
# With an ensemble, FLAML's search gets this share of the budget, the refits the rest.
ENSEMBLE_SEARCH_SHARE = 0.9


# %% [markdown]
# ## The contenders
#
# Each returns a function that predicts labels, or the probability of class 1
# on binary tasks. Every contender uses one thread (`n_jobs=1`), auto_fit too.


# %%
def fit_flaml(task, X, y, seed, budget, *, with_autocat, ensemble=False):
    start = time.monotonic()
    automl = flaml.AutoML()
    extra = {}
    if with_autocat:
        extra = {
            "estimator_list": add_learners(automl),
            "skip_transform": True,
            "starting_points": starting_points(len(X)),
        }
    metric = FLAML_METRICS[task["metric"]]
    recorder = TrialRecorder(metric) if ensemble else None
    automl.fit(
        X,
        y,
        task="regression" if task["task"] == "regression" else "classification",
        metric=recorder or metric,
        time_budget=ENSEMBLE_SEARCH_SHARE * budget if ensemble else budget,
        n_jobs=1,
        seed=seed,
        verbose=0,
        **extra,
    )
    if recorder is None:
        return predictor(task, automl)
    left = budget - (time.monotonic() - start)
    return predictor(task, recorder.ensemble(X, y, automl=automl, time_budget=left))


def fit_auto_fit(task, X, y, seed, budget):
    result = autocat.auto_fit(
        X,
        y,
        task=task["task"],
        metric=task["metric"],
        time_budget=budget,
        n_jobs=1,  # the one thread fit_flaml gives FLAML
        random_state=seed,
        show_progress=False,
    )
    return predictor(task, result)


# %%
contenders = {
    "flaml": lambda *a: fit_flaml(*a, with_autocat=False),
    "flaml+autocat": lambda *a: fit_flaml(*a, with_autocat=True),
    "flaml+autocat+ensemble": lambda *a: fit_flaml(
        *a, with_autocat=True, ensemble=True
    ),
    "auto_fit": fit_auto_fit,
}
results = run(args, {name: contenders[name] for name in args.contenders.split(",")})
best = results.groupby("contender")["score"].median()
print(
    f"{'small mode: ' if SMALL else ''}median score "
    + ", ".join(f"{name} {value:.3f}" for name, value in best.items())
)
