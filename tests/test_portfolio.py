"""The portfolio: package data read by autocat._search_space.portfolio()."""

from __future__ import annotations

import importlib.util
import json
import logging
import math
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from optuna.distributions import (
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)

import autocat
from autocat import _search_space
from autocat._search_space import SEARCH_SPACE, default_params, portfolio

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = json.loads((ROOT / "autocat" / "_portfolio.json").read_text())


def in_space(params):
    """An independent check that ``params`` is one complete point of the space."""
    encoder = params["encoder"]
    expected = {
        spec.name
        for spec in SEARCH_SPACE
        if spec.only_for_encoder in (None, encoder)
        and (spec.only_if is None or params.get(spec.only_if[0]) == spec.only_if[1])
    }
    if set(params) != expected:
        return False
    for spec in SEARCH_SPACE:
        if spec.name not in params:
            continue
        value, dist = params[spec.name], spec.distribution
        if isinstance(dist, CategoricalDistribution):
            ok = value in dist.choices
        elif isinstance(dist, IntDistribution):
            ok = isinstance(value, int) and dist.low <= value <= dist.high
        else:
            assert isinstance(dist, FloatDistribution)
            ok = isinstance(value, float) and dist.low <= value <= dist.high
        if not ok:
            return False
    return True


def test_every_entry_is_a_complete_point_of_the_search_space():
    entries = portfolio()
    assert len(entries) >= 5
    assert all(in_space(entry) for entry in entries), entries
    for entry in entries:  # and autocat builds each
        autocat.Recipe("binary", **entry).build()


def test_entries_are_distinct_and_in_the_file_order():
    entries = portfolio()
    keys = [json.dumps(entry, sort_keys=True) for entry in entries]
    assert len(set(keys)) == len(keys)
    # nothing is added, dropped or reordered: the derivation's order is kept
    assert entries == [
        {**default_params(e["encoder"]), **e} for e in DOCUMENT["portfolio"]
    ]


def test_first_entry_is_what_the_derivation_chose():
    # the loader puts nothing (e.g. the paper's recipe) before the derived order
    # (parameters added to the space since the derivation take their defaults)
    first = DOCUMENT["portfolio"][0]
    assert {k: portfolio()[0][k] for k in first} == first


def test_file_records_how_it_was_derived():
    assert DOCUMENT["candidates"] >= len(DOCUMENT["portfolio"])
    assert len(DOCUMENT["tasks"]) >= 10
    check = DOCUMENT["leave_task_out"]["median_regret"]
    assert {"default", "portfolio@1", "random@1"} <= set(check)
    assert all(math.isfinite(value) for value in check.values())


def test_file_records_the_rows_its_models_were_fitted_on():
    # 3 folds of tables cut to max_rows, less the fifth early stopping holds out
    expected = DOCUMENT["max_rows"] * (DOCUMENT["folds"] - 1) / DOCUMENT["folds"]
    assert DOCUMENT["fit_rows"] == pytest.approx(expected * 0.8, abs=1)


LEAF_SUMS = ("min_child_weight", "reg_lambda", "reg_alpha")


@pytest.mark.parametrize("fit_rows", [40, 170, 400])
def test_on_fewer_rows_the_leaf_sums_scale_down_by_the_row_ratio(fit_rows):
    ratio = fit_rows / DOCUMENT["fit_rows"]
    lowest = {"min_child_weight": 0.5, "reg_lambda": 1e-3, "reg_alpha": 1e-8}
    derived, scaled = portfolio(), portfolio(fit_rows=fit_rows)
    assert len(scaled) == len(derived)
    for before, after in zip(derived, scaled, strict=True):
        for name in LEAF_SUMS:
            expected = max(lowest[name], before[name] * ratio)
            assert after[name] == pytest.approx(expected, rel=1e-12), name
        # nothing else moves, and every entry stays a point of the space
        assert {k: v for k, v in after.items() if k not in LEAF_SUMS} == {
            k: v for k, v in before.items() if k not in LEAF_SUMS
        }
        assert in_space(after), after
    # the portfolio's strongly regularised entry is the one that moves most
    heaviest = max(derived, key=lambda e: e["min_child_weight"])
    assert heaviest["min_child_weight"] > 20
    moved = scaled[derived.index(heaviest)]["min_child_weight"]
    assert moved < heaviest["min_child_weight"] * 0.8


@pytest.mark.parametrize("fit_rows", [533, 534, 10_000, None])
def test_at_or_above_the_derivation_rows_the_values_are_as_derived(fit_rows):
    assert portfolio(fit_rows=fit_rows) == portfolio()


def test_auto_fit_scales_the_portfolio_to_its_trials_rows():
    rng = np.random.default_rng(0)
    n = 150
    X = pd.DataFrame({"x": rng.normal(size=n),
                      "city": [f"town {i % 40}" for i in range(n)]})  # fmt: skip
    X["y"] = X["x"] + rng.normal(size=n)
    result = autocat.auto_fit(X, "y", n_trials=1, n_jobs=1, random_state=0,
                              show_progress=False)  # fmt: skip
    # 5 folds of 150 rows: 120 training rows, of which 96 fit the trees
    expected = portfolio(fit_rows=96)[0]
    trial = result.leaderboard_.set_index("trial").loc[0]
    for name in LEAF_SUMS:
        assert trial[name] == pytest.approx(expected[name]), name
    assert trial["min_child_weight"] < portfolio()[0]["min_child_weight"]


def test_returns_new_dicts_at_each_call():
    first = portfolio()
    first[0]["max_depth"] = -1
    assert portfolio()[0]["max_depth"] != -1


def test_entries_outside_the_space_are_skipped_with_a_debug_message(
    monkeypatch, caplog
):
    good = default_params("minhash") | {"max_depth": 4}
    entries = [
        good | {"colsample_by_tree": 0.8},  # unknown name
        good | {"max_depth": 99},  # out of range
        good | {"max_depth": 4.5},  # not an integer
        good | {"n_components": 7},  # not one of the choices
        good | {"gp_alpha": 1.1},  # a Gamma-Poisson prior on min-hash
        good | {"encoder": "word2vec"},  # unknown encoder
        "not a dict",
        good,
        {"encoder": "gamma_poisson", "learning_rate": 0.1},  # incomplete: defaults
        good,  # a duplicate
    ]
    monkeypatch.setattr(
        _search_space, "_portfolio_document", lambda: {"portfolio": entries}
    )
    with caplog.at_level(logging.DEBUG, logger="autocat"):
        got = portfolio()
    assert got == [good, default_params("gamma_poisson") | {"learning_rate": 0.1}]
    skipped = [r for r in caplog.records if "not in the search space" in r.message]
    assert len(skipped) == 7


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("hatchling") is None, reason="hatchling is not installed"
)
def test_wheel_contains_the_portfolio(tmp_path):
    source = tmp_path / "src"
    shutil.copytree(ROOT / "autocat", source / "autocat",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    shutil.copy(ROOT / "pyproject.toml", source)
    (source / "README.md").write_text((ROOT / "README.md").read_text())
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps",
         "--no-build-isolation", "-q", "-w", str(tmp_path / "dist")],
        check=True,
    )  # fmt: skip
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        packed = json.loads(archive.read("autocat/_portfolio.json"))
    assert packed["portfolio"] == DOCUMENT["portfolio"]
