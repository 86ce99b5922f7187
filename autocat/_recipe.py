"""Recipe: one point of the search space, built into a plain scikit-learn Pipeline."""

from __future__ import annotations

import difflib
from typing import Any

import numpy as np
from sklearn.pipeline import Pipeline
from xgboost import XGBClassifier, XGBRegressor

from autocat._forest import ForestClassifier, ForestRegressor
from autocat._linear import LinearClassifier, LinearRegressor
from autocat._log_target import TARGET_TRANSFORMS, LogTargetRegressor

__all__ = [
    "ENCODERS",
    "LOW_CARDINALITY_ENCODERS",
    "TASKS",
    "TEXT_ANALYZERS",
    "TEXT_ENCODERS",
    "VECTORIZER_PARAMS",
    "Recipe",
    "categorical_types",
    "check_task",
    "pipeline_param_name",
]

TASKS: tuple[str, ...] = ("regression", "binary", "multiclass")
ENCODERS: tuple[str, ...] = ("minhash", "gamma_poisson", "target", "text")
#: Encoders of free-text columns: the TextEncoder, or min-hash as other columns.
TEXT_ENCODERS: tuple[str, ...] = ("minhash", "text")
#: The models a recipe may end with.
LEARNERS: tuple[str, ...] = ("xgboost", "linear", "forest")
#: Encoders of low-cardinality columns: one-hot, or category codes that XGBoost
#: splits on as categories (``enable_categorical``).
LOW_CARDINALITY_ENCODERS: tuple[str, ...] = ("onehot", "categorical")
#: The analyzers of :class:`~autocat.TextEncoder`.
TEXT_ANALYZERS: tuple[str, ...] = ("both", "word", "char")
# XGBoost's bound on a leaf's step (before the learning rate) for classes: the
# top of the range its documentation suggests for unbalanced classes (1 to 10).
# Without it, softmax boosting over many classes, some of a few rows, can
# diverge at a high learning rate: where a class's probabilities saturate, the
# hessians vanish and a leaf's step grows to hundreds. Healthy models' steps
# stay below it but for about one leaf in a thousand.
CLASS_MAX_DELTA_STEP = 10.0
# Task -> TargetEncoder's target_type.
_TARGET_TYPES = {
    "regression": "continuous",
    "binary": "binary",
    "multiclass": "multiclass",
}


# Flat recipe name -> parameter of the TableVectorizer step. With Gamma-Poisson,
# the vectorizer holds a GammaPoissonEncoder instance whose own parameters are set;
# free-text columns always get a TextEncoder instance.
_VECTORIZER_PARAM_NAMES: dict[str, str] = {
    "encoder": "high_cardinality",
    "n_components": "n_components",
    "cardinality_threshold": "cardinality_threshold",
    "text_encoder": "text",
    "text_n_components": "text__n_components",
    "text_analyzer": "text__analyzer",
    "drop_unique_text": "drop_unique_text",
    "drop_identifiers": "drop_identifiers",
    "low_cardinality": "low_cardinality",
}
_GAMMA_POISSON_PARAM_NAMES: dict[str, str] = {
    "n_components": "high_cardinality__n_components",
    "gp_alpha": "high_cardinality__alpha",
    "gp_beta": "high_cardinality__beta",
}
VECTORIZER_PARAMS: tuple[str, ...] = (
    "encoder",
    "n_components",
    "cardinality_threshold",
    "gp_alpha",
    "gp_beta",
    "text_encoder",
    "text_n_components",
    "text_analyzer",
    "drop_unique_text",
    "drop_identifiers",
    "low_cardinality",
)


def check_task(task: object) -> str:
    """Return ``task`` if it is one of :data:`TASKS`, else raise a clear error."""
    if not isinstance(task, str) or task not in TASKS:
        raise ValueError(
            f"task must be one of {list(TASKS)}, got {task!r}. Use 'regression' for a "
            "numeric target, 'binary' for two classes, 'multiclass' for more."
        )
    return task


