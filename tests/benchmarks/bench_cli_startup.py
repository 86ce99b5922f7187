"""Start-up time of ``autocat --version`` and ``autocat --help``.

Question settled here (2026-11, 2-core shared machine): do the CLI's quick
answers stay under 0.5 s? They took 3.5-5 s while ``import autocat`` loaded
scikit-learn, numba, optuna and xgboost. Decision: the package imports its
public names on first access (PEP 562) and the CLI imports heavy modules inside
its commands, so ``--version`` and ``--help`` only import the standard library.

Run from the repository root::

    PYTHONPATH=$PWD python tests/benchmarks/bench_cli_startup.py --runs 9

Prints the median wall time of each command over ``--runs`` fresh interpreters,
next to ``python -c pass`` measured in the same run, and which heavy modules the
command imported (there should be none).
"""

from __future__ import annotations

import argparse
import ast
import os
import platform
import statistics
import subprocess
import sys
import time

HEAVY = ["numpy", "pandas", "sklearn", "scipy", "numba", "optuna", "xgboost"]
COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "autocat --version": ["-m", "autocat", "--version"],
    "autocat --help": ["-m", "autocat", "--help"],
    "import autocat": ["-c", "import autocat"],
}


# as after ``pip install``: modules are compiled once, then read from __pycache__
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def median_seconds(args: list[str], runs: int) -> float:
    subprocess.run([sys.executable, *args], check=True, capture_output=True, env=ENV)
    times = []
    for _ in range(runs):
        tic = time.perf_counter()
        subprocess.run(
            [sys.executable, *args], check=True, capture_output=True, env=ENV
        )
        times.append(time.perf_counter() - tic)
    return statistics.median(times)


def heavy_modules(args: list[str]) -> list[str]:
    """The heavy modules loaded by the same command, run in process."""
    code = (
        "import runpy, sys\n"
        f"sys.argv = ['autocat', *{args[2:]!r}]\n"
        "try:\n"
        "    runpy.run_module('autocat', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    if args[:2] != ["-m", "autocat"]:
        code = f"{args[1]}\nimport sys\n" + code.splitlines()[-1]
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    return ast.literal_eval(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    print(f"python {platform.python_version()}, {platform.machine()}, {args.runs} runs")
    base = None
    for name, argv in COMMANDS.items():
        seconds = median_seconds(argv, args.runs)
        base = seconds if base is None else base
        heavy = (
            ""
            if name == "python -c pass"
            else f"  heavy imports: {heavy_modules(argv)}"
        )
        ratio = f"{seconds / base:.1f}x python -c pass"
        print(f"{name:>20}: median {seconds:.3f} s ({ratio}){heavy}")


if __name__ == "__main__":
    main()
