"""The code base stays ruff clean and strictly typed (settings in pyproject.toml)."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "command", [["ruff", "check", "."], ["ruff", "format", "--check", "."], ["mypy"]]
)
def test_lint(command):
    program = shutil.which(command[0])
    if program is None:
        pytest.skip(f"{command[0]} is not installed (it is in the 'test' group)")
    result = subprocess.run(
        [program, *command[1:]], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