def pipeline_param_name(name: str, encoder: str = "minhash") -> str:
    """Return the ``Pipeline`` parameter name of a flat recipe parameter.

    Parameters
    ----------
    name : str
        A flat recipe parameter, e.g. ``'n_components'`` or ``'max_depth'``.
    encoder : {'minhash', 'gamma_poisson', 'target', 'text'}, default='minhash'
        The recipe's encoder. A Gamma-Poisson recipe's vectorizer holds a
        ``GammaPoissonEncoder`` instance, whose own parameters carry the
        dimension and the priors.

    Returns
    -------
    str

    Examples
    --------
    >>> from autocat._recipe import pipeline_param_name
    >>> pipeline_param_name("n_components"), pipeline_param_name("max_depth")
    ('vectorizer__n_components', 'model__max_depth')
    >>> pipeline_param_name("gp_alpha", "gamma_poisson")
    'vectorizer__high_cardinality__alpha'
    """
    if encoder == "gamma_poisson" and name in _GAMMA_POISSON_PARAM_NAMES:
        return "vectorizer__" + _GAMMA_POISSON_PARAM_NAMES[name]
    if name in _VECTORIZER_PARAM_NAMES:
        return "vectorizer__" + _VECTORIZER_PARAM_NAMES[name]
    if name in VECTORIZER_PARAMS:  # pragma: no cover - every name is mapped
        raise ValueError(
            f"{name!r} is a parameter of the 'gamma_poisson' encoder only; got "
            f"encoder={encoder!r}."
        )
    return "model__" + name


def categorical_types(recipe: Recipe, types: list[str]) -> dict[str, Any]:
    """Return the override that tells the recipe's XGBoost its category codes.

    ``types`` is the fitted vectorizer's ``feature_types_`` (of the columns the
    model is fitted on); a recipe with one-hot encoded low-cardinality columns
    needs no override.

    Examples
    --------
    >>> from autocat._recipe import Recipe, categorical_types
    >>> categorical_types(Recipe(low_cardinality="categorical"), ["c", "q"])
    {'feature_types': ['c', 'q']}
    >>> categorical_types(Recipe(), ["q", "q"])
    {}
    """
    if recipe.low_cardinality != "categorical":
        return {}
    return {"feature_types": list(types)}


def _xgb_param_names() -> frozenset[str]:
    return frozenset(XGBRegressor().get_params()) | frozenset(
        XGBClassifier().get_params()
    )


