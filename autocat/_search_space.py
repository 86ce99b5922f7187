"""The search space of the recipe: one table behind four views.

:data:`SEARCH_SPACE` lists every tunable parameter of a :class:`~autocat.Recipe` once,
with its Optuna distribution, its default (the paper's recipe) and its grid values.
The four public views are built from it:

- :func:`suggest_pipeline` and :func:`suggest_vectorizer`: define-by-run, for a
  user's own Optuna objective (conditional parameters are only suggested when they
  apply);
- :func:`param_distributions`: a flat dict of distributions for ``OptunaSearchCV``;
- :func:`param_grid`: a list of grids for ``GridSearchCV`` and
  ``RandomizedSearchCV``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)

from autocat._recipe import (
    ENCODERS,
    TEXT_ANALYZERS,
    TEXT_ENCODERS,
    Recipe,
    check_task,
    pipeline_param_name,
)

if TYPE_CHECKING:
    import optuna
    from sklearn.pipeline import Pipeline

__all__ = [
    "N_COMPONENTS",
    "ROW_SUM_PARAMS",
    "SEARCH_SPACE",
    "TEXT_N_COMPONENTS",
    "ParamSpec",
    "default_params",
    "param_distributions",
    "param_grid",
    "suggest_params",
    "suggest_pipeline",
    "suggest_vectorizer",
]


@dataclass(frozen=True)
class ParamSpec:
    """One tunable parameter of the recipe.

    Parameters
    ----------
    name : str
        The flat :class:`~autocat.Recipe` parameter name.
    step : {'vectorizer', 'model'}
        The pipeline step the parameter belongs to.
    distribution : optuna.distributions.BaseDistribution
        What Optuna may choose from.
    default : object
        The value of the paper's recipe (and of XGBoost's defaults).
    grid : tuple
        Values tried by :func:`param_grid`.
    only_for_encoder : str or None
        When set, the parameter exists only when ``encoder`` has this value.
    unused_by : tuple of str, default=()
        Encoders on which the parameter has no effect: their grid holds its
        default only.
    only_if : tuple of (str, object) or None, default=None
        When set to ``(name, value)``, the parameter exists only when the
        parameter ``name`` has this value.
    """

    name: str
    step: str
    distribution: BaseDistribution
    default: Any
    grid: tuple[Any, ...]
    only_for_encoder: str | None = None
    unused_by: tuple[str, ...] = ()
    only_if: tuple[str, Any] | None = None


#: Encoder dimensions tried: log-spaced, with the paper's 30 and 100.
N_COMPONENTS: tuple[int, ...] = (10, 20, 30, 50, 100)
#: Dimensions of the text encoder tried.
TEXT_N_COMPONENTS: tuple[int, ...] = (10, 30, 100)

# The single source of truth. Defaults are the paper's recipe: d = 30, cardinality
# threshold 30, XGBoost's own defaults (learning_rate 0.3, max_depth 6, ...). The
# grid is the paper's (appendix A.2): d in {30, 100}, learning_rate in
# {0.05, 0.1, 0.3}, max_depth in {3, 6, 9}. XGBoost's default reg_alpha is 0, which a
# log scale cannot hold: its lower end, 1e-8, is the same model in effect.
# The encoder's parameters take few values so that trials share encodings (see
# autocat._tuning.EncodingCache); the cardinality threshold may be any integer, as
# thresholds that split the columns alike share theirs too. Target encoding
# ignores n_components. The text encoder's parameters apply to free-text columns
# whatever the encoder of the other high-cardinality columns. Dropping near-unique
# text, or keeping identifier codes, changes nothing on a table without them:
# auto_fit searches each only on tables that have some (see autocat._unique_text).
SEARCH_SPACE: tuple[ParamSpec, ...] = (
    ParamSpec(
        "encoder",
        "vectorizer",
        CategoricalDistribution(ENCODERS),
        "minhash",
        ENCODERS,
    ),
    ParamSpec(
        "n_components",
        "vectorizer",
        CategoricalDistribution(N_COMPONENTS),
        30,
        (30, 100),
        unused_by=("target",),
    ),
    ParamSpec(
        "gp_alpha",
        "vectorizer",
        CategoricalDistribution((1.0, 1.1, 1.5, 2.0, 3.0)),
        1.1,
        (1.1,),
        only_for_encoder="gamma_poisson",
    ),
    ParamSpec(
        "gp_beta",
        "vectorizer",
        CategoricalDistribution((0.25, 0.5, 1.0, 2.0, 4.0)),
        1.0,
        (1.0,),
        only_for_encoder="gamma_poisson",
    ),
    ParamSpec(
        "text_encoder",
        "vectorizer",
        CategoricalDistribution(TEXT_ENCODERS),
        "minhash",
        ("minhash",),
    ),
    ParamSpec(
        "text_n_components",
        "vectorizer",
        CategoricalDistribution(TEXT_N_COMPONENTS),
        30,
        (30,),
        only_if=("text_encoder", "text"),
    ),
    ParamSpec(
        "text_analyzer",
        "vectorizer",
        CategoricalDistribution(TEXT_ANALYZERS),
        "both",
        ("both",),
        only_if=("text_encoder", "text"),
    ),
    ParamSpec(
        "cardinality_threshold",
        "vectorizer",
        IntDistribution(10, 100, log=True),
        30,
        (30,),
    ),
    ParamSpec(
        "drop_unique_text",
        "vectorizer",
        CategoricalDistribution((False, True)),
        False,
        (False,),
    ),
    ParamSpec(
        "drop_identifiers",
        "vectorizer",
        CategoricalDistribution((True, "indexes")),
        True,
        (True,),
    ),
    ParamSpec(
        "learning_rate",
        "model",
        FloatDistribution(0.02, 0.5, log=True),
        0.3,
        (0.05, 0.1, 0.3),
    ),
    ParamSpec("max_depth", "model", IntDistribution(2, 12), 6, (3, 6, 9)),
    ParamSpec(
        "min_child_weight",
        "model",
        FloatDistribution(0.5, 50.0, log=True),
        1.0,
        (1.0,),
    ),
    ParamSpec("subsample", "model", FloatDistribution(0.5, 1.0), 1.0, (1.0,)),
    ParamSpec("colsample_bytree", "model", FloatDistribution(0.5, 1.0), 1.0, (1.0,)),
    ParamSpec(
        "reg_lambda",
        "model",
        FloatDistribution(1e-3, 100.0, log=True),
        1.0,
        (1.0,),
    ),
    ParamSpec(
        "reg_alpha",
        "model",
        FloatDistribution(1e-8, 10.0, log=True),
        1e-8,
        (1e-8,),
    ),
)


def _check_prefix(prefix: object) -> str:
    if not isinstance(prefix, str):
        raise TypeError(
            f"prefix must be a string such as 'autocat_', got {type(prefix).__name__}: "
            f"{prefix!r}."
        )
    return prefix


def _applies(spec: ParamSpec, params: dict[str, Any]) -> bool:
    """Return whether ``spec`` exists given the values in ``params``."""
    if spec.only_for_encoder is not None and "encoder" in params:
        if params["encoder"] != spec.only_for_encoder:
            return False
    if spec.only_if is not None and spec.only_if[0] in params:
        return bool(params[spec.only_if[0]] == spec.only_if[1])
    return True


def _conditional(spec: ParamSpec) -> bool:
    return spec.only_for_encoder is not None or spec.only_if is not None


def default_params(encoder: str = "minhash") -> dict[str, Any]:
    """Return the paper's recipe with ``encoder``, as flat recipe parameters.

    Parameters
    ----------
    encoder : {'minhash', 'gamma_poisson', 'target', 'text'}, default='minhash'
        The high-cardinality encoder.

    Returns
    -------
    dict
        One value per parameter of :data:`SEARCH_SPACE` that applies to ``encoder``.

    Examples
    --------
    >>> from autocat._search_space import default_params
    >>> params = default_params("gamma_poisson")
    >>> params["encoder"], params["n_components"], params["gp_alpha"]
    ('gamma_poisson', 30, 1.1)
    """
    if encoder not in ENCODERS:
        raise ValueError(f"encoder must be one of {list(ENCODERS)}, got {encoder!r}.")
    params: dict[str, Any] = {"encoder": encoder}
    for spec in SEARCH_SPACE:
        if spec.name != "encoder" and _applies(spec, params):
            params[spec.name] = spec.default
    return {s.name: params[s.name] for s in SEARCH_SPACE if s.name in params}


def _suggest(trial: optuna.Trial, spec: ParamSpec, prefix: str) -> Any:
    dist = spec.distribution
    name = prefix + spec.name
    if isinstance(dist, CategoricalDistribution):
        return trial.suggest_categorical(name, dist.choices)
    if isinstance(dist, IntDistribution):
        return trial.suggest_int(name, dist.low, dist.high, log=dist.log)
    if isinstance(dist, FloatDistribution):
        return trial.suggest_float(name, dist.low, dist.high, log=dist.log)
    raise TypeError(f"unsupported distribution {dist!r} for {spec.name!r}")


def suggest_params(
    trial: optuna.Trial,
    *,
    steps: tuple[str, ...] = ("vectorizer", "model"),
    prefix: str = "",
    skip: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Suggest flat recipe parameters of the given steps, define-by-run.

    Conditional parameters (the Gamma-Poisson priors) are suggested only when the
    suggested encoder is the one they belong to. The trial's parameter names are
    ``prefix`` + the recipe name; the returned keys have no prefix.

    Parameters
    ----------
    trial : optuna.Trial
        The trial to ask.
    steps : tuple of str, default=('vectorizer', 'model')
        Which steps' parameters to suggest.
    prefix : str, default=''
        Prepended to every trial parameter name.
    skip : tuple of str, default=()
        Parameters not suggested: the recipe keeps their defaults (e.g.
        ``drop_unique_text`` on a table without near-unique text).

    Returns
    -------
    dict
        Flat recipe parameters, usable as ``Recipe(task, **params)``.
    """
    prefix = _check_prefix(prefix)
    params: dict[str, Any] = {}
    for spec in SEARCH_SPACE:
        if spec.step not in steps or spec.name in skip:
            continue
        if not _applies(spec, params):
            continue
        params[spec.name] = _suggest(trial, spec, prefix)
    return params


