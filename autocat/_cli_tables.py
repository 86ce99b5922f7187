"""The command line's tables and errors: formats, reading, writing, target checks.

``autocat.cli`` parses the command line and runs the commands; this module holds
what they share about files: which format a name means, reading it without
losing rows, writing a result next to it, checking the target column before any
expensive work, and the one-line errors (in command-line words) they raise.
"""

from __future__ import annotations

import difflib
import importlib
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from autocat._result import AutoResult
else:

    class _LazyModule:
        """A module imported on first use: ``--help`` and ``--version`` stay fast."""

        def __init__(self, name: str) -> None:
            self._name = name

        def __getattr__(self, attribute: str) -> Any:
            return getattr(importlib.import_module(self._name), attribute)

    np = _LazyModule("numpy")
    pd = _LazyModule("pandas")

CSV_SUFFIXES = {".csv", ".txt", ".tsv"}
COMPRESSION_SUFFIXES = {".gz", ".bz2", ".zip", ".xz", ".zst"}
PARQUET_SUFFIXES = {".parquet", ".pq"}


class CommandError(Exception):
    """An error to report on one line, with the exit code to return.

    Parameters
    ----------
    message : str
        The one-line message, printed after ``autocat: error:``.
    exit_code : int, default=1
        What :func:`main` returns.
    """

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class UsageError(CommandError):
    """The command line itself is wrong (exit code 2).

    Parameters
    ----------
    message : str
        The one-line message, printed after ``autocat: error:``.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, exit_code=2)


# --------------------------------------------------------------------------- I/O


def table_format(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in COMPRESSION_SUFFIXES:
        suffixes = suffixes[:-1]
    last = suffixes[-1] if suffixes else ""
    if last in PARQUET_SUFFIXES:
        return "parquet"
    if last in CSV_SUFFIXES:
        return "tsv" if last == ".tsv" else "csv"
    raise UsageError(
        f"cannot tell the format of {str(path)!r} from its name; use a .csv, .tsv "
        "or .parquet file (CSV may be compressed: .csv.gz, .csv.zip, ...)"
    )


def read_table(
    path: str | Path,
    *,
    sep: str | None = None,
    encoding: str | None = None,
    na_values: str = "empty",
) -> pd.DataFrame:
    """Read a CSV or Parquet file into a DataFrame, or raise a one-line error.

    CSV files are read as they are written (see ``autocat._dataframe.read_csv``):
    every column as text, so that the vectorizer decides what is a number and
    leading zeros survive; only empty cells are missing (``"NA"``, ``"None"``,
    ``"null"`` stay values) unless ``na_values='pandas'``; the separator and the
    encoding are detected unless given; a row with more or fewer fields than
    the header is an error naming its line.

    Parameters
    ----------
    path : str or path-like
        A ``.csv`` / ``.tsv`` file (optionally ``.gz``, ``.bz2``, ``.zip``, ``.xz``
        or ``.zst`` compressed) or a ``.parquet`` / ``.pq`` file.
    sep : str or None, default=None
        CSV separator; None detects it (tab for ``.tsv``).
    encoding : str or None, default=None
        CSV text encoding; None detects it (BOM, UTF-8, else Latin-1).
    na_values : {'empty', 'pandas'}, default='empty'
        Which CSV cells are missing: only empty ones, or pandas' default list.

    Returns
    -------
    DataFrame
        At least one row and one column.

    Raises
    ------
    UsageError
        The file does not exist, is a folder, or has an unknown extension.
    CommandError
        The file cannot be parsed or holds no rows.
    """
    path = Path(path)
    if not path.exists():
        raise UsageError(f"no such file: {str(path)!r}")
    if path.is_dir():
        raise UsageError(f"{str(path)!r} is a folder; give a CSV or Parquet file")
    kind = table_format(path)
    from autocat._dataframe import read_csv

    try:
        if kind == "parquet":
            frame = _read_parquet(path)
        else:
            if sep is None and kind == "tsv":
                sep = "\t"
            frame = read_csv(path, sep=sep, encoding=encoding, na_values=na_values)
    except CommandError:
        raise
    except pd.errors.EmptyDataError:
        raise CommandError(f"{str(path)!r} is empty: no header and no rows") from None
    except UnicodeDecodeError as exc:
        raise CommandError(
            f"cannot read {str(path)!r} as text ({exc.reason} at byte {exc.start}); "
            "is it really a CSV file? Pass its --encoding, or save it as UTF-8 CSV "
            "or as Parquet"
        ) from None
    except LookupError as exc:  # an unknown --encoding
        raise UsageError(f"cannot read {str(path)!r}: {one_line(exc)}") from None
    except (OSError, ValueError) as exc:  # parser errors, corrupt parquet, permissions
        raise CommandError(f"cannot read {str(path)!r}: {one_line(exc)}") from None
    if frame.shape[1] == 0:
        raise CommandError(f"{str(path)!r} has no columns")
    if frame.shape[0] == 0:
        raise CommandError(
            f"{str(path)!r} has {frame.shape[1]} column(s) but no rows; nothing to "
            "learn from or predict"
        )
    return frame


def _read_parquet(path: Path) -> pd.DataFrame:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise CommandError(
            "reading Parquet files needs pyarrow: pip install 'autocat[parquet]'"
        ) from None
    return pd.read_parquet(path)


def write_table(frame: pd.DataFrame, path: str | Path) -> Path:
    """Write ``frame`` as CSV or Parquet, chosen by the extension of ``path``.

    Parameters
    ----------
    frame : DataFrame
        The table to write, without its index.
    path : str or path-like
        A ``.csv`` / ``.tsv`` (optionally compressed) or ``.parquet`` file.

    Returns
    -------
    pathlib.Path
        ``path``.
    """
    path = Path(path)
    kind = table_format(path)
    if path.parent and not path.parent.exists():
        raise UsageError(
            f"cannot write {str(path)!r}: folder {str(path.parent)!r} does not exist"
        )
    try:
        if kind == "parquet":
            try:
                import pyarrow  # noqa: F401
            except ImportError:
                raise CommandError(
                    "writing Parquet files needs pyarrow: pip install "
                    "'autocat[parquet]'"
                ) from None
            frame.to_parquet(path, index=False)
        else:
            frame.to_csv(path, sep="\t" if kind == "tsv" else ",", index=False)
    except OSError as exc:
        raise CommandError(f"cannot write {str(path)!r}: {one_line(exc)}") from None
    return path


def one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def short_list(names: Sequence[Any], limit: int = 12) -> str:
    shown = [str(name) for name in names[:limit]]
    more = f", ... ({len(names) - limit} more)" if len(names) > limit else ""
    return "[" + ", ".join(repr(name) for name in shown) + more + "]"


def check_target(frame: pd.DataFrame, target: str, source: str) -> None:
    """Raise a one-line error unless ``target`` is a learnable column of ``frame``.

    Parameters
    ----------
    frame : DataFrame
        The table read from ``source``.
    target : str
        The column to predict.
    source : str
        Where ``frame`` came from, named in messages.

    Raises
    ------
    UsageError
        ``target`` is not a column; the message suggests the closest names.
    CommandError
        The target is entirely missing, has a single distinct value, or is the
        only column.
    """
    columns = [str(c) for c in frame.columns]
    if target not in columns:
        lowered = {c.lower(): c for c in columns}
        close = ([lowered[target.lower()]] if target.lower() in lowered else []) + [
            c
            for c in difflib.get_close_matches(target, columns, n=3, cutoff=0.6)
            if c.lower() != target.lower()
        ]
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise UsageError(
            f"target {target!r} is not a column of {source}.{hint} "
            f"Columns: {short_list(columns)}"
        )
    values = frame[frame.columns[columns.index(target)]]
    n_missing = int(values.isna().sum())
    if n_missing == len(values):
        raise CommandError(
            f"target {target!r} of {source} is missing in all {len(values)} rows; "
            "there is nothing to learn"
        )
    distinct = values.dropna().unique()
    if len(distinct) < 2:
        raise CommandError(
            f"target {target!r} of {source} has a single distinct value "
            f"({distinct[0]!r}) in its {len(values) - n_missing} non-missing rows; "
            "there is nothing to predict"
        )
    if frame.shape[1] < 2:
        raise CommandError(
            f"{source} holds only the target column {target!r}; add feature columns"
        )


# ---------------------------------------------------------------------- output


def json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    return str(value)


def clean_json(value: Any) -> Any:
    """Replace NaN and infinities, which JSON cannot hold, by ``None``."""
    if isinstance(value, float | np.floating):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): clean_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean_json(v) for v in value]
    return value


def emit_json(payload: Any, stream: TextIO) -> None:
    json.dump(clean_json(payload), stream, indent=2, default=json_default)
    stream.write("\n")


def result_payload(result: AutoResult) -> dict[str, Any]:
    return {
        "target": result.target_,
        "task": result.task_,
        "metric": result.metric_,
        "cv_score": float(result.cv_score_),
        "baseline_score": float(result.baseline_score_),
        "n_trials": int(result.n_trials_),
        "elapsed_s": round(float(result.elapsed_s_), 3),
        "seed": result.random_state,
        "best_params": dict(result.best_params_),
    }
