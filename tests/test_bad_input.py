"""Bad input through the API and the CLI: one clear error before any trial or write.

Each class of bad input is checked through ``auto_fit`` (the error type, the
column or option it names, the fix it gives, and that no trial started) and
through ``autocat fit`` / ``predict`` in process (exit code, exactly one line on
stderr naming the column or option, and no output file written).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import optuna
import pandas as pd
import pytest

import autocat
from autocat import cli
from autocat._validation import fatal_error_message, is_fatal_error

FLOAT32_MAX = float(np.finfo(np.float32).max)


def table(n: int = 40, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "title": rng.choice(["police officer", "bus operator", "nurse"], n),
            "x": rng.normal(size=n),
            "y": rng.normal(size=n),
        }
    )


def with_value(column: str, row: int, value: object):
    def build() -> pd.DataFrame:
        frame = table()
        if not isinstance(value, float):
            frame[column] = frame[column].astype(object)
        frame.loc[row, column] = value
        return frame

    return build


def all_dropped() -> pd.DataFrame:
    frame = table()
    frame["title"] = "same"
    frame["x"] = np.nan
    return frame


def binary() -> pd.DataFrame:
    frame = table()
    frame["y"] = np.where(frame["x"] > 0, "high", "low")
    return frame


# name -> (frame builder, auto_fit keywords, CLI options, fragments of the message)
DATA_CASES = {
    "inf_feature": (with_value("x", 3, np.inf), {}, [], ["'x'", "infinite", "NaN"]),
    "-inf_feature": (with_value("x", 5, -np.inf), {}, [], ["'x'", "-inf", "row 5"]),
    "beyond_float32_feature": (
        with_value("x", 2, 1e39), {}, [], ["'x'", "float32", "row 2"],
    ),
    "beyond_float32_text_feature": (
        with_value("x", 2, "1e39"), {}, [], ["'x'", "float32"],
    ),
    "inf_target": (with_value("y", 1, np.inf), {}, [], ["Target 'y'", "infinite"]),
    "beyond_float32_target": (
        with_value("y", 1, -1e300), {}, [], ["Target 'y'", "float32"],
    ),
    "all_features_dropped": (
        all_dropped, {}, [], ["'title' (constant", "'x' (all values missing)"],
    ),
    "average_precision_on_regression": (
        table, {"metric": "average_precision"}, ["--metric", "average_precision"],
        ["average_precision", "cannot score a regression task", "'r2'"],
    ),
    "r2_on_classification": (
        binary, {"metric": "r2"}, ["--metric", "r2"],
        ["r2", "cannot score a binary task", "'roc_auc'"],
    ),
    "unknown_metric": (
        table, {"metric": "r2_scor"}, ["--metric", "r2_scor"],
        ["r2_scor", "not a scikit-learn scorer name", "'neg_mean_squared_error'"],
    ),
}  # fmt: skip


@pytest.fixture
def no_trial(monkeypatch):
    """Fail the test if a search starts: the checks must come first."""

    def refuse(*args, **kwargs):
        raise AssertionError("a trial started before the input was checked")

    monkeypatch.setattr(optuna.Study, "optimize", refuse)
    monkeypatch.setattr(optuna.Study, "ask", refuse)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """Run the CLI quietly (-q: no progress logs), so stderr holds only errors."""
    code = cli.main(["-q", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("autocat: error: "), err
    assert "Traceback" not in err
    return lines[0]


# --- data and settings, through the API ---------------------------------------


@pytest.mark.parametrize("case", list(DATA_CASES))
def test_api_checks_before_the_first_trial(case, no_trial):
    build, kwargs, _, fragments = DATA_CASES[case]
    with pytest.raises(ValueError) as info:
        autocat.auto_fit(build(), "y", n_trials=1, cv=2, show_progress=False, **kwargs)
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


@pytest.mark.parametrize(
    ("columns", "fragments"),
    [
        (["x", "x", "y"], ["duplicate column names", "'x' (2 times)"]),
        ([1, "1", "y"], ["1 (int) and '1' (str)", "Rename one"]),
        (["title", "x", "y", "y"], ["'y' (2 times)"]),  # the target itself
    ],
    ids=["duplicate", "colliding_as_text", "duplicate_target"],
)
def test_api_refuses_duplicate_or_colliding_names(columns, fragments, no_trial):
    frame = table()
    if len(columns) == 4:
        frame["y2"] = frame["y"]
    frame.columns = columns
    with pytest.raises(ValueError) as info:
        autocat.auto_fit(frame, "y", n_trials=1, cv=2, show_progress=False)
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)


def test_api_polars_frames_are_checked_too(no_trial):
    polars = pytest.importorskip("polars")
    frame = polars.from_pandas(with_value("x", 3, np.inf)())
    with pytest.raises(ValueError, match="Feature column 'x' holds 1 infinite"):
        autocat.auto_fit(frame, "y", n_trials=1, cv=2, show_progress=False)


@pytest.mark.parametrize(
    ("storage", "fragments"),
    [
        ("sqlite:///{tmp}/no/such/folder/study.db", ["unable to open database file"]),
        ("{tmp}/damaged.journal", ["is not an Optuna journal", "damaged.journal"]),
    ],
    ids=["sqlite_in_missing_folder", "damaged_journal"],
)
def test_api_storage_errors_name_the_file_and_option(tmp_path, storage, fragments):
    (tmp_path / "damaged.journal").write_bytes(b"\xff\xfe\x00garbage\n")
    storage = storage.format(tmp=tmp_path)
    with pytest.raises(ValueError) as info:
        autocat.auto_fit(table(), "y", n_trials=1, cv=2, storage=storage,
                         show_progress=False)  # fmt: skip
    message = str(info.value)
    for fragment in [*fragments, "storage="]:
        assert fragment in message, (fragment, message)
    assert storage.removeprefix("sqlite:///") in message


# --- the same through the CLI ---------------------------------------------------


@pytest.mark.parametrize("case", list(DATA_CASES))
def test_cli_fit_one_line_and_no_model(case, capsys, tmp_path, no_trial):
    build, _, options, fragments = DATA_CASES[case]
    data, model = tmp_path / "data.csv", tmp_path / "model.autocat"
    build().to_csv(data, index=False)
    code, out, err = run(capsys, "fit", str(data), "--target", "y", "--n-trials",
                         "1", "--cv", "2", "--out", str(model), *options)  # fmt: skip
    assert code == 1
    assert out == ""
    line = one_line(err)
    for fragment in fragments:
        assert fragment in line, (fragment, line)
    if options:  # the option is named as on the command line, not as in Python
        assert f"--metric {options[1]}" in line and "metric=" not in line
    assert not model.exists()


@pytest.mark.parametrize(
    ("storage", "fragments"),
    [
        ("sqlite:///{tmp}/no/such/folder/study.db", ["unable to open database file"]),
        ("{tmp}/damaged.journal", ["is not an Optuna journal"]),
    ],
    ids=["sqlite_in_missing_folder", "damaged_journal"],
)
def test_cli_storage_errors_name_the_file_and_option(capsys, tmp_path, storage,
                                                     fragments):  # fmt: skip
    (tmp_path / "damaged.journal").write_bytes(b"\xff\xfe\x00garbage\n")
    storage = storage.format(tmp=tmp_path)
    data, model = tmp_path / "data.csv", tmp_path / "model.autocat"
    table().to_csv(data, index=False)
    code, _, err = run(capsys, "fit", str(data), "--target", "y", "--n-trials", "1",
                       "--storage", storage, "--out", str(model))  # fmt: skip
    assert code == 1
    line = one_line(err)
    for fragment in [*fragments, "--storage", storage.removeprefix("sqlite:///")]:
        assert fragment in line, (fragment, line)
    assert "storage=" not in line
    assert not model.exists()


def test_cli_names_study_name_option_for_a_study_of_other_data(capsys, tmp_path):
    journal = tmp_path / "study.journal"
    storage = autocat._tuning.make_storage(str(journal))
    study = optuna.create_study(storage=storage, study_name="autocat-y")
    study.set_user_attr("autocat_fingerprint", {"n_rows": 3})
    data, model = tmp_path / "data.csv", tmp_path / "model.autocat"
    table().to_csv(data, index=False)
    code, _, err = run(capsys, "fit", str(data), "--target", "y", "--n-trials", "1",
                       "--storage", str(journal), "--out", str(model))  # fmt: skip
    assert code == 1
    line = one_line(err)
    assert "--study-name" in line and "study_name=" not in line, line
    assert not model.exists()


@pytest.mark.parametrize(
    ("option", "value", "fragment"),
    [
        ("--cv", "1", ">= 2"),
        ("--cv", "0", ">= 2"),
        ("--n-jobs", "0", "-1 (all cores) or an integer >= 1"),
        ("--n-jobs", "-2", "-1 (all cores) or an integer >= 1"),
    ],
)
def test_cli_out_of_range_counts_are_usage_errors(capsys, tmp_path, option, value,
                                                  fragment):  # fmt: skip
    data, model = tmp_path / "data.csv", tmp_path / "model.autocat"
    table().to_csv(data, index=False)
    code, out, err = run(capsys, "fit", str(data), "--target", "y", option, value,
                         "--out", str(model))  # fmt: skip
    assert code == 2
    assert out == ""
    line = one_line(err)
    assert option in line and fragment in line, line
    assert not model.exists()


# --- files and outputs ----------------------------------------------------------


@pytest.fixture
def data_csv(tmp_path) -> Path:
    path = tmp_path / "data.csv"
    table().to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    ("option", "link"),
    [("--out", False), ("--report", False), ("--out", True), ("--report", True)],
    ids=["out", "report", "out_via_symlink", "report_via_symlink"],
)
def test_cli_fit_refuses_to_overwrite_its_data(capsys, tmp_path, data_csv, option,
                                               link):  # fmt: skip
    before = data_csv.read_bytes()
    target = data_csv
    if link:
        target = tmp_path / "elsewhere" / "link.csv"
        target.parent.mkdir()
        target.symlink_to(data_csv)
    code, _, err = run(capsys, "fit", str(data_csv), "--target", "y", option,
                       str(target), "--n-trials", "1")  # fmt: skip
    assert code == 2
    line = one_line(err)
    assert option in line and "same file as DATA" in line, line
    assert data_csv.read_bytes() == before
    assert not (tmp_path / "data.autocat").exists()


def test_cli_fit_refuses_the_same_path_for_model_and_report(capsys, tmp_path,
                                                           data_csv):  # fmt: skip
    out = tmp_path / "result.html"
    code, _, err = run(capsys, "fit", str(data_csv), "--target", "y", "--out",
                       str(out), "--report", str(out))  # fmt: skip
    assert code == 2
    assert "--report" in one_line(err)
    assert not out.exists()


@pytest.fixture
def unwritable_folder(tmp_path):
    """A folder nobody may create files in; /proc when running as root."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        yield Path("/proc")
        return
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o500)
    yield folder
    folder.chmod(0o700)


