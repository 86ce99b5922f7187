"""What the one-core benchmark scripts share: the peer check and the versions line."""

from __future__ import annotations

import importlib.util
import os
import platform

import numpy as np

import autocat


def skrub_is_usable(skip: bool) -> bool:
    """Whether skrub, the peer, runs: installed, and not skipped by the user."""
    return not skip and importlib.util.find_spec("skrub") is not None


def versions_line(with_skrub: bool) -> str:
    """The versions and the machine the figures come from, one core used."""
    versions = f"autocat {autocat.__version__}"
    if with_skrub:
        import skrub

        versions += f", skrub {skrub.__version__}"
    return (
        f"{versions}, numpy {np.__version__}, Python {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} logical cores (1 used)"
    )
