"""A TPOT 1.x search-space node for autocat's TableVectorizer.

:func:`vectorizer_node` returns an ``EstimatorNode`` whose ``ConfigurationSpace``
is generated from the vectorizer rows of the search-space table
(:data:`autocat._search_space.SEARCH_SPACE`) at call time, with a condition for
every parameter that belongs to one encoder only (the Gamma-Poisson priors exist
only when ``encoder='gamma_poisson'``). Put it first in a ``SequentialPipeline``
so that TPOT's evolution tunes the encoder with the model behind it. TPOT and
ConfigSpace are imported on first use; install them with
``pip install 'autocat[tpot]'``.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from autocat._search_space import ParamSpec
from autocat.integrations._common import build_vectorizer, require, vectorizer_specs

__all__ = ["configspace", "vectorizer_node"]


def _hyperparameter(spec: ParamSpec) -> Any:
    from optuna.distributions import (
        CategoricalDistribution,
        FloatDistribution,
        IntDistribution,
    )

    cs = require("ConfigSpace", "tpot")
    dist = spec.distribution
    if isinstance(dist, CategoricalDistribution):
        return cs.Categorical(spec.name, list(dist.choices), default=spec.default)
    if isinstance(dist, IntDistribution):
        if dist.step != 1:
            values = list(range(dist.low, dist.high + 1, dist.step))
            return cs.Categorical(spec.name, values, default=spec.default)
        return cs.Integer(
            spec.name, (dist.low, dist.high), log=dist.log, default=spec.default
        )
    if isinstance(dist, FloatDistribution):
        return cs.Float(
            spec.name, (dist.low, dist.high), log=dist.log, default=spec.default
        )
    raise TypeError(
        f"The search-space row {spec.name!r} has a {type(dist).__name__}, which "
        "has no ConfigSpace counterpart; use a Categorical, Int or Float distribution."
    )


def configspace(*, seed: int | None = None) -> Any:
    """Return the vectorizer's search space as a conditional ``ConfigurationSpace``.

    Parameters
    ----------
    seed : int, optional
        Seed of the space's sampler.

    Returns
    -------
    ConfigSpace.ConfigurationSpace
        One hyperparameter per vectorizer row of the search-space table, its
        default the paper's value; rows of one encoder only are active when
        ``encoder`` takes that value (an ``EqualsCondition``).
    """
    cs = require("ConfigSpace", "tpot")
    space = cs.ConfigurationSpace(seed=seed)
    specs = vectorizer_specs()
    hyperparameters = {spec.name: _hyperparameter(spec) for spec in specs}
    space.add(list(hyperparameters.values()))
    for spec in specs:
        if spec.only_for_encoder is not None:
            space.add(
                cs.EqualsCondition(
                    hyperparameters[spec.name],
                    hyperparameters["encoder"],
                    spec.only_for_encoder,
                )
            )
    return space


def _vectorizer_params(params: dict[str, Any], *, random_state: int) -> dict[str, Any]:
    """Turn a sampled configuration into ``TableVectorizer`` keyword arguments."""
    vectorizer = build_vectorizer(params, random_state=random_state)
    return dict(vectorizer.get_params(deep=False))


def vectorizer_node(*, random_state: int = 0) -> Any:
    """Return a TPOT ``EstimatorNode`` that tunes autocat's TableVectorizer.

    Parameters
    ----------
    random_state : int, default=0
        Seed of the encoders that TPOT builds.

    Returns
    -------
    tpot.search_spaces.nodes.EstimatorNode
        Its ``method`` is :class:`~autocat.TableVectorizer`, its ``space`` the
        conditional :func:`configspace`; each sampled configuration becomes a
        vectorizer through the recipe (a Gamma-Poisson configuration holds a
        ``GammaPoissonEncoder`` with the sampled priors).

    Raises
    ------
    ImportError
        When TPOT is not installed.

    Notes
    -----
    Pass the raw table to ``TPOTEstimator.fit`` (``preprocessing=False``, its
    default): the vectorizer encodes strings, dates and numbers itself. TPOT
    mutates a node by sampling a new configuration; every sample is a valid
    vectorizer.

    Examples
    --------
    >>> from tpot.search_spaces.pipelines import SequentialPipeline  # doctest: +SKIP
    >>> from tpot.config import get_search_space  # doctest: +SKIP
    >>> from autocat.integrations.tpot import vectorizer_node  # doctest: +SKIP
    >>> space = SequentialPipeline(
    ...     [vectorizer_node(), get_search_space("XGBRegressor")])  # doctest: +SKIP
    """
    require("tpot", "tpot")
    from tpot.search_spaces.nodes import EstimatorNode

    from autocat._table_vectorizer import TableVectorizer

    return EstimatorNode(
        TableVectorizer,
        configspace(seed=random_state),
        hyperparameter_parser=partial(_vectorizer_params, random_state=random_state),
    )
