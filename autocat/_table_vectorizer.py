"""TableVectorizer: route every column of a table to the encoder that suits it."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise
from numbers import Integral
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from joblib import effective_n_jobs
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.preprocessing import OneHotEncoder, TargetEncoder
from sklearn.utils.validation import check_is_fitted

from autocat._budget import check_budget
from autocat._categorical import CategoryCodes, categories_if_pandas, feature_types
from autocat._column_kinds import (
    Decision,
    decide,
    is_free_text,
    number_table,
    unique_text_reason,
)
from autocat._dataframe import (
    check_input_names,
    column_family,
    columns_of,
    dtype_name,
    factorize,
    input_names,
    is_all_missing,
    n_rows,
    time_zone,
    to_2d,
    to_float,
)
from autocat._datetime import DatetimeEncoder
from autocat._encoder_choice import (
    ENCODER_NAMES,
    SPECIFIC_KINDS,
    check_specific,
    check_y,
    fit_transform,
    resolve_encoder,
    user_decision,
)
from autocat._minhash import MinHashEncoder
from autocat._sklearn_compat import HasMethods, Interval, StrOptions, _fit_context
from autocat._text import TextEncoder
from autocat._vectorizer_columns import (
    KEPT_WHEN_ALL_DROPPED,
    Column,
    Encoded,
    check_storage,
    code_numbers,
    column_from_state,
    column_state,
    convert_values,
    dense,
    empty_like_kind,
    encode_values,
    extra_output,
    gather,
    is_row_wise,
    map_in_threads,
    one_column_frame,
    output_names,
    plan_frame,
    unique_outputs,
    warn_suspicious,
    write_rows,
)

__all__ = ["TableVectorizer"]

_TRANSFORMER = HasMethods(["fit", "transform"])
# Below this many rows per thread, splitting a column's gather costs more than it saves.
_MIN_ROWS_PER_CHUNK = 65_536
# Encoders whose fit depends only on the set of distinct values.
_SET_FITTED = (MinHashEncoder, DatetimeEncoder, OneHotEncoder, CategoryCodes)
# Encoders whose fit_transform cross-fits: the training rows are encoded by
# models that did not see them (the table of distinct values serves transform).
_CROSS_FITTED = (TargetEncoder,)


class TableVectorizer(TransformerMixin, BaseEstimator):
    """Turn a table into a float32 matrix, one encoder per kind of column.

    Each column gets one kind, decided on the training data and kept for
    ``transform``:

    - ``'numeric'`` and ``'boolean'``: passed through as float, missing values
      kept as NaN (XGBoost routes them). Strings that all read as numbers
      (``"121,511"``, ``" 3.5 "``, ``"$1,234.50"``, ``"12.3%"`` read as 12.3,
      ``decimal.Decimal``, with ``"NA"``, ``"?"``, ``""`` as missing) are
      numbers. So are strings that all read as numbers but for at most 5
      distinct non-numeric tokens making at most 10% of the distinct values
      (``"unknown"``, ``">90"``): the tokens read as missing and the column gets
      a second output, ``<column>_missing``, 1 where the value is not a number.
      Strings that all read as numbers written with a decimal comma (``"94,71"``,
      ``"1.264,03"``, as a ``;``-separated CSV holds them) are numbers too, when
      the usual reading fails (``"1,234"`` alone reads 1234). Strings written
      with a leading zero (``"02134"``, ``"007"``), or numbers among which a
      value mixes digits and letters (``"136A"``), are codes and stay text.
      Numbers with a unit (``"142 min"``, ``"16 GB"``) are numbers. Codes, and
      text of which at least half the distinct values read as numbers (in one
      unit), keep their numbers too: one more output, ``<column>_number``
      (``NaN`` where a value is not a number; never ``numeric``-encoded), last
      among the column's outputs, unless ``specific_transformers`` sets the
      column; text mostly of dates gets ``<column>_date``, days since 1970.
    - ``'datetime'``: datetime columns, strings that all read as dates in one
      format (ISO 8601, ``"09/12/1986"``, ``"10/31/2001 05:00 PM"``,
      ``"01.03.2020 10:00"``, ``"Mar 2020"``, RFC 2822, ...; see ``dayfirst``
      and ``datetime_format``) and times of day (``"21:37:00"``),
      encoded by ``datetime`` (a :class:`DatetimeEncoder`: year, month, day,
      weekday unless the dates are a monthly or coarser series, time parts when
      present, epoch seconds; times of day give their parts and seconds since
      midnight).
    - ``'low_cardinality'``: other strings and categoricals with at most
      ``cardinality_threshold`` distinct values, one-hot encoded; a category not
      seen at fit, or a missing value, gives zeros (or category codes: see
      ``low_cardinality``).
    - ``'high_cardinality'``: more distinct values, encoded by
      ``high_cardinality`` (min-hash by default).
    - ``'dropped'``: constant columns (one value and no missing value),
      columns with no value at all, and, with ``drop_identifiers``, row indexes
      and identifiers (from 50 rows on): integers all distinct and either named
      like a saved index (``'Unnamed: 0'``), consecutive, or increasing with the
      rows; codes: strings at least 95% distinct, with no space in any value
      and mostly digits and signs (``"A-10293"``, hashes). Near-unique text is
      kept, unless ``drop_unique_text`` drops it: strings at least 95% distinct
      (from 50 rows on), some with a space (names, titles) or most of them
      words (colour names, web addresses). When every column would be
      dropped by these rules, none is (each is encoded as its values say), so
      that a model after the vectorizer has columns to fit on.

    - ``'text'``: high-cardinality columns of free text or lists, whose
      distinct values have a median of at least 6 words or 3 list items
      (``"english (fluently), spanish (poorly)"``), encoded by ``text``
      (min-hash by default; ``text='text'`` for a :class:`TextEncoder`).

    :meth:`describe` shows each decision and its reason. ``specific_transformers``
    overrides the decision or the encoder of any column. Given ``y``,
    :meth:`fit` warns (:class:`SuspiciousColumnWarning`) about every kept
    column that orders the target almost perfectly on its own: a neighbour
    score of 0.99 or more (see Notes), on at least 50 rows.

    Parameters
    ----------
    cardinality_threshold : int, default=30
        String columns with more distinct values (missing not counted) are
        high-cardinality.
    high_cardinality : {'minhash', 'gamma_poisson', 'target', 'text'} or \
