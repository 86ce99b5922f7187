"""Fits one AutoML peer (AutoGluon or FLAML) on a table that recipe 10 wrote.

Recipe 10 runs this file with the interpreter that ``--peer-python`` names, so
that a framework whose pins conflict with autocat's (FLAML pins ``xgboost<3``,
AutoGluon ``pandas<2.4``) is measured from its own environment, on the same
rows, in the same run. It imports only numpy, pandas and the framework:

    python recipes/_peer.py FRAMEWORK FOLDER

``FOLDER`` holds ``train.csv`` (the target in the column ``__target__``),
``test.csv`` and ``job.json`` (task, metric, time budget, seed, threads). The
predictions go to ``predictions.npy``: labels, or the probability of class 1
for binary tasks; ``fit.json`` records the fitting time. Tables travel as CSV,
as users hand them to these frameworks, because pickles and Parquet files do
not load across the pandas versions of the two environments.

``python recipes/_peer.py --check FRAMEWORK`` exits 0 when the framework can be
imported here.
"""

from __future__ import annotations

import importlib
import json
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

LABEL = "__target__"
MODULES = {"autogluon": "autogluon.tabular", "flaml": "flaml"}
FLAML_METRICS = {"r2": "r2", "accuracy": "accuracy", "average_precision": "ap"}


def fit_flaml(job: dict, train: pd.DataFrame):
    import flaml

    automl = flaml.AutoML()
    y = train.pop(LABEL)
    automl.fit(
        train,
        y,
        task="regression" if job["task"] == "regression" else "classification",
        metric=FLAML_METRICS[job["metric"]],
        time_budget=job["time_budget"],
        n_jobs=job["threads"],
        seed=job["seed"],
        verbose=0,
    )
    return automl, list(automl.classes_) if job["task"] == "binary" else None


def fit_autogluon(job: dict, train: pd.DataFrame, folder: str):
    from autogluon.tabular import TabularPredictor

    predictor = TabularPredictor(
        label=LABEL,
        problem_type=job["task"],
        eval_metric=job["metric"],  # AutoGluon knows the three by these names
        path=folder,
        verbosity=0,
    ).fit(
        train,
        time_limit=job["time_budget"],
        num_cpus="auto" if job["threads"] < 1 else job["threads"],
    )
    return predictor


def main(framework: str, folder: Path) -> None:
    job = json.loads((folder / "job.json").read_text())
    train = pd.read_csv(folder / "train.csv", low_memory=False)
    test = pd.read_csv(folder / "test.csv", low_memory=False)
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    if framework == "flaml":
        model, classes = fit_flaml(job, train)
        if job["task"] == "binary":
            predictions = np.asarray(model.predict_proba(test))[:, classes.index(1)]
        else:
            predictions = np.asarray(model.predict(test))
    elif framework == "autogluon":
        models = tempfile.mkdtemp(prefix="autogluon-", dir=folder)
        model = fit_autogluon(job, train, models)
        if job["task"] == "binary":
            predictions = np.asarray(model.predict_proba(test)[1])
        else:
            predictions = np.asarray(model.predict(test))
        shutil.rmtree(models, ignore_errors=True)
    else:
        raise SystemExit(f"unknown framework {framework!r}; choose from {MODULES}")
    np.save(folder / "predictions.npy", predictions.astype(float))
    seconds = round(time.perf_counter() - start, 2)
    (folder / "fit.json").write_text(json.dumps({"fit_and_predict_s": seconds}))


if __name__ == "__main__":
    if sys.argv[1] == "--check":
        try:
            importlib.import_module(MODULES[sys.argv[2]])
        except ImportError:
            raise SystemExit(1) from None
    else:
        main(sys.argv[1], Path(sys.argv[2]))
