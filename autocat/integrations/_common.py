"""What the integrations share: lazy imports and the vectorizer's search space."""

from __future__ import annotations

import importlib
from typing import Any

from autocat import _search_space
from autocat._recipe import Recipe
from autocat._search_space import ParamSpec

__all__ = ["applies", "build_vectorizer", "require", "vectorizer_specs"]


def require(module: str, extra: str) -> Any:
    """Import ``module``, or raise an ``ImportError`` that says what to install.

    Parameters
    ----------
    module : str
        The module to import, e.g. ``'flaml'``.
    extra : str
        The extra of autocat that installs it, e.g. ``'flaml'``.

    Returns
    -------
    module
    """
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(
            f"autocat.integrations.{extra} needs {module.split('.')[0]!r}, which "
            f"could not be imported ({error}). Install it with: "
            f"pip install 'autocat[{extra}]'"
        ) from error


def vectorizer_specs() -> list[ParamSpec]:
    """Return the rows of the search-space table that tune the vectorizer.

    Read at call time, so that encoders added to the table appear in every
    integration without a change here.
    """
    return [spec for spec in _search_space.SEARCH_SPACE if spec.step == "vectorizer"]


def applies(spec: ParamSpec, params: dict[str, Any]) -> bool:
    """Return whether ``spec`` exists for the encoder chosen in ``params``."""
    return spec.only_for_encoder is None or spec.only_for_encoder == params.get(
        "encoder"
    )


def build_vectorizer(params: dict[str, Any], *, random_state: int = 0) -> Any:
    """Build a :class:`~autocat.TableVectorizer` from flat vectorizer parameters.

    Parameters that do not apply to the chosen encoder (e.g. the Gamma-Poisson
    priors with min-hash) and unknown keys are ignored.

    Parameters
    ----------
    params : dict
        Flat recipe parameters (``encoder``, ``n_components``, ...).
    random_state : int, default=0
        Seed of the encoder.

    Returns
    -------
    TableVectorizer
        Unfitted.
    """
    chosen = {
        spec.name: params[spec.name]
        for spec in vectorizer_specs()
        if spec.name in params and applies(spec, params)
    }
    return Recipe("regression", random_state=random_state, **chosen).build_vectorizer()