def suggest_vectorizer(trial: optuna.Trial, *, prefix: str = "") -> Any:
    """Suggest a :class:`~autocat.TableVectorizer` from the recipe's search space.

    For a user's own Optuna objective: the encoder, its parameters (the
    Gamma-Poisson priors only when that encoder is chosen), the cardinality
    threshold, whether to drop near-unique text (names, titles) and whether to
    keep identifier codes (``drop_identifiers='indexes'``) are
    suggested under the names ``prefix + name``.

    Parameters
    ----------
    trial : optuna.Trial
        The trial to ask.
    prefix : str, default=''
        Prepended to every trial parameter name, to keep them apart from the
        objective's other parameters.

    Returns
    -------
    TableVectorizer
        An unfitted vectorizer.

    See Also
    --------
    suggest_pipeline : The vectorizer and the XGBoost model together.

    Examples
    --------
    >>> import optuna
    >>> from autocat import suggest_vectorizer
    >>> trial = optuna.create_study().ask()
    >>> vectorizer = suggest_vectorizer(trial, prefix="vec_")
    >>> sorted(trial.params)[:3]
    ['vec_cardinality_threshold', 'vec_drop_identifiers', 'vec_drop_unique_text']
    """
    params = suggest_params(trial, steps=("vectorizer",), prefix=prefix)
    return Recipe("regression", **params).build_vectorizer()


