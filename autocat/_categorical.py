"""Low-cardinality columns as category codes, for trees that split on categories."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils._set_output import _get_output_config
from sklearn.utils.validation import check_is_fitted

__all__ = [
    "CATEGORICAL",
    "NUMERICAL",
    "CategoryCodes",
    "categorical_frame",
    "categories_if_pandas",
    "feature_types",
]

#: XGBoost's ``feature_types`` letter of a categorical output.
CATEGORICAL = "c"
#: Its letter of every other output.
NUMERICAL = "q"


class CategoryCodes(TransformerMixin, BaseEstimator):
    """Encode a column's categories as the codes ``0 .. k-1``; missing is NaN.

    The codes follow the sorted order of the categories seen in :meth:`fit`. A
    value missing there, or not seen in :meth:`fit`, is NaN: XGBoost sends it
    down a split's default branch, as it does missing numbers. The codes mean
    nothing as numbers: they are for learners that split on categories, such as
    XGBoost with ``enable_categorical=True`` given the output's
    ``feature_types`` (:class:`~autocat.TableVectorizer` lists them as
    ``feature_types_``).

    Attributes
    ----------
    categories_ : list of ndarray
        The sorted categories of each input column (strings).
    n_features_in_ : int
        Number of input columns.

    Examples
    --------
    >>> import pandas as pd
    >>> from autocat._categorical import CategoryCodes
    >>> codes = CategoryCodes().fit(pd.DataFrame({"size": ["S", "M", "L", "M"]}))
    >>> codes.categories_[0].tolist()
    ['L', 'M', 'S']
    >>> codes.transform(pd.DataFrame({"size": ["M", "XL", None]})).ravel().tolist()
    [1.0, nan, nan]
    """

    def fit(self, X: Any, y: Any = None) -> CategoryCodes:
        """Learn each column's categories.

        Parameters
        ----------
        X : dataframe or array-like of shape (n_samples, n_features)
            Strings; ``None`` and NaN are missing.
        y : None
            Ignored.

        Returns
        -------
        self : CategoryCodes
        """
        frame = _as_frame(X)
        if isinstance(X, pd.DataFrame):
            self.feature_names_in_ = np.asarray(frame.columns, dtype=object)
        self.categories_ = [
            np.sort(pd.unique(np.asarray(values[values.notna()], dtype=object)))
            for _, values in frame.items()
        ]
        self.n_features_in_ = frame.shape[1]
        return self

    def transform(self, X: Any) -> np.ndarray:
        """Return the float32 codes, NaN for missing and unseen values.

        Parameters
        ----------
        X : dataframe or array-like of shape (n_samples, n_features)
            The columns seen in :meth:`fit`.

        Returns
        -------
        ndarray of float32 of shape (n_samples, n_features)
        """
        check_is_fitted(self, "categories_")
        frame = _as_frame(X)
        if frame.shape[1] != self.n_features_in_:
            raise ValueError(
                f"CategoryCodes was fitted on {self.n_features_in_} column(s), got "
                f"{frame.shape[1]}."
            )
        out = np.empty(frame.shape, dtype=np.float32)
        for index, (_, values) in enumerate(frame.items()):
            codes = pd.Index(self.categories_[index]).get_indexer(
                np.asarray(values.where(values.notna(), None), dtype=object)
            )
            out[:, index] = np.where(codes < 0, np.nan, codes)
        return out

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Return the input names: one code column per input column.

        Parameters
        ----------
        input_features : array-like of str, default=None
            The input names; ``x0, x1, ...`` when None and none were seen.

        Returns
        -------
        ndarray of str
        """
        check_is_fitted(self, "categories_")
        if input_features is None:
            input_features = getattr(
                self,
                "feature_names_in_",
                [f"x{i}" for i in range(self.n_features_in_)],
            )
        return np.asarray(list(input_features), dtype=object)


def _as_frame(X: Any) -> pd.DataFrame:
    if isinstance(X, pd.DataFrame):
        return X
    array = np.asarray(X, dtype=object)
    return pd.DataFrame(array.reshape(len(array), -1))


def categorical_frame(
    out: np.ndarray, names: Any, categories: dict[int, int], index: Any = None
) -> pd.DataFrame:
    """Return ``out`` as a DataFrame whose categorical outputs are pandas categories.

    ``categories`` maps the position of each categorical output to its number of
    categories ``k``. Its pandas categories are its codes ``0 .. k-1``, so that
    ``.cat.codes`` is the code itself: a model trained on the array with
    ``feature_types`` predicts the same from the frame, and XGBoost
    (``enable_categorical=True``) or scikit-learn's ``HistGradientBoosting*``
    (``categorical_features='from_dtype'``) read the frame's categories on their
    own.

    Examples
    --------
    >>> import numpy as np
    >>> from autocat._categorical import categorical_frame
    >>> out = np.array([[0.5, 1.0], [1.5, np.nan]], dtype=np.float32)
    >>> frame = categorical_frame(out, ["x", "size"], {1: 3})
    >>> frame["size"].cat.codes.tolist(), frame["size"].cat.categories.tolist()
    ([1, -1], [0, 1, 2])
    >>> str(frame["x"].dtype)
    'float32'
    """
    frame = pd.DataFrame(out, columns=list(names), index=index, copy=False)
    for position, k in categories.items():
        values = out[:, position]
        codes = np.where(np.isnan(values), -1, values).astype(np.int64)
        frame.isetitem(
            position, pd.Categorical.from_codes(codes, categories=np.arange(k))
        )
    return frame


def feature_types(columns: list[Any]) -> list[str]:
    """Return the ``feature_types`` of a vectorizer's outputs, column by column.

    A column of category codes gives ``'c'`` for its codes and ``'q'`` for its
    ``<column>_number`` output, if any; every other output is ``'q'``.
    """
    types = [NUMERICAL] * sum(len(column.outputs) for column in columns)
    for position, _ in _code_outputs(columns):
        types[position] = CATEGORICAL
    return types


def _category_counts(columns: list[Any]) -> dict[int, int]:
    """Map the position of each output of category codes to its number of categories."""
    return {
        position: len(codes.categories_[0])
        for position, codes in _code_outputs(columns)
    }


def _code_outputs(columns: list[Any]) -> list[tuple[int, CategoryCodes]]:
    """Return the position of each column's output of codes, and its transformer."""
    found, start = [], 0
    for column in columns:
        if column.outputs and isinstance(column.transformer, CategoryCodes):
            found.append((start, column.transformer))
        start += len(column.outputs)
    return found


def categories_if_pandas(vectorizer: Any, out: np.ndarray, X: Any) -> Any:
    """Return ``out``, or its frame of categories when pandas output is set.

    With ``set_output(transform='pandas')`` and category codes among the
    outputs, the vectorizer returns :func:`categorical_frame`'s frame (which
    scikit-learn's output wrapper keeps as it is); otherwise the array, which the
    wrapper turns into any container set.
    """
    if _get_output_config("transform", vectorizer)["dense"] != "pandas":
        return out
    counts = _category_counts(vectorizer._columns)
    if not counts:
        return out
    index = X.index if isinstance(X, pd.DataFrame) else None
    return categorical_frame(
        out, vectorizer.get_feature_names_out(), counts, index=index
    )
