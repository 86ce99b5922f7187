"""Reusable checks that every autocat encoder of string columns must pass.

Each ``check_*`` function takes an unfitted encoder, exercises one promise made to
users on a small frame, and raises ``AssertionError`` with an explanation when the
promise is broken. :func:`string_encoder_checks` lists them so that a test suite can
run all of them over all encoders (``tests/test_common.py`` does).

Examples
--------
>>> from autocat import MinHashEncoder
>>> from autocat.testing import string_encoder_checks
>>> for check in string_encoder_checks():
...     check(MinHashEncoder(n_components=4))
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import clone

__all__ = [
    "check_deterministic",
    "check_empty_and_whitespace_strings",
    "check_feature_names",
    "check_huge_strings",
    "check_missing_values",
    "check_non_string_values",
    "check_pandas_output",
    "check_transform_does_not_mutate",
    "check_unicode",
    "check_unseen_values",
    "string_encoder_checks",
]

_TITLES = [
    "Police Officer III",
    "police officer ii",
    "Bus Operator",
    "Firefighter/Rescuer III",
    "Manager, Property",
    "Office Services Coordinator",
    "Bus  Operator",
    "Property Manager",
    "Fire/Rescue Captain",
    "Library Assistant I",
] * 3


def _frame(values: list[Any] | None = None, name: str = "title") -> pd.DataFrame:
    return pd.DataFrame(
        {name: pd.Series(_TITLES if values is None else values, dtype=object)}
    )


def _fit_transform(encoder: Any, train: Any, test: Any | None = None) -> np.ndarray:
    fitted = clone(encoder).fit(train)
    return np.asarray(fitted.transform(train if test is None else test))


def _assert_valid_output(out: np.ndarray, n_rows: int, where: str) -> None:
    assert out.ndim == 2 and out.shape[0] == n_rows, (
        f"{where}: expected {n_rows} output rows, got shape {out.shape}"
    )
    assert out.dtype == np.float32, f"{where}: expected float32, got {out.dtype}"


def check_missing_values(encoder: Any) -> None:
    """Missing values (None, NaN, pd.NA) give finite rows and equal each other."""
    values = [*_TITLES[:5], None, np.nan, pd.NA, *_TITLES[5:]]
    out = _fit_transform(encoder, _frame(values))
    _assert_valid_output(out, len(values), "missing values")
    assert np.isfinite(out).all(), "missing values: default handling must be finite"
    np.testing.assert_array_equal(out[5], out[6], "None and NaN must encode alike")
    np.testing.assert_array_equal(out[5], out[7], "None and pd.NA must encode alike")


def check_unseen_values(encoder: Any) -> None:
    """Values never seen in ``fit`` are encoded, not rejected."""
    unseen = _frame(["Senior Bus Operator", "Zookeeper", "Police Officer III"])
    out = _fit_transform(encoder, _frame(), unseen)
    _assert_valid_output(out, 3, "unseen values")
    assert np.isfinite(out).all(), "unseen values: output must be finite"


def check_empty_and_whitespace_strings(encoder: Any) -> None:
    """Empty and white-space-only strings are valid values."""
    values = ["", "   ", *_TITLES]
    out = _fit_transform(encoder, _frame(values))
    _assert_valid_output(out, len(values), "empty strings")
    assert np.isfinite(out).all(), "empty strings: output must be finite"


def check_unicode(encoder: Any) -> None:
    """Accents, non-Latin scripts, emoji and astral characters are encoded."""
    values = [
        "Café Crème",
        "Ünïcödé",
        "東京都",
        "Москва",
        "🚒 Captain",
        "\U0001d518\U0001d52b\U0001d526",  # astral-plane letters
        *_TITLES,
    ]
    out = _fit_transform(encoder, _frame(values))
    _assert_valid_output(out, len(values), "unicode")
    assert np.isfinite(out).all(), "unicode: output must be finite"


def check_huge_strings(encoder: Any) -> None:
    """Check that a 100 kB value is encoded like any other."""
    values = ["lorem ipsum dolor " * 6_000, *_TITLES]
    out = _fit_transform(encoder, _frame(values))
    _assert_valid_output(out, len(values), "huge strings")
    assert np.isfinite(out).all(), "huge strings: output must be finite"


def check_non_string_values(encoder: Any) -> None:
    """Numbers in an object column are encoded as their ``str``."""
    mixed = _frame([12, "12", 3.5, "3.5", True, *_TITLES])
    out = _fit_transform(encoder, mixed)
    _assert_valid_output(out, 5 + len(_TITLES), "non-string values")
    np.testing.assert_array_equal(out[0], out[1], "12 and '12' must encode alike")
    np.testing.assert_array_equal(out[2], out[3], "3.5 and '3.5' must encode alike")


def check_deterministic(encoder: Any) -> None:
    """Two fits on the same data give the same bytes."""
    first = _fit_transform(encoder, _frame())
    second = _fit_transform(encoder, _frame())
    assert first.tobytes() == second.tobytes(), "two fits gave different outputs"


def check_transform_does_not_mutate(encoder: Any) -> None:
    """``transform`` leaves the fitted encoder byte-for-byte unchanged."""
    fitted = clone(encoder).fit(_frame())
    before = pickle.dumps(fitted)
    fitted.transform(_frame(["Senior Bus Operator", None, "", *_TITLES]))
    assert pickle.dumps(fitted) == before, "transform changed the fitted encoder"


def check_feature_names(encoder: Any) -> None:
    """One output name per output column, all distinct."""
    frame = pd.concat([_frame(), _frame(name="division")], axis=1)
    fitted = clone(encoder).fit(frame)
    names = list(fitted.get_feature_names_out())
    out = np.asarray(fitted.transform(frame))
    assert len(names) == out.shape[1], f"{len(names)} names for {out.shape[1]} columns"
    assert len(set(names)) == len(names), f"duplicate output names: {names}"


def check_pandas_output(encoder: Any) -> None:
    """``set_output(transform="pandas")`` gives a DataFrame with the output names."""
    fitted = clone(encoder).set_output(transform="pandas").fit(_frame())
    out = fitted.transform(_frame())
    assert isinstance(out, pd.DataFrame), f"expected a DataFrame, got {type(out)}"
    assert list(out.columns) == list(fitted.get_feature_names_out())


def string_encoder_checks() -> list[Callable[[Any], None]]:
    """Return every check of this module, to run over an encoder.

    Returns
    -------
    list of callable
        Functions taking an unfitted encoder.
    """
    return [
        check_missing_values,
        check_unseen_values,
        check_empty_and_whitespace_strings,
        check_unicode,
        check_huge_strings,
        check_non_string_values,
        check_deterministic,
        check_transform_does_not_mutate,
        check_feature_names,
        check_pandas_output,
    ]
