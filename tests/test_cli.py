"""The command line, called in process: exit codes, stdout and one-line errors."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest

from autocat import _cli_tables, cli


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(err: str, *fragments: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("autocat: error: "), err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


@pytest.fixture
def salaries_csv(tmp_path):
    """A tiny salary table with a dirty job-title column, as CSV."""
    rng = np.random.default_rng(0)
    titles = ["Police Officer II", "police officer III", "Bus Operator", "Fire Fighter"]
    frame = pd.DataFrame(
        {
            "title": rng.choice(titles, 40),
            "years": rng.integers(0, 30, 40),
            "Salary": rng.normal(60_000, 5_000, 40).round(),
        }
    )
    path = tmp_path / "salaries.csv"
    frame.to_csv(path, index=False)
    return path


# --- parsing and usage errors -------------------------------------------------


def test_help_and_version(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for command in ("demo", "fit", "predict", "describe"):
        assert command in out
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.startswith("autocat ")


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        ([], "required: COMMAND"),
        (["train"], "invalid choice: 'train'"),
        (["fit", "data.csv"], "--target"),
        (["fit", "data.csv", "--target", "y", "--time-budget", "-3"], "must be > 0"),
        (["fit", "data.csv", "--target", "y", "--n-trials", "zero"], "integer"),
        (["fit", "data.csv", "--target", "y", "--n-trials", "0"], "must be >= 1"),
        (["fit", "data.csv", "--target", "y", "--cv", "1"], "needs 2 folds"),
        (["fit", "data.csv", "--target", "y", "--n-jobs", "0"], "-1 (all cores)"),
        (["fit", "data.csv", "--target", "y", "--n-jobs", "-2"], "-1 (all cores)"),
        (["fit", "data.csv", "--target", "y", "--seed", "-1"], "in [0, 2**32)"),
        (["fit", "data.csv", "--target", "y", "--seed", "4294967296"], "2**32"),
        (["describe", "data.csv", "--format", "xml"], "invalid choice: 'xml'"),
    ],
)
def test_usage_errors_are_one_line_with_code_2(capsys, argv, fragment):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert_one_line_error(err, fragment, "--help")


def test_module_entry_point_is_the_cli():
    import autocat.__main__ as entry

    assert entry.main is cli.main


# --- reading files ------------------------------------------------------------


def test_missing_file_is_a_usage_error(capsys, tmp_path):
    code, _, err = run(capsys, "describe", str(tmp_path / "nope.csv"))
    assert code == 2
    assert_one_line_error(err, "no such file", "nope.csv")


def test_unknown_extension_is_a_usage_error(capsys, tmp_path):
    path = tmp_path / "table.xlsx"
    path.write_bytes(b"PK\x03\x04")
    code, _, err = run(capsys, "describe", str(path))
    assert code == 2
    assert_one_line_error(err, "table.xlsx", ".csv", ".parquet")


def test_folder_is_a_usage_error(capsys, tmp_path):
    code, _, err = run(capsys, "describe", str(tmp_path))
    assert code == 2
    assert_one_line_error(err, "is a folder")


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b"", "is empty"),
        (b"a,b,target\n", "no rows"),
        (b"\xff\xfe\x00\x00binary\x00garbage", "cannot read"),
    ],
)
def test_unreadable_or_empty_csv_is_a_runtime_error(
    capsys, tmp_path, content, fragment
):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    code, out, err = run(capsys, "fit", str(path), "--target", "target")
    assert code == 1
    assert out == ""
    assert_one_line_error(err, fragment, "bad.csv")


def test_corrupt_parquet_is_a_runtime_error(capsys, tmp_path):
    path = tmp_path / "bad.parquet"
    path.write_bytes(b"this is not parquet")
    code, _, err = run(capsys, "describe", str(path))
    assert code == 1
    assert_one_line_error(err, "cannot read", "bad.parquet")


def test_read_table_reads_csv_gz_tsv_and_parquet(tmp_path):
    frame = pd.DataFrame({"city": ["Paris", "Lyon", None], "n": [1.0, 2.5, 3.0]})
    with gzip.open(tmp_path / "t.csv.gz", "wt") as stream:
        frame.to_csv(stream, index=False)
    frame.to_csv(tmp_path / "t.tsv", sep="\t", index=False)
    frame.to_parquet(tmp_path / "t.parquet")
    for name in ("t.csv.gz", "t.tsv", "t.parquet"):
        read = cli.read_table(tmp_path / name)
        assert read["city"].tolist()[:2] == ["Paris", "Lyon"], name
        # CSV cells stay text until the vectorizer reads them
        assert read["n"].astype(float).tolist() == [1.0, 2.5, 3.0], name


def test_write_table_round_trips(tmp_path):
    frame = pd.DataFrame({"y_predicted": [1.5, 2.0]})
    for name in ("p.csv", "p.parquet"):
        cli.write_table(frame, tmp_path / name)
        read = cli.read_table(tmp_path / name)
        pd.testing.assert_frame_equal(read.astype(float), frame)


# --- target checks --------------------------------------------------------------


def test_wrong_target_suggests_the_close_column(capsys, salaries_csv):
    code, out, err = run(capsys, "fit", str(salaries_csv), "--target", "salary")
    assert code == 2
    assert out == ""
    assert_one_line_error(err, "'salary' is not a column", "Did you mean 'Salary'?")


def test_misspelt_target_suggests_the_close_column(capsys, salaries_csv):
    code, _, err = run(capsys, "fit", str(salaries_csv), "--target", "yeers")
    assert code == 2
    assert_one_line_error(err, "Did you mean 'years'?", "Columns: ['title'")


def test_far_target_lists_the_columns(capsys, salaries_csv):
    code, _, err = run(capsys, "fit", str(salaries_csv), "--target", "zzz")
    assert code == 2
    assert "Did you mean" not in err
    assert_one_line_error(err, "Columns: ['title', 'years', 'Salary']")


def test_single_valued_target_is_a_runtime_error(capsys, tmp_path):
    path = tmp_path / "constant.csv"
    pd.DataFrame({"x": ["a", "b", "c"], "y": [1, 1, None]}).to_csv(path, index=False)
    code, _, err = run(capsys, "fit", str(path), "--target", "y")
    assert code == 1
    assert_one_line_error(err, "single distinct value", "nothing to predict")


def test_all_missing_target_is_a_runtime_error(capsys, tmp_path):
    path = tmp_path / "missing.csv"
    pd.DataFrame({"x": ["a", "b"], "y": [None, None]}).to_csv(path, index=False)
    code, _, err = run(capsys, "fit", str(path), "--target", "y")
    assert code == 1
    assert_one_line_error(err, "missing in all 2 rows")


def test_target_alone_is_a_runtime_error(capsys, tmp_path):
    path = tmp_path / "alone.csv"
    pd.DataFrame({"y": [1, 2, 3]}).to_csv(path, index=False)
    code, _, err = run(capsys, "fit", str(path), "--target", "y")
    assert code == 1
    assert_one_line_error(err, "only the target column")


def test_debug_prints_the_traceback(capsys, tmp_path):
    path = tmp_path / "empty.csv"
    path.write_bytes(b"")
    code, _, err = run(capsys, "fit", str(path), "--target", "y", "--debug")
    assert code == 1
    assert "Traceback (most recent call last)" in err
    assert err.strip().splitlines()[-1].startswith("autocat: error: ")


def test_output_folder_must_exist(capsys, salaries_csv, tmp_path):
    out = tmp_path / "nowhere" / "model.autocat"
    code, _, err = run(capsys, "fit", str(salaries_csv), "--target", "Salary",
                       "--out", str(out))  # fmt: skip
    assert code == 2
    assert_one_line_error(err, "does not exist")


def test_json_cleaning_replaces_non_finite_numbers():
    raw = {"a": float("nan"), "b": [np.float32(1.5), np.inf]}
    cleaned = _cli_tables.clean_json(raw)
    assert json.dumps(cleaned) == '{"a": null, "b": [1.5, null]}'


# --- describe -------------------------------------------------------------------


def test_describe_prints_the_plan(capsys, salaries_csv):
    code, out, err = run(capsys, "describe", str(salaries_csv), "--target", "Salary")
    assert code == 0, err
    assert "40 rows x 2 columns" in out
    assert "title" in out and "years" in out and "Salary" not in out
    assert "low_cardinality" in out and "numeric" in out


def test_describe_json_from_parquet(capsys, salaries_csv, tmp_path):
    path = tmp_path / "salaries.parquet"
    pd.read_csv(salaries_csv).to_parquet(path)
    code, out, _ = run(capsys, "describe", str(path), "--format", "json",
                       "--cardinality-threshold", "2")  # fmt: skip
    assert code == 0
    payload = json.loads(out)
    kinds = {row["column"]: row["kind"] for row in payload["columns"]}
    assert kinds == {"title": "high_cardinality", "years": "numeric",
                     "Salary": "numeric"}  # fmt: skip
    assert payload["n_rows"] == 40


def test_describe_wrong_target_is_a_usage_error(capsys, salaries_csv):
    code, _, err = run(capsys, "describe", str(salaries_csv), "--target", "titel")
    assert code == 2
    assert_one_line_error(err, "Did you mean 'title'?")


# --- fit, predict, report (real auto_fit, tiny budgets) ---------------------------


@pytest.fixture
def fitted_model(capsys, salaries_csv, tmp_path):
    """``autocat fit`` on the tiny table: (exit code, stdout, model, report)."""
    model, report = tmp_path / "m.autocat", tmp_path / "r.html"
    code, out, err = run(capsys, "fit", str(salaries_csv), "--target", "Salary",
                         "--n-trials", "1", "--cv", "2", "--seed", "3", "-q",
                         "--out", str(model), "--report", str(report))  # fmt: skip
    assert code == 0, err
    return out, model, report


def test_fit_writes_model_and_report_and_prints_the_seed(fitted_model):
    out, model, report = fitted_model
    assert "task: regression (target 'Salary')" in out
    assert "seed: 3" in out
    assert f"model written to {model}" in out
    assert f"report written to {report}" in out
    assert model.stat().st_size > 0
    html = report.read_text()
    assert "predicting <code>Salary</code>" in html
    assert "<script" not in html


def test_predict_to_stdout_and_file(capsys, fitted_model, salaries_csv, tmp_path):
    _, model, _ = fitted_model
    code, out, err = run(capsys, "predict", str(model), str(salaries_csv))
    assert code == 0, err
    lines = out.strip().splitlines()
    assert lines[0] == "Salary_predicted" and len(lines) == 41
    float(lines[1])
    assert "holds the target 'Salary': r2 = " in err  # labelled rows are scored

    target = tmp_path / "predictions.parquet"
    code, out, _ = run(capsys, "predict", str(model), str(salaries_csv),
                       "--out", str(target), "--format", "json")  # fmt: skip
    assert code == 0
    assert json.loads(out) == {"output": str(target), "n_rows": 40}
    assert pd.read_parquet(target).shape == (40, 1)


def test_predict_errors(capsys, fitted_model, salaries_csv, tmp_path):
    _, model, report = fitted_model
    code, _, err = run(capsys, "predict", str(model), str(salaries_csv), "--proba")
    assert code == 2
    assert_one_line_error(err, "--proba needs a classification model")

    code, _, err = run(capsys, "predict", str(report), str(salaries_csv))
    assert code == 1
    assert_one_line_error(err, "cannot load model", "r.html")

    code, _, err = run(capsys, "predict", str(tmp_path / "none"), str(salaries_csv))
    assert code == 2
    assert_one_line_error(err, "no such model file")

    partial = tmp_path / "partial.csv"
    pd.read_csv(salaries_csv).drop(columns=["years"]).to_csv(partial, index=False)
    code, _, err = run(capsys, "predict", str(model), str(partial))
    assert code == 1
    assert_one_line_error(err, "lacks 1 column(s)", "'years'")


class _Payload:
    """Unpickling this creates the file at ``canary``."""

    def __init__(self, canary):
        self.canary = canary

    def __reduce__(self):
        return (open, (str(self.canary), "w"))


def test_predict_refuses_a_legacy_pickle_without_running_it(
    capsys, salaries_csv, tmp_path
):
    import hashlib
    import pickle

    from autocat._persistence import MAGIC, _versions

    canary = tmp_path / "canary"
    payload = pickle.dumps(_Payload(canary))
    header = json.dumps(
        {"format": 1, "versions": _versions(), "size": len(payload),
         "sha256": hashlib.sha256(payload).hexdigest()}
    ).encode()  # fmt: skip
    model = tmp_path / "old.pkl"
    model.write_bytes(MAGIC + len(header).to_bytes(4, "big") + header + payload)
    code, out, err = run(capsys, "predict", str(model), str(salaries_csv))
    assert code == 1 and out == ""
    assert_one_line_error(
        err, "old.pkl'", "pickle", "can run any code", "refit it with 'autocat fit'",
        "autocat.load(path, trusted=True) and save it again",
    )  # fmt: skip
    assert not canary.exists()


def test_fit_json_and_predict_proba_for_a_classifier(capsys, tmp_path):
    rng = np.random.default_rng(0)
    jobs = rng.choice(["police officer", "bus operator", "nurse", "nurse aide"], 60)
    frame = pd.DataFrame({"job": jobs, "years": rng.integers(0, 30, 60)})
    frame["senior"] = np.where(frame["years"] > 15, "yes", "no")
    data, model = tmp_path / "staff.csv", tmp_path / "staff.autocat"
    frame.to_csv(data, index=False)
    code, out, err = run(capsys, "fit", str(data), "--target", "senior",
                         "--n-trials", "1", "--cv", "2", "--format", "json", "-q",
                         "--out", str(model))  # fmt: skip
    assert code == 0, err
    payload = json.loads(out)
    assert payload["task"] == "binary"
    assert payload["metric"] == "average_precision"
    assert payload["seed"] == 0
    assert payload["model"] == str(model) and payload["report"] is None
    assert 0 <= payload["cv_score"] <= 1

    code, out, err = run(capsys, "predict", str(model), str(data), "--proba",
                         "--format", "json")  # fmt: skip
    assert code == 0, err
    records = json.loads(out)
    assert len(records) == 60
    assert set(records[0]) == {"senior_predicted", "proba_no", "proba_yes"}
    assert records[0]["proba_no"] + records[0]["proba_yes"] == pytest.approx(1)
    assert {r["senior_predicted"] for r in records} <= {"yes", "no"}


def test_fit_default_model_name(capsys, salaries_csv, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "fit", str(salaries_csv), "--target", "Salary",
                         "--n-trials", "1", "--cv", "2", "-q")  # fmt: skip
    assert code == 0, err
    assert "model written to salaries.autocat" in out
    assert (tmp_path / "salaries.autocat").exists()


# --- demo -------------------------------------------------------------------------


def test_demo_on_a_sample_of_the_bundled_table(capsys, tmp_path, monkeypatch):
    import autocat
    import autocat._final

    monkeypatch.chdir(tmp_path)
    # the kernels are compiled before the search starts, outside its budget
    calls = []
    warm, fit = autocat._final.warm_kernels, autocat.auto_fit
    monkeypatch.setattr(
        autocat._final, "warm_kernels", lambda: calls.append("warm") or warm()
    )
    monkeypatch.setattr(
        autocat, "auto_fit", lambda *a, **k: calls.append("auto_fit") or fit(*a, **k)
    )
    code, out, err = run(capsys, "demo", "--rows", "200", "--n-trials", "1",
                         "--seed", "7", "--format", "json")  # fmt: skip
    assert code == 0, err
    assert calls == ["warm", "auto_fit"]
    payload = json.loads(out)
    assert payload["target"] == "current_annual_salary"
    assert payload["task"] == "regression" and payload["seed"] == 7
    report = tmp_path / cli.DEMO_REPORT
    assert payload["report"] == str(report.resolve())
    assert "Employee Salaries (200 rows" in err
    html = report.read_text()
    assert "employee_position_title" in html


@pytest.mark.slow
def test_demo_with_its_defaults_finishes_in_time(capsys, tmp_path, monkeypatch):
    # the README: the demo searches "for about 40 s", then writes the report
    import time

    from autocat._final import warm_kernels

    monkeypatch.chdir(tmp_path)
    warm_kernels()  # a first run compiles them first, outside the search's budget
    tic = time.perf_counter()
    code, out, err = run(capsys, "demo", "-q", "--format", "json")
    elapsed = time.perf_counter() - tic
    assert code == 0, err
    payload = json.loads(out)
    assert payload["seed"] == 0 and payload["n_trials"] >= 2
    assert payload["report"] == str((tmp_path / cli.DEMO_REPORT).resolve())
    # auto_fit keeps to its budget (within 10%, refit included) ...
    assert payload["elapsed_s"] <= 1.1 * cli.DEMO_TIME_BUDGET, payload["elapsed_s"]
    # ... and loading the data and writing the report add at most half of it
    assert elapsed <= 1.5 * cli.DEMO_TIME_BUDGET, elapsed
    # the search found a model, far better than the mean
    assert payload["cv_score"] > 0.8, payload["cv_score"]


def test_quiet_silences_logs_and_handlers_do_not_leak(
    capsys, fitted_model, salaries_csv
):
    import logging

    _, model, _ = fitted_model
    logger = logging.getLogger("autocat")
    handlers = list(logger.handlers)
    code, out, err = run(capsys, "predict", str(model), str(salaries_csv), "-q")
    assert code == 0 and err == ""
    assert out.startswith("Salary_predicted")
    code, _, err = run(capsys, "-v", "predict", str(model), str(salaries_csv))
    assert code == 0 and "holds the target" in err
    assert logger.handlers == handlers


def test_predict_reordered_columns_and_unseen_labels(capsys, tmp_path):
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(
        {"job": rng.choice(["nurse", "driver", "clerk"], 50), "x": rng.normal(size=50)}
    )
    frame["kind"] = np.where(frame["x"] > 0, "up", "down")
    data, model = tmp_path / "train.csv", tmp_path / "m.autocat"
    frame.to_csv(data, index=False)
    code, _, err = run(capsys, "fit", str(data), "--target", "kind", "--n-trials",
                       "1", "--cv", "2", "-q", "--out", str(model))  # fmt: skip
    assert code == 0, err
    new = frame[["x", "kind", "job"]].copy()  # other order, an unseen label
    new.loc[0, "kind"] = "sideways"
    new_path = tmp_path / "new.csv"
    new.to_csv(new_path, index=False)
    code, out, err = run(capsys, "predict", str(model), str(new_path))
    assert code == 0, err
    assert "could not score the labelled rows" in err
    assert len(out.strip().splitlines()) == 51


# --- messages for command-line users ------------------------------------------------


@pytest.mark.parametrize(
    ("api", "cli_text"),
    [
        (
            "Pass another study_name= to start a new study.",
            "Pass another --study-name to start a new study.",
        ),
        ("Use task='binary' or 'multiclass'.", "Use --task binary or 'multiclass'."),
        (
            "No trial finished; raise time_budget or pass n_trials.",
            "No trial finished; raise --time-budget or pass --n-trials.",
        ),
        (
            "Cannot open it, given as storage= (x).",
            "Cannot open it, given as --storage (x).",
        ),
        (
            "metric='r2' cannot score a binary task.",
            "--metric r2 cannot score a binary task.",
        ),
        ("Damaged file. Pass strict=False to load anyway.", "Damaged file."),
    ],
)
def test_api_options_become_cli_options(api, cli_text):
    assert cli.for_cli(api) == cli_text


def test_fit_help_lists_the_options_that_messages_point_to(capsys):
    code, out, _ = run(capsys, "fit", "--help")
    assert code == 0
    options = ["--task", "--metric", "--cv", "--n-jobs", "--storage", "--study-name"]
    for option in [*options, "--time-budget", "--n-trials", "--seed"]:
        assert option in out, option


def test_predict_scores_a_target_with_stray_tokens_as_fit_read_it(capsys, tmp_path):
    # Amounts with "unknown" on a few rows: fit reads the tokens as missing;
    # predict leaves those rows unscored instead of refusing to score any.
    rng = np.random.default_rng(0)
    price = rng.normal(100, 20, 80)
    total = [f"${v:,.2f}" for v in 30 * price + rng.normal(0, 100, 80)]
    total[:3] = ["unknown"] * 3
    table = pd.DataFrame({"price": price.round(2), "total": total})
    path, model = tmp_path / "totals.csv", tmp_path / "totals.autocat"
    table.to_csv(path, index=False)
    code, _, err = run(capsys, "fit", str(path), "--target", "total", "--n-trials",
                       "1", "--cv", "2", "-q", "--out", str(model))  # fmt: skip
    assert code == 0, err
    code, out, err = run(capsys, "predict", str(model), str(path))
    assert out.startswith("total_predicted")
    assert code == 0, err
    assert "could not score" not in err
    assert "on its 77 labelled rows" in err


def test_predict_scores_a_target_written_with_decimal_commas(capsys, tmp_path):
    # A ';'-separated European file: the target reads "196,17". fit reads it as
    # numbers; predict must read the labelled rows the same way to score them.
    rng = np.random.default_rng(0)
    price, noise = rng.normal(100, 20, 80), rng.normal(0, 8, 80)
    table = pd.DataFrame(
        {
            "city": rng.choice(["Zürich", "Genève", "Bâle"], 80),
            "price": [f"{v:.2f}".replace(".", ",") for v in price],
            "total": [f"{v:.2f}".replace(".", ",") for v in price + noise],
        }
    )
    path, model = tmp_path / "eu.csv", tmp_path / "eu.autocat"
    table.to_csv(path, sep=";", index=False)
    code, _, err = run(capsys, "fit", str(path), "--target", "total", "--n-trials",
                       "1", "--cv", "2", "-q", "--out", str(model))  # fmt: skip
    assert code == 0, err
    code, out, err = run(capsys, "predict", str(model), str(path))
    assert code == 0, err
    assert out.startswith("total_predicted") and "could not score" not in err
    r2 = float(err.split("r2 = ")[1].split()[0])
    assert r2 > 0.5  # the price plus noise: a model that reads the target scores


def test_fit_target_transform_log_learns_the_log_and_says_errors_in_cli_words(
    capsys, tmp_path
):
    from autocat import load
    from autocat._log_target import LogTargetRegressor

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"job": rng.choice(["nurse", "clerk", "officer"], 80),
                          "years": rng.integers(0, 30, 80)})  # fmt: skip
    frame["pay"] = np.exp(frame["years"] / 10 + rng.normal(0, 0.2, 80))
    data, model = tmp_path / "pay.csv", tmp_path / "pay.autocat"
    frame.to_csv(data, index=False)
    code, _, err = run(capsys, "fit", str(data), "--target", "pay", "--n-trials", "1",
                       "--cv", "2", "-q", "--target-transform", "log",
                       "--out", str(model))  # fmt: skip
    assert code == 0, err
    assert type(load(model).pipeline_[-1]) is LogTargetRegressor
    frame.assign(pay=frame["pay"] - 2).to_csv(data, index=False)
    code, _, err = run(capsys, "fit", str(data), "--target", "pay", "--n-trials", "1",
                       "-q", "--target-transform", "log")  # fmt: skip
    assert code == 1
    assert_one_line_error(err, "--target-transform log needs a target of finite")
