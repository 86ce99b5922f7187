"""The one place that imports scikit-learn's private helpers.

scikit-learn's parameter validation and feature-name helpers are private but
stable across the versions autocat supports (>= 1.6). Importing them here only
means a change in scikit-learn breaks one module, not every estimator.
"""

from __future__ import annotations

from sklearn.base import _fit_context
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    Options,
    StrOptions,
    validate_params,
)
from sklearn.utils.validation import _check_feature_names_in

__all__ = [
    "HasMethods",
    "Interval",
    "Options",
    "StrOptions",
    "_check_feature_names_in",
    "_fit_context",
    "validate_params",
]
