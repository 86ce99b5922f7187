"""Command line interface: ``autocat demo | fit | predict | describe``.

Run ``autocat --help`` (or ``python -m autocat --help``) for the commands. Each
command is one small handler that returns an exit code:

- ``0``: success;
- ``1``: the command line was fine but running it failed (a file that cannot be
  parsed, an empty table, a target with a single value, an error while fitting);
- ``2``: the command line is wrong (unknown option, missing file, a target that is
  not a column).

Errors are one line on stderr; ``--debug`` adds the traceback. Results go to
stdout (``--format json`` for machines), progress and logs to stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import logging
import os
import re
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, cast

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from autocat._result import AutoResult
else:  # imported on first use: ``--help`` and ``--version`` stay fast
    from autocat._cli_tables import np, pd

from autocat._cli_tables import (
    COMPRESSION_SUFFIXES,
    CSV_SUFFIXES,
    PARQUET_SUFFIXES,
    CommandError,
    UsageError,
    check_target,
    emit_json,
    one_line,
    read_table,
    result_payload,
    short_list,
    table_format,
    write_table,
)

__all__ = ["main"]

_LOGGER = logging.getLogger("autocat")
_TASKS = ("auto", "regression", "binary", "multiclass")
DEMO_TIME_BUDGET = 40.0
DEMO_REPORT = "autocat-demo-report.html"
DEMO_TARGET = "current_annual_salary"


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and never exit the process."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


# -------------------------------------------------------------------- commands


def _fit_and_write(
    args: argparse.Namespace,
    frame: pd.DataFrame,
    target: str,
    *,
    model_path: Path | None,
    report_path: Path | None,
) -> int:
    from autocat import auto_fit

    _LOGGER.info(
        "fitting %r on %d rows x %d columns (seed %d, time budget %s s, n_trials %s)",
        target, frame.shape[0], frame.shape[1], args.seed, args.time_budget,
        args.n_trials,
    )  # fmt: skip
    try:
        with _optuna_without_tracebacks(bool(args.debug)):
            result = auto_fit(
                frame,
                target,
                task=getattr(args, "task", "auto"),
                time_budget=args.time_budget,
                n_trials=args.n_trials,
                cv=getattr(args, "cv", 5),
                metric=getattr(args, "metric", None),
                random_state=args.seed,
                storage=getattr(args, "storage", None),
                study_name=getattr(args, "study_name", None),
                n_jobs=getattr(args, "n_jobs", 1),
                show_progress=args.verbosity >= 0,
                specific_transformers=_column_choices(args, frame, exclude=target),
                target_transform=getattr(args, "target_transform", "none"),
            )
    except (ValueError, TypeError, RuntimeError) as exc:
        # auto_fit's messages name its keyword arguments: name the options instead
        raise CommandError(for_cli(one_line(exc))) from exc
    if model_path is not None:
        result.save(model_path)
    if report_path is not None:
        _LOGGER.info("writing the report (permutation importances)...")
        result.report(report_path)
    if args.format == "json":
        payload = result_payload(result)
        payload["model"] = None if model_path is None else str(model_path)
        payload["report"] = None if report_path is None else str(report_path.resolve())
        emit_json(payload, sys.stdout)
    else:
        out = sys.stdout
        out.write(result.summary().rstrip("\n") + "\n")
        out.write(f"seed: {args.seed}\n")
        if model_path is not None:
            out.write(f"model written to {model_path}\n")
        if report_path is not None:
            out.write(f"report written to {report_path.resolve()}\n")
    return 0


# API keyword arguments named in auto_fit's messages, and the options that set them
_OPTIONS = {
    "time_budget": "--time-budget",
    "n_trials": "--n-trials",
    "random_state": "--seed",
    "study_name": "--study-name",
    "storage": "--storage",
    "n_jobs": "--n-jobs",
    "metric": "--metric",
    "task": "--task",
    "cv": "--cv",
    "target_transform": "--target-transform",
}
_KEYWORD = re.compile(
    r"\b(" + "|".join(_OPTIONS) + r")=(?:'([^']*)'|([^\s,;)]*[^\s,;).]))?"
)
_BARE_KEYWORD = re.compile(
    r"(?<!['\"])\b(time_budget|n_trials|random_state|study_name|n_jobs)\b(?!['\"])"
)


def for_cli(message: str) -> str:
    """Rewrite a Python API message for command-line users.

    Keyword arguments become the options that set them (``study_name=`` is
    ``--study-name``, ``task='binary'`` is ``--task binary``); sentences about
    settings that the command line does not have (``strict=``) are dropped.

    Parameters
    ----------
    message : str
        One line, as raised by :func:`autocat.auto_fit` and its helpers.

    Returns
    -------
    str

    Examples
    --------
    >>> from autocat.cli import for_cli
    >>> for_cli("Pass another study_name= to start a new study.")
    'Pass another --study-name to start a new study.'
    >>> for_cli("It holds text. Use task='binary' or raise time_budget.")
    'It holds text. Use --task binary or raise --time-budget.'
    >>> for_cli("target 'n_jobs' is not a column")  # names in quotes are data
    "target 'n_jobs' is not a column"
    """

    def option(match: re.Match[str]) -> str:
        value = match.group(2) if match.group(2) is not None else match.group(3)
        flag = _OPTIONS[match.group(1)]
        return f"{flag} {value}" if value else flag

    sentences = re.split(r"(?<=[.;])\s+", message)
    kept = [s for s in sentences if "strict=" not in s] or sentences
    text = _KEYWORD.sub(option, " ".join(kept))
    return _BARE_KEYWORD.sub(lambda m: _OPTIONS[m.group(1)], text)


def _output_path(value: str | None, what: str, option: str = "--out") -> Path | None:
    if value is None:
        return None
    path = Path(value)
    if path.is_dir():
        raise UsageError(f"{what} {value!r} is a folder; give a file name")
    if not path.parent.exists():
        raise UsageError(
            f"cannot write {what} {value!r}: folder {str(path.parent)!r} does not exist"
        )
    _check_writable(path, what, option)
    return path


def _check_writable(path: Path, what: str, option: str) -> None:
    """Fail now, naming the user's path, if ``path`` cannot be written later."""
    folder = path.parent
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise UsageError(
            f"cannot write {what} {str(path)!r}: folder {str(folder)!r} is not "
            f"writable ({exc.strerror or one_line(exc)}); choose another {option}"
        ) from None
    if path.exists() and not os.access(path, os.W_OK):
        raise UsageError(
            f"cannot write {what} {str(path)!r}: the file is read-only; choose "
            f"another {option}"
        )


