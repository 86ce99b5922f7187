"""A small dirty table for the integration tests: job titles never seen twice."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

RANKS = {"junior": 0.8, "senior": 1.3, "chief": 1.8, "deputy": 0.6}
ROLES = {
    "police officer": 60.0,
    "bus operator": 40.0,
    "nurse": 55.0,
    "librarian": 45.0,
    "software engineer": 90.0,
}


def make_dirty_table(n_rows: int, seed: int, *, first_unit: int = 0) -> pd.DataFrame:
    """Salaries explained by a dirty, high-cardinality job title.

    Each title is a rank, a role and a unit number: ``'senior nurse, unit 17'``;
    units are drawn from ``first_unit`` on, so that two tables built with
    distant ``first_unit`` share no title. The salary is the role's base times
    the rank's factor, plus a little noise and the years of service.
    """
    rng = np.random.default_rng(seed)
    ranks = rng.choice(list(RANKS), n_rows)
    roles = rng.choice(list(ROLES), n_rows)
    units = rng.integers(first_unit, first_unit + 10 * n_rows, n_rows)
    years = rng.integers(0, 30, n_rows)
    title = [f"{r} {j}, unit {u}" for r, j, u in zip(ranks, roles, units, strict=True)]
    salary = (
        np.array([ROLES[j] for j in roles]) * np.array([RANKS[r] for r in ranks])
        + 0.5 * years
        + rng.normal(0, 2.0, n_rows)
    )
    return pd.DataFrame(
        {
            "title": title,
            "department": rng.choice(["police", "transit", "health"], n_rows),
            "years": years,
            "salary": salary,
        }
    )


@pytest.fixture
def dirty_split():
    """``(X_train, y_train, X_new, y_new)``: the new rows' titles are all unseen."""
    train = make_dirty_table(300, 0)
    new = make_dirty_table(100, 1, first_unit=100_000)
    assert not set(train["title"]) & set(new["title"])
    y_train, y_new = train.pop("salary"), new.pop("salary")
    return train, y_train, new, y_new
