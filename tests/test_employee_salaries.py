from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import zipfile
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import autocat
from autocat import TableVectorizer
from autocat.datasets import load_employee_salaries

COLUMNS = [
    "gender",
    "department",
    "department_name",
    "division",
    "assignment_category",
    "employee_position_title",
    "date_first_hired",
    "year_first_hired",
    "current_annual_salary",
]


def test_table_shape_and_columns():
    df = load_employee_salaries()
    assert df.shape == (9228, 9)
    assert df.columns.tolist() == COLUMNS
    assert df["division"].nunique() == 694
    assert df["current_annual_salary"].notna().all()


def test_return_X_y():
    X, y = load_employee_salaries(return_X_y=True)
    assert X.columns.tolist() == COLUMNS[:-1]
    assert y.name == "current_annual_salary"
    assert len(X) == len(y) == 9228


def test_reachable_from_the_top_level_package():
    assert autocat.datasets.load_employee_salaries is load_employee_salaries


def test_file_ships_inside_the_package():
    path = resources.files("autocat.datasets").joinpath(
        "data", "employee_salaries.csv.gz"
    )
    assert path.is_file()
    assert path.read_bytes()[:2] == b"\x1f\x8b"  # gzip magic
    assert len(path.read_bytes()) < 200_000


def test_same_values_as_the_shared_copy(shared_task):
    shared, task = shared_task("employee_salaries")
    assert task["target"] == "current_annual_salary"
    pd.testing.assert_frame_equal(
        load_employee_salaries(), shared.drop(columns="is_eval")
    )


def test_vectorizer_plan_on_the_demo_table():
    X, _ = load_employee_salaries(return_X_y=True)
    vectorizer = TableVectorizer()
    out = vectorizer.fit_transform(X)
    assert vectorizer.column_kinds_ == {
        "gender": "low_cardinality",
        "department": "high_cardinality",
        "department_name": "high_cardinality",
        "division": "high_cardinality",
        "assignment_category": "low_cardinality",
        "employee_position_title": "high_cardinality",
        "date_first_hired": "datetime",
        "year_first_hired": "numeric",
    }
    names = vectorizer.get_feature_names_out().tolist()
    hired_year = out[:, names.index("date_first_hired_year")]
    np.testing.assert_array_equal(hired_year, X["year_first_hired"])


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("hatchling") is None, reason="hatchling is not installed"
)
def test_wheel_contains_the_data_file(tmp_path):
    root = Path(__file__).resolve().parents[1]
    source = tmp_path / "src"
    shutil.copytree(root / "autocat", source / "autocat",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    shutil.copy(root / "pyproject.toml", source)
    readme = root / "README.md"
    (source / "README.md").write_text(readme.read_text() if readme.exists() else "x")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps",
         "--no-build-isolation", "-q", "-w", str(tmp_path / "dist")],
        check=True,
    )  # fmt: skip
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    assert (
        "autocat/datasets/data/employee_salaries.csv.gz"
        in zipfile.ZipFile(wheel).namelist()
    )
