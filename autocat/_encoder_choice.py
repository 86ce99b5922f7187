"""Which encoder a column gets: encoder names, per-column overrides, target encoding.

:class:`~autocat.TableVectorizer` decides a column's kind with
:mod:`autocat._column_kinds`; this module turns the user's choices (encoder names,
``specific_transformers``) into decisions and unfitted encoders, and holds the
target-encoding rules (target type, cross-fitting folds).
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.preprocessing import OneHotEncoder, TargetEncoder
from sklearn.utils.multiclass import type_of_target

from autocat._categorical import CategoryCodes
from autocat._column_kinds import (
    Decision,
    decimal_comma,
    detect_date_format,
    detect_time_format,
    stringify,
)
from autocat._dataframe import series_values
from autocat._datetime import DatetimeEncoder
from autocat._minhash import MinHashEncoder
from autocat._parsing import DECIMAL_COMMA
from autocat._sklearn_compat import target_encoder_takes_splitter
from autocat._text import TextEncoder

__all__ = [
    "BY_THE_USER",
    "ENCODER_NAMES",
    "SPECIFIC_KINDS",
    "check_specific",
    "check_y",
    "fit_transform",
    "named_encoder",
    "resolve_encoder",
    "target_type",
    "user_decision",
]

#: Encoders named by ``high_cardinality``, ``text`` and ``specific_transformers``.
ENCODER_NAMES = ("minhash", "gamma_poisson", "target", "text")
#: What ``specific_transformers`` may name, and the kind each gives a column.
SPECIFIC_KINDS = {
    "minhash": "high_cardinality",
    "gamma_poisson": "high_cardinality",
    "target": "high_cardinality",
    "text": "text",
    "onehot": "low_cardinality",
    "numeric": "numeric",
    "passthrough": "numeric",
    "datetime": "datetime",
    "drop": "dropped",
}
#: The reason :meth:`TableVectorizer.describe` gives for an override.
BY_THE_USER = "set by the user"
# Numeric targets with more distinct values are continuous for target encoding.
_MAX_NUMERIC_CLASSES = 20


def check_specific(specific: dict[Any, Any] | None, names: list[str]) -> dict[str, Any]:
    """Return ``specific_transformers`` keyed by column name, or raise a clear error.

    Examples
    --------
    >>> from autocat._encoder_choice import check_specific
    >>> check_specific({"title": "text"}, ["title", "salary"])
    {'title': 'text'}
    """
    if specific is not None and not isinstance(specific, dict):
        raise TypeError(
            "specific_transformers must be a dict {column: choice}, got "
            f"{type(specific).__name__}: {specific!r}."
        )
    specific = specific or {}
    unknown = [str(c) for c in specific if str(c) not in names]
    if unknown:
        more = " ..." if len(names) > 20 else ""
        raise ValueError(
            f"specific_transformers names column(s) {unknown} that X lacks. "
            f"Columns of X: {names[:20]}{more}."
        )
    checked = {}
    for column, choice in specific.items():
        if isinstance(choice, str):
            if choice not in SPECIFIC_KINDS:
                raise ValueError(
                    f"specific_transformers[{column!r}] must be one of "
                    f"{sorted(SPECIFIC_KINDS)} or a transformer, got {choice!r}."
                )
        elif isinstance(choice, type) or not (
            hasattr(choice, "fit") and hasattr(choice, "transform")
        ):
            raise TypeError(
                f"specific_transformers[{column!r}] must be one of "
                f"{sorted(SPECIFIC_KINDS)} or a transformer instance (with fit and "
                f"transform), got {choice!r}."
            )
        checked[str(column)] = choice
    return checked


def check_y(y: Any, n_rows: int, needs_y: bool) -> np.ndarray | None:
    """Return ``y`` as a 1-D array when it may serve target encoding, else None."""
    if y is None:
        if needs_y:
            raise ValueError(
                "TableVectorizer was asked for target encoding ('target' in "
                "high_cardinality, text or specific_transformers) but fit got no "
                "target: call fit(X, y) or fit_transform(X, y)."
            )
        return None
    y = series_values(y)
    if y.ndim != 1 or len(y) != n_rows:
        if not needs_y:  # y is ignored then: accept what scikit-learn accepts
            return None
        raise ValueError(
            f"y must be 1-D with one value per row of X ({n_rows}); got shape "
            f"{y.shape}."
        )
    if needs_y and pd.isna(y).any():
        raise ValueError(
            f"y has {int(pd.isna(y).sum())} missing value(s); target encoding needs "
            "a target for every row. Drop those rows first."
        )
    if y.dtype.kind in "iu" and y.dtype.itemsize < 8:
        # the same values, widened: scikit-learn's target encoding fails on
        # int8 and int16 targets (pandas' category codes are int8)
        y = y.astype(np.int64)
    return y


def user_decision(
    name: str, family: str, uniques: np.ndarray, decision: Decision, spec: Any
) -> Decision:
    """Return the decision of a column the user set in ``specific_transformers``.

    ``decision`` is the automatic one (taken with dropping disabled); a
    transformer keeps its reading, a name sets the kind and its reading.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._column_kinds import Decision
    >>> from autocat._encoder_choice import user_decision
    >>> automatic = Decision("numeric", "numeric values kept as float")
    >>> user_decision("zip", "numeric", np.array([2134, 10001]), automatic, "target")
    Decision(kind='high_cardinality', reason='set by the user', conversion='text', \
fmt=None, tokens=(), as_number=False, identifier=False)
    """
    if not isinstance(spec, str):  # a transformer: the automatic reading
        return Decision(decision.kind, BY_THE_USER, decision.conversion, decision.fmt)
    kind = SPECIFIC_KINDS[spec]
    if kind in ("dropped", "high_cardinality", "text", "low_cardinality"):
        return Decision(kind, BY_THE_USER, None if kind == "dropped" else "text")
    if kind == "numeric":
        if family in ("datetime", "time"):
            raise ValueError(
                f"specific_transformers[{name!r}] is {spec!r}, but the column holds "
                "datetimes. Use 'datetime' (or a transformer)."
            )
        if family in ("numeric", "boolean"):
            return Decision(family, BY_THE_USER)
        # numbers written with a decimal comma keep that reading
        fmt = DECIMAL_COMMA if decimal_comma(uniques) else None
        return Decision("numeric", BY_THE_USER, "number", fmt)
    if family == "datetime":
        return Decision("datetime", BY_THE_USER)
    if family == "time":
        return Decision("datetime", BY_THE_USER, "time")
    if family not in ("numeric", "boolean"):
        strings = stringify(uniques)
        fmt = detect_time_format(strings)
        if fmt is not None:
            return Decision("datetime", BY_THE_USER, "time", fmt)
        found = detect_date_format(strings)
        if found is not None:
            return Decision("datetime", BY_THE_USER, "date", found[0])
    example = f", e.g. {_preview(uniques[0])}" if len(uniques) else ""
    raise ValueError(
        f"specific_transformers[{name!r}] is 'datetime', but the column's values do "
        f"not all read as dates or times in one format{example}. Clean the column, "
        "or give a transformer instead."
    )


def named_encoder(
    option: str,
    *,
    n_components: int,
    random_state: Any,
    target_type_option: str,
    y: np.ndarray | None,
) -> Any:
    """Return the unfitted encoder that ``option`` names."""
    if option == "onehot":
        return OneHotEncoder(
            handle_unknown="ignore", sparse_output=False, dtype=np.float32
        )
    if option == "categorical":
        return CategoryCodes()
    if option == "minhash":
        return MinHashEncoder(n_components=n_components)
    if option == "text":
        return TextEncoder(n_components=n_components, random_state=random_state)
    if option == "target":
        assert y is not None  # check_y raised otherwise
        return _target_encoder(y, target_type(y, target_type_option), random_state)
    if option == "gamma_poisson":
        try:
            from autocat._gamma_poisson import GammaPoissonEncoder
        except ImportError as error:
            raise ImportError(
                "high_cardinality='gamma_poisson' needs "
                "autocat.GammaPoissonEncoder (autocat._gamma_poisson), which "
                "this installation lacks. Use "
                "high_cardinality='minhash' or pass an encoder instance."
            ) from error
        return GammaPoissonEncoder(n_components=n_components, random_state=random_state)
    raise ValueError(f"unknown encoder {option!r}")  # pragma: no cover


def resolve_encoder(
    vectorizer: Any, kind: str, decision: Decision, spec: Any = None, y: Any = None
) -> Any:
    """Return a fresh, unfitted encoder for a column of ``kind``.

    ``spec`` is the user's choice for the column (an encoder, or a name), else
    ``vectorizer``'s option for the kind decides (a
    :class:`~autocat.TableVectorizer`'s parameters).
    """
    if spec is not None and not isinstance(spec, str):
        return clone(spec)
    if spec == "passthrough":
        return "passthrough"
    if spec in ENCODER_NAMES or spec == "onehot":
        return _vectorizer_encoder(vectorizer, spec, y)
    if kind in ("numeric", "boolean"):
        option = vectorizer.numeric
        return option if isinstance(option, str) else clone(option)
    if kind == "datetime":
        if vectorizer.datetime is not None:
            return clone(vectorizer.datetime)
        if decision.conversion == "time":
            return DatetimeEncoder(
                components="time", add_weekday=False, add_epoch=False,
                add_time_of_day=True,
            )  # fmt: skip
        return DatetimeEncoder()
    if kind == "low_cardinality":
        option = vectorizer.low_cardinality
    elif kind == "text":
        option = vectorizer.text
    else:
        option = vectorizer.high_cardinality
    if isinstance(option, str):
        return _vectorizer_encoder(vectorizer, option, y)
    return clone(option)


def _vectorizer_encoder(vectorizer: Any, option: str, y: Any) -> Any:
    return named_encoder(
        option,
        n_components=vectorizer.n_components,
        random_state=vectorizer.random_state,
        target_type_option=vectorizer.target_type,
        y=y,
    )


def _target_encoder(y: np.ndarray, kind: str, random_state: Any) -> TargetEncoder:
    """Return scikit-learn's TargetEncoder, cross-fitted on seeded, shuffled folds.

    Five folds (fewer for fewer rows), stratified when every class has five rows.
    """
    n_splits = max(2, min(5, len(y)))
    stratify = False
    if kind != "continuous":
        stratify = int(np.unique(y, return_counts=True)[1].min()) >= n_splits
    seed = random_state
    if isinstance(seed, np.random.RandomState):
        seed = int(seed.randint(np.iinfo(np.int32).max))
    if target_encoder_takes_splitter():
        splitter = (StratifiedKFold if stratify else KFold)(
            n_splits, shuffle=True, random_state=seed
        )
        return TargetEncoder(target_type=kind, cv=splitter)
    return TargetEncoder(  # pragma: no cover - scikit-learn < 1.9
        target_type=kind, cv=n_splits, shuffle=True, random_state=seed
    )


def target_type(y: np.ndarray, option: str) -> str:
    """Return the ``target_type`` of target encoding for ``y``.

    ``option`` other than ``'auto'`` is returned as is. Otherwise scikit-learn's
    ``type_of_target`` decides, except that numbers with more than 20 distinct
    values are continuous (an integer age or price is not a class).

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._encoder_choice import target_type
    >>> target_type(np.arange(100), "auto"), target_type(np.array([0, 1, 2]), "auto")
    ('continuous', 'multiclass')
    """
    if option != "auto":
        return option
    found = type_of_target(y, input_name="y")
    numeric = y.dtype.kind in "iuf"
    if found == "multiclass" and numeric and len(np.unique(y)) > _MAX_NUMERIC_CLASSES:
        return "continuous"
    if found not in ("binary", "multiclass", "continuous"):
        raise ValueError(
            f"target encoding needs a 1-D target of numbers or classes; y is "
            f"{found!r}. Pass target_type explicitly or encode y first."
        )
    return found


def fit_transform(transformer: Any, frame: pd.DataFrame, y: Any) -> Any:
    """Return ``transformer.fit_transform(frame, y)``, without y if fit takes none."""
    if y is None or not _takes_y(transformer):
        return transformer.fit_transform(frame)
    with warnings.catch_warnings():
        # a class with fewer rows than folds: stratified splits still run
        warnings.filterwarnings("ignore", "The least populated class", UserWarning)
        return transformer.fit_transform(frame, y)


def _takes_y(transformer: Any) -> bool:
    """Return whether ``transformer.fit`` accepts a target."""
    try:
        parameters = inspect.signature(transformer.fit).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return False
    return "y" in parameters or any(
        p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters.values()
    )


def _preview(value: Any) -> str:
    text = repr(value.item() if isinstance(value, np.generic) else value)
    return text if len(text) <= 40 else text[:37] + "..."
