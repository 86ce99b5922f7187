"""FLAML learners that encode dirty string columns with autocat before their model.

:func:`add_learners` registers, with ``AutoML.add_learner``:

- ``'autocat'``: autocat's recipe, the :class:`~autocat.TableVectorizer` then
  XGBoost, tuned on the whole search-space table (encoder and model rows) plus
  FLAML's number of trees, which bounds the trees that early stopping chooses
  on a fifth of the training rows (as in ``auto_fit``'s trials);
- ``'autocat_<learner>'`` for FLAML's own learners (``'xgboost'``, ``'lgbm'``,
  ``'rf'``, ...): the vectorizer in front of the learner, tuned on the learner's
  own FLAML space plus the table's vectorizer rows.

The spaces are generated from :data:`autocat._search_space.SEARCH_SPACE` at call
time (Optuna distributions become ``flaml.tune`` domains), so FLAML's own search
tunes autocat's encoder, and encoders added to the table appear here too.

FLAML keeps one configuration. :class:`TrialRecorder`, passed as FLAML's metric,
keeps every trial's out-of-fold predictions (and the best trials' fold models), and
its :meth:`~TrialRecorder.ensemble` selects a weighted ensemble of FLAML's trials on
them, as ``auto_fit`` does with its own (:class:`FlamlEnsemble`; defined in
``autocat.integrations._flaml_ensemble``).

FLAML is imported on first use; install it with ``pip install 'autocat[flaml]'``.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from autocat import _search_space
from autocat._budget import Budget, budget_scope
from autocat._search_space import ParamSpec
from autocat._splits import STOP_FRACTION, inner_split
from autocat._trials import (
    EARLY_STOPPING_ROUNDS,
    MAX_ROUNDS,
)
from autocat.integrations._common import build_vectorizer, require, vectorizer_specs
from autocat.integrations._flaml_ensemble import (
    ENSEMBLE_METRICS,
    FlamlEnsemble,
    FoldAverage,
    TrialRecorder,
)

__all__ = [
    "ENSEMBLE_METRICS",
    "FLAML_LEARNERS",
    "FlamlEnsemble",
    "FoldAverage",
    "TrialRecorder",
    "add_learners",
    "flaml_domain",
    "search_space",
    "starting_points",
]

#: FLAML learners that autocat's vectorizer may precede: FLAML's name -> class
#: name in ``flaml.automl.model``. They all take a numeric matrix.
FLAML_LEARNERS: dict[str, str] = {
    "xgboost": "XGBoostSklearnEstimator",
    "xgb_limitdepth": "XGBoostLimitDepthEstimator",
    "lgbm": "LGBMEstimator",
    "rf": "RandomForestEstimator",
    "extra_tree": "ExtraTreesEstimator",
    "lrl1": "LRL1Classifier",
    "lrl2": "LRL2Classifier",
    "kneighbor": "KNeighborsEstimator",
    "sgd": "SGDEstimator",
    "enet": "ElasticNetEstimator",
    "lassolars": "LassoLarsEstimator",
}
#: The name of the learner that is autocat's whole recipe.
RECIPE = "autocat"
#: Prepended to the vectorizer's parameters in FLAML's configurations.
PREFIX = "autocat_"
_DEFAULT_LEARNERS = (RECIPE, "xgboost", "lgbm", "rf", "extra_tree")
#: FLAML's smallest number of trees.
_MIN_TREES = 4
#: The ``'autocat'`` learner holds out rows for early stopping from this many.
MIN_ROWS_TO_STOP_EARLY = 50
#: Share of FLAML's time budget for one fit after which the vectorizer's
#: iterative fits (the Gamma-Poisson passes) stop and keep the state reached;
#: the model's own fit has the rest, bounded by FLAML as for its own learners.
VECTORIZER_BUDGET_SHARE = 0.5


def _flaml() -> Any:
    return require("flaml", "flaml")


def flaml_domain(spec: ParamSpec) -> Any:
    """Return the ``flaml.tune`` domain of one row of the search-space table.

    Parameters
    ----------
    spec : ParamSpec
        A row of :data:`~autocat._search_space.SEARCH_SPACE`.

    Returns
    -------
    flaml.tune.sample.Domain
        ``choice`` for categorical, ``(log)randint`` / ``qrandint`` for integer,
        ``(log)uniform`` / ``quniform`` for float distributions; the same bounds
        (FLAML's integer upper bounds are exclusive, Optuna's inclusive).
    """
    from optuna.distributions import (
        CategoricalDistribution,
        FloatDistribution,
        IntDistribution,
    )

    tune = _flaml().tune
    dist = spec.distribution
    if isinstance(dist, CategoricalDistribution):
        return tune.choice(list(dist.choices))
    if isinstance(dist, IntDistribution):
        if dist.log:
            return tune.lograndint(dist.low, dist.high + 1)
        if dist.step != 1:
            return tune.qrandint(dist.low, dist.high, dist.step)
        return tune.randint(dist.low, dist.high + 1)
    if isinstance(dist, FloatDistribution):
        if dist.log:
            return tune.loguniform(dist.low, dist.high)
        if dist.step is not None:
            return tune.quniform(dist.low, dist.high, dist.step)
        return tune.uniform(dist.low, dist.high)
    raise TypeError(
        f"The search-space row {spec.name!r} has a {type(dist).__name__}, which "
        "has no flaml.tune counterpart; use a Categorical, Int or Float distribution."
    )


def search_space(
    steps: tuple[str, ...] = ("vectorizer",), *, prefix: str = PREFIX
) -> dict[str, dict[str, Any]]:
    """Return rows of the search-space table as a FLAML learner's search space.

    Parameters
    ----------
    steps : tuple of str, default=('vectorizer',)
        Which steps' rows: ``'vectorizer'`` and/or ``'model'``.
    prefix : str, default='autocat_'
        Prepended to the vectorizer's parameter names, apart from the learner's.

    Returns
    -------
    dict
        ``{name: {"domain": ..., "init_value": default}}``: the paper's recipe is
        FLAML's first point. Parameters of one encoder only (the Gamma-Poisson
        priors) are in the space for every encoder and ignored when another is
        chosen, as FLAML's learner spaces are flat.
    """
    space: dict[str, dict[str, Any]] = {}
    for spec in _search_space.SEARCH_SPACE:
        if spec.step not in steps:
            continue
        name = prefix + spec.name if spec.step == "vectorizer" else spec.name
        space[name] = {"domain": flaml_domain(spec), "init_value": spec.default}
    return space


def starting_points(n_rows: int | None = None) -> dict[str, list[dict[str, Any]]]:
    """Return autocat's portfolio as starting points of the ``'autocat'`` learner.

    The portfolio (``autocat._search_space.portfolio()``) is the ordered list of
    configurations that ``auto_fit`` tries first: diverse, strong on many
    tables, cheap ones first. Passed to ``AutoML.fit(starting_points=...)``,
    FLAML evaluates them first and searches around the best, instead of starting
    from the paper's recipe alone. Each allows ``auto_fit``'s most trees
    (``autocat._trials.MAX_ROUNDS``, 1,000): the ``'autocat'`` learner chooses
    how many by early stopping, as ``auto_fit``'s trials do, and FLAML tunes
    that bound from there. Parameters an entry does not set take their
    defaults.

    Parameters
    ----------
    n_rows : int, optional
        The training rows. FLAML bounds the number of trees by them and drops a
        starting point outside its space, so the trees are capped at half of
        them (FLAML may hold out part of the rows). On a small table the
        parameters compared with sums over a leaf's rows are scaled down, as
        ``auto_fit`` does (``autocat._search_space.portfolio``), to the rows
        XGBoost is fitted on: ``n_rows`` less the fifth early stopping holds out
        (less FLAML's own holdout, which it does not know).

    Returns
    -------
    dict
        ``{'autocat': [config, ...]}``, in FLAML's parameter names (the
        vectorizer's prefixed with ``'autocat_'``).

    Examples
    --------
    >>> from autocat.integrations.flaml import starting_points
    >>> points = starting_points(n_rows=1_000)["autocat"]
    >>> first = points[0]
    >>> first["autocat_encoder"] in ("minhash", "gamma_poisson", "target", "text")
    True
    >>> {p["n_estimators"] for p in points}  # at most half the rows
    {500}
    """
    if n_rows is not None and (isinstance(n_rows, bool) or int(n_rows) != n_rows
                               or n_rows < 1):  # fmt: skip
        raise ValueError(f"n_rows must be a positive integer, got {n_rows!r}.")
    specs = list(_search_space.SEARCH_SPACE)
    points = []
    fit_rows = None if n_rows is None else int(n_rows) * (1 - STOP_FRACTION)
    for entry in _search_space.portfolio(fit_rows):
        point: dict[str, Any] = {}
        for spec in specs:
            name = PREFIX + spec.name if spec.step == "vectorizer" else spec.name
            point[name] = entry.get(spec.name, spec.default)
        trees = MAX_ROUNDS
        if n_rows is not None:
            trees = min(trees, int(n_rows) // 2)
        point["n_estimators"] = max(_MIN_TREES, trees)
        points.append(point)
    return {RECIPE: points}


class _EncodingMixin:
    """Fit autocat's vectorizer in ``fit``, apply it in ``_preprocess``.

    With ``_early_stopping`` (the ``'autocat'`` learner), XGBoost's trees are
    chosen as in ``auto_fit``'s trials: a fifth of the training rows
    (stratified for classification) is held out for early stopping, the
    configuration's ``n_estimators`` is the most trees allowed, and the model
    keeps the best round.

    FLAML gives each fit a time budget (the time left, split over the folds)
    and bounds its own learners by it. Here the vectorizer's iterative fits
    settle once :data:`VECTORIZER_BUDGET_SHARE` of it is spent (the
    Gamma-Poisson passes stop and keep the topics reached: a rougher
    encoding, which the trial's loss then shows), and the model has the rest.
    """

    _vectorizer: Any = None
    _early_stopping = False

    def _split_config(self, config: dict[str, Any]) -> dict[str, Any]:
        names = {PREFIX + spec.name for spec in vectorizer_specs()}
        vectorizer = {
            key[len(PREFIX) :]: config.pop(key) for key in list(config) if key in names
        }
        self._vectorizer_params = vectorizer
        self._vectorizer = None
        return config

    def fit(
        self,
        X_train: Any,
        y_train: Any,
        budget: float | None = None,
        free_mem_ratio: float = 0,
        **kwargs: Any,
    ) -> float:
        start = time.time()
        seed = int(getattr(self, "params", {}).get("random_state", 0) or 0) % 2**31
        vectorizer = build_vectorizer(self._vectorizer_params, random_state=seed)
        self._vectorizer = None  # _preprocess passes the encoded matrix through
        # FLAML's budget (falsy: none, as in FLAML's own learners) bounds the
        # whole fit: the vectorizer's iterative fits settle by a share of it.
        settle_by = (
            time.monotonic() + VECTORIZER_BUDGET_SHARE * budget if budget else None
        )
        with budget_scope(Budget(settle_by, settle=True)):
            encoded = vectorizer.fit_transform(X_train, y_train)
        if budget is not None:
            budget = max(budget - (time.time() - start), 0.01)
        if self._early_stopping and "eval_set" not in kwargs:
            encoded, y_train, kwargs = self._hold_out_stop_rows(
                encoded, y_train, seed, kwargs
            )
        super().fit(encoded, y_train, budget, free_mem_ratio, **kwargs)  # type: ignore[misc]
        self._vectorizer = vectorizer
        return time.time() - start

    def _hold_out_stop_rows(
        self, encoded: Any, y_train: Any, seed: int, kwargs: dict[str, Any]
    ) -> tuple[Any, Any, dict[str, Any]]:
        """Return the fit rows, their target, and ``kwargs`` with the stop rows."""
        y = np.asarray(y_train)
        if len(y) < MIN_ROWS_TO_STOP_EARLY:
            return encoded, y_train, kwargs
        if self._task.is_classification():  # type: ignore[attr-defined]
            codes = np.unique(y, return_inverse=True)[1]
            task = "binary" if codes.max(initial=0) == 1 else "multiclass"
        else:
            codes, task = y, "regression"
        fit_rows, stop_rows = inner_split(np.arange(len(y)), codes, task, seed)
        if len(stop_rows) == 0:
            return encoded, y_train, kwargs
        self.params["early_stopping_rounds"] = EARLY_STOPPING_ROUNDS  # type: ignore[attr-defined]
        kwargs = {
            **kwargs,
            "eval_set": [(encoded[stop_rows], y[stop_rows])],
            "verbose": False,
        }
        return encoded[fit_rows], y[fit_rows], kwargs

    def _preprocess(self, X: Any) -> Any:
        if self._vectorizer is not None:
            X = self._vectorizer.transform(X)
        return super()._preprocess(X)  # type: ignore[misc]


def _learner_class(learner: str) -> type:
    """Return (and cache in this module, for pickling) the class of ``learner``."""
    class_name = _class_name(learner)
    cached = globals().get(class_name)
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    model = require("flaml.automl.model", "flaml")
    if learner == RECIPE:
        base = model.XGBoostSklearnEstimator

        def recipe_space(cls: type, /, data_size: Any, task: Any, **params: Any) -> Any:
            space = search_space(("vectorizer", "model"))
            n_estimators = dict(base.search_space(data_size, task=task)["n_estimators"])
            # start from the paper's recipe (XGBoost's 100 trees), as auto_fit
            # does, rather than from FLAML's cheapest 4-tree model
            upper = n_estimators["domain"].upper - 1
            n_estimators.pop("low_cost_init_value", None)
            n_estimators["init_value"] = min(100, upper)
            return {"n_estimators": n_estimators, **space}

        space_method: Any = classmethod(recipe_space)
        doc = "FLAML learner: autocat's recipe, the TableVectorizer then XGBoost."
    else:
        base = getattr(model, FLAML_LEARNERS[learner])

        def wrapped_space(
            cls: type, /, data_size: Any, task: Any, **params: Any
        ) -> Any:
            space = base.search_space(data_size=data_size, task=task, **params)
            return {**space, **search_space(("vectorizer",))}

        space_method = classmethod(wrapped_space)
        doc = f"FLAML learner: autocat's TableVectorizer, then FLAML's {learner!r}."

    def __init__(self: Any, task: Any = "binary", **config: Any) -> None:
        config = self._split_config(dict(config))
        base.__init__(self, task, **config)

    namespace = {
        "_early_stopping": learner == RECIPE,
        "__doc__": doc,
        "__init__": __init__,
        "__module__": __name__,
        "__qualname__": class_name,
        "search_space": space_method,
    }
    cls = type(class_name, (_EncodingMixin, base), namespace)
    globals()[class_name] = cls
    return cls


def _class_name(learner: str) -> str:
    parts = "" if learner == RECIPE else learner.title().replace("_", "")
    return f"Autocat{parts}Learner"


def __getattr__(name: str) -> Any:
    # pickle finds the learner classes by name, in a process that may not
    # have called add_learners yet
    for learner in (RECIPE, *FLAML_LEARNERS):
        if name == _class_name(learner):
            return _learner_class(learner)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def add_learners(
    automl: Any, learners: tuple[str, ...] | list[str] = _DEFAULT_LEARNERS
) -> list[str]:
    """Register autocat's learners with a FLAML ``AutoML``; return their names.

    Parameters
    ----------
    automl : flaml.AutoML
        The AutoML object; its ``add_learner`` is called once per learner.
    learners : sequence of str, default=('autocat', 'xgboost', 'lgbm', 'rf', \
'extra_tree')
        ``'autocat'`` is autocat's recipe (vectorizer + XGBoost, tuned on
        autocat's table); any key of :data:`FLAML_LEARNERS` registers the
        vectorizer in front of that FLAML learner, as ``'autocat_<learner>'``.

    Returns
    -------
    list of str
        The registered names, to pass as ``estimator_list``.

    Raises
    ------
    ValueError
        For a learner that autocat cannot precede.
    ImportError
        When FLAML is not installed.

    Notes
    -----
    Pass ``starting_points=starting_points(len(X))`` too, so that FLAML tries
    autocat's portfolio first (:func:`starting_points`). Pass
    ``skip_transform=True`` to ``AutoML.fit`` so that the learners see the
    raw columns: FLAML's own preprocessing drops string columns whose values
    are all distinct and maps unseen categories to one code, which is what
    autocat's encoders do better. Each configuration encodes the training rows
    anew (min-hash encodes each distinct value once), so that the encoder's
    parameters are tuned with the model's.

    FLAML's time budget for each fit bounds the vectorizer as well as the
    model (:data:`VECTORIZER_BUDGET_SHARE`). After ``time_budget``, FLAML
    retrains its best configuration on all rows (``retrain_full=True``, its
    default), which here fits the vectorizer again; ``retrain_full='budget'``
    keeps that retrain within the budget (with a holdout, FLAML's rule).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from flaml import AutoML  # doctest: +SKIP
    >>> from autocat.integrations.flaml import add_learners  # doctest: +SKIP
    >>> automl = AutoML()  # doctest: +SKIP
    >>> names = add_learners(automl)  # doctest: +SKIP
    >>> names  # doctest: +SKIP
    ['autocat', 'autocat_xgboost', 'autocat_lgbm', 'autocat_rf', 'autocat_extra_tree']
    >>> automl.fit(X, y, task="regression", time_budget=30, estimator_list=names,
    ...            skip_transform=True,
    ...            starting_points=starting_points(len(X)))  # doctest: +SKIP
    """
    if isinstance(learners, str):
        learners = (learners,)
    known = {RECIPE, *FLAML_LEARNERS}
    unknown = [name for name in learners if name not in known]
    if unknown:
        raise ValueError(
            f"add_learners cannot put autocat in front of {unknown}: choose among "
            f"{[RECIPE, *FLAML_LEARNERS]}."
        )
    _flaml()
    if not hasattr(automl, "add_learner"):
        raise TypeError(
            f"automl must be a flaml.AutoML, got {type(automl).__name__}. Create one "
            "with flaml.AutoML()."
        )
    names = []
    for learner in learners:
        name = RECIPE if learner == RECIPE else PREFIX + learner
        automl.add_learner(name, _learner_class(learner))
        names.append(name)
    return names