class Recipe:
    """One configuration of the autocat recipe: a table vectorizer then XGBoost.

    :meth:`build` returns a plain, unfitted scikit-learn
    ``Pipeline([("vectorizer", TableVectorizer), ("model", XGBRegressor |
    XGBClassifier)])``; a recipe is only the parameters. The flat parameter names
    are those of :func:`~autocat.auto_fit`'s ``best_params_``, so
    ``Recipe(task, **result.best_params_)`` rebuilds the chosen model.

    Parameters
    ----------
    task : {'regression', 'binary', 'multiclass'}, default='regression'
        Picks ``XGBRegressor`` or ``XGBClassifier``.
    encoder : {'minhash', 'gamma_poisson', 'target', 'text'}, default='minhash'
        Encoder of the high-cardinality string columns: min-hash, Gamma-Poisson,
        scikit-learn's ``TargetEncoder`` (cross-fitted; its target type follows
        ``task``) or :class:`~autocat.TextEncoder`.
    n_components : int, default=30
        Output dimension of that encoder per column (the paper's ``d``); target
        encoding ignores it (one output, or one per class).
    cardinality_threshold : int, default=30
        String columns with at most this many distinct values are one-hot encoded
        (see ``low_cardinality``).
    gp_alpha, gp_beta : float, default=1.1, 1.0
        Gamma prior of the Gamma-Poisson activations (shape and scale); used
        only with ``encoder='gamma_poisson'``.
    text_encoder : {'minhash', 'text'}, default='minhash'
        Encoder of free-text columns (see :class:`~autocat.TableVectorizer`),
        whatever ``encoder``: min-hash with ``n_components``, or a
        :class:`~autocat.TextEncoder`.
    text_n_components : int, default=30
        Output dimension of that :class:`~autocat.TextEncoder`.
    text_analyzer : {'both', 'word', 'char'}, default='both'
        The terms it counts: words, character n-grams or both. Both text
        parameters are used (and listed by :meth:`params`) only with
        ``text_encoder='text'``.
    drop_unique_text : bool, default=False
        Drop the columns of near-unique text, such as names and titles (see
        :class:`~autocat.TableVectorizer`); listed by :meth:`params` only when
        set.
    drop_identifiers : bool or 'indexes', default=True
        Drop row indexes and identifier codes (``True``), row indexes only
        (``'indexes'``: identifier codes such as tail numbers are encoded as
        other text), or neither; listed by :meth:`params` only when not
        ``True``.
    low_cardinality : {'onehot', 'categorical'}, default='onehot'
        Encoder of those columns: one-hot, or ``'categorical'``, one output of
        category codes per column, which XGBoost splits on as categories
        (``enable_categorical=True`` and the vectorizer's ``feature_types_``;
        :meth:`build` sets the vectorizer's pandas output, whose categories
        XGBoost reads). XGBoost only; listed by :meth:`params` only when set.
    target_transform : {'none', 'log'}, default='none'
        With ``'log'`` (regression only), XGBoost learns ``log(1 + y)`` and
        predicts on ``y``'s scale (:class:`~autocat._log_target.LogTargetRegressor`,
        for targets of values >= 0); ``auto_fit`` measures it on skewed targets.
        Listed by :meth:`params` only when set.
    learner : {'xgboost', 'linear', 'forest'}, default='xgboost'
        The model after the vectorizer: XGBoost, a ridge regression on the
        standardised encodings (:class:`~autocat._linear.LinearRegressor`;
        for classes, :class:`~autocat._linear.LinearClassifier`) or a forest of
        extremely randomised trees (:class:`~autocat._forest.ForestRegressor`,
        :class:`~autocat._forest.ForestClassifier`); the last two ignore
        ``xgb_params``. ``auto_fit`` adds one linear and one forest trial to
        each search as candidates of its ensemble. Listed by :meth:`params`
        only when set, and then without XGBoost's parameters.
    specific_transformers : dict, default=None
        Per-column overrides given to the vectorizer unchanged (see
        :class:`~autocat.TableVectorizer`); not a searched parameter.
    random_state : int, default=0
        Seed of the encoder and of XGBoost.
    n_jobs : int, default=1
        Threads of XGBoost. One thread per model is the fastest on small data and
        lets several models train at once.
    **xgb_params
        Any other parameter of ``XGBRegressor`` / ``XGBClassifier``, e.g.
        ``learning_rate=0.1, max_depth=6, n_estimators=300``. Unset ones keep
        XGBoost's defaults.

    Attributes
    ----------
    xgb_params : dict
        The XGBoost parameters given.

    See Also
    --------
    suggest_pipeline : Draw a recipe's pipeline from the search space with Optuna.
    auto_fit : Search recipes and refit the best one.

    Notes
    -----
    XGBoost gets ``tree_method='hist'`` unless given, and ``random_state`` and
    ``n_jobs`` from the recipe. For classes it also gets ``max_delta_step=10``
    unless given (:data:`CLASS_MAX_DELTA_STEP`): a bound on a leaf's step that
    keeps softmax boosting over many classes from diverging at a high learning
    rate with little regularisation. ``XGBClassifier`` needs labels ``0 .. k-1``:
    encode string labels (e.g. with ``LabelEncoder``) before fitting the pipeline
    yourself; :func:`~autocat.auto_fit` does it for you.

    Examples
    --------
    >>> import pandas as pd
    >>> from autocat import Recipe
    >>> recipe = Recipe("regression", n_components=8, max_depth=3, n_estimators=20)
    >>> recipe.params()["max_depth"]
    3
    >>> pipeline = recipe.build()
    >>> [name for name, _ in pipeline.steps]
    ['vectorizer', 'model']
    >>> type(pipeline.named_steps["model"]).__name__
    'XGBRegressor'
    """

    def __init__(
        self,
        task: str = "regression",
        *,
        encoder: str = "minhash",
        n_components: int = 30,
        cardinality_threshold: int = 30,
        gp_alpha: float = 1.1,
        gp_beta: float = 1.0,
        text_encoder: str = "minhash",
        text_n_components: int = 30,
        text_analyzer: str = "both",
        drop_unique_text: bool = False,
        drop_identifiers: bool | str = True,
        low_cardinality: str = "onehot",
        target_transform: str = "none",
        learner: str = "xgboost",
        specific_transformers: dict[str, Any] | None = None,
        random_state: int = 0,
        n_jobs: int = 1,
        **xgb_params: Any,
    ) -> None:
        self.task = check_task(task)
        if encoder not in ENCODERS:
            raise ValueError(
                f"encoder must be one of {list(ENCODERS)}, got {encoder!r}."
            )
        self.encoder = encoder
        self.n_components = n_components
        self.cardinality_threshold = cardinality_threshold
        self.gp_alpha = gp_alpha
        self.gp_beta = gp_beta
        if text_encoder not in TEXT_ENCODERS:
            raise ValueError(
                f"text_encoder must be one of {list(TEXT_ENCODERS)}, got "
                f"{text_encoder!r}."
            )
        self.text_encoder = text_encoder
        if text_analyzer not in TEXT_ANALYZERS:
            raise ValueError(
                f"text_analyzer must be one of {list(TEXT_ANALYZERS)}, got "
                f"{text_analyzer!r}."
            )
        self.text_n_components = text_n_components
        self.text_analyzer = text_analyzer
        if not isinstance(drop_unique_text, bool | np.bool_):
            raise TypeError(
                "drop_unique_text must be True or False, got "
                f"{type(drop_unique_text).__name__}: {drop_unique_text!r}."
            )
        self.drop_unique_text = bool(drop_unique_text)
        if drop_identifiers not in (True, False, "indexes") or not isinstance(
            drop_identifiers, bool | np.bool_ | str
        ):
            raise ValueError(
                "drop_identifiers must be True, False or 'indexes', got "
                f"{drop_identifiers!r}."
            )
        self.drop_identifiers = (
            drop_identifiers if isinstance(drop_identifiers, str)
            else bool(drop_identifiers)
        )  # fmt: skip
        if low_cardinality not in LOW_CARDINALITY_ENCODERS:
            raise ValueError(
                f"low_cardinality must be one of {list(LOW_CARDINALITY_ENCODERS)}, "
                f"got {low_cardinality!r}."
            )
        self.low_cardinality = low_cardinality
        if target_transform not in TARGET_TRANSFORMS:
            raise ValueError(
                f"target_transform must be one of {list(TARGET_TRANSFORMS)}, got "
                f"{target_transform!r}."
            )
        if target_transform != "none" and self.task != "regression":
            raise ValueError(
                f"target_transform={target_transform!r} is for regression; the "
                f"task is {self.task!r}."
            )
        self.target_transform = target_transform
        if learner not in LEARNERS:
            raise ValueError(
                f"learner must be one of {list(LEARNERS)}, got {learner!r}."
            )
        if learner != "xgboost" and target_transform != "none":
            raise ValueError(
                f"learner={learner!r} learns the target itself; got "
                f"target_transform={target_transform!r}."
            )
        if learner != "xgboost" and low_cardinality != "onehot":
            raise ValueError(
                f"low_cardinality={low_cardinality!r} is for XGBoost, which splits "
                f"on categories; learner={learner!r} needs 'onehot'."
            )
        self.learner = learner
        self.specific_transformers = (
            None if specific_transformers is None else dict(specific_transformers)
        )
        self.random_state = random_state
        self.n_jobs = n_jobs
        known = _xgb_param_names()
        for name in xgb_params:
            if name not in known:
                close = difflib.get_close_matches(name, sorted(known), n=1)
                hint = f" Did you mean {close[0]!r}?" if close else ""
                raise TypeError(
                    f"Recipe got an unknown parameter {name!r}: it is neither a "
                    f"vectorizer parameter {list(VECTORIZER_PARAMS)} nor a parameter "
                    f"of XGBoost's scikit-learn estimators.{hint}"
                )
        self.xgb_params = dict(xgb_params)

    @classmethod
    def from_params(cls, task: str, params: dict[str, Any], **kwargs: Any) -> Recipe:
        """Build a recipe from flat parameters, such as ``AutoResult.best_params_``.

        Parameters
        ----------
        task : {'regression', 'binary', 'multiclass'}
            The task.
        params : dict
            Flat recipe parameters.
        **kwargs
            Override ``params`` (e.g. ``n_jobs=2``).

        Returns
        -------
        Recipe
        """
        return cls(task, **{**params, **kwargs})

    def params(self) -> dict[str, Any]:
        """Return the flat parameters: vectorizer ones, then XGBoost ones.

        The Gamma-Poisson priors are included only when that encoder is used,
        the text encoder's parameters only with ``text_encoder='text'``,
        ``drop_unique_text``, ``drop_identifiers``, ``low_cardinality`` and
        ``target_transform`` only
        when they are set.

        Returns
        -------
        dict
            ``Recipe.from_params(task, recipe.params())`` equals ``recipe``.
        """
        out: dict[str, Any] = {
            "encoder": self.encoder,
            "n_components": self.n_components,
            "cardinality_threshold": self.cardinality_threshold,
        }
        if self.encoder == "gamma_poisson":
            out["gp_alpha"] = self.gp_alpha
            out["gp_beta"] = self.gp_beta
        out["text_encoder"] = self.text_encoder
        if self.text_encoder == "text":
            out["text_n_components"] = self.text_n_components
            out["text_analyzer"] = self.text_analyzer
        if self.drop_unique_text:
            out["drop_unique_text"] = True
        if self.drop_identifiers is not True:
            out["drop_identifiers"] = self.drop_identifiers
        if self.low_cardinality != "onehot":
            out["low_cardinality"] = self.low_cardinality
        if self.target_transform != "none":
            out["target_transform"] = self.target_transform
        if self.learner != "xgboost":
            out["learner"] = self.learner
            return out
        out.update(self.xgb_params)
        return out

    @property
    def vectorizer_params(self) -> dict[str, Any]:
        """Every setting the vectorizer's output depends on, with hashable values.

        Two recipes with equal ``vectorizer_params`` encode the same data into
        the same matrix, so encodings may be cached under
        ``tuple(sorted(recipe.vectorizer_params.items()))``. Besides the flat
        vectorizer parameters it holds ``target_type`` (from the task, used by
        target encoding), ``random_state`` and ``specific_transformers`` (as a
        sorted tuple of ``(column, choice)``, transformers by their ``repr``).

        Returns
        -------
        dict

        Examples
        --------
        >>> from autocat import Recipe
        >>> params = Recipe("binary", encoder="target").vectorizer_params
        >>> params["encoder"], params["target_type"]
        ('target', 'binary')
        """
        params = {
            name: value
            for name, value in self.params().items()
            if name in VECTORIZER_PARAMS
        }
        specific = self.specific_transformers or {}
        params.update(
            target_type=_TARGET_TYPES[self.task],
            random_state=self.random_state,
            specific_transformers=tuple(
                sorted(
                    (str(column), choice if isinstance(choice, str) else repr(choice))
                    for column, choice in specific.items()
                )
            ),
        )
        return params

    def build_vectorizer(self) -> Any:
        """Return the unfitted :class:`~autocat.TableVectorizer` of this recipe.

        Returns
        -------
        TableVectorizer
            With ``encoder='gamma_poisson'``, its ``high_cardinality`` is a
            :class:`~autocat.GammaPoissonEncoder` carrying the dimension and priors;
            with ``text_encoder='text'``, its ``text`` is a
            :class:`~autocat.TextEncoder`.
        """
        from autocat._table_vectorizer import TableVectorizer
        from autocat._text import TextEncoder

        high_cardinality: Any = self.encoder
        if self.encoder == "gamma_poisson":
            from autocat._gamma_poisson import GammaPoissonEncoder

            high_cardinality = GammaPoissonEncoder(
                n_components=self.n_components,
                alpha=self.gp_alpha,
                beta=self.gp_beta,
                random_state=self.random_state,
            )
        text: Any = self.text_encoder
        if self.text_encoder == "text":
            text = TextEncoder(
                n_components=self.text_n_components,
                analyzer=self.text_analyzer,
                random_state=self.random_state,
            )
        return TableVectorizer(
            cardinality_threshold=self.cardinality_threshold,
            high_cardinality=high_cardinality,
            n_components=self.n_components,
            text=text,
            drop_unique_text=self.drop_unique_text,
            drop_identifiers=self.drop_identifiers,
            low_cardinality=self.low_cardinality,
            specific_transformers=self.specific_transformers,
            target_type=_TARGET_TYPES[self.task],
            random_state=self.random_state,
        )

    def build_model(self, **overrides: Any) -> Any:
        """Return the unfitted XGBoost estimator of this recipe.

        Parameters
        ----------
        **overrides
            XGBoost parameters that take precedence (e.g. ``n_estimators`` or
            ``early_stopping_rounds`` during the search); ignored by
            ``learner='linear'``, whose model is a
            :class:`~autocat._linear.LinearRegressor` or
            :class:`~autocat._linear.LinearClassifier`, and by
            ``learner='forest'``, whose model is a
            :class:`~autocat._forest.ForestRegressor` or
            :class:`~autocat._forest.ForestClassifier` (its threads the
            recipe's).

        Returns
        -------
        XGBRegressor or XGBClassifier
            Unfitted, with ``tree_method='hist'`` unless the recipe sets another;
            a ``LogTargetRegressor`` (an ``XGBRegressor``) with
            ``target_transform='log'``; ``enable_categorical=True`` with
            ``low_cardinality='categorical'`` (give it the fitted vectorizer's
            ``feature_types_`` as ``feature_types`` to fit it on arrays).
        """
        if self.learner == "linear":
            if self.task == "regression":
                return LinearRegressor(random_state=self.random_state)
            return LinearClassifier(random_state=self.random_state)
        if self.learner == "forest":
            forest = ForestRegressor if self.task == "regression" else ForestClassifier
            return forest(n_jobs=self.n_jobs, random_state=self.random_state)
        params: dict[str, Any] = {"tree_method": "hist"}
        if self.task != "regression":
            params["max_delta_step"] = CLASS_MAX_DELTA_STEP
        if self.low_cardinality == "categorical":
            params["enable_categorical"] = True
        params.update(self.xgb_params)
        params.update(random_state=self.random_state, n_jobs=self.n_jobs)
        params.update(overrides)
        if self.target_transform == "log":
            return LogTargetRegressor(**params)
        if self.task == "regression":
            return XGBRegressor(**params)
        return XGBClassifier(**params)

    def build(self) -> Pipeline:
        """Return the unfitted ``Pipeline([("vectorizer", ...), ("model", ...)])``.

        Returns
        -------
        sklearn.pipeline.Pipeline
            A new pipeline at each call. With ``low_cardinality='categorical'``
            its vectorizer outputs a pandas DataFrame whose category codes are
            pandas categories, so that XGBoost knows them.
        """
        vectorizer = self.build_vectorizer()
        if self.low_cardinality == "categorical":
            vectorizer.set_output(transform="pandas")
        return Pipeline([("vectorizer", vectorizer), ("model", self.build_model())])

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"Recipe({self.task!r}, {args})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Recipe):
            return NotImplemented
        return (
            self.task,
            self.params(),
            self.random_state,
            self.n_jobs,
            self.specific_transformers,
        ) == (
            other.task,
            other.params(),
            other.random_state,
            other.n_jobs,
            other.specific_transformers,
        )

    __hash__ = None  # type: ignore[assignment]