def _same_file(a: Path, b: Path) -> bool:
    with contextlib.suppress(OSError):
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    return a.resolve() == b.resolve()


def _check_not_inputs(
    inputs: Sequence[tuple[str, str]], outputs: Sequence[tuple[str, Path | None]]
) -> None:
    """Refuse an output path that is an input (or another output), also via links."""
    seen = [(name, Path(value)) for name, value in inputs]
    for option, path in outputs:
        if path is None:
            continue
        for name, other in seen:
            if _same_file(path, other):
                raise UsageError(
                    f"{option} {str(path)!r} is the same file as {name} "
                    f"{str(other)!r}, which it would overwrite; choose another {option}"
                )
        seen.append((option, path))


def _cmd_demo(args: argparse.Namespace) -> int:
    from autocat.datasets import load_employee_salaries

    report = _output_path(args.report, "report", "--report")
    model = _output_path(args.out, "model")
    _check_not_inputs([], [("--report", report), ("--out", model)])
    frame = cast(pd.DataFrame, load_employee_salaries())
    if args.rows is not None and args.rows < len(frame):
        frame = frame.sample(args.rows, random_state=args.seed).reset_index(drop=True)
    _LOGGER.info(
        "demo: Employee Salaries (%d rows, bundled); predicting %r",
        len(frame), DEMO_TARGET,
    )  # fmt: skip
    # The kernels compile on a new environment's first run (cached after): done
    # before the search, so that the demo searches for its whole time budget.
    from autocat._final import warm_kernels

    tic = time.monotonic()
    warm_kernels()
    if (seconds := time.monotonic() - tic) > 1:
        _LOGGER.info("compiled the encoders' kernels in %.1fs (once)", seconds)
    return _fit_and_write(
        args, frame, DEMO_TARGET, model_path=model, report_path=report
    )


