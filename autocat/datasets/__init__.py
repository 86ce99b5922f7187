"""Datasets: the bundled demo table and the paper's simulated dirty categories."""

from autocat.datasets._employee_salaries import load_employee_salaries
from autocat.datasets._simulations import make_dirty_categories

__all__ = ["load_employee_salaries", "make_dirty_categories"]

for _name in __all__:
    globals()[_name].__module__ = "autocat.datasets"
del _name