transformer, default='minhash'
        Encoder of high-cardinality columns: a :class:`MinHashEncoder`, a
        :class:`GammaPoissonEncoder` or a :class:`TextEncoder` with
        ``n_components``, scikit-learn's ``TargetEncoder`` (which needs ``y``;
        see ``target_type``), or any transformer (cloned, fitted on each column
        as a one-column pandas DataFrame of ``str`` with ``None`` for missing
        values; its ``fit_transform`` receives ``y`` when its ``fit`` takes it,
        unless it encodes each value alone, like the encoders above).
    low_cardinality : {'onehot', 'categorical'} or transformer, default='onehot'
        Encoder of low-cardinality columns: one-hot (a dense float32
        ``OneHotEncoder(handle_unknown='ignore')``), ``'categorical'`` (the
        codes ``0 .. k-1`` of the sorted categories, NaN for missing and unseen
        values, for trees that split on categories; with
        ``set_output(transform='pandas')`` they are pandas categories) or any
        transformer, used as ``high_cardinality`` is.
    n_components : int, default=30
        Outputs per column of the ``'minhash'``, ``'gamma_poisson'`` and
        ``'text'`` encoders.
    text : {'minhash', 'text', 'gamma_poisson', 'target'}, transformer or None, \
default='minhash'
        Encoder of free-text columns, named as for ``high_cardinality``;
        ``None`` finds no free text (those columns are high-cardinality).
        Min-hash is the default because, with XGBoost, the :class:`TextEncoder`
        did not beat it on the free-text columns of the benchmark tables
        (``recipes/11_encoders.py``); the search of
        :func:`~autocat.auto_fit` tries both.
    specific_transformers : dict of str to str or transformer, default=None
        Per-column overrides, ``{column: choice}``, each reported in
        :meth:`describe` with the reason ``'set by the user'``. A choice is an
        encoder of the column's values read as text (``'minhash'``,
        ``'gamma_poisson'``, ``'target'``, ``'text'``, ``'onehot'``), a reading
        (``'numeric'``: strings parsed as numbers, then ``numeric``;
        ``'passthrough'``: the same without ``numeric``; ``'datetime'``: parsed as
        dates in one format, then ``datetime``), ``'drop'``, or a transformer,
        which replaces the column's encoder and receives the column as the
        automatic kind reads it (numbers, dates or text; never dropped).
    target_type : {'auto', 'continuous', 'binary', 'multiclass'}, default='auto'
        The target of ``'target'`` encoding; ``'auto'`` reads ``y`` as
        scikit-learn's ``type_of_target`` does, except that numbers with more
        than 20 distinct values are continuous.
    datetime : transformer or None, default=None
        Encoder of datetime columns, times of day included; ``None`` means
        :class:`DatetimeEncoder` (with ``components='time'``,
        ``add_time_of_day=True`` and neither weekday nor epoch for times of day).
    numeric : 'passthrough' or transformer, default='passthrough'
        Encoder of numeric and boolean columns.
    parse_numbers : bool, default=True
        Read string columns whose values are all numbers as numeric, and give
        codes and text that are mostly numbers their ``<column>_number``.
    parse_dates : bool, default=True
        Read string columns whose values are all dates in one format as dates.
    parse_times : bool, default=True
        Read string columns whose values are all times of day as times.
    drop_constant : bool, default=True
        Drop columns with a single value and no missing value.
    drop_missing : bool, default=True
        Drop columns with no value at all (otherwise: numeric, all NaN).
    drop_identifiers : bool or 'indexes', default=True
        Drop row indexes and identifiers (the rules above); ``'indexes'`` keeps
        identifier codes as text (a tail number tells an aircraft's operator
        and age): :func:`~autocat.auto_fit` measures both on such tables.
    drop_unique_text : bool, default=False
        Drop near-unique text (the rule above): a column in which nearly every
        row has its own name or title gives each row a code of its own, which
        helps a model when the words carry meaning and lets it overfit when
        they do not. :func:`~autocat.auto_fit` measures both on tables that
        have such columns. ``near_unique_text_`` lists them either way.
    dayfirst : bool, default=False
        Read dates whose day/month order is ambiguous (no day above 12) day
        first, ``"01/02/2020"`` as 1 February.
    datetime_format : dict of str to str or None, default=None
        ``strptime`` formats by column name, e.g. ``{"hired": "%d/%m/%Y"}``:
        those columns are dates read with their format (a value that does not
        read is missing, with a warning).
    random_state : int, RandomState instance or None, default=0
        Seed of the ``'gamma_poisson'`` and ``'text'`` encoders and of the folds
        of ``'target'`` encoding; the default makes the encoding deterministic.
    n_jobs : int, default=None
        Threads that encode columns in parallel (``None`` means 1, ``-1`` all
        cores). The output does not depend on it.

    Attributes
    ----------
    column_kinds_ : dict of str to str
        The kind of each input column.
    transformers_ : dict of str to transformer or str
        The fitted encoder of each column, ``'passthrough'`` or ``'drop'``.
    input_to_outputs_ : dict of str to list of str
        The output feature names each input column produced. They are unique:
        a generated name that another output has (``city_0`` of a min-hashed
        ``city`` beside a numeric column ``city_0``) takes the first free
        suffix (``city_0_2``), and a column passed through keeps its own name.
    near_unique_text_ : list of str
        The columns of near-unique text (see ``drop_unique_text``), dropped or
        encoded.
    identifier_codes_ : list of str
        The columns of identifier codes (see ``drop_identifiers``), kept or not.
    feature_types_ : list of str
        XGBoost's ``feature_types`` of the outputs: ``'c'`` for category codes
        (``low_cardinality='categorical'``), ``'q'`` for every other output.
    n_features_in_ : int
        Number of columns seen in :meth:`fit`.
    feature_names_in_ : ndarray of str of shape (n_features_in_,)
        Column names seen in :meth:`fit`, when they are all strings.

    See Also
    --------
    MinHashEncoder : The default encoder of high-cardinality columns.
    GammaPoissonEncoder : The interpretable encoder of high-cardinality columns.
    DatetimeEncoder : The encoder of datetime columns.

    Notes
    -----
    Everything but numeric passthrough works on distinct values: each column is
    factorised once, its distinct values are read (numbers, dates), fitted and
    encoded, then rows are gathered into one preallocated float32 matrix. Time is
    about ``O(n_rows x n_columns)`` for the gathers plus the encoders' cost on the
    distinct values; memory is the output matrix plus one code array per column
    in flight.

    Target encoding is cross-fitted: :meth:`fit_transform` encodes each
    training row with a ``TargetEncoder`` fitted on the other folds (5, shuffled
    with ``random_state``, stratified for classes when each has 5 rows), so
    ``fit(X, y).transform(X)`` differs from ``fit_transform(X, y)`` on
    target-encoded columns; :meth:`transform` uses the encoder fitted on all rows.

    Decisions use the training data only. At transform, columns must be those
    seen in :meth:`fit`, in the same order (a ``ValueError`` names the missing
    and unseen ones); strings of a numeric or date column that do not read give
    NaN, with a warning; a column with no value at all gives the outputs of a
    missing value, whatever its dtype; a numeric column that turns datetime, or
    the reverse, raises a ``TypeError``; any value of a string column is read
    as its ``str``, lists, dicts and arrays included. Object columns of mixed
    types are read as numbers when every value is one, as text otherwise.
    Time-zone aware datetimes are read in UTC; a column that was aware at fit
    and is naive at transform, or the reverse, raises a ``TypeError`` (the
    instants are unknown), while another time zone is converted.

    The neighbour score sorts up to 10,000 sampled rows by the column (text by
    category, in a seeded random order) and compares each row's target with the
    next row's: ``1 - sum(diff(y)**2) / (2 * sum((y - mean(y))**2))`` for a
    numeric target, the share of same-class neighbours (0 at chance) for
    classes. It costs one sort per column.
    Column names must be unique; non-string names are used as their ``str``.
    pandas, polars and numpy inputs (a numpy structured array gives names) with
    the same values give the same output.

    Examples
    --------
    >>> import pandas as pd
    >>> from autocat import TableVectorizer
    >>> df = pd.DataFrame({
    ...     "salary": ["121,511", "52,000", "73,500", "NA"],
    ...     "hired": ["09/12/1986", "10/31/2001", "01/02/2015", "05/06/1999"],
    ...     "gender": ["F", "M", "F", None],
    ...     "country": ["US"] * 4,
    ... })
    >>> vectorizer = TableVectorizer()
    >>> vectorizer.fit_transform(df).shape
    (4, 8)
    >>> vectorizer.column_kinds_
    {'salary': 'numeric', 'hired': 'datetime', 'gender': 'low_cardinality',
     'country': 'dropped'}
    >>> vectorizer.input_to_outputs_["gender"]
    ['gender_F', 'gender_M']
    >>> print(vectorizer.describe()[["column", "kind", "n_outputs", "reason"]])
        column             kind  n_outputs                       reason
    0   salary          numeric          1      strings read as numbers
    1    hired         datetime          5             dates (%m/%d/%Y)
    2   gender  low_cardinality          2      2 distinct values <= 30
    3  country          dropped          0  constant: single value 'US'
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "cardinality_threshold": [Interval(Integral, 0, None, closed="left")],
        "high_cardinality": [StrOptions(set(ENCODER_NAMES)), _TRANSFORMER],
        "low_cardinality": [StrOptions({"onehot", "categorical"}), _TRANSFORMER],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "text": [StrOptions(set(ENCODER_NAMES)), _TRANSFORMER, None],
        "specific_transformers": [dict, None],
        "target_type": [StrOptions({"auto", "continuous", "binary", "multiclass"})],
        "datetime": [_TRANSFORMER, None],
        "numeric": [StrOptions({"passthrough"}), _TRANSFORMER],
        "parse_numbers": ["boolean"],
        "parse_dates": ["boolean"],
        "parse_times": ["boolean"],
        "drop_constant": ["boolean"],
        "drop_missing": ["boolean"],
        "drop_identifiers": ["boolean", StrOptions({"indexes"})],
        "drop_unique_text": ["boolean"],
        "dayfirst": ["boolean"],
        "datetime_format": [dict, None],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        *,
        cardinality_threshold: int = 30,
        high_cardinality: str | Any = "minhash",
        low_cardinality: str | Any = "onehot",
        n_components: int = 30,
        text: str | Any = "minhash",
        specific_transformers: dict[str, Any] | None = None,
        target_type: str = "auto",
        datetime: Any = None,
        numeric: str | Any = "passthrough",
        parse_numbers: bool = True,
        parse_dates: bool = True,
        parse_times: bool = True,
        drop_constant: bool = True,
        drop_missing: bool = True,
        drop_identifiers: bool | str = True,
        drop_unique_text: bool = False,
        dayfirst: bool = False,
        datetime_format: dict[str, str] | None = None,
        random_state: Any = 0,
        n_jobs: int | None = None,
    ) -> None:
        self.cardinality_threshold = cardinality_threshold
        self.high_cardinality = high_cardinality
        self.low_cardinality = low_cardinality
        self.n_components = n_components
        self.text = text
        self.specific_transformers = specific_transformers
        self.target_type = target_type
        self.datetime = datetime
        self.numeric = numeric
        self.parse_numbers = parse_numbers
        self.parse_dates = parse_dates
        self.parse_times = parse_times
        self.drop_constant = drop_constant
        self.drop_missing = drop_missing
        self.drop_identifiers = drop_identifiers
        self.drop_unique_text = drop_unique_text
        self.dayfirst = dayfirst
        self.datetime_format = datetime_format
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ------------------------------------------------------------------ fit

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X: Any, y: Any = None) -> TableVectorizer:
        """Decide the kind of every column and fit its encoder.

        Parameters
        ----------
        X : dataframe or array-like of shape (n_samples, n_features)
            A pandas or polars DataFrame, a 2-D array, or a numpy structured array.
        y : array-like of shape (n_samples,), default=None
            The target, used by target encoding only (required then), and to warn
            about columns that predict it suspiciously well on their own.

        Returns
        -------
        self : TableVectorizer
            The fitted vectorizer.
        """
        self._fit(X, y)
        return self

    @_fit_context(prefer_skip_nested_validation=False)
    def fit_transform(self, X: Any, y: Any = None) -> np.ndarray:
        """Fit, then return the encoding of ``X``, reading every column once.

        Parameters
        ----------
        X : dataframe or array-like of shape (n_samples, n_features)
            The table to fit on and encode.
        y : array-like of shape (n_samples,), default=None
            The target, used by target encoding only (required then), and to warn
            about columns that predict it suspiciously well on their own.

        Returns
        -------
        ndarray of float32 of shape (n_samples, n_features_out)
            The encoded table; see :meth:`get_feature_names_out`. Target-encoded
            columns are cross-fitted (see Notes).
        """
        X, encoded = self._fit(X, y)
        return categories_if_pandas(self, self._assemble(X, encoded), X)

    def _fit(self, X: Any, y: Any = None) -> tuple[Any, list[Encoded]]:
        X = to_2d(X, estimator_name=type(self).__name__)
        names = input_names(self, X, reset=True)
        if n_rows(X) == 0:
            raise ValueError(
                f"Found array with 0 sample(s) (shape={tuple(X.shape)}) while a "
                "minimum of 1 is required by TableVectorizer."
            )
        specific = check_specific(self.specific_transformers, names)
        named = [self.high_cardinality, self.text, *specific.values()]
        needs_y = any(
            (isinstance(c, str) and c == "target") or isinstance(c, _CROSS_FITTED)
            for c in named
        )
        y = check_y(y, n_rows(X), needs_y)
        items = [
            (name, column, specific.get(name), y)
            for name, column in zip(names, columns_of(X), strict=True)
        ]
        results = self._map(self._fit_column, items)
        if all(state.decision.kind == "dropped" for state, _ in results):
            # no column would leave a model after the vectorizer nothing to fit
            # on (a fold's rows may make every column constant): none is dropped
            results = self._map(
                self._fit_column,
                [
                    (*item, state.decision.reason)
                    for item, (state, _) in zip(items, results, strict=True)
                ],
            )
        self._columns = [state for state, _ in results]
        unique_outputs(self._columns)
        self.column_kinds_ = {c.name: c.decision.kind for c in self._columns}
        self.transformers_ = {c.name: c.transformer for c in self._columns}
        self.input_to_outputs_ = {c.name: list(c.outputs) for c in self._columns}
        self.near_unique_text_ = [c.name for c in self._columns if c.near_unique]
        self.identifier_codes_ = [
            c.name for c in self._columns if c.decision.identifier
        ]
        self.feature_types_ = feature_types(self._columns)
        encoded = [encoded for _, encoded in results]
        if y is not None:
            warn_suspicious(self._columns, encoded, y, n_rows(X))
        return X, encoded

    def _map(self, function: Any, items: list[Any]) -> list[Any]:
        return map_in_threads(effective_n_jobs(self.n_jobs), function, items)

    def _fit_column(
        self,
        name: str,
        column: Any,
        spec: Any = None,
        y: Any = None,
        kept_reason: str | None = None,
    ) -> tuple[Column, Encoded]:
        check_budget()  # a time budget may cut a fit between columns
        keep_all = kept_reason is not None  # why the rules would drop it
        family = column_family(column)
        n = len(column)
        as_text = isinstance(spec, str) and SPECIFIC_KINDS[spec] in (
            "high_cardinality", "text", "low_cardinality",
        )  # fmt: skip
        if family in ("numeric", "boolean") and not as_text:
            values = to_float(column)
            missing = np.isnan(values)
            uniques = pd.unique(values[~missing])
            codes = None
        else:
            try:
                codes, uniques = factorize(column)
            except TypeError as exc:  # cells that cannot be hashed: lists, dicts
                if "unhashable" not in str(exc):
                    raise
                raise TypeError(
                    f"Column {name!r} holds values that cannot be hashed ({exc}). "
                    f"Turn them into text first, e.g. df[{name!r}].astype(str), "
                    "or drop the column."
                ) from None
            missing = codes < 0
        n_missing = int(missing.sum())
        decision = decide(
            family,
            uniques,
            n_missing,
            n,
            cardinality_threshold=self.cardinality_threshold,
            parse_numbers=self.parse_numbers,
            parse_dates=self.parse_dates,
            parse_times=self.parse_times,
            drop_constant=self.drop_constant and spec is None and not keep_all,
            drop_missing=self.drop_missing and spec is None and not keep_all,
            name=name,
            dayfirst=self.dayfirst,
            date_format=(self.datetime_format or {}).get(name),
            drop_identifiers=False if keep_all else self.drop_identifiers,
        )
        if keep_all and spec is None:
            reason = f"{kept_reason}{KEPT_WHEN_ALL_DROPPED}{decision.reason}"
            decision = replace(decision, reason=reason)
        near_unique = None
        if spec is not None:
            decision = user_decision(name, family, uniques, decision, spec)
        elif decision.kind == "high_cardinality":
            near_unique = unique_text_reason(uniques, n_missing, n)
            if near_unique is not None and self.drop_unique_text and not keep_all:
                decision = Decision("dropped", f"{near_unique} (drop_unique_text)")
            elif self.text is not None and is_free_text(uniques):
                decision = Decision("text", f"free text; {decision.reason}", "text")
        state = Column(
            name=name,
            dtype=dtype_name(column),
            family=family,
            decision=decision,
            n_distinct=len(uniques),
            missing_share=n_missing / n if n else 0.0,
            near_unique=near_unique is not None,
        )
        if family == "datetime":
            state.tz_aware = time_zone(column) is not None
        if decision.kind == "dropped":
            state.transformer = "drop"
            return state, Encoded()
        if codes is None:  # numeric storage
            state.transformer = resolve_encoder(self, decision.kind, decision, spec, y)
            if isinstance(state.transformer, str):  # 'passthrough'
                state.outputs = (name,)
                return state, Encoded(source=column)
            return self._fit_full(state, one_column_frame(name, values), y)
        codes, uniques = convert_values(state, codes, uniques, column)
        state, encoded = self._fit_values(state, codes, uniques, spec, y)
        if decision.as_number:
            state.outputs = (*state.outputs, extra_output(name, decision))
            encoded.number = code_numbers(codes, uniques, decision.fmt)
        return state, encoded

    def _fit_values(
        self,
        state: Column,
        codes: np.ndarray,
        uniques: np.ndarray,
        spec: Any = None,
        y: Any = None,
    ) -> tuple[Column, Encoded]:
        """Fit a column's encoder on its distinct values (and codes); encode them."""
        name, decision = state.name, state.decision
        transformer = resolve_encoder(self, decision.kind, decision, spec, y)
        state.transformer = transformer
        ordered = (
            uniques if decision.kind in ("numeric", "boolean", "datetime") else None
        )
        if isinstance(transformer, str):  # 'passthrough'
            state.outputs = (name,) + ((f"{name}_missing",) if decision.tokens else ())
            table = number_table(uniques, indicator=bool(decision.tokens))
            return state, Encoded(table=table, codes=codes, values=ordered)
        if isinstance(transformer, _SET_FITTED):
            transformer.fit(one_column_frame(name, uniques))
        elif isinstance(transformer, _CROSS_FITTED) or not is_row_wise(transformer):
            return self._fit_full(
                state, one_column_frame(name, gather(uniques, codes)), y
            )
        elif (
            isinstance(transformer, TextEncoder)
            and uniques.dtype == object
            and not (transformer.handle_missing == "error" and (codes < 0).any())
        ):
            # distinct strings already: fit and encode them in one pass
            table = transformer._fit_distinct(name, uniques.tolist(), codes)
            state.outputs = output_names(transformer, name)
            return state, Encoded(table=table, codes=codes, values=ordered)
        else:
            transformer.fit(one_column_frame(name, gather(uniques, codes)))
        state.outputs = output_names(transformer, name)
        encoded = encode_values(state, codes, uniques)
        encoded.values = ordered
        if encoded.codes is None:
            encoded.codes = codes
        return state, encoded

    def _fit_full(
        self, state: Column, frame: pd.DataFrame, y: Any = None
    ) -> tuple[Column, Any]:
        """Fit on every row and encode them with ``fit_transform`` (with y if taken)."""
        block = fit_transform(state.transformer, frame, y)
        state.outputs = output_names(state.transformer, state.name)
        return state, Encoded(block=dense(block))

    # ------------------------------------------------------------ transform

    def transform(self, X: Any) -> np.ndarray:
        """Encode ``X`` with the decisions and encoders learned in :meth:`fit`.

        Parameters
        ----------
        X : dataframe or array-like of shape (n_samples, n_features)
            The columns seen in :meth:`fit`, same names in the same order.

        Returns
        -------
        ndarray of float32 of shape (n_samples, n_features_out)
            The encoded table; see :meth:`get_feature_names_out`.
        """
        check_is_fitted(self, "column_kinds_")
        X = to_2d(X, estimator_name=type(self).__name__)
        input_names(self, X, reset=False)
        columns = columns_of(X)
        encoded = self._map(
            self._transform_column, list(zip(self._columns, columns, strict=True))
        )
        return categories_if_pandas(self, self._assemble(X, encoded), X)

    def _transform_column(self, state: Column, column: Any) -> Encoded:
        check_budget()  # a time budget may cut a transform between columns
        kind = state.decision.kind
        if kind == "dropped":
            return Encoded()
        family = column_family(column)
        tokens = state.decision.tokens
        if (
            kind in ("numeric", "boolean")
            and family in ("numeric", "boolean")
            and not tokens
        ):
            if isinstance(state.transformer, str):  # 'passthrough'
                return Encoded(source=column)
            frame = pd.DataFrame({state.name: to_float(column)})
            return Encoded(block=dense(state.transformer.transform(frame)))
        if family in ("numeric", "boolean", "datetime", "time") and is_all_missing(
            column
        ):
            # e.g. a date column left blank in this batch, read as float NaN
            codes = np.full(len(column), -1, dtype=np.int32)
            uniques = empty_like_kind(state)
        else:
            check_storage(state, column, family)
            # threads left over by the columns factorise chunks of rows
            n_jobs = max(1, effective_n_jobs(self.n_jobs) // max(1, len(self._columns)))
            codes, uniques = factorize(column, n_jobs)
            codes, uniques = convert_values(state, codes, uniques, column)
        if isinstance(state.transformer, str):  # 'passthrough'
            table = number_table(uniques, indicator=bool(tokens))
            encoded = Encoded(table=table, codes=codes)
        else:
            encoded = encode_values(state, codes, uniques)
        if state.decision.as_number:
            encoded.number = code_numbers(codes, uniques, state.decision.fmt)
        return encoded

    def _assemble(self, X: Any, encoded: list[Encoded]) -> np.ndarray:
        """Write every column's outputs into one preallocated float32 matrix."""
        widths = [len(c.outputs) for c in self._columns]
        starts = np.concatenate([[0], np.cumsum(widths)]).astype(int)
        out = np.empty((n_rows(X), int(starts[-1])), dtype=np.float32)

        # tasks are (column, chunk of rows): all threads work even on few columns
        n_chunks = -(-effective_n_jobs(self.n_jobs) // max(1, len(encoded)))
        n_chunks = max(1, min(n_chunks, len(out) // _MIN_ROWS_PER_CHUNK))
        bounds = np.linspace(0, len(out), n_chunks + 1).astype(int).tolist()

        def write(index: int, start: int, stop: int) -> None:
            check_budget()  # and the writing of the output, between columns
            target = out[start:stop, starts[index] : starts[index + 1]]
            write_rows(encoded[index], start, stop, target)

        self._map(
            write,
            [
                (i, start, stop)
                for i in range(len(encoded))
                for start, stop in pairwise(bounds)
            ],
        )
        return out

    # ----------------------------------------------------------- reporting

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Get the output feature names, in the order of the output columns.

        Parameters
        ----------
        input_features : array-like of str, default=None
            Must be None or the names seen in :meth:`fit`.

        Returns
        -------
        ndarray of str
            One name per output column, each name once (see
            ``input_to_outputs_``).
        """
        check_is_fitted(self, "column_kinds_")
        check_input_names(self, input_features)
        return np.asarray(
            [name for c in self._columns for name in c.outputs], dtype=object
        )

    def describe(self) -> pd.DataFrame:
        """Return the plan: one row per input column, what was decided and why.

        Returns
        -------
        pandas.DataFrame
            Columns ``column``, ``dtype``, ``kind``, ``n_distinct``,
            ``missing_share``, ``transformer``, ``n_outputs`` and ``reason``.
        """
        check_is_fitted(self, "column_kinds_")
        return plan_frame(self._columns)

    def __getstate__(self) -> dict[str, Any]:
        # the per-column state is pickled as builtins, not as private classes,
        # so that a pickle does not depend on how this module was imported
        state = dict(super().__getstate__())
        if "_columns" in state:
            state["_columns"] = [column_state(c) for c in state["_columns"]]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        if "_columns" in state:
            state["_columns"] = [column_from_state(c) for c in state["_columns"]]
        super().__setstate__(state)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        tags.input_tags.allow_nan = True
        tags.transformer_tags.preserves_dtype = []
        return tags
