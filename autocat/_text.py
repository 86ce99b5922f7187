"""TextEncoder: tf-idf of words and character n-grams reduced by a truncated SVD."""

from __future__ import annotations

from numbers import Integral
from typing import Any, ClassVar, cast

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.utils.validation import check_is_fitted, check_random_state, validate_data

from autocat._budget import check_budget
from autocat._dataframe import check_not_empty, column_values, encode_columns, to_2d
from autocat._factorize import factorize_strings
from autocat._ngrams import check_ngram_range
from autocat._sklearn_compat import (
    Interval,
    StrOptions,
    _check_feature_names_in,
    _fit_context,
)

__all__ = ["TextEncoder"]

# Words are runs of letters, digits and underscores, single characters included
# ("c++" gives "c", "R" gives "r"): list items and codes are often that short.
_WORD_PATTERN = r"(?u)\b\w+\b"
# A time budget may cut the counting of a column's terms every this many
# strings: on 42,000 reviews of 30 words, counting character n-grams takes 4.5 s
# in one call that nothing could stop, 10 s with a second trial doing the same.
_CHECK_EVERY = 256


class _BudgetChecked:
    """A vectorizer's analyzer that checks the time budget every few strings."""

    def __init__(self, analyze: Any) -> None:
        self.analyze = analyze
        self.calls = 0

    def __call__(self, document: str) -> list[str]:
        self.calls += 1
        if self.calls % _CHECK_EVERY == 0:
            check_budget()
        return self.analyze(document)


def _counting(vectorizer: CountVectorizer) -> CountVectorizer:
    """Return a vectorizer that counts as ``vectorizer`` does, cut by a time budget."""
    return CountVectorizer(
        analyzer=_BudgetChecked(vectorizer.build_analyzer()),
        token_pattern=None,
        dtype=vectorizer.dtype,
    )


def _fit_counts(vectorizer: CountVectorizer, strings: list[str]) -> Any:
    """Return ``vectorizer.fit_transform(strings)``, which a time budget may cut.

    The terms are counted by a vectorizer whose analyzer is ``vectorizer``'s own
    behind :func:`~autocat._budget.check_budget`; ``vectorizer`` then takes its
    vocabulary, as its own fit would have made it, so the counts, the
    vocabulary and what ``vectorizer.transform`` gives are unchanged.
    """
    vectorizer.fixed_vocabulary_ = False  # its attributes in its fit's order
    counting = _counting(vectorizer)
    terms = counting.fit_transform(strings)
    vectorizer.vocabulary_ = counting.vocabulary_
    return terms


def _transform_counts(vectorizer: CountVectorizer, strings: list[str]) -> Any:
    """Return ``vectorizer.transform(strings)``, which a time budget may cut."""
    counting = _counting(vectorizer)
    # fitted with the vocabulary as it is (a vocabulary given as a parameter
    # would be checked term by term at every call: milliseconds for a row)
    counting.vocabulary_ = vectorizer.vocabulary_
    return counting.transform(strings)


class _ColumnModel:
    """What :meth:`TextEncoder.fit` learned about one column (private)."""

    def __init__(
        self,
        vectorizers: list[CountVectorizer],
        idfs: list[np.ndarray],
        components: np.ndarray,
    ) -> None:
        self.vectorizers = vectorizers
        self.idfs = idfs
        self.components = components  # (n_components, n_terms), float64


