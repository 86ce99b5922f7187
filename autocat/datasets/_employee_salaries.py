"""The Employee Salaries table, shipped inside the package for offline demos."""

from __future__ import annotations

from importlib import resources

import pandas as pd

__all__ = ["load_employee_salaries"]

_FILE = "employee_salaries.csv.gz"
TARGET = "current_annual_salary"
# Added by the repository the file comes from (25 rows flagged); not county data.
_NOT_COUNTY_DATA = ["is_eval"]


def load_employee_salaries(
    *, return_X_y: bool = False
) -> pd.DataFrame | tuple[pd.DataFrame, pd.Series]:
    """Load the Employee Salaries table of Montgomery County, MD (2016).

    9,228 employees: gender, department, division, assignment category,
    position title, date first hired, year first hired and the current annual
    salary, the regression target of Cerda & Varoquaux (2020). The values are
    raw: the hiring date is text (``"09/12/1986"``) and ``division`` (694
    distinct values) and ``employee_position_title`` (443) are dirty,
    high-cardinality strings. The file ships compressed inside the package
    (0.16 MiB), so this works offline.

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(X, y)``, the features and the ``current_annual_salary``
        target, instead of one table.

    Returns
    -------
    DataFrame of shape (9228, 9), or tuple of (DataFrame, Series)
        The table as :func:`pandas.read_csv` reads it, or ``(X, y)``.

    Notes
    -----
    Source: Montgomery County open data, dataset xj3h-s2i7 (Employee Salaries
    2016, public data), as the file ``employee_salaries.csv`` of the GitHub
    repository ``Seb1703/rpt_playground`` (commit 936ca98), which skrub's
    ``fetch_employee_salaries`` serves. That file's extra ``is_eval`` flag
    column, which is not county data, is left out.

    References
    ----------
    P. Cerda and G. Varoquaux, "Encoding high-cardinality string categorical
    variables", IEEE Transactions on Knowledge and Data Engineering, 2020.

    Examples
    --------
    >>> from autocat.datasets import load_employee_salaries
    >>> X, y = load_employee_salaries(return_X_y=True)
    >>> X.shape, y.name
    ((9228, 8), 'current_annual_salary')
    >>> X["employee_position_title"].nunique()
    443
    >>> X["date_first_hired"].iloc[0]
    '09/03/1991'
    """
    path = resources.files("autocat.datasets").joinpath("data", _FILE)
    with resources.as_file(path) as local:
        frame = pd.read_csv(local, compression="gzip", low_memory=False)
    frame = frame.drop(columns=_NOT_COUNTY_DATA)
    if return_X_y:
        return frame.drop(columns=[TARGET]), frame[TARGET]
    return frame