def _cmd_fit(args: argparse.Namespace) -> int:
    model = _output_path(args.out, "model")
    report = _output_path(args.report, "report", "--report")
    if model is None:
        model = _output_path(_stem(args.data) + ".autocat", "model")
    _check_not_inputs([("DATA", args.data)], [("--out", model), ("--report", report)])
    frame = read_table(args.data, **_read_args(args))
    check_target(frame, args.target, repr(args.data))
    return _fit_and_write(
        args, frame, args.target, model_path=model, report_path=report
    )


def _stem(path: str) -> str:
    name = Path(path).name
    for _ in range(2):
        stem, dot, suffix = name.rpartition(".")
        if dot and ("." + suffix.lower()) in (
            CSV_SUFFIXES | PARQUET_SUFFIXES | COMPRESSION_SUFFIXES
        ):
            name = stem
    return name or "model"


def _load_model(path: str) -> AutoResult:
    from autocat import load
    from autocat._persistence import LegacyModelFileError

    model_path = Path(path)
    if not model_path.exists():
        raise UsageError(f"no such model file: {path!r}")
    try:
        return load(model_path)
    except LegacyModelFileError:
        raise CommandError(
            f"cannot load model {path!r}: it is a pickle written by an earlier "
            "autocat, and loading a pickle can run any code in it; refit it with "
            "'autocat fit', or, if you trust the file, load it in Python with "
            "autocat.load(path, trusted=True) and save it again"
        ) from None
    except (OSError, ValueError, TypeError) as exc:
        raise CommandError(f"cannot load model {path!r}: {one_line(exc)}") from None


def _cmd_predict(args: argparse.Namespace) -> int:
    out = _output_path(args.out, "output")
    _check_not_inputs([("MODEL", args.model), ("DATA", args.data)], [("--out", out)])
    if out is not None:
        table_format(out)
    result = _load_model(args.model)
    if args.proba and result.task_ == "regression":
        raise UsageError("--proba needs a classification model; this one regresses")
    frame = read_table(args.data, **_read_args(args))
    expected = [str(c) for c in result.feature_names_in_]
    present = {str(c) for c in frame.columns}
    missing = [c for c in expected if c not in present]
    if missing:
        raise CommandError(
            f"{args.data!r} lacks {len(missing)} column(s) the model was fitted on: "
            f"{short_list(missing)}"
        )
    features = frame  # AutoResult picks the fitted columns, in their fitted order
    prediction = result.predict(features)
    column = f"{result.target_}_predicted"
    table = pd.DataFrame({column: np.asarray(prediction)}, index=frame.index)
    if args.proba:
        proba = np.asarray(result.predict_proba(features))
        for j, label in enumerate(np.asarray(result.classes_)):
            table[f"proba_{label}"] = proba[:, j]
    if str(result.target_) in present:
        truth = frame[result.target_]
        # a few stray tokens in a regression's target are unlabelled, as at fit
        read = result._read_target(truth.to_numpy(dtype=object))
        truth = pd.Series(read, index=truth.index)
        known = truth.notna().to_numpy()
        if known.any():
            try:
                score = result.score(features[known], truth[known])
            except Exception as exc:  # e.g. unseen labels, other label types
                _LOGGER.warning(
                    "could not score the labelled rows (the predictions are written "
                    "anyway): column %r: %s",
                    str(result.target_), one_line(exc),
                )  # fmt: skip
            else:
                _LOGGER.info(
                    "%s holds the target %r: %s = %.4f on its %d labelled rows",
                    args.data, result.target_, result.metric_, score,
                    int(known.sum()),
                )  # fmt: skip
    if out is not None:
        write_table(table, out)
        _LOGGER.info("%d predictions written to %s", len(table), out)
        if args.format == "json":
            emit_json({"output": str(out), "n_rows": len(table)}, sys.stdout)
        else:
            sys.stdout.write(f"{len(table)} predictions written to {out}\n")
    elif args.format == "json":
        emit_json(table.to_dict(orient="records"), sys.stdout)
    else:
        table.to_csv(sys.stdout, index=False)
    return 0


