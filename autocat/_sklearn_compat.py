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
    "target_encoder_takes_splitter",
    "validate_params",
]


def target_encoder_takes_splitter() -> bool:
    """Return whether ``TargetEncoder(cv=...)`` takes a splitter (scikit-learn >= 1.9).

    Earlier versions take a number of folds with ``shuffle`` and ``random_state``,
    which 1.9 deprecates.
    """
    import sklearn

    major, minor = (int(part) for part in sklearn.__version__.split(".")[:2])
    return (major, minor) >= (1, 9)