@pytest.mark.parametrize("option", ["--out", "--report"])
def test_cli_unwritable_output_folder_is_found_before_the_search(
    capsys, data_csv, unwritable_folder, option, no_trial
):
    path = unwritable_folder / "result.file"
    code, _, err = run(capsys, "fit", str(data_csv), "--target", "y", option,
                       str(path), "--n-trials", "1")  # fmt: skip
    assert code == 2
    line = one_line(err)
    assert repr(str(path)) in line and option in line, line
    assert ".tmp" not in line


@pytest.fixture(scope="module")
def classifier_model(tmp_path_factory):
    """``autocat fit`` on a binary target with text labels: (data, model)."""
    folder = tmp_path_factory.mktemp("classifier")
    data, model = folder / "train.csv", folder / "m.autocat"
    binary().to_csv(data, index=False)
    assert cli.main(["fit", str(data), "--target", "y", "--n-trials", "1", "--cv",
                     "2", "-q", "--out", str(model)]) == 0  # fmt: skip
    return data, model


@pytest.mark.parametrize("which", ["DATA", "MODEL"])
def test_cli_predict_refuses_to_overwrite_its_inputs(capsys, classifier_model,
                                                     which):  # fmt: skip
    data, model = classifier_model
    target = data if which == "DATA" else model
    before = target.read_bytes()
    code, _, err = run(capsys, "predict", str(model), str(data), "--out", str(target))
    assert code == 2
    line = one_line(err)
    assert f"same file as {which}" in line, line
    assert target.read_bytes() == before


