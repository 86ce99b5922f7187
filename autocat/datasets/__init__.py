"""Datasets: the bundled demo table and the paper's simulated dirty categories."""

from autocat.datasets._employee_salaries import load_employee_salaries

__all__ = ["load_employee_salaries"]
