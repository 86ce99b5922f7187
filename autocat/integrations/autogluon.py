"""An AutoGluon feature generator that encodes dirty string columns with autocat.

:class:`AutocatFeatureGenerator` finds the string columns with more than
``cardinality_threshold`` distinct values (high-cardinality categories and free
text alike) and encodes them with autocat's TableVectorizer (min-hash by
default), next to the original columns (``mode='add'``) or instead of them
(``mode='replace'``); every other column passes through unchanged. Put it in
front of AutoGluon's default pipeline with :func:`feature_generator`::

    predictor.fit(train, feature_generator=feature_generator())

AutoGluon is imported on first use; install it with
``pip install 'autocat[autogluon]'``.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from autocat.integrations._common import build_vectorizer, require

__all__ = ["AutocatFeatureGenerator", "feature_generator"]  # noqa: F822 (built lazily)

_MODES = ("add", "replace")


def _abstract_generator() -> type:
    generators = require("autogluon.features.generators", "autogluon")
    return generators.AbstractFeatureGenerator  # type: ignore[no-any-return]


def __getattr__(name: str) -> Any:
    # the class derives from AutoGluon's, so it is built on first use
    if name == "AutocatFeatureGenerator":
        return _generator_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_CLASS: dict[str, type] = {}


def _generator_class() -> type:
    if "class" in _CLASS:
        return _CLASS["class"]
    base = _abstract_generator()

    class AutocatFeatureGenerator(base):  # type: ignore[misc, valid-type]
        """Encode high-cardinality and free-text string columns with autocat.

        An AutoGluon ``AbstractFeatureGenerator``: a string (``object`` or
        ``category``) column with more than ``cardinality_threshold`` distinct
        values in the training rows is encoded by autocat's TableVectorizer into
        ``n_components`` float columns; AutoGluon's own generators handle the
        rest. Unseen values at prediction time get an encoding of their own
        (min-hash encodes any string), not a missing value.

        Parameters
        ----------
        mode : {'add', 'replace'}, default='add'
            ``'add'``: the string columns are kept as well, and AutoGluon
            processes them as usual (categories, text n-grams) next to the
            encodings. ``'replace'``: the encodings replace the string columns,
            so AutoGluon builds no feature of its own from them (fewer features,
            faster; measured better on free-text columns, worse on Employee
            Salaries, whose job titles AutoGluon's categories handle well).
        cardinality_threshold : int, default=30
            String columns with more distinct values than this are encoded.
        encoder : str, default='minhash'
            The high-cardinality encoder, a value of the search-space table's
            ``encoder`` row (``'minhash'``, ``'gamma_poisson'``, ...).
        n_components : int, default=30
            Output dimension per encoded column.
        random_state : int, default=0
            Seed of the encoder.
        **kwargs
            Passed to ``AbstractFeatureGenerator`` (``verbosity``, ...).

        Attributes
        ----------
        encoded_columns_ : list of str
            The columns that autocat encodes.
        vectorizer_ : TableVectorizer or None
            Fitted on those columns; ``None`` when there is none.
        """

        def __init__(
            self,
            mode: str = "add",
            cardinality_threshold: int = 30,
            encoder: str = "minhash",
            n_components: int = 30,
            random_state: int = 0,
            **kwargs: Any,
        ) -> None:
            if mode not in _MODES:
                raise ValueError(
                    f"mode must be one of {list(_MODES)}, got {mode!r}: 'add' encodes "
                    "the dirty columns as well as AutoGluon, 'replace' instead."
                )
            super().__init__(**kwargs)
            self.mode = mode
            self.cardinality_threshold = cardinality_threshold
            self.encoder = encoder
            self.n_components = n_components
            self.autocat_random_state = random_state

        @staticmethod
        def get_default_infer_features_in_args() -> dict[str, Any]:
            return {}  # every column: the ones not encoded pass through

        def _dirty_columns(self, X: pd.DataFrame) -> list[str]:
            dirty = []
            for column in X.columns:
                values = X[column]
                is_string = isinstance(values.dtype, pd.CategoricalDtype) or (
                    values.dtype == object or pd.api.types.is_string_dtype(values)
                )
                if is_string and values.nunique() > self.cardinality_threshold:
                    dirty.append(column)
            return dirty

        def _fit_transform(
            self, X: pd.DataFrame, y: Any = None, **kwargs: Any
        ) -> tuple[pd.DataFrame, dict[str, Any]]:
            self.encoded_columns_ = self._dirty_columns(X)
            self.vectorizer_: Any = None
            if self.encoded_columns_:
                self.vectorizer_ = build_vectorizer(
                    {
                        "encoder": self.encoder,
                        "n_components": self.n_components,
                        # every chosen column is high-cardinality for the vectorizer
                        "cardinality_threshold": 1,
                    },
                    random_state=self.autocat_random_state,
                )
                self.vectorizer_.fit(X[self.encoded_columns_], y)
            X_out = self._transform(X)
            kept = [c for c in X_out.columns if c in X.columns]
            special = self.feature_metadata_in.keep_features(kept)
            return X_out, dict(special.type_group_map_special)

        def _transform(self, X: pd.DataFrame) -> pd.DataFrame:
            if self.vectorizer_ is None:
                return X
            # a column whose encodings AutoGluon pruned may be gone: encode it
            # as missing, its outputs are dropped downstream anyway
            dirty = X.reindex(columns=self.encoded_columns_)
            encoded = self.vectorizer_.transform(dirty)
            names = self._output_names(X.columns)
            encoded = pd.DataFrame(encoded, columns=names, index=X.index)
            kept = X.drop(columns=self.encoded_columns_, errors="ignore")
            if self.mode == "add":
                kept = X
            return pd.concat([kept, encoded], axis=1)

        def _output_names(self, columns: Any) -> list[str]:
            return [
                f"{name}__autocat" if name in columns else str(name)
                for name in self.vectorizer_.get_feature_names_out()
            ]

        def _get_feature_links(
            self, features_in: list[str], features_out: list[str]
        ) -> dict[str, list[str]]:
            # which outputs each input makes, so that AutoGluon prunes exactly
            links = {f: [f] for f in features_in if f in features_out}
            if self.vectorizer_ is not None:
                rename = dict(
                    zip(
                        self.vectorizer_.get_feature_names_out(),
                        self._output_names(features_in),
                        strict=True,
                    )
                )
                for column in self.encoded_columns_:
                    made = self.vectorizer_.input_to_outputs_[column]
                    links[column] = links.get(column, []) + [rename[n] for n in made]
            return links

    AutocatFeatureGenerator.__module__ = __name__
    AutocatFeatureGenerator.__qualname__ = "AutocatFeatureGenerator"
    _CLASS["class"] = AutocatFeatureGenerator
    globals()["AutocatFeatureGenerator"] = AutocatFeatureGenerator
    return AutocatFeatureGenerator


def feature_generator(mode: str = "add", *, verbosity: int = 2, **kwargs: Any) -> Any:
    """Return AutoGluon's default pipeline with autocat's generator in front.

    Parameters
    ----------
    mode : {'add', 'replace'}, default='add'
        See :class:`AutocatFeatureGenerator`.
    verbosity : int, default=2
        AutoGluon's logging level of the pipeline and of the generator.
    **kwargs
        Other parameters of :class:`AutocatFeatureGenerator`
        (``cardinality_threshold``, ``encoder``, ``n_components``,
        ``random_state``).

    Returns
    -------
    autogluon.features.generators.AutoMLPipelineFeatureGenerator
        Its pre-generators are the autocat generator, then AutoGluon's usual
        missing-value filler; pass it as ``TabularPredictor.fit(...,
        feature_generator=...)``.

    Notes
    -----
    The encodings are dense columns (``n_components`` per encoded column), and
    AutoGluon's random forests overrun ``time_limit`` as dense columns grow: on
    Employee Salaries (``mode='add'``, 90 columns added, one CPU),
    ``RandomForestMSE`` was given 8.9 s of a 30 s limit and trained for 66 s.
    Pass ``excluded_model_types=["RF", "XT"]`` to ``fit`` when the time limit
    must hold; that fit then took 30.6 s, with the same validation score.

    Examples
    --------
    >>> from autogluon.tabular import TabularPredictor  # doctest: +SKIP
    >>> from autocat.integrations.autogluon import feature_generator  # doctest: +SKIP
    >>> predictor = TabularPredictor(label="salary").fit(
    ...     train, time_limit=60, feature_generator=feature_generator()
    ... )  # doctest: +SKIP
    """
    generators = require("autogluon.features.generators", "autogluon")
    autocat_generator = _generator_class()(mode=mode, verbosity=verbosity, **kwargs)
    pipeline_kwargs = {"verbosity": verbosity}
    return generators.AutoMLPipelineFeatureGenerator(
        pre_generators=[
            autocat_generator,
            generators.FillNaFeatureGenerator(inplace=True),
        ],
        **pipeline_kwargs,
    )
