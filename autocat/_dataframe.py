"""The only module that knows about pandas and polars specifics.

Estimators call these helpers to read columns and names from whatever table they
receive (pandas, polars, numpy, a list of rows) without importing polars.
"""

from __future__ import annotations

import sys
import warnings
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from autocat._factorize import factorize_values, take_rows

__all__ = [
    "check_input_names",
    "check_not_empty",
    "check_time_zone",
    "column_family",
    "column_values",
    "columns_of",
    "dtype_name",
    "encode_columns",
    "factorize",
    "input_names",
    "is_all_missing",
    "is_pandas",
    "is_polars",
    "n_rows",
    "read_csv",
    "series_values",
    "time_zone",
    "to_2d",
    "to_datetime64",
    "to_float",
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
    if isinstance(X, np.ndarray) and X.dtype.names is not None:
        # a structured (record) array: named columns, read as a pandas frame
        return pd.DataFrame(X)
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
    if array.dtype.kind == "c":
        raise ValueError(
            f"Complex data not supported by {estimator_name}: got an array of "
            f"{array.dtype}. Pass real numbers or strings."
        )
    if array.ndim != 2:
        raise ValueError(
            f"{estimator_name} expects a 2-D input (n_samples, n_columns) but got an "
            f"array with {array.ndim} dimension(s) and shape {array.shape}. Reshape "
            "your data with array.reshape(-1, 1) if it holds a single column."
        )
    return array


def encode_columns(
    X: Any,
    n_columns: int,
    width: int,
    encode_distinct: Callable[[int, Any], tuple[np.ndarray, np.ndarray]],
    n_jobs: int | None = None,
) -> np.ndarray:
    """Encode each column of ``X`` on its distinct values, then gather the rows.

    Parameters
    ----------
    X : DataFrame or 2-D array
        The input, already checked.
    n_columns : int
        Number of columns of ``X``.
    width : int
        Number of outputs per column.
    encode_distinct : callable
        ``encode_distinct(index, values) -> (codes, table)``: row codes (-1 where
        missing) and one float32 row per distinct value, then the missing row.
    n_jobs : int, default=None
        Threads of the row gather, over chunks of rows.

    Returns
    -------
    ndarray of float32 of shape (n_rows, n_columns * width)
    """
    out = np.empty((n_rows(X), n_columns * width), dtype=np.float32)
    for index in range(n_columns):
        codes, table = encode_distinct(index, column_values(X, index))
        take_rows(table, codes, out[:, index * width : (index + 1) * width], n_jobs)
    return out


def check_not_empty(X: Any, *, estimator_name: str) -> None:
    """Raise a ``ValueError`` if ``X`` has no row or no column.

    The messages follow scikit-learn's ``check_array``.
    """
    n_samples, n_features = X.shape
    if n_samples == 0:
        raise ValueError(
            f"Found array with 0 sample(s) (shape={tuple(X.shape)}) while a minimum "
            f"of 1 is required by {estimator_name}."
        )
    if n_features == 0:
        raise ValueError(
            f"Found array with 0 feature(s) (shape={tuple(X.shape)}) while a minimum "
            f"of 1 is required by {estimator_name}."
        )


def n_rows(X: Any) -> int:
    """Return the number of rows of a DataFrame or 2-D array."""
    return int(X.shape[0])


def column_values(X: Any, index: int) -> Any:
    """Return column ``index`` of ``X`` in a form that :func:`pandas.factorize` takes.

    pandas columns are returned as Series (so that Arrow-backed strings and
    categoricals factorise natively); polars strings and categories as
    Arrow-backed pandas Series (no Python object per row), other polars columns
    as numpy arrays; numpy columns as 1-D array views.
    """
    if is_pandas(X):
        return X.iloc[:, index]
    if is_polars(X):
        column = X.to_series(index)
        family = column_family(column)
        if family in ("string", "categorical"):
            return _polars_strings(column)
        return _polars_objects(column) if family == "object" else column.to_numpy()
    return X[:, index]


def _polars_objects(column: Any) -> np.ndarray:
    """Return a polars column of nested values (lists, structs) as Python objects."""
    return pd.Series(column.to_list(), dtype=object).to_numpy()


def _polars_strings(column: Any) -> pd.Series:
    """Return a polars string or categorical column as pandas strings, via Arrow."""
    import polars as pl

    return column.cast(pl.String).to_pandas()


def columns_of(X: Any) -> list[Any]:
    """Return the columns of a DataFrame or 2-D array: Series or 1-D views."""
    if is_pandas(X):
        return [X.iloc[:, i] for i in range(X.shape[1])]
    if is_polars(X):
        return X.get_columns()
    return [X[:, i] for i in range(X.shape[1])]


def column_names(X: Any) -> list[Any] | None:
    """Column names of a DataFrame as stored, or None for an array."""
    if is_pandas(X) or is_polars(X):
        return list(X.columns)
    return None


def _polars_family(dtype: Any) -> str:
    import polars as pl

    if dtype == pl.Boolean:
        return "boolean"
    if dtype.is_numeric() or isinstance(dtype, pl.Duration):
        return "numeric"
    if dtype == pl.Date or isinstance(dtype, pl.Datetime):
        return "datetime"
    if dtype == pl.Time:
        return "time"
    if dtype == pl.String:
        return "string"
    if isinstance(dtype, pl.Categorical | pl.Enum):
        return "categorical"
    return "object"


# What to do with a complex column, in its error.
_SPLIT_COMPLEX = (
    "Split it into two numeric columns (its .real and .imag, or its abs() and "
    "angle) or drop it."
)


def column_family(column: Any) -> str:
    """How a column is stored, as one of ``autocat._column_kinds.FAMILIES``.

    ``'string'`` is a string dtype (pandas ``str``/``string``, polars ``String``,
    numpy unicode), ``'object'`` anything held as Python objects (possibly of
    mixed types); durations count as ``'numeric'`` (in seconds).

    Examples
    --------
    >>> import pandas as pd
    >>> from autocat._dataframe import column_family
    >>> [column_family(pd.Series(v)) for v in ([1.5], [True], ["a"], [None])]
    ['numeric', 'boolean', 'string', 'object']
    """
    if isinstance(column, np.ndarray):
        kind = column.dtype.kind
        if kind == "c":
            raise ValueError(
                f"Complex data not supported; got a complex column. {_SPLIT_COMPLEX}"
            )
        return {
            "b": "boolean",
            "i": "numeric",
            "u": "numeric",
            "f": "numeric",
            "m": "numeric",
            "M": "datetime",
            "U": "string",
        }.get(kind, "object")
    if not isinstance(column, pd.Series):
        return _polars_family(column.dtype)
    dtype = column.dtype
    types = pd.api.types
    if isinstance(dtype, pd.CategoricalDtype):
        return "categorical"
    if types.is_bool_dtype(dtype) and str(dtype) != "object":
        return "boolean"
    if types.is_datetime64_any_dtype(dtype):
        return "datetime"
    if types.is_complex_dtype(dtype):
        raise ValueError(
            f"Complex data not supported; column {column.name!r} is {dtype}. "
            f"{_SPLIT_COMPLEX}"
        )
    if types.is_numeric_dtype(dtype) or types.is_timedelta64_dtype(dtype):
        return "numeric"
    if types.is_string_dtype(dtype) and str(dtype) != "object":
        return "string"
    return "object"


def dtype_name(column: Any) -> str:
    """Return the dtype of a column as text, for messages and descriptions."""
    return str(column.dtype)


def to_float(column: Any) -> np.ndarray:
    """Return a numeric or boolean column as float64, missing values as NaN.

    Durations become seconds.
    """
    if isinstance(column, np.ndarray):
        if column.dtype.kind == "m":
            values = column.astype("timedelta64[ns]")
            out = values.view(np.int64) / 1e9
            out[np.isnat(values)] = np.nan
            return out
        return column.astype(np.float64)
    if isinstance(column, pd.Series):
        if isinstance(column.dtype, np.dtype) and column.dtype.kind in "biuf":
            # NumPy storage, whose only missing value is NaN: a plain copy (the
            # general path below costs 0.2 ms a column in pandas' checks)
            return column.to_numpy().astype(np.float64)
        if pd.api.types.is_timedelta64_dtype(column.dtype):
            return column.dt.total_seconds().to_numpy(np.float64, na_value=np.nan)
        return column.to_numpy(np.float64, na_value=np.nan)
    import polars as pl

    if isinstance(column.dtype, pl.Duration):
        column = column.dt.total_nanoseconds() / 1e9
    return column.cast(pl.Float64).to_numpy()


def to_datetime64(column: Any) -> np.ndarray:
    """Return a datetime, date or time column as datetime64[ns], NaT if missing.

    Time-zone aware values are converted to UTC; times of day are put on
    1970-01-01.
    """
    if isinstance(column, np.ndarray):
        return column.astype("datetime64[ns]")
    if isinstance(column, pd.Series):
        if getattr(column.dtype, "tz", None) is not None:
            column = column.dt.tz_convert("UTC").dt.tz_localize(None)
        return column.to_numpy("datetime64[ns]")
    import polars as pl

    if column.dtype == pl.Time:
        ns = column.cast(pl.Int64).fill_null(np.iinfo(np.int64).min).to_numpy()
        return ns.view("datetime64[ns]")
    if isinstance(column.dtype, pl.Datetime) and column.dtype.time_zone is not None:
        column = column.dt.convert_time_zone("UTC").dt.replace_time_zone(None)
    return column.cast(pl.Datetime("ns")).to_numpy().astype("datetime64[ns]")


def factorize(column: Any, n_jobs: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Codes (-1 where missing) and distinct non-missing values of a column.

    Distinct values come as a 1-D numpy array: objects for strings and
    categories (whatever the library), datetime64[ns] for datetimes.

    Examples
    --------
    >>> import pandas as pd
    >>> from autocat._dataframe import factorize
    >>> codes, uniques = factorize(pd.Series(["b", None, "a", "b"]))
    >>> codes.tolist(), uniques.tolist()
    ([0, -1, 1, 0], ['b', 'a'])
    """
    family = column_family(column)
    if family in ("datetime", "time"):
        values: Any = to_datetime64(column)
    elif isinstance(column, pd.Series | np.ndarray):
        values = column
    elif family in ("string", "categorical"):
        # Arrow-backed pandas strings factorise without a Python object per row
        values = _polars_strings(column)
    elif family == "object":  # lists, structs: as the Python objects pandas holds
        values = _polars_objects(column)
    else:
        values = column.to_numpy()
    try:
        codes, uniques = factorize_values(values, n_jobs)
    except TypeError:
        if family != "object":
            raise
        # unhashable cells (lists, dicts, sets, arrays): each is read as its str
        codes, uniques = factorize_values(_hashable_objects(values), n_jobs)
    if isinstance(uniques, pd.Index | pd.Categorical):
        uniques = np.asarray(
            uniques, dtype="datetime64[ns]" if uniques.dtype.kind == "M" else object
        )
    elif uniques.dtype.kind not in "OM":
        uniques = uniques.astype(object)
    return codes, uniques


def _hashable_objects(values: Any) -> np.ndarray:
    """Return an object array where each unhashable value is replaced by its str."""
    if not isinstance(values, np.ndarray):
        values = np.asarray(values.to_numpy(dtype=object), dtype=object)
    out = np.empty(len(values), dtype=object)
    for i, value in enumerate(values):
        try:
            hash(value)
        except TypeError:
            value = str(value)
        out[i] = value
    return out


def is_all_missing(column: Any) -> bool:
    """Return whether a column has rows and no value (None, NaN, NaT) in any.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from autocat._dataframe import is_all_missing
    >>> is_all_missing(pd.Series([np.nan, None])), is_all_missing(pd.Series([1, None]))
    (True, False)
    """
    if len(column) == 0:
        return False
    if isinstance(column, pd.Series | np.ndarray):
        return bool(pd.isna(column).all())
    if column.null_count() == len(column):
        return True
    return column.dtype.is_float() and bool(column.fill_null(np.nan).is_nan().all())


def check_time_zone(name: str, fit_dtype: str, fit_aware: bool, column: Any) -> None:
    """Raise a TypeError if a datetime column's time-zone awareness changed.

    A naive datetime after an aware fit (or the reverse) names no instant that
    can be compared with the training data, so it is an error; another time
    zone is the same instants, read in UTC.
    """
    aware = time_zone(column) is not None
    if aware == fit_aware:
        return
    fix = (
        "localize it, e.g. df[col].dt.tz_localize('UTC')"
        if fit_aware
        else "drop the time zone, e.g. df[col].dt.tz_convert(None)"
    )
    raise TypeError(
        f"Column {name!r} held time-zone {'aware' if fit_aware else 'naive'} "
        f"datetimes at fit ({fit_dtype}) but {'aware' if aware else 'naive'} ones "
        f"at transform ({dtype_name(column)}), so the instants they mean are "
        f"unknown. Give the column as at fit: {fix}."
    )


def time_zone(column: Any) -> str | None:
    """Return the time zone of a datetime column, None when naive (or not dates)."""
    zone = getattr(column.dtype, "tz", None) or getattr(column.dtype, "time_zone", None)
    return None if zone is None else str(zone)


def input_names(estimator: Any, X: Any, *, reset: bool) -> list[str]:
    """Record (``reset=True``) or check the input columns; return their names.

    Names are the columns' ``str``, or ``x0, x1, ...`` for arrays. At fit,
    duplicate names are an error and ``feature_names_in_`` is set when every name
    is a string (the scikit-learn convention). At transform, missing, unseen or
    reordered columns raise scikit-learn's error, extended with every culprit.
    """
    raw = column_names(X)
    n_columns = int(X.shape[1])
    name = type(estimator).__name__
    names = (
        [f"x{i}" for i in range(n_columns)] if raw is None else [str(c) for c in raw]
    )
    if reset:
        if n_columns == 0:
            raise ValueError(
                f"0 feature(s) (shape={tuple(X.shape)}) while a minimum of 1 is "
                f"required by {name}."
            )
        duplicated = sorted(n for n, count in Counter(names).items() if count > 1)
        if duplicated:
            raise ValueError(
                f"{name} needs unique column names; {duplicated} appear more than "
                "once (after conversion to str). Rename them, e.g. "
                "df.columns = [f'{c}_{i}' for i, c in enumerate(df.columns)]."
            )
        if raw is not None and all(isinstance(c, str) for c in raw):
            estimator.feature_names_in_ = np.asarray(raw, dtype=object)
        elif hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
        estimator.n_features_in_ = n_columns
        estimator._input_names = names
        estimator._fitted_on_frame = raw is not None
        return names
    fitted = estimator._input_names
    if raw is not None and estimator._fitted_on_frame:
        if names != fitted:
            _raise_name_mismatch(name, fitted, names)
        return names
    if raw is not None and not estimator._fitted_on_frame:
        warnings.warn(
            f"X has feature names, but {name} was fitted without feature names",
            UserWarning,
            stacklevel=3,
        )
    elif raw is None and hasattr(estimator, "feature_names_in_"):
        warnings.warn(
            f"X does not have valid feature names, but {name} was fitted with "
            "feature names",
            UserWarning,
            stacklevel=3,
        )
    if n_columns != estimator.n_features_in_:
        raise ValueError(
            f"X has {n_columns} features, but {name} is expecting "
            f"{estimator.n_features_in_} features as input."
        )
    return fitted


def _name_list(names: list[str]) -> str:
    shown = "".join(f"- {n}\n" for n in names[:20])
    if len(names) > 20:
        shown += f"- ... and {len(names) - 20} more\n"
    return shown


def _raise_name_mismatch(name: str, fitted: list[str], names: list[str]) -> None:
    unseen = sorted(set(names) - set(fitted))
    missing = sorted(set(fitted) - set(names))
    message = "The feature names should match those that were passed during fit.\n"
    if unseen:
        message += "Feature names unseen at fit time:\n" + _name_list(unseen)
    if missing:
        message += "Feature names seen at fit time, yet now missing:\n" + _name_list(
            missing
        )
    if not unseen and not missing:
        message += "Feature names must be in the same order as they were in fit.\n"
        fix = f"Reorder the columns: X[{fitted!r}]."
    else:
        fix = f"{name} was fitted on the columns {fitted}; pass exactly those."
    raise ValueError(message + fix)


def check_input_names(estimator: Any, input_features: Any) -> list[str]:
    """Return the input names for ``get_feature_names_out``, validated."""
    fitted = estimator._input_names
    if input_features is None:
        return list(fitted)
    given = [str(f) for f in np.asarray(input_features, dtype=object).ravel()]
    if len(given) != estimator.n_features_in_:
        raise ValueError(
            "input_features should have length equal to number of features "
            f"({estimator.n_features_in_}), got {len(given)}"
        )
    if estimator._fitted_on_frame and given != fitted:
        raise ValueError(
            f"input_features is not equal to feature_names_in_: got {given}, "
            f"fitted on {fitted}."
        )
    return given


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


# Bytes read to detect the encoding and the separator of a CSV file.
_SNIFF_BYTES = 1 << 16
_SEPARATORS = ",;\t|"


def read_csv(
    path: Any,
    *,
    sep: str | None = None,
    encoding: str | None = None,
    na_values: str = "empty",
) -> pd.DataFrame:
    r"""Read a CSV file as it is written: text columns, only empty cells missing.

    Every column is read as text (``str``), so that leading zeros survive and
    :class:`TableVectorizer` decides what is a number or a date. The separator
    is detected with :class:`csv.Sniffer` on the first 64 KiB (among ``,``
    ``;``, tab and ``|``; ``,`` when unsure), the encoding from a byte-order
    mark, else UTF-8, else Latin-1. A row with more or fewer fields than the
    header is an error that names its line.

    Parameters
    ----------
    path : str or path-like
        A CSV file, optionally ``.gz``, ``.bz2``, ``.xz`` or ``.zip`` compressed.
    sep : str or None, default=None
        The separator; None detects it.
    encoding : str or None, default=None
        The text encoding; None detects it.
    na_values : {'empty', 'pandas'}, default='empty'
        Which cells are missing: only empty ones, or also pandas' default
        strings (``"NA"``, ``"null"``, ``"None"``, ``"n/a"``, ...).

    Returns
    -------
    pandas.DataFrame
        One ``str`` column per header field, missing cells as NaN.

    Raises
    ------
    ValueError
        A row whose number of fields differs from the header's.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from autocat._dataframe import read_csv
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "zips.csv"
    >>> _ = path.write_text("zip;country\n02134;NA\n10001;\n")
    >>> frame = read_csv(path)
    >>> frame["zip"].tolist(), frame["country"].tolist()
    (['02134', '10001'], ['NA', nan])
    """
    if na_values not in ("empty", "pandas"):
        raise ValueError(f"na_values must be 'empty' or 'pandas', got {na_values!r}.")
    head = _head_bytes(path)
    given = encoding
    encoding = encoding or _detect_encoding(head)
    if "\x00" in head.decode(encoding, errors="replace"):
        raise ValueError(f"it holds NUL characters in {encoding}: not a text file")
    sep = sep or _detect_separator(head, encoding)
    try:
        _check_fields(path, sep, encoding)
    except UnicodeDecodeError:
        if given is not None or encoding != "utf-8":
            raise
        encoding = "latin-1"  # reads any bytes
        _check_fields(path, sep, encoding)
    missing: dict[str, Any] = (
        {"keep_default_na": False, "na_values": [""]}
        if na_values == "empty"
        else {"keep_default_na": True}
    )
    return pd.read_csv(
        path, sep=sep, encoding=encoding, dtype=str, index_col=False,
        low_memory=False, **missing,
    )  # fmt: skip


def _open_text(path: Any, encoding: str) -> Any:
    """Open a possibly compressed text file for reading, as csv.reader wants."""
    import bz2
    import gzip
    import io
    import lzma
    import zipfile

    suffix = str(path).lower().rsplit(".", 1)[-1]
    if suffix == "gz":
        return gzip.open(path, "rt", encoding=encoding, newline="")
    if suffix == "bz2":
        return bz2.open(path, "rt", encoding=encoding, newline="")
    if suffix == "xz":
        return lzma.open(path, "rt", encoding=encoding, newline="")
    if suffix == "zip":
        archive = zipfile.ZipFile(path)
        return io.TextIOWrapper(
            archive.open(archive.namelist()[0]), encoding=encoding, newline=""
        )
    return open(path, encoding=encoding, newline="")


def _head_bytes(path: Any) -> bytes:
    with _open_text(path, "latin-1") as text:  # latin-1: bytes one to one
        return str(text.read(_SNIFF_BYTES)).encode("latin-1")


def _detect_encoding(head: bytes) -> str:
    if head.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    return "utf-8"


def _detect_separator(head: bytes, encoding: str) -> str:
    import csv

    text = head.decode(encoding, errors="replace")
    if len(head) == _SNIFF_BYTES and "\n" in text:
        text = text[: text.rindex("\n")]  # whole lines only
    try:
        return csv.Sniffer().sniff(text, delimiters=_SEPARATORS).delimiter
    except csv.Error:
        return ","


def _check_fields(path: Any, sep: str, encoding: str) -> None:
    """Raise a ValueError naming the first line whose width is not the header's."""
    import csv

    with _open_text(path, encoding) as text:
        reader = csv.reader(text, delimiter=sep)
        header = next(reader, None)
        if header is None:
            return
        width = len(header)
        for record in reader:
            if record and len(record) != width:
                raise ValueError(
                    f"line {reader.line_num} has {len(record)} field(s) but the "
                    f"header has {width} (separator {sep!r}); fix that row, quote "
                    f"values that contain {sep!r}, or pass --sep"
                )