def _cmd_describe(args: argparse.Namespace) -> int:
    frame = read_table(args.data, **_read_args(args))
    target = None
    if args.target is not None:
        columns = [str(c) for c in frame.columns]
        if args.target not in columns:
            check_target(frame, args.target, repr(args.data))
        target = frame[frame.columns[columns.index(args.target)]]
        frame = frame.drop(columns=[frame.columns[columns.index(args.target)]])
        if frame.shape[1] == 0:
            raise CommandError(f"{args.data!r} holds no column besides the target")
    from autocat import TableVectorizer

    specific = _column_choices(args, frame)
    y = None
    if args.high_cardinality == "target" or "target" in specific.values():
        if target is None:
            raise UsageError("target encoding needs --target COL, the target")
        known = target.notna().to_numpy()  # rows without a target are left out
        frame, y = frame[known], target[known].to_numpy()
    vectorizer = TableVectorizer(
        cardinality_threshold=args.cardinality_threshold,
        high_cardinality=args.high_cardinality,
        specific_transformers=specific or None,
    )
    vectorizer.fit(frame, y)
    plan = vectorizer.describe()
    if args.format == "json":
        records = plan.to_dict(orient="records")
        emit_json(
            {"data": args.data, "n_rows": len(frame), "columns": records}, sys.stdout
        )
    else:
        with pd.option_context(
            "display.width", 200, "display.max_rows", None, "display.max_columns", None,
            "display.max_colwidth", 60,
        ):  # fmt: skip
            sys.stdout.write(
                f"{args.data}: {frame.shape[0]} rows x {frame.shape[1]} columns\n"
            )
            sys.stdout.write(plan.to_string(index=False) + "\n")
    return 0


def _column_choices(
    args: argparse.Namespace, frame: pd.DataFrame, exclude: str | None = None
) -> dict[str, str]:
    """Return the ``--column COL=ENCODER`` options as ``specific_transformers``."""
    from autocat._encoder_choice import SPECIFIC_KINDS

    choices: dict[str, str] = {}
    columns = [str(c) for c in frame.columns if str(c) != exclude]
    for item in getattr(args, "column", None) or []:
        column, equals, choice = item.rpartition("=")
        if not equals or not column:
            raise UsageError(f"--column expects COL=ENCODER, got {item!r}")
        if choice not in SPECIFIC_KINDS:
            raise UsageError(
                f"--column {item!r}: {choice!r} is not one of "
                f"{', '.join(sorted(SPECIFIC_KINDS))}"
            )
        if column not in columns:
            close = difflib.get_close_matches(column, columns, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise UsageError(
                f"--column {item!r}: {column!r} is not a feature column of the "
                f"data{hint} Columns: {short_list(columns)}"
            )
        choices[column] = choice
    return choices


def _column_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--column", action="append", metavar="COL=ENCODER",
        help="encode column COL with ENCODER (repeatable): minhash, gamma_poisson, "
        "target, text, onehot, numeric, datetime, drop or passthrough",
    )  # fmt: skip