class TextEncoder(TransformerMixin, BaseEstimator):
    """Encode free-text columns by latent semantic analysis of words and n-grams.

    Each value becomes ``n_components`` numbers:

    1. its tf-idf vector over words (runs of letters and digits, lower-cased)
       and, separately, over character n-grams taken inside word boundaries
       (``analyzer='char_wb'`` of scikit-learn), each block normalised to unit
       length; with ``analyzer='both'`` the two blocks are concatenated and
       scaled by ``1/sqrt(2)``, so the row keeps unit length;
    2. projected on the first ``n_components`` right singular vectors of the
       training rows' tf-idf matrix (a truncated SVD).

    Words suit long free text and lists (``"english, spanish (poorly)"``),
    character n-grams suit misspellings and morphology; the default uses both.
    Document frequencies and the SVD are those of the training rows, values
    repeated as often as they occur.

    Parameters
    ----------
    n_components : int, default=30
        Output features per input column. When the training rows span fewer
        dimensions, the last outputs are zeros.
    analyzer : {'both', 'word', 'char'}, default='both'
        Which terms are counted: words, character n-grams, or both.
    ngram_range : tuple of (int, int), default=(3, 4)
        Smallest and largest character n-gram length, both included.
    handle_missing : {'zero', 'nan', 'error'}, default='zero'
        What a missing value becomes: a row of zeros (as the empty string), a
        row of ``NaN``, or a ``ValueError`` naming the column.
    random_state : int, RandomState instance or None, default=None
        Seed of the randomised SVD. An int makes the encoding deterministic.

    Attributes
    ----------
    n_features_in_ : int
        Number of columns seen in :meth:`fit`.
    feature_names_in_ : ndarray of str of shape (n_features_in_,)
        Column names seen in :meth:`fit`, when they are all strings.
    vocabulary_sizes_ : list of int
        Number of terms (words and n-grams) kept for each column.

    See Also
    --------
    MinHashEncoder : Stateless encoding of short dirty strings.
    TableVectorizer : Applies this encoder to the free-text columns of a table.

    Notes
    -----
    Only distinct values are analysed: the tf-idf matrix has one row per
    distinct value, and the SVD of the training rows is that of the distinct
    rows weighted by the square root of their counts (the same right singular
    vectors). Fit costs ``O(n_distinct x n_terms_per_value)`` to count terms plus
    a randomised SVD of that sparse matrix, in single precision (the same
    subspace as in double precision, in half the time); the components are
    kept in double precision. Memory grows with the vocabulary,
    which is kept (about 100 bytes per term). :meth:`transform` is row-wise: a
    row's output depends on its value alone, and terms not seen in :meth:`fit`
    are ignored (a value with none gives zeros).

    Inside a time-budgeted search (:func:`~autocat.auto_fit`), a budget that
    runs out stops :meth:`fit` and :meth:`transform` between their stages (the
    word counts, the n-gram counts, the SVD) and, while they count terms, within
    256 strings; outside such a search nothing is checked.

    Values that are not strings are encoded as ``str(value)``.

    Examples
    --------
    >>> import pandas as pd
    >>> from autocat import TextEncoder
    >>> df = pd.DataFrame({"speaks": [
    ...     "english", "english, spanish", "english (fluently), french (poorly)",
    ...     "spanish, english", "french", None]})
    >>> encoder = TextEncoder(n_components=3, random_state=0).fit(df)
    >>> encoder.transform(df).shape
    (6, 3)
    >>> encoder.get_feature_names_out().tolist()
    ['speaks_0', 'speaks_1', 'speaks_2']
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "analyzer": [StrOptions({"both", "word", "char"})],
        "ngram_range": [tuple],
        "handle_missing": [StrOptions({"zero", "nan", "error"})],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        n_components: int = 30,
        analyzer: str = "both",
        ngram_range: tuple[int, int] = (3, 4),
        handle_missing: str = "zero",
        random_state: Any = None,
    ) -> None:
        self.n_components = n_components
        self.analyzer = analyzer
        self.ngram_range = ngram_range
        self.handle_missing = handle_missing
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, y: Any = None) -> TextEncoder:
        """Learn each column's vocabulary, document frequencies and SVD.

        Parameters
        ----------
        X : dataframe or array-like of shape (n_samples, n_features)
            The text columns.
        y : None
            Ignored.

        Returns
        -------
        self : TextEncoder
            The fitted encoder.
        """
        self._fit(X, gather=False)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, X: Any, y: Any = None) -> np.ndarray:
        """Fit, then encode ``X``, counting each distinct value's terms once.

        The same output as ``fit(X).transform(X)``, bit for bit, without
        counting the words and n-grams of the training values a second time
        (a :class:`~sklearn.pipeline.Pipeline` fits its steps this way).

        Parameters
        ----------
        X : dataframe or array-like of shape (n_samples, n_features)
            The text columns.
        y : None
            Ignored.

        Returns
        -------
        ndarray of float32 of shape (n_samples, n_features * n_components)
            The encoding, columns of the first input column first.
        """
        return cast(np.ndarray, self._fit(X, gather=True))

    def _fit(self, X: Any, gather: bool) -> np.ndarray | None:
        """Fit every column; with ``gather``, return the rows' encoding too."""
        check_ngram_range(self.ngram_range, type(self).__name__)
        X = to_2d(X, estimator_name=type(self).__name__)
        validate_data(self, X, skip_check_array=True, reset=True)
        check_not_empty(X, estimator_name=type(self).__name__)
        rng = check_random_state(self.random_state)
        names = self._input_names()
        self._models = []

        def fit_column(index: int, values: Any) -> tuple[np.ndarray, np.ndarray]:
            codes, strings = self._factorize(values, names[index])
            seed = int(rng.randint(np.iinfo(np.int32).max))
            model, tfidf = self._fit_column(codes, strings, seed)
            self._models.append(model)
            if not gather:  # the table of the distinct values is not needed
                return codes, np.empty((0, self.n_components), dtype=np.float32)
            return codes, self._table(model, tfidf, len(strings))

        out = None
        if gather:
            out = encode_columns(X, len(names), self.n_components, fit_column)
        else:
            for index in range(len(names)):
                fit_column(index, column_values(X, index))
        self.vocabulary_sizes_ = [m.components.shape[1] for m in self._models]
        return out

    def _fit_distinct(self, name: Any, strings: list[str], codes: np.ndarray) -> Any:
        """Fit on one column given as distinct strings and row codes; encode them.

        The same fit and table as ``fit`` on the rows (``strings[codes]``, -1
        missing) followed by ``transform`` of ``strings``, bit for bit, without
        factorising the rows again or counting the terms of ``strings`` twice.
        :class:`TableVectorizer` calls it with a column it has already factorised.
        Returns the table: a row per string, then the row of a missing value.
        """
        self._validate_params()  # as fit's _fit_context does
        check_ngram_range(self.ngram_range, type(self).__name__)
        empty = pd.DataFrame({name: pd.Series([], dtype=object)})
        validate_data(self, empty, skip_check_array=True, reset=True)
        rng = check_random_state(self.random_state)
        seed = int(rng.randint(np.iinfo(np.int32).max))
        model, tfidf = self._fit_column(codes, strings, seed)
        self._models = [model]
        self.vocabulary_sizes_ = [model.components.shape[1]]
        return self._table(model, tfidf, len(strings))

    def _factorize(self, values: Any, name: str) -> tuple[np.ndarray, list[str]]:
        codes, strings = factorize_strings(values, name)
        missing = codes < 0
        if self.handle_missing == "error" and missing.any():
            first = int(np.flatnonzero(missing)[0])
            raise ValueError(
                f"Column {name!r} has {int(missing.sum())} missing value(s), the "
                f"first at row {first}, and handle_missing='error'. Fill them "
                "(e.g. df[col].fillna('')) or use handle_missing='zero' or 'nan'."
            )
        return codes, strings

    def _new_vectorizers(self) -> list[CountVectorizer]:
        vectorizers = []
        if self.analyzer in ("both", "word"):
            vectorizers.append(
                CountVectorizer(token_pattern=_WORD_PATTERN, dtype=np.float64)
            )
        if self.analyzer in ("both", "char"):
            vectorizers.append(
                CountVectorizer(
                    analyzer="char_wb", ngram_range=self.ngram_range, dtype=np.float64
                )
            )
        return vectorizers

    def _fit_column(
        self, codes: np.ndarray, strings: list[str], seed: int
    ) -> tuple[_ColumnModel, Any]:
        """Fit one column; return its model and the tf-idf of ``strings`` (or None)."""
        counts = np.bincount(codes[codes >= 0], minlength=len(strings)).astype(float)
        n_documents = float(counts.sum())
        vectorizers, idfs, blocks = [], [], []
        for vectorizer in self._new_vectorizers():
            check_budget()  # a time budget may cut a fit between its stages
            try:
                terms = _fit_counts(vectorizer, strings).tocsr()
            except ValueError:  # no term at all (empty strings, no values)
                vectorizer.fit(["_"])  # a one-term vocabulary nothing matches
                terms = sparse.csr_matrix((len(strings), 1))
            # smoothed idf over the rows, as TfidfVectorizer(smooth_idf=True)
            frequency = terms.astype(bool).T @ counts
            idf = np.log((1.0 + n_documents) / (1.0 + frequency)) + 1.0
            vectorizers.append(vectorizer)
            idfs.append(idf)
            blocks.append(terms)
        tfidf = self._tfidf(blocks, idfs)
        weighted = sparse.diags(np.sqrt(counts)) @ tfidf
        check_budget()
        model = _ColumnModel(vectorizers, idfs, self._components(weighted, seed))
        return model, (tfidf if strings else None)

    def _tfidf(self, blocks: list[Any], idfs: list[np.ndarray]) -> Any:
        """Tf-idf of each block, rows of unit length, blocks side by side."""
        scaled = []
        for terms, idf in zip(blocks, idfs, strict=True):
            block = terms @ sparse.diags(idf)
            norms = np.sqrt(np.asarray(block.multiply(block).sum(axis=1)).ravel())
            norms[norms == 0.0] = 1.0
            scaled.append(sparse.diags(1.0 / norms) @ block)
        matrix = sparse.hstack(scaled, format="csr")
        if len(scaled) > 1:
            matrix = matrix / np.sqrt(len(scaled))
        return sparse.csr_matrix(matrix)

    def _components(self, weighted: Any, seed: int) -> np.ndarray:
        """Return the first right singular vectors, signs fixed, zero-padded."""
        n_rows, n_terms = weighted.shape
        components = np.zeros((self.n_components, n_terms))
        if min(n_rows, n_terms) > self.n_components + 1:
            # In single precision: the randomised SVD's sparse products and LU
            # steps take half the time and find the same subspace (on 10,000
            # tweets, k = 100: the same top components, cosines 1.0000).
            svd = TruncatedSVD(self.n_components, random_state=seed)
            svd.fit(weighted.astype(np.float32))
            found = svd.components_.astype(np.float64)
        else:  # small: an exact SVD of the dense matrix
            _, values, found = np.linalg.svd(weighted.toarray(), full_matrices=False)
            found = found[values > 1e-10 * max(values.max(initial=0.0), 1e-300)]
            found = found[: self.n_components]
        # each component points where its largest coordinate is positive
        signs = np.sign(found[np.arange(len(found)), np.abs(found).argmax(axis=1)])
        components[: len(found)] = found * np.where(signs == 0, 1.0, signs)[:, None]
        return components

    def transform(self, X: Any) -> np.ndarray:
        """Encode each column of ``X`` into ``n_components`` float32 features.

        Parameters
        ----------
        X : dataframe or array-like of shape (n_samples, n_features)
            The text columns, in the order seen in :meth:`fit`.

        Returns
        -------
        ndarray of float32 of shape (n_samples, n_features * n_components)
            The encoding, columns of the first input column first.
        """
        check_is_fitted(self, "vocabulary_sizes_")
        X = to_2d(X, estimator_name=type(self).__name__)
        validate_data(self, X, skip_check_array=True, reset=False)
        names = self._input_names()
        return encode_columns(
            X,
            len(names),
            self.n_components,
            lambda index, values: self._encode_distinct(
                self._models[index], values, names[index]
            ),
        )

    def _encode_distinct(
        self, model: _ColumnModel, values: Any, name: str
    ) -> tuple[np.ndarray, np.ndarray]:
        codes, strings = self._factorize(values, name)
        tfidf = None
        if strings:
            blocks = []
            for vectorizer in model.vectorizers:
                check_budget()
                blocks.append(_transform_counts(vectorizer, strings))
            tfidf = self._tfidf(blocks, model.idfs)
        return codes, self._table(model, tfidf, len(strings))

    def _table(self, model: _ColumnModel, tfidf: Any, n_strings: int) -> np.ndarray:
        """Rows of ``n_strings`` strings from their tf-idf, then a missing value's."""
        table = np.empty((n_strings + 1, self.n_components), dtype=np.float32)
        if tfidf is not None:
            table[:-1] = tfidf @ model.components.T
        table[-1] = np.nan if self.handle_missing == "nan" else 0.0
        return table

    def _input_names(self) -> list[str]:
        return [str(name) for name in _check_feature_names_in(self, None)]

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Get the output feature names, ``<column>_<j>``.

        Parameters
        ----------
        input_features : array-like of str, default=None
            Input column names; by default those seen in :meth:`fit`.

        Returns
        -------
        ndarray of str
            ``n_features_in_ * n_components`` names.
        """
        check_is_fitted(self, "vocabulary_sizes_")
        names = _check_feature_names_in(self, input_features)
        return np.asarray(
            [f"{name}_{j}" for name in names for j in range(self.n_components)],
            dtype=object,
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        tags.input_tags.allow_nan = True
        tags.transformer_tags.preserves_dtype = []
        return tags
