"""Per-column overrides through auto_fit and the command line."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from autocat import auto_fit, cli


def _frame(n=80, seed=0):
    rng = np.random.default_rng(seed)
    jobs = rng.choice(["police officer", "bus operator", "nurse", "clerk"], n)
    df = pd.DataFrame(
        {
            "job": jobs,
            "zip": rng.integers(10_000, 10_050, n),
            "years": rng.integers(0, 30, n).astype(float),
        }
    )
    df["salary"] = df["years"] * 2.0 + (df["job"] == "nurse") * 10.0
    return df


def test_auto_fit_forwards_specific_transformers_to_every_recipe():
    df = _frame()
    specific = {"zip": "target", "job": "text"}
    result = auto_fit(
        df, "salary", n_trials=2, cv=2, show_progress=False,
        specific_transformers=specific,
    )  # fmt: skip
    vectorizer = result.pipeline_.named_steps["vectorizer"]
    assert vectorizer.column_kinds_["zip"] == "high_cardinality"
    assert type(vectorizer.transformers_["zip"]).__name__ == "TargetEncoder"
    assert vectorizer.column_kinds_["job"] == "text"
    plan = vectorizer.describe().set_index("column")
    assert plan.loc["zip", "reason"] == "set by the user"
    assert result.predict(df.head(3)).shape == (3,)


def test_auto_fit_rejects_an_unknown_column_before_searching():
    df = _frame()
    with pytest.raises(ValueError, match=r"\['salary'\] that X lacks"):
        auto_fit(df, "salary", n_trials=1, specific_transformers={"salary": "drop"})
    with pytest.raises(TypeError, match="must be a dict"):
        auto_fit(df, "salary", n_trials=1, specific_transformers=[("job", "drop")])


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def table_csv(tmp_path):
    path = tmp_path / "table.csv"
    _frame().to_csv(path, index=False)
    return path


def test_describe_with_columns(capsys, table_csv):
    code, out, err = run(
        capsys, "describe", str(table_csv), "--target", "salary", "--format", "json",
        "--column", "zip=target", "--column", "job=drop",
    )  # fmt: skip
    assert code == 0, err
    rows = {row["column"]: row for row in json.loads(out)["columns"]}
    assert rows["zip"]["transformer"] == "TargetEncoder"
    assert rows["job"]["kind"] == "dropped"
    assert rows["job"]["reason"] == "set by the user"
    assert rows["years"]["reason"] != "set by the user"


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--column", "job"], "expects COL=ENCODER"),
        (["--column", "job=hash"], "'hash' is not one of"),
        (["--column", "jobs=text"], "did you mean 'job'?"),
        (["--column", "zip=target"], "needs --target"),
    ],
)
def test_bad_columns_are_usage_errors(capsys, table_csv, argv, fragment):
    code, out, err = run(capsys, "describe", str(table_csv), *argv)
    assert code == 2 and out == ""
    assert fragment in err and len(err.strip().splitlines()) == 1


def test_fit_with_columns(capsys, table_csv, tmp_path):
    model = tmp_path / "m.autocat"
    code, _, err = run(
        capsys, "fit", str(table_csv), "--target", "salary", "--n-trials", "1",
        "--cv", "2", "-q", "--out", str(model), "--column", "zip=onehot",
    )  # fmt: skip
    assert code == 0, err
    from autocat import load

    vectorizer = load(model).pipeline_.named_steps["vectorizer"]
    assert vectorizer.column_kinds_["zip"] == "low_cardinality"
    code, _, err = run(
        capsys, "fit", str(table_csv), "--target", "salary", "--n-trials", "1",
        "--column", "salary=drop",
    )  # fmt: skip
    assert code == 2 and "not a feature column" in err