# ---------------------------------------------------------------------- parser


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text!r}")
    return value


def _integer(text: str, accept: Callable[[int], bool], rule: str) -> int:
    """Read an integer option; ``rule`` says what ``accept`` lets through."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if not accept(value):
        raise argparse.ArgumentTypeError(f"must be {rule}, got {text!r}")
    return value


def _positive_int(text: str) -> int:
    return _integer(text, lambda value: value >= 1, ">= 1")


def _folds(text: str) -> int:
    rule = "an integer >= 2 (cross-validation needs 2 folds)"
    return _integer(text, lambda value: value >= 2, rule)


def _n_jobs(text: str) -> int:
    rule = "-1 (all cores) or an integer >= 1"
    return _integer(text, lambda value: value == -1 or value >= 1, rule)


def _seed(text: str) -> int:
    return _integer(text, lambda value: 0 <= value < 2**32, "in [0, 2**32)")


def _common_options(suppress: bool) -> _Parser:
    """Options accepted before and after the command name."""
    default: Callable[[Any], Any] = (
        (lambda _: argparse.SUPPRESS) if suppress else (lambda value: value)
    )
    parent = _Parser(add_help=False)
    parent.add_argument(
        "--format", choices=("text", "json"), default=default("text"),
        help="text for people (default) or json for programs, on stdout",
    )  # fmt: skip
    parent.add_argument(
        "-v", "--verbose", dest="verbose", action="count", default=default(0),
        help="debug messages and Optuna's log of each trial on stderr",
    )  # fmt: skip
    parent.add_argument(
        "-q", "--quiet", dest="quiet", action="store_true", default=default(False),
        help="only warnings and errors on stderr",
    )  # fmt: skip
    parent.add_argument(
        "--debug", action="store_true", default=default(False),
        help="print the full traceback of an error",
    )  # fmt: skip
    return parent


def _read_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sep", default=None, metavar="CHAR",
        help="CSV separator (default: detected among , ; tab |)",
    )  # fmt: skip
    parser.add_argument(
        "--encoding", default=None, metavar="NAME",
        help="CSV encoding (default: detected: BOM, utf-8, else latin-1)",
    )  # fmt: skip
    parser.add_argument(
        "--na-values", choices=("empty", "pandas"), default="empty",
        help="CSV cells read as missing: only empty ones (default), or also "
        "pandas' list (NA, null, None, n/a, ...)",
    )  # fmt: skip


def _read_args(args: argparse.Namespace) -> dict[str, Any]:
    return {"sep": args.sep, "encoding": args.encoding, "na_values": args.na_values}


def _search_options(parser: argparse.ArgumentParser, time_budget: float | None) -> None:
    parser.add_argument(
        "--time-budget", type=_positive_float, default=time_budget, metavar="S",
        help="seconds for the search and the final refit (default: %(default)s)",
    )  # fmt: skip
    parser.add_argument(
        "--n-trials", type=_positive_int, default=None, metavar="N",
        help="stop after N trials (default: only the time budget stops the search)",
    )  # fmt: skip
    parser.add_argument(
        "--seed", type=_seed, default=0, metavar="N",
        help="random seed of the search and the models (default: %(default)s)",
    )  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    """Return the ``autocat`` argument parser with its four commands.

    Returns
    -------
    argparse.ArgumentParser
        Its errors raise :class:`UsageError` instead of exiting.
    """
    parser = _Parser(
        prog="autocat",
        description="Learn from tables with dirty, high-cardinality string columns.",
        parents=[_common_options(suppress=False)],
    )
    from autocat import __version__

    parser.add_argument("--version", action="version", version=f"autocat {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    common = [_common_options(suppress=True)]

    demo = commands.add_parser(
        "demo", parents=common, help="auto_fit on the bundled employee salaries",
        description="Fit the recipe on the bundled employee salaries table (offline), "
        "print the summary and write the HTML report.",
    )  # fmt: skip
    _search_options(demo, DEMO_TIME_BUDGET)
    demo.add_argument(
        "--report", default=DEMO_REPORT, metavar="HTML",
        help="where to write the report (default: %(default)s)",
    )  # fmt: skip
    demo.add_argument("--out", metavar="MODEL", help="also save the fitted model")
    demo.add_argument(
        "--rows", type=_positive_int, default=None, metavar="N",
        help="use a random sample of N rows (default: all 9,228)",
    )  # fmt: skip
    demo.set_defaults(handler=_cmd_demo)

    fit = commands.add_parser(
        "fit", parents=common, help="search and fit a model for a table",
        description="Infer the task, search encoders and XGBoost settings with Optuna "
        "under a time budget, refit the best on all rows and save it.",
    )  # fmt: skip
    fit.add_argument("data", metavar="DATA", help="a CSV or Parquet file")
    fit.add_argument("--target", required=True, metavar="COL", help="column to predict")
    _read_options(fit)
    _search_options(fit, 60.0)
    fit.add_argument(
        "--out", metavar="MODEL",
        help="where to save the model (default: DATA's name + .autocat, here)",
    )  # fmt: skip
    fit.add_argument("--report", metavar="HTML", help="also write the HTML report")
    fit.add_argument(
        "--task", choices=_TASKS, default="auto",
        help="default: inferred from the target",
    )  # fmt: skip
    fit.add_argument(
        "--metric", default=None, help="a scikit-learn scorer name (default: the "
        "paper's: r2, average_precision or accuracy)",
    )  # fmt: skip
    fit.add_argument(
        "--cv", type=_folds, default=5, metavar="K",
        help="cross-validation folds, 2 or more (default: %(default)s)",
    )  # fmt: skip
    fit.add_argument(
        "--storage", default=None, metavar="URL",
        help="optuna storage shared by parallel runs: sqlite:///study.db, or a "
        "journal file path",
    )  # fmt: skip
    fit.add_argument(
        "--study-name", default=None, metavar="NAME",
        help="the study's name in --storage (default: autocat-<target>)",
    )  # fmt: skip
    fit.add_argument(
        "--n-jobs", type=_n_jobs, default=1, metavar="N",
        help="threads: trials run side by side (default: 1; -1: all cores)",
    )  # fmt: skip
    fit.add_argument(
        "--target-transform", choices=("none", "auto", "log"), default="none",
        help="regression: learn log(1 + target) ('log'), or measure it ('auto')",
    )  # fmt: skip
    _column_option(fit)
    fit.set_defaults(handler=_cmd_fit)

    predict = commands.add_parser(
        "predict", parents=common, help="predict with a saved model",
        description="Predict each row of DATA with a model saved by 'autocat fit'. "
        "Without --out, predictions are written to stdout as CSV (or JSON).",
    )  # fmt: skip
    predict.add_argument("model", metavar="MODEL", help="a model saved by autocat fit")
    predict.add_argument("data", metavar="DATA", help="a CSV or Parquet file")
    predict.add_argument("--out", metavar="FILE", help="write a CSV or Parquet file")
    _read_options(predict)
    predict.add_argument(
        "--proba", action="store_true", help="add one probability column per class"
    )
    predict.set_defaults(handler=_cmd_predict)

    describe = commands.add_parser(
        "describe", parents=common, help="show the vectorizer's plan for each column",
        description="Show how TableVectorizer would encode each column of DATA "
        "(kind, distinct values, missing share, transformer); fits no model.",
    )  # fmt: skip
    describe.add_argument("data", metavar="DATA", help="a CSV or Parquet file")
    describe.add_argument("--target", metavar="COL", help="leave this column out")
    _read_options(describe)
    describe.add_argument("--cardinality-threshold", type=_positive_int, default=30)
    describe.add_argument(
        "--high-cardinality",
        choices=("minhash", "gamma_poisson", "target", "text"),
        default="minhash",
    )
    _column_option(describe)
    describe.set_defaults(handler=_cmd_describe)
    return parser


# ------------------------------------------------------------------------ main


class _NoTraceback(logging.Filter):
    """Keep Optuna's one-line trial failures, without their tracebacks.

    A Ctrl-C inside a trial is reported once, by :func:`main`, so Optuna's line
    about it is dropped, and so is its "failed with value None" after each error.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if re.fullmatch(r"Trial \d+ failed with value None\.", record.getMessage()):
            return False
        if record.exc_info is not None:
            if isinstance(record.exc_info[1], KeyboardInterrupt):
                return False
            record.exc_info = None
            record.exc_text = None
        return True


