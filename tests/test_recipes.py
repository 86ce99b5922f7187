"""Every recipe runs end to end in its small mode and prints what it measured."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

RECIPES = sorted(
    (Path(__file__).resolve().parents[1] / "recipes").glob("[0-9][0-9]_*.py")
)


def test_recipes_are_numbered_and_unique():
    assert RECIPES, "no recipe found in recipes/"
    numbers = [path.name[:2] for path in RECIPES]
    assert len(numbers) == len(set(numbers)), numbers


@pytest.mark.parametrize("recipe", RECIPES, ids=[path.stem for path in RECIPES])
def test_recipe_runs_in_small_mode(recipe, tmp_path):
    root = recipe.parents[1]
    env = {
        **os.environ,
        "AUTOCAT_RECIPE_SMALL": "1",
        "AUTOCAT_RECIPE_OUT": str(tmp_path),
        "PYTHONPATH": os.pathsep.join(
            [str(root), *filter(None, [os.environ.get("PYTHONPATH")])]
        ),
    }
    completed = subprocess.run(
        [sys.executable, str(recipe)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    if "Nothing was measured" in completed.stdout:  # needs ../shared/data
        pytest.skip(completed.stdout.strip().splitlines()[-1])
    lines = completed.stdout.strip().splitlines()
    assert lines, f"{recipe.name} printed nothing"
    # each recipe ends by printing what it measured: at least one number
    assert any(ch.isdigit() for ch in lines[-1]), lines[-1]
