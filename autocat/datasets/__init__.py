"""Datasets: the paper's simulated dirty categories (and bundled demo data)."""

from autocat.datasets._simulations import make_dirty_categories

__all__ = ["make_dirty_categories"]
