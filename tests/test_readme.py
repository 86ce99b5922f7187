"""The README's promises: its set-up commands and what CI runs."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _setup_commands():
    readme = (ROOT / "README.md").read_text()
    first_block = re.search(r"```bash\n(.*?)```", readme, re.S)
    assert first_block, "the README must open with a bash block of set-up commands"
    return [line for line in first_block.group(1).splitlines() if line.strip()]


def test_readme_opens_with_exactly_two_setup_commands():
    assert len(_setup_commands()) == 2


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    command = re.search(r"^TEST_COMMAND='(.*)'$", ci, re.M).group(1)
    assert _setup_commands()[1] == command


def test_main_command_runs_the_demo():
    assert _setup_commands()[0].endswith("autocat demo")
