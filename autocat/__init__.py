"""autocat: learn from tables with dirty, high-cardinality string columns."""

# Public names are imported on first access (PEP 562), so that ``import autocat``
# and ``autocat --version`` do not pay for scikit-learn, numba, optuna and xgboost.

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what type checkers and IDEs see
    from typing import Any

    from autocat import datasets as datasets
    from autocat._auto import auto_fit as auto_fit
    from autocat._column_kinds import (
        SuspiciousColumnWarning as SuspiciousColumnWarning,
    )
    from autocat._datetime import DatetimeEncoder as DatetimeEncoder
    from autocat._estimators import AutoClassifier as AutoClassifier
    from autocat._estimators import AutoRegressor as AutoRegressor
    from autocat._gamma_poisson import GammaPoissonEncoder as GammaPoissonEncoder
    from autocat._minhash import MinHashEncoder as MinHashEncoder
    from autocat._persistence import load as load
    from autocat._recipe import Recipe as Recipe
    from autocat._result import AutoResult as AutoResult
    from autocat._search_space import param_distributions as param_distributions
    from autocat._search_space import param_grid as param_grid
    from autocat._search_space import suggest_pipeline as suggest_pipeline
    from autocat._search_space import suggest_vectorizer as suggest_vectorizer
    from autocat._table_vectorizer import TableVectorizer as TableVectorizer
    from autocat._text import TextEncoder as TextEncoder

__version__ = "0.1.0"

# public name -> the private module that defines it
_SOURCES = {
    "AutoClassifier": "_estimators",
    "AutoRegressor": "_estimators",
    "AutoResult": "_result",
    "DatetimeEncoder": "_datetime",
    "GammaPoissonEncoder": "_gamma_poisson",
    "MinHashEncoder": "_minhash",
    "Recipe": "_recipe",
    "SuspiciousColumnWarning": "_column_kinds",
    "TableVectorizer": "_table_vectorizer",
    "TextEncoder": "_text",
    "auto_fit": "_auto",
    "load": "_persistence",
    "param_distributions": "_search_space",
    "param_grid": "_search_space",
    "suggest_pipeline": "_search_space",
    "suggest_vectorizer": "_search_space",
}
_SUBMODULES = ("datasets",)

__all__ = ["__version__", *sorted(_SOURCES)]


def __getattr__(name: str) -> Any:
    if name in _SOURCES:
        value = getattr(importlib.import_module(f"autocat.{_SOURCES[name]}"), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"autocat.{name}")
    else:
        raise AttributeError(f"module 'autocat' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    dunders = {name for name in globals() if name.startswith("__")}
    return sorted({*dunders, *__all__, *_SUBMODULES})


class _Package(types.ModuleType):
    """The package module: names the public objects ``autocat.X`` once loaded.

    Python binds every imported submodule on its package (``autocat._minhash``),
    after running it and before anyone can use it; the public objects it defines
    get ``__module__ = 'autocat'`` then, however the submodule was imported.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if isinstance(value, types.ModuleType):
            for public, source in _SOURCES.items():
                obj = getattr(value, public, None) if source == name else None
                if obj is not None:
                    obj.__module__ = "autocat"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # Pickled by name, as plain modules are by cloudpickle: functions that
        # use ``autocat`` travel to joblib, Dask and Spark workers.
        return importlib.import_module, (self.__name__,)


sys.modules[__name__].__class__ = _Package
