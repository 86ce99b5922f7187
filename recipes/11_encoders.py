# %% [markdown]
# # What each encoder brings, on the real tasks
#
# The recipe is fixed (XGBoost with its default settings, encoder dimension
# d = 30) and only the encoding of the string columns changes:
#
# - **minhash**: min-hash for every high-cardinality column, free text included
#   (the paper's recipe and autocat's default);
# - **minhash + text**: min-hash, and the `TextEncoder` for free-text columns;
# - **gamma_poisson**, **target**, **text**: that encoder for the
#   high-cardinality columns that are not free text (scikit-learn's cross-fitted
#   `TargetEncoder` for `target`, the `TextEncoder` for `text`), and the
#   `TextEncoder` for free-text ones;
# - **skrub**: skrub's `TableVectorizer` (its `StringEncoder` for
#   high-cardinality columns) before the same XGBoost, as a reference.
#
# Protocol of `10_benchmark_vs_skrub.py`: `../shared/data/tasks.json`, one third
# held out (stratified for binary tasks), the paper's metric, 3 random splits;
# tables are subsampled to at most 10,000 rows (`--max-rows`) so that the
# comparison runs on a shared machine. The summary gives each configuration's
# median score over the splits and its range (min-max).
#
#     python recipes/11_encoders.py --out /tmp/encoders.csv
#
# `--auto S` adds `auto_fit(time_budget=S)`, whose search space holds all four
# encoders, on the same splits (slower: use `--tasks` to pick a few).
# `AUTOCAT_RECIPE_SMALL=1` runs one task, one split, on 1,500 rows.

# %%
from __future__ import annotations

import argparse
import json
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from _tasks import read_task
from sklearn.metrics import accuracy_score, average_precision_score, r2_score
from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit
from sklearn.preprocessing import LabelEncoder
from threadpoolctl import threadpool_limits

import autocat

SMALL = os.environ.get("AUTOCAT_RECIPE_SMALL", "") not in ("", "0")
HERE = Path(__file__).resolve().parent
DATA = Path(
    os.environ.get("AUTOCAT_SHARED_DATA", HERE.parent.parent / "shared" / "data")
)
MIN_CLASS_ROWS = 10

parser = argparse.ArgumentParser(description="one fixed recipe, each encoder")
parser.add_argument("--tasks", nargs="*", help="task names (default: all)")
parser.add_argument("--splits", type=int, default=3, help="random splits per task")
parser.add_argument("--max-rows", type=int, default=10_000)
parser.add_argument(
    "--configs", nargs="*", help="configurations to run (default: all but auto)"
)
parser.add_argument(
    "--auto", type=float, default=None, metavar="S", help="also auto_fit, S seconds"
)
parser.add_argument("--threads", type=int, default=1)
parser.add_argument("--out", help="CSV file collecting one row per task, split, config")
args = parser.parse_args()
if SMALL:
    args.tasks, args.splits, args.max_rows = ["dating_profiles"], 1, 1_500
    args.configs = ["minhash", "minhash + text", "target"]

tasks_file = DATA / "tasks.json"
if not tasks_file.exists():
    print(
        f"The shared datasets are not at {DATA}; set AUTOCAT_SHARED_DATA to the "
        "folder that holds tasks.json. Nothing was measured."
    )
    raise SystemExit(0)
TASKS = {k: v for k, v in json.loads(tasks_file.read_text()).items() if k != "_about"}
names = args.tasks or list(TASKS)


# %% [markdown]
# ## Loading a task (as in recipe 10)


# %%
def load_task(name: str) -> tuple[pd.DataFrame, pd.Series, dict, int]:
    frame, task = read_task(name)
    n_all = len(frame)
    if len(frame) > args.max_rows:
        frame = frame.sample(args.max_rows, random_state=0)
    if task["task"] == "multiclass":  # after sampling: every class keeps 10 rows
        counts = frame[task["target"]].value_counts()
        frame = frame[
            frame[task["target"]].isin(counts.index[counts >= MIN_CLASS_ROWS])
        ]
    frame = frame.reset_index(drop=True)
    y = frame[task["target"]]
    if task["task"] != "regression":
        y = pd.Series(LabelEncoder().fit_transform(y.astype(str)), name=y.name)
    return frame.drop(columns=[task["target"]]), y, task, n_all


def score(task: dict, model, X_test: pd.DataFrame, y_test: np.ndarray) -> float:
    if task["metric"] == "r2":
        return float(r2_score(y_test, model.predict(X_test)))
    if task["metric"] == "accuracy":
        return float(accuracy_score(y_test, model.predict(X_test)))
    proba = np.asarray(model.predict_proba(X_test))
    return float(average_precision_score(y_test == 1, proba[:, 1]))