def test_cli_predict_writes_predictions_when_the_labels_have_another_type(
    capsys, classifier_model, tmp_path
):
    data, model = classifier_model
    batch = pd.read_csv(data)
    batch["y"] = np.arange(len(batch))  # integers, the model knows 'high' and 'low'
    batch_path, out = tmp_path / "batch.csv", tmp_path / "predictions.csv"
    batch.to_csv(batch_path, index=False)
    code, stdout, err = run(capsys, "predict", str(model), str(batch_path), "--out",
                            str(out))  # fmt: skip
    assert code == 0, err
    assert "could not score the labelled rows" in err and "'y'" in err
    predictions = pd.read_csv(out)
    assert len(predictions) == len(batch)
    assert set(predictions["y_predicted"]) <= {"high", "low"}
    assert stdout.startswith(f"{len(batch)} predictions written")


# --- start-up and interrupts ----------------------------------------------------


@pytest.mark.parametrize("where", ["build_parser", "read_table"])
def test_ctrl_c_is_one_line_and_exit_130(capsys, monkeypatch, data_csv, tmp_path,
                                        where):  # fmt: skip
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, where, interrupt)
    model = tmp_path / "m.autocat"
    code, _, err = run(capsys, "fit", str(data_csv), "--target", "y", "--out",
                       str(model))  # fmt: skip
    assert code == 130
    assert err.strip() == "autocat: interrupted"
    assert not model.exists()