@contextlib.contextmanager
def _optuna_without_tracebacks(debug: bool) -> Iterator[None]:
    """Filter Optuna's records where they reach stderr: its handler, or the root's."""
    import optuna  # configures optuna's handler

    quiet = _NoTraceback()
    handlers = [] if debug else [*logging.getLogger("optuna").handlers]
    handlers += [] if debug else logging.root.handlers
    del optuna
    for handler in handlers:
        handler.addFilter(quiet)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(quiet)


@contextlib.contextmanager
def _logging_to_stderr(verbosity: int) -> Iterator[None]:
    """Send autocat's (and optuna's) log records to stderr for one command."""
    level = {-1: logging.WARNING, 0: logging.INFO}.get(verbosity, logging.DEBUG)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    previous = _LOGGER.level, _LOGGER.propagate
    _LOGGER.addHandler(handler)
    _LOGGER.setLevel(level)
    _LOGGER.propagate = False
    optuna_logger = logging.getLogger("optuna")
    optuna_level = optuna_logger.level
    if verbosity < 1:
        optuna_logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        _LOGGER.removeHandler(handler)
        _LOGGER.setLevel(previous[0])
        _LOGGER.propagate = previous[1]
        optuna_logger.setLevel(optuna_level)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``autocat`` command line and return its exit code.

    Parameters
    ----------
    argv : sequence of str, default=None
        The arguments after the program name; ``sys.argv[1:]`` by default.

    Returns
    -------
    int
        0 on success, 1 when running the command failed, 2 when the command line
        is wrong.

    Examples
    --------
    >>> from autocat.cli import main
    >>> main(["describe", "no-such-file.csv"])
    2
    """
    try:
        return _main(list(sys.argv[1:] if argv is None else argv))
    except KeyboardInterrupt:  # Ctrl-C while parsing or setting up logs
        print("autocat: interrupted", file=sys.stderr)
        return 130


def _main(argv: list[str]) -> int:
    try:
        args = build_parser().parse_args(argv)
    except UsageError as exc:
        print(f"autocat: error: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # --help and --version
        return int(exc.code or 0)
    debug = bool(args.debug)
    args.verbosity = -1 if args.quiet else int(args.verbose)
    with _logging_to_stderr(args.verbosity):
        try:
            return int(args.handler(args))
        except CommandError as exc:
            if debug:
                traceback.print_exc(file=sys.stderr)
            print(f"autocat: error: {for_cli(one_line(exc))}", file=sys.stderr)
            return exc.exit_code
        except BrokenPipeError:  # e.g. piped into `head`: stop quietly
            with contextlib.suppress(OSError, ValueError, AttributeError):
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
            return 1
        except KeyboardInterrupt:
            print("autocat: interrupted", file=sys.stderr)
            return 130
        except Exception as exc:  # one line for everything else, traceback on demand
            if debug:
                traceback.print_exc(file=sys.stderr)
            hint = "" if debug else " (run again with --debug for the traceback)"
            print(
                f"autocat: error: {type(exc).__name__}: {for_cli(one_line(exc))}{hint}",
                file=sys.stderr,
            )
            return 1
