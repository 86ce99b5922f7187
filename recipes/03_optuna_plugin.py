# %% [markdown]
# # autocat's search space in your own Optuna study or scikit-learn search
#
# `auto_fit` is one way to search; the search space is also public, so that it
# fits into the tuning code you already have:
#
# 1. `suggest_pipeline(trial, task)` inside your own Optuna objective
#    (define-by-run), next to your own parameters;
# 2. `param_grid(task)` with scikit-learn's `GridSearchCV`;
# 3. `param_distributions(task)` with `OptunaSearchCV` (optuna-integration).
#
# `AUTOCAT_RECIPE_SMALL=1` uses 1,000 rows and 2 trials per search.

# %%
from __future__ import annotations

import os
import time
import warnings

import optuna
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

import autocat

SMALL = os.environ.get("AUTOCAT_RECIPE_SMALL", "") not in ("", "0")
TARGET = "current_annual_salary"
N_TRIALS = 2 if SMALL else 20

df = autocat.datasets.load_employee_salaries()
df = df.sample(1_000 if SMALL else 4_000, random_state=0)
X, y = df.drop(columns=[TARGET]), df[TARGET]
folds = KFold(2 if SMALL else 3, shuffle=True, random_state=0)
optuna.logging.set_verbosity(optuna.logging.WARNING)
measured = {}

# %% [markdown]
# ## 1. Define-by-run: `suggest_pipeline` in your objective
#
# The trial chooses the encoder, its dimension and XGBoost's settings; you
# could add your own parameters (feature selection, sample weights, ...) to
# the same trial.

# %%


def objective(trial: optuna.Trial) -> float:
    pipeline = autocat.suggest_pipeline(trial, "regression")
    return cross_val_score(pipeline, X, y, cv=folds, scoring="r2").mean()


tic = time.perf_counter()
study = optuna.create_study(
    direction="maximize", sampler=optuna.samplers.TPESampler(seed=0)
)
study.optimize(objective, n_trials=N_TRIALS)
measured["suggest_pipeline"] = (study.best_value, time.perf_counter() - tic)
print(f"best R² {study.best_value:.4f} with {study.best_params}")

# %% [markdown]
# ## 2. A grid with `GridSearchCV`
#
# `param_grid` returns scikit-learn grids for the `Recipe` pipeline; the full
# grid is large, so this keeps its first points.

# %%
grid = autocat.param_grid("regression")
print(f"{len(grid)} grid(s); the first: {grid[0]}")
small_grid = [{key: values[:1] for key, values in grid[0].items()}]
if not SMALL:
    small_grid = grid[:1]
tic = time.perf_counter()
search = GridSearchCV(
    autocat.Recipe(task="regression").build(), small_grid, cv=folds, scoring="r2"
)
search.fit(X, y)
measured["param_grid"] = (search.best_score_, time.perf_counter() - tic)
print(f"best R² {search.best_score_:.4f} with {search.best_params_}")

# %% [markdown]
# ## 3. Distributions with `OptunaSearchCV`
#
# `param_distributions` gives Optuna distributions keyed by pipeline
# parameter, the form `OptunaSearchCV` takes. The space is plain data: here we
# narrow the encoder's dimension to keep the search short (and, in small
# mode, keep to min-hash, whose encoding costs no fitting).

# %%
distributions = autocat.param_distributions("regression")
print("searched:", sorted(distributions))
distributions["vectorizer__n_components"] = optuna.distributions.IntDistribution(
    8, 64, log=True
)
if SMALL:
    distributions["vectorizer__high_cardinality"] = (
        optuna.distributions.CategoricalDistribution(["minhash"])
    )
try:
    from optuna_integration import OptunaSearchCV
except ImportError:
    print("OptunaSearchCV needs optuna-integration: pip install optuna-integration")
else:
    # OptunaSearchCV is marked experimental; its warnings say nothing about the data
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    warnings.filterwarnings("ignore", category=FutureWarning, module="optuna")
    tic = time.perf_counter()
    search = OptunaSearchCV(
        autocat.Recipe(task="regression").build(),
        distributions,
        cv=folds,
        n_trials=N_TRIALS,
        scoring="r2",
        random_state=0,
    )
    search.fit(X, y)
    measured["param_distributions"] = (search.best_score_, time.perf_counter() - tic)
    print(f"best R² {search.best_score_:.4f} with {search.best_params_}")

print(
    "measured: "
    + "; ".join(
        f"{k} best CV R² {v:.4f} in {t:.1f} s" for k, (v, t) in measured.items()
    )
)
