# %% [markdown]
# # The encoders inside a plain scikit-learn pipeline
#
# `auto_fit` is a convenience: every piece it uses is an ordinary scikit-learn
# transformer. This recipe predicts employee salaries with three hand-made
# pipelines, each ending in XGBoost, and cross-validates them:
#
# 1. `MinHashEncoder` on the dirty job-title column (and one-hot on the rest)
#    inside a `ColumnTransformer`: the paper's best encoder for prediction;
# 2. `GammaPoissonEncoder` in the same place: interpretable topics;
# 3. `TableVectorizer`, which makes these choices column by column.
#
# `AUTOCAT_RECIPE_SMALL=1` uses 800 rows, 2 folds and 50 trees.

# %%
from __future__ import annotations

import os
import time

import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.model_selection import KFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from xgboost import XGBRegressor

import autocat

SMALL = os.environ.get("AUTOCAT_RECIPE_SMALL", "") not in ("", "0")
TARGET = "current_annual_salary"
N_TREES = 50 if SMALL else 300


def xgboost():
    # one thread per model: several folds or searches can then run side by side
    return XGBRegressor(n_estimators=N_TREES, n_jobs=1, random_state=0)


df = autocat.datasets.load_employee_salaries()
if SMALL:
    df = df.sample(800, random_state=0)
X, y = df.drop(columns=[TARGET]), df[TARGET]
print(f"{len(X):,} rows; columns: {list(X.columns)}")

# %% [markdown]
# ## One encoder per column, by hand
#
# The job title has hundreds of spellings ("Police Officer II", "police officer
# III", ...). Min-hash turns each into 30 numbers whose equalities estimate the
# n-gram similarity of titles; trees split on them directly.

# %%
title = "employee_position_title"
low_cardinality = [c for c in ("gender", "department", "assignment_category") if c in X]
numeric = [c for c in X.columns if pd.api.types.is_numeric_dtype(X[c])]


def by_hand(encoder):
    columns = ColumnTransformer(
        [
            ("title", encoder, [title]),
            ("low_card", OneHotEncoder(handle_unknown="ignore"), low_cardinality),
            ("numeric", "passthrough", numeric),
        ]
    )
    return make_pipeline(columns, xgboost())


pipelines = {
    "MinHashEncoder + XGBoost": by_hand(autocat.MinHashEncoder(n_components=30)),
    "GammaPoissonEncoder + XGBoost": by_hand(
        autocat.GammaPoissonEncoder(n_components=10, random_state=0)
    ),
    "TableVectorizer + XGBoost": make_pipeline(autocat.TableVectorizer(), xgboost()),
}

# %% [markdown]
# ## Cross-validated R²
#
# Each pipeline is refitted inside each fold, encoders included, so nothing
# learnt from a test fold leaks into training.

# %%
folds = KFold(2 if SMALL else 5, shuffle=True, random_state=0)
scores = {}
for name, pipeline in pipelines.items():
    tic = time.perf_counter()
    r2 = cross_val_score(pipeline, X, y, cv=folds, scoring="r2")
    scores[name] = (r2.mean(), r2.std(), time.perf_counter() - tic)
    print(f"{name:>32}: R² {r2.mean():.4f} ± {r2.std():.4f}  ({scores[name][2]:.1f} s)")

# %% [markdown]
# ## What the Gamma-Poisson topics mean
#
# Fitted alone, the Gamma-Poisson encoder names each dimension after the
# substrings that activate it most (the paper's section 3.2.3).

# %%
gamma = autocat.GammaPoissonEncoder(n_components=10, random_state=0).fit(X[[title]])
for label in gamma.get_feature_names_out():
    print("topic:", label)

# %% [markdown]
# ## What TableVectorizer decided
#
# The dispatcher exposes its plan: kind, transformer and outputs per column.

# %%
vectorizer = autocat.TableVectorizer().fit(X)
print(vectorizer.describe().to_string())

best = max(scores, key=lambda name: scores[name][0])
print(
    "measured: "
    + "; ".join(f"{name} R² {mean:.4f}" for name, (mean, _, _) in scores.items())
    + f"; best: {best}"
)