def suggest_pipeline(
    trial: optuna.Trial, task: str, *, prefix: str = "", random_state: int = 0
) -> Pipeline:
    """Suggest a whole recipe: ``Pipeline(TableVectorizer, XGBoost)``.

    Parameters
    ----------
    trial : optuna.Trial
        The trial to ask.
    task : {'regression', 'binary', 'multiclass'}
        Picks ``XGBRegressor`` or ``XGBClassifier``.
    prefix : str, default=''
        Prepended to every trial parameter name.
    random_state : int, default=0
        Seed of the encoder and of XGBoost.

    Returns
    -------
    sklearn.pipeline.Pipeline
        Unfitted, with steps ``vectorizer`` and ``model``. Its ``n_estimators`` is
        XGBoost's default (100); :func:`~autocat.auto_fit` sets it by early
        stopping instead.

    See Also
    --------
    param_distributions : The same space as a flat dict, for ``OptunaSearchCV``.

    Examples
    --------
    >>> import optuna
    >>> from autocat import suggest_pipeline
    >>> study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    >>> pipeline = suggest_pipeline(study.ask(), "binary")
    >>> [name for name, _ in pipeline.steps]
    ['vectorizer', 'model']
    >>> type(pipeline[-1]).__name__
    'XGBClassifier'
    """
    task = check_task(task)
    params = suggest_params(trial, prefix=prefix)
    return Recipe(task, random_state=random_state, **params).build()


