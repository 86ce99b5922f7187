"""The CLI reads files as they are written: text kept, only empty cells missing,
separator and encoding detected, ragged rows named; text targets of numbers."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from autocat import cli
from autocat._target import infer_task, split_target


def _describe(capsys, path, *options):
    code = cli.main(["describe", str(path), "--format", "json", *options])
    out, err = capsys.readouterr()
    return code, out, err


def test_leading_zeros_and_na_like_strings_stay_values(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(
        "zip,country,level,note\n02134,NA,High,None\n2134,US,None,null\n"
        "00123,FR,Low,n/a\n,DE,High,\n"
    )
    frame = cli.read_table(path)
    assert frame["zip"].tolist()[:3] == ["02134", "2134", "00123"]
    assert frame["country"].tolist() == ["NA", "US", "FR", "DE"]
    assert frame["level"].tolist() == ["High", "None", "Low", "High"]
    assert frame["note"].tolist()[:3] == ["None", "null", "n/a"]
    # only empty cells are missing
    assert frame.isna().sum().tolist() == [1, 0, 0, 1]
    pandas_like = cli.read_table(path, na_values="pandas")
    assert pandas_like["country"].isna().tolist() == [True, False, False, False]
    assert pandas_like["note"].isna().all()


def test_three_class_target_with_none_keeps_its_rows(tmp_path):
    path = tmp_path / "t.csv"
    levels = ["High", "Low", "None"] * 20
    pd.DataFrame({"x": range(60), "level": levels}).to_csv(path, index=False)
    _, y, _ = split_target(cli.read_table(path), "level")
    assert len(y) == 60
    assert infer_task(y)[0] == "multiclass"
    assert sorted(set(y)) == ["High", "Low", "None"]


def test_money_written_as_text_in_the_target_is_a_regression(tmp_path):
    path = tmp_path / "t.csv"
    prices = [f'"${v:,.2f}"' for v in np.linspace(900, 250_000, 40)]
    path.write_text("x,price\n" + "".join(f"{i},{p}\n" for i, p in enumerate(prices)))
    _, y, _ = split_target(cli.read_table(path), "price")
    assert y.dtype == np.float64
    assert y[0] == 900.0 and y[-1] == 250_000.0
    assert infer_task(y)[0] == "regression"
    _, counts, _ = split_target(
        pd.DataFrame({"x": [1, 2, 3], "n": ["100,235", "7", "12"]}), "n"
    )
    assert counts.tolist() == [100235, 7, 12]


@pytest.mark.parametrize(
    ("content", "line", "found"),
    [
        ("a,b,c\n1,2,3,4\n5,6,7\n", 2, 4),  # one extra field on the first row
        ("a,b,c\n1,2,3\n5,6\n", 3, 2),
        ('a,b,c\n1,"x\ny",3\n4,5,6,7\n', 4, 4),  # a quoted line break counts
    ],
)
def test_ragged_rows_are_an_error_naming_the_line(
    capsys, tmp_path, content, line, found
):
    path = tmp_path / "ragged.csv"
    path.write_text(content)
    code, out, err = _describe(capsys, path)
    assert code == 1
    assert out == ""
    assert f"line {line} has {found} field(s) but the header has 3" in err
    assert "ragged.csv" in err


@pytest.mark.parametrize("sep", [";", "\t", "|"])
def test_separator_is_detected(tmp_path, sep):
    path = tmp_path / "t.csv"
    rows = [sep.join(["city", "amount", "when"])]
    rows += [sep.join([c, f"{i},5", "2020-01-0" + str(1 + i % 9)])
             for i, c in enumerate(["Paris", "Lyon", "Nice"] * 5)]  # fmt: skip
    path.write_text("\n".join(rows) + "\n")
    frame = cli.read_table(path)
    assert list(frame.columns) == ["city", "amount", "when"]
    assert frame["amount"][1] == "1,5"


def test_separator_and_encoding_flags(capsys, tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes("ville:prix\nSète:3\nNîmes:4\nSète:5\n".encode("cp1252"))
    code, out, err = _describe(capsys, path, "--sep", ":", "--encoding", "cp1252")
    assert code == 0, err
    plan = {row["column"]: row for row in json.loads(out)["columns"]}
    assert set(plan) == {"ville", "prix"}
    frame = cli.read_table(path, sep=":", encoding="cp1252")
    assert frame["ville"].tolist() == ["Sète", "Nîmes", "Sète"]
    code, _, err = _describe(capsys, path, "--encoding", "no-such-codec")
    assert code == 2 and "no-such-codec" in err


def test_encoding_is_detected(tmp_path):
    latin = tmp_path / "latin.csv"
    latin.write_bytes("ville,n\nSète,1\nNîmes,2\n".encode("latin-1"))
    assert cli.read_table(latin)["ville"].tolist() == ["Sète", "Nîmes"]
    bom = tmp_path / "bom.csv"
    bom.write_bytes("\ufeffville,n\nSète,1\n".encode())
    assert list(cli.read_table(bom).columns) == ["ville", "n"]


def test_describe_reads_codes_and_numbers_from_text(capsys, tmp_path):
    path = tmp_path / "t.csv"
    rng = np.random.default_rng(0)
    zips = [f"{z:05d}" for z in rng.integers(1000, 1050, 300)]  # ~50 distinct
    ages = [str(a) for a in rng.integers(20, 80, 300)]
    ages[3] = "unknown"
    pd.DataFrame({"zip": zips, "age": ages}).to_csv(path, index=False)
    code, out, err = _describe(capsys, path)
    assert code == 0, err
    plan = {row["column"]: row for row in json.loads(out)["columns"]}
    assert plan["zip"]["kind"] == "high_cardinality"
    assert "leading zeros" in plan["zip"]["reason"]
    assert plan["age"]["kind"] == "numeric"
    assert "'unknown'" in plan["age"]["reason"]
