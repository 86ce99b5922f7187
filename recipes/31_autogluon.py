# %% [markdown]
# # autocat inside AutoGluon
#
# `autocat.integrations.autogluon.feature_generator()` is AutoGluon's default
# feature pipeline with `AutocatFeatureGenerator` in front: string columns with
# more than 30 distinct values (high-cardinality categories, free text) are
# min-hash encoded by autocat, next to AutoGluon's own categories (rare levels to
# missing) and n-gram counts (`--mode replace`: instead of them).
#
# This recipe compares, on the dirty tasks of `../shared/data`, on the same splits
# (one third held out) and with the same time limit:
#
# - **autogluon**: `TabularPredictor(label).fit(train, time_limit=budget)`;
# - **autogluon+autocat**: the same with `feature_generator=feature_generator()`.
#
# The full protocol (about 4 tasks x 3 splits x 2 x 60 s):
#
#     python recipes/31_autogluon.py --splits 3 --time-budget 60 --out /tmp/ag.csv
#
# `AUTOCAT_RECIPE_SMALL=1` runs one split of 600 rows with 5 s budgets.

# %%
from __future__ import annotations

import importlib.util
import shutil
import tempfile

import numpy as np
from _tasks import SMALL, nothing_measured, parse_args, run

args = parse_args(
    "AutoGluon alone against AutoGluon with autocat's features",
    mode=("add", "'add' or 'replace': AutocatFeatureGenerator's mode"),
)
if importlib.util.find_spec("autogluon") is None:
    nothing_measured("AutoGluon is not installed: pip install 'autocat[autogluon]'.")

from autogluon.tabular import TabularPredictor

from autocat.integrations.autogluon import feature_generator

LABEL = "__target__"


# %% [markdown]
# ## The contenders
#
# Both use AutoGluon's default models and presets, one CPU, and a fresh folder.


# %%
def fit_autogluon(task, X, y, seed, budget, *, with_autocat):
    folder = tempfile.mkdtemp(prefix="autogluon-")
    extra = {}
    if with_autocat:
        extra = {"feature_generator": feature_generator(mode=args.mode)}
    predictor = TabularPredictor(
        label=LABEL,
        problem_type=task["task"],
        eval_metric=task["metric"],  # AutoGluon knows the three by these names
        path=folder,
        verbosity=0,
    ).fit(X.assign(**{LABEL: y}), time_limit=budget, num_cpus=1, **extra)

    def predict(X_test):
        try:
            if task["task"] == "binary":
                return np.asarray(predictor.predict_proba(X_test)[1])
            return np.asarray(predictor.predict(X_test))
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    return predict


# %%
results = run(
    args,
    {
        "autogluon": lambda *a: fit_autogluon(*a, with_autocat=False),
        "autogluon+autocat": lambda *a: fit_autogluon(*a, with_autocat=True),
    },
)
best = results.groupby("contender")["score"].median()
print(
    f"{'small mode: ' if SMALL else ''}median score autogluon "
    f"{best['autogluon']:.3f}, autogluon+autocat {best['autogluon+autocat']:.3f}"
)