def param_distributions(task: str, *, prefix: str = "") -> dict[str, BaseDistribution]:
    """Return the search space as a flat dict of Optuna distributions.

    Keys are parameter names of the pipeline that :meth:`Recipe.build` returns
    (``vectorizer__n_components``, ``model__learning_rate``, ...), each after
    ``prefix``, so the dict fits ``OptunaSearchCV`` (package
    ``optuna-integration``) directly.

    Parameters
    ----------
    task : {'regression', 'binary', 'multiclass'}
        The task of the pipeline; the space is the same for all three.
    prefix : str, default=''
        Prepended to every key, e.g. ``'autocat__'`` when the recipe is a step
        named ``autocat`` of a larger pipeline.

    Returns
    -------
    dict of str to optuna.distributions.BaseDistribution
        One entry per unconditional parameter.

    Notes
    -----
    A flat dict cannot say that a parameter only exists for one encoder, so the
    Gamma-Poisson priors and the text encoder's dimension and analyzer are left
    out (they keep their defaults); use :func:`suggest_pipeline` for the full,
    conditional space.

    Examples
    --------
    >>> from autocat import param_distributions
    >>> space = param_distributions("regression")
    >>> space["vectorizer__n_components"]
    CategoricalDistribution(choices=(10, 20, 30, 50, 100))
    >>> len(space)
    13
    """
    check_task(task)
    prefix = _check_prefix(prefix)
    return {
        prefix + pipeline_param_name(s.name): s.distribution
        for s in SEARCH_SPACE
        if not _conditional(s)
    }


def param_grid(task: str, *, prefix: str = "") -> list[dict[str, list[Any]]]:
    """Return the paper's grid, as a list of grids for ``GridSearchCV``.

    One grid per encoder (:data:`~autocat._recipe.ENCODERS`). Keys are pipeline
    parameter names after ``prefix``; the Gamma-Poisson grid puts a
    ``GammaPoissonEncoder`` in the vectorizer and sets its dimension and priors
    (``vectorizer__high_cardinality__alpha``, ...); the target-encoding grid keeps
    ``n_components`` at 30, which it ignores.
    Every value is a list, so the result also fits ``RandomizedSearchCV``'s
    ``param_distributions``.

    Parameters
    ----------
    task : {'regression', 'binary', 'multiclass'}
        The task of the pipeline; the grid is the same for all three.
    prefix : str, default=''
        Prepended to every key.

    Returns
    -------
    list of dict
        ``[min-hash, Gamma-Poisson, target, text]`` grids: d in {30, 100} (not
        for target encoding), learning_rate in {0.05, 0.1, 0.3}, max_depth in
        {3, 6, 9}, the rest at the paper's values: 63 points in all.

    Examples
    --------
    >>> from autocat import param_grid
    >>> from sklearn.model_selection import ParameterGrid
    >>> grids = param_grid("regression")
    >>> grids[0]["vectorizer__n_components"], len(ParameterGrid(grids))
    ([30, 100], 63)
    """
    check_task(task)
    prefix = _check_prefix(prefix)
    grids = []
    for encoder in ENCODERS:
        grid: dict[str, list[Any]] = {}
        for spec in SEARCH_SPACE:
            if not _applies(spec, default_params(encoder)):
                continue
            values = list(spec.grid)
            if encoder in spec.unused_by:
                values = [spec.default]
            if spec.name == "encoder":
                values = [Recipe(encoder=encoder).build_vectorizer().high_cardinality]
            if spec.name == "text_encoder":
                values = [
                    Recipe(text_encoder=t).build_vectorizer().text for t in values
                ]
            grid[prefix + pipeline_param_name(spec.name, encoder)] = values
        grids.append(grid)
    return grids


# -- the portfolio ------------------------------------------------------------
# Configurations tried first, derived offline by recipes/20_derive_portfolio.py and
# stored as package data. Entries that no longer fit the search space (a renamed
# parameter, a value outside a narrowed range) are skipped, so that the file can
# outlive a change of SEARCH_SPACE; parameters it lacks take their defaults.
_PORTFOLIO_FILE = "_portfolio.json"


def _portfolio_document() -> dict[str, Any]:
    # Imported here so that this section stays one hunk at the end of the module.
    import importlib.resources
    import json

    try:
        text = (
            importlib.resources.files("autocat")
            .joinpath(_PORTFOLIO_FILE)
            .read_text(encoding="utf-8")
        )
    except FileNotFoundError:
        import logging

        logging.getLogger("autocat").debug(
            "no %s in the package: the portfolio is empty", _PORTFOLIO_FILE
        )
        return {"portfolio": []}
    document: dict[str, Any] = json.loads(text)
    return document


