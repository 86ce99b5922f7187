"""The only module that knows about pandas and polars specifics.

Estimators call these helpers to read columns and names from whatever table they
receive (pandas, polars, numpy, a list of rows) without importing polars.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "column_values",
    "is_pandas",
    "is_polars",
    "n_rows",
    "series_values",
    "to_2d",
    "to_pandas",
]


def is_pandas(obj: Any) -> bool:
    """Return whether ``obj`` is a pandas DataFrame."""
    return isinstance(obj, pd.DataFrame)


def is_polars(obj: Any) -> bool:
    """Return whether ``obj`` is a polars DataFrame, without importing polars."""
    polars = sys.modules.get("polars")
    return polars is not None and isinstance(obj, polars.DataFrame)


def is_series(obj: Any) -> bool:
    """Return whether ``obj`` is a pandas or polars Series (a 1-D column)."""
    if isinstance(obj, pd.Series):
        return True
    polars = sys.modules.get("polars")
    return polars is not None and isinstance(obj, polars.Series)


def to_2d(X: Any, *, estimator_name: str) -> Any:
    """Return ``X`` as a DataFrame or a 2-D numpy array, or raise a clear error.

    DataFrames are returned unchanged; anything else is converted with
    ``np.asarray(X, dtype=object)`` when it is not already an array.

    Parameters
    ----------
    X : dataframe, array-like or sparse matrix
        The input of ``fit`` or ``transform``.
    estimator_name : str
        Named in error messages.

    Returns
    -------
    DataFrame or ndarray of ndim 2
    """
    if is_pandas(X) or is_polars(X):
        return X
    if is_series(X):
        raise ValueError(
            f"{estimator_name} expects a 2-D input (a DataFrame or a 2-D array) "
            f"but got a 1-D Series named {X.name!r}. Select a DataFrame instead, "
            f"e.g. df[[{X.name!r}]], or use series.to_frame()."
        )
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        raise TypeError(
            f"{estimator_name} encodes string columns and does not accept sparse "
            f"input; got {type(X).__name__}. Pass a dense array or a DataFrame."
        )
    array = X if isinstance(X, np.ndarray) else np.asarray(X, dtype=object)
    if array.ndim != 2:
        raise ValueError(
            f"{estimator_name} expects a 2-D input (n_samples, n_columns) but got an "
            f"array with {array.ndim} dimension(s) and shape {array.shape}. Reshape "
            "your data with array.reshape(-1, 1) if it holds a single column."
        )
    return array


def n_rows(X: Any) -> int:
    """Number of rows of a DataFrame or 2-D array."""
    return int(X.shape[0])


def column_values(X: Any, index: int) -> Any:
    """Return column ``index`` of ``X`` in a form that :func:`pandas.factorize` takes.

    pandas columns are returned as Series (so that Arrow-backed strings and
    categoricals factorise natively), polars columns as numpy arrays, numpy
    columns as 1-D array views.
    """
    if is_pandas(X):
        return X.iloc[:, index]
    if is_polars(X):
        return X.to_series(index).to_numpy()
    return X[:, index]


def to_pandas(X: Any) -> pd.DataFrame:
    """Return a pandas DataFrame for a pandas or polars DataFrame.

    pandas frames are returned unchanged; polars frames are converted (this
    needs ``pyarrow``, part of the ``autocat[polars]`` extra).
    """
    if is_pandas(X):
        return X
    if is_polars(X):
        return X.to_pandas()
    raise TypeError(
        f"Expected a pandas or polars DataFrame, got {type(X).__name__}. Build one "
        "with pandas.DataFrame(data) first."
    )


def series_values(y: Any) -> np.ndarray:
    """Return a pandas or polars Series, or any 1-D array-like, as a numpy array."""
    if isinstance(y, pd.Series):
        return y.to_numpy()
    if is_series(y):
        return np.asarray(y.to_numpy())  # type: ignore[no-any-return]
    return np.asarray(y)
