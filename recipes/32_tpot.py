# %% [markdown]
# # autocat inside TPOT
#
# `autocat.integrations.tpot.vectorizer_node()` is a TPOT 1.x search-space node
# for autocat's TableVectorizer, its conditional ConfigSpace generated from the
# search-space table. Put it first in a `SequentialPipeline` and TPOT's evolution
# tunes the encoder together with the model.
#
# This recipe compares, on the dirty tasks of `../shared/data`, on the same splits
# (one third held out) and with the same time limit, both searching XGBoost:
#
# - **tpot**: `TPOTEstimator(preprocessing=True)`, TPOT's imputation and one-hot
#   encoding of the string columns;
# - **tpot+autocat**: `SequentialPipeline([vectorizer_node(), XGBoost])`.
#
# The full protocol (about 4 tasks x 3 splits x 2 x 60 s):
#
#     python recipes/32_tpot.py --splits 3 --time-budget 60 --out /tmp/tpot.csv
#
# `AUTOCAT_RECIPE_SMALL=1` runs one split of 600 rows with 5 s budgets.

# %%
from __future__ import annotations

import importlib.util

import numpy as np
from _tasks import SMALL, nothing_measured, parse_args, run

args = parse_args("TPOT alone against TPOT with autocat's vectorizer node")
if importlib.util.find_spec("tpot") is None:
    nothing_measured("TPOT is not installed: pip install 'autocat[tpot]'.")

import tpot
from dask.distributed import Client, LocalCluster
from tpot.config import get_search_space
from tpot.search_spaces.pipelines import SequentialPipeline

from autocat.integrations.tpot import vectorizer_node

# %% [markdown]
# ## The contenders
#
# One process, one thread each; `generations` is left open so that the time
# limit ends the search.


# %%
# one in-process worker; the dashboard on any free port (8787 may be taken)
CLIENT = Client(
    LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
    )
)


def limits(budget):
    if SMALL:  # a smoke test: two pipelines, one generation, whatever the load
        return {"population_size": 2, "generations": 1, "max_time_mins": None}
    return {
        "population_size": 8,
        "max_time_mins": budget / 60,
        # a pipeline may use the whole budget: TPOT stops a late one by killing
        # its thread, which XGBoost does not survive in one process
        "max_eval_time_mins": budget / 60,
    }


def fit_tpot(task, X, y, seed, budget, *, with_autocat):
    regression = task["task"] == "regression"
    model = get_search_space("XGBRegressor" if regression else "XGBClassifier")
    if with_autocat:
        space, preprocessing = SequentialPipeline([vectorizer_node(), model]), False
    else:
        space, preprocessing = model, True
    estimator = tpot.TPOTEstimator(
        search_space=space,
        scorers=[task["metric"]],
        scorers_weights=[1],
        classification=not regression,
        preprocessing=preprocessing,
        cv=3,
        **limits(budget),
        client=CLIENT,
        random_state=seed,
        verbose=0,
    )
    frame = X.copy()
    if preprocessing:  # TPOT's one-hot encoder wants strings, no missing values
        strings = frame.select_dtypes(exclude="number").columns
        frame[strings] = frame[strings].astype(str)
    estimator.fit(frame, y)

    def predict(X_test):
        X_test = X_test.copy()
        if preprocessing:
            X_test[strings] = X_test[strings].astype(str)
        if task["task"] == "binary":
            return np.asarray(estimator.predict_proba(X_test))[:, 1]
        return estimator.predict(X_test)

    return predict


# %%
results = run(
    args,
    {
        "tpot": lambda *a: fit_tpot(*a, with_autocat=False),
        "tpot+autocat": lambda *a: fit_tpot(*a, with_autocat=True),
    },
)
best = results.groupby("contender")["score"].median()
print(
    f"{'small mode: ' if SMALL else ''}median score tpot {best['tpot']:.3f}, "
    f"tpot+autocat {best['tpot+autocat']:.3f}"
)