def test_ctrl_c_in_the_first_trial_has_no_traceback(capsys, monkeypatch, data_csv,
                                                   tmp_path):  # fmt: skip
    def interrupt(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(optuna.Study, "optimize", interrupt)
    monkeypatch.setattr(optuna.Study, "ask", interrupt)
    model = tmp_path / "m.autocat"
    code, _, err = run(capsys, "fit", str(data_csv), "--target", "y", "--out",
                       str(model), "--n-trials", "1")  # fmt: skip
    assert code == 130
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == "autocat: interrupted"
    assert not model.exists()


def test_ctrl_c_inside_a_trial_has_no_traceback(capsys, monkeypatch, data_csv,
                                                tmp_path):  # fmt: skip
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(autocat.Recipe, "build_model", interrupt)
    model = tmp_path / "m.autocat"
    code, _, err = run(capsys, "fit", str(data_csv), "--target", "y", "--out",
                       str(model), "--n-trials", "2")  # fmt: skip
    assert code == 130
    assert "Traceback" not in err and "Trial 0 failed" not in err, err
    assert err.strip().splitlines()[-1] == "autocat: interrupted"
    assert not model.exists()


def test_import_autocat_is_lazy():
    import subprocess
    import sys

    code = (
        "import sys, autocat\n"
        "heavy = ['numpy', 'pandas', 'sklearn', 'optuna', 'xgboost', 'numba']\n"
        "before = [m for m in heavy if m in sys.modules]\n"
        "from autocat import cli\n"
        "cli.main(['--version'])\n"
        "after = [m for m in heavy if m in sys.modules]\n"
        "print(before, after, set(autocat.__all__) <= set(dir(autocat)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "[] [] True"


@pytest.mark.slow  # a fresh interpreter imports scikit-learn and numba: ~5 s
def test_public_objects_are_named_autocat_however_they_are_imported():
    import subprocess
    import sys

    code = (
        "import autocat._datetime as private, autocat._auto as auto\n"
        "print(private.DatetimeEncoder.__module__, auto.auto_fit.__module__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["autocat", "autocat"]


# --- out of memory in a trial -------------------------------------------------------


def test_out_of_memory_errors_are_fatal():
    import xgboost

    with pytest.raises(MemoryError) as numpy_error:
        np.empty(2**62, dtype=np.uint8)
    assert is_fatal_error(numpy_error.value)
    assert is_fatal_error(MemoryError())
    assert is_fatal_error(xgboost.core.XGBoostError("std::bad_alloc"))
    assert is_fatal_error(
        xgboost.core.XGBoostError("cudaErrorMemoryAllocation: out of memory")
    )
    wrapped = RuntimeError("trial 3 failed")
    wrapped.__cause__ = MemoryError()
    assert is_fatal_error(wrapped)
    assert "out of memory" in fatal_error_message(MemoryError("no room"))


@pytest.mark.parametrize(
    "error",
    [ValueError("bad value"), TypeError("no"), RuntimeError("out of memory")],
    ids=["ValueError", "TypeError", "RuntimeError_mentioning_memory"],
)
def test_other_errors_are_not_fatal(error):
    import xgboost

    assert not is_fatal_error(error)
    assert not is_fatal_error(xgboost.core.XGBoostError("Invalid Parameter format"))