def _same_kind(spec: ParamSpec, value: Any) -> bool:
    """Whether ``value`` is a boolean exactly where the parameter takes one.

    A flag's ``True`` is not ``1``, nor the reverse (Python compares them equal).
    """
    choices = getattr(spec.distribution, "choices", None)
    if choices is None:
        return not isinstance(value, bool)
    return any(c == value and isinstance(c, bool) == isinstance(value, bool)
               for c in choices)  # fmt: skip


def _portfolio_entry(entry: object) -> dict[str, Any] | None:
    """Return ``entry`` completed with defaults, or None if it is not in the space."""
    if not isinstance(entry, dict):
        return None
    encoder = entry.get("encoder", "minhash")
    if encoder not in ENCODERS:
        return None
    specs = {s.name: s for s in SEARCH_SPACE}
    for name, value in entry.items():
        spec = specs.get(name)
        if spec is None or not _applies(spec, {**default_params(encoder), **entry}):
            return None
        try:
            inside = spec.distribution._contains(
                spec.distribution.to_internal_repr(value)
            )
        except (TypeError, ValueError):
            inside = False
        if not inside or not _same_kind(spec, value):
            return None
    return {**default_params(encoder), **entry}


#: XGBoost parameters compared with sums over a leaf's rows (of the loss's
#: hessians: ``min_child_weight``, ``reg_lambda``; of its gradients:
#: ``reg_alpha``). The same value constrains a leaf more when a model is fitted on
#: fewer rows, so :func:`portfolio` scales them with the rows.
ROW_SUM_PARAMS: tuple[str, ...] = ("min_child_weight", "reg_lambda", "reg_alpha")


def portfolio(fit_rows: float | None = None) -> list[dict[str, Any]]:
    """Return the configurations to try first, in order, as flat recipe parameters.

    The portfolio is derived offline by ``recipes/20_derive_portfolio.py``: a
    greedy selection of configurations that are strong across many tables,
    scored with honest cross-validation, ordered by the regret each removes per
    second of fitting (cheap strong configurations first, for short budgets).
    Entries that are not points of :data:`SEARCH_SPACE` are skipped; parameters
    an entry lacks take their defaults.

    Parameters
    ----------
    fit_rows : float, optional
        The rows XGBoost is fitted on in the search's trials (a fold's training
        rows less those that choose the number of trees). Below the rows the
        portfolio was derived with (the document's ``fit_rows``, 533: 1,000-row
        tables, 3 folds, a fifth for early stopping), the parameters compared
        with sums over a leaf's rows (:data:`ROW_SUM_PARAMS`) are scaled down by
        the ratio, to no less than their range's lower end: a
        ``min_child_weight`` of 24 asks a leaf for 4.5% of 533 rows' hessian but
        14% of 170 rows', which leaves a small table with a few leaves. Larger
        tables keep the values as derived (what suits more rows was not
        measured). ``None`` keeps them as derived.

    Returns
    -------
    list of dict
        New dicts at each call, each usable as ``Recipe(task, **params)``.

    Examples
    --------
    >>> from autocat._search_space import portfolio
    >>> first = portfolio()[0]
    >>> first["encoder"] in ("minhash", "gamma_poisson", "target", "text")
    True
    >>> derived, small = portfolio(), portfolio(fit_rows=100)
    >>> [round(p["min_child_weight"], 2) for p in derived[4:5]]
    [23.84]
    >>> [round(p["min_child_weight"], 2) for p in small[4:5]]
    [4.47]
    """
    import logging

    logger = logging.getLogger("autocat")
    document = _portfolio_document()
    entries: list[dict[str, Any]] = []
    for index, entry in enumerate(document.get("portfolio", [])):
        checked = _portfolio_entry(entry)
        if checked is None:
            logger.debug(
                "portfolio entry %d is not in the search space, skipped: %r",
                index,
                entry,
            )
            continue
        if checked not in entries:
            entries.append(checked)
    derived_rows = document.get("fit_rows")
    if fit_rows is not None and derived_rows and fit_rows < derived_rows:
        entries = [_scaled(entry, fit_rows / derived_rows) for entry in entries]
    return [dict(entry) for entry in entries]


def _scaled(entry: dict[str, Any], ratio: float) -> dict[str, Any]:
    """Return ``entry`` with :data:`ROW_SUM_PARAMS` times ``ratio``, kept in range."""
    specs = {s.name: s for s in SEARCH_SPACE}
    scaled = dict(entry)
    for name in ROW_SUM_PARAMS:
        if name in scaled:
            low = specs[name].distribution.low  # type: ignore[attr-defined]
            scaled[name] = max(float(low), float(scaled[name]) * ratio)
    return scaled