# %% [markdown]
# ## The configurations
#
# Each is a plain pipeline: `Recipe(task, encoder=..., text_encoder=...).build()`.


# %%
def recipe_pipeline(task: dict, seed: int, encoder: str, text_encoder: str = "text"):
    return autocat.Recipe(
        task["task"],
        encoder=encoder,
        text_encoder=text_encoder,
        random_state=seed,
        n_jobs=args.threads,
    ).build()


def skrub_pipeline(task: dict, seed: int):
    import skrub
    from sklearn.pipeline import make_pipeline

    model = autocat.Recipe(task["task"], random_state=seed, n_jobs=args.threads)
    return make_pipeline(skrub.TableVectorizer(), model.build_model())


CONFIGS = {
    "minhash": lambda task, seed: recipe_pipeline(task, seed, "minhash", "minhash"),
    "minhash + text": lambda task, seed: recipe_pipeline(task, seed, "minhash"),
    "gamma_poisson": lambda task, seed: recipe_pipeline(task, seed, "gamma_poisson"),
    "target": lambda task, seed: recipe_pipeline(task, seed, "target"),
    "text": lambda task, seed: recipe_pipeline(task, seed, "text"),
    "skrub": skrub_pipeline,
}
configs = args.configs or list(CONFIGS)


def fit_auto(task, X_train, y_train, seed):
    frame = X_train.assign(**{task["target"]: y_train})
    return autocat.auto_fit(
        frame,
        task["target"],
        task=task["task"],
        metric=task["metric"],
        time_budget=args.auto,
        random_state=seed,
        n_jobs=args.threads,
        show_progress=False,
    )


# %% [markdown]
# ## Run

# %%
rows = []
started = time.perf_counter()
for name in names:
    X, y, task, n_all = load_task(name)
    kind = StratifiedShuffleSplit if task["task"] == "binary" else ShuffleSplit
    splits = kind(n_splits=args.splits, test_size=1 / 3, random_state=0).split(X, y)
    plan = autocat.TableVectorizer().fit(X).describe()
    text_columns = plan["column"][plan["kind"] == "text"].tolist()
    for split, (train, test) in enumerate(splits):
        X_train, X_test = X.iloc[train], X.iloc[test]
        y_train, y_test = y.iloc[train], y.to_numpy()[test]
        runs = [(c, CONFIGS[c]) for c in configs]
        if args.auto is not None:
            runs.append(("auto_fit", None))
        for config, make in runs:
            tic = time.perf_counter()
            with warnings.catch_warnings(), threadpool_limits(args.threads):
                warnings.simplefilter("ignore")
                try:
                    if make is None:
                        model = fit_auto(task, X_train, y_train, split)
                    else:
                        model = make(task, split).fit(X_train, y_train)
                    test_score, error = score(task, model, X_test, y_test), ""
                except Exception as exc:  # a failure is a result, reported as such
                    test_score, error = float("nan"), f"{type(exc).__name__}: {exc}"
            row = {
                "task": name,
                "split": split,
                "config": config,
                "metric": task["metric"],
                "score": test_score,
                "fit_s": round(time.perf_counter() - tic, 2),
                "n_rows": len(X),
                "n_rows_all": n_all,
                "text_columns": ";".join(map(str, text_columns)),
                "encoder": (
                    model.best_params_.get("encoder")
                    if make is None and not error
                    else None
                ),
                "error": error[:200],
            }
            rows.append(row)
            print(
                f"{name:>20} split {split} {config:>22}: {task['metric']} "
                f"{test_score:.4f} in {row['fit_s']:.1f} s {error[:80]}",
                flush=True,
            )
            if args.out:
                pd.DataFrame(rows).to_csv(args.out, index=False)

# %% [markdown]
# ## Summary: median over splits, and range

# %%
results = pd.DataFrame(rows)
order = [c for c in [*CONFIGS, "auto_fit"] if c in set(results["config"])]
grouped = results.groupby(["task", "metric", "config"])["score"]
median = grouped.median().unstack().reindex(columns=order)
spread = (grouped.max() - grouped.min()).unstack().reindex(columns=order)
with pd.option_context("display.width", 200, "display.float_format", "{:.3f}".format):
    print("\nTest score, median over splits (greater is better):")
    print(median.to_string())
    print("\nRange over splits (max - min):")
    print(spread.to_string())
texts = results.drop_duplicates("task").set_index("task")["text_columns"]
print("\nFree-text columns found:", texts[texts != ""].to_dict())
best = median.idxmax(axis=1).value_counts().to_dict()
print(
    f"\nBest median per task: {best}; {len(median)} task(s), {args.splits} split(s), "
    f"at most {args.max_rows} rows; wall time {time.perf_counter() - started:.0f} s; "
    f"autocat {autocat.__version__}, {os.cpu_count()} CPU(s)."
)
