"""autocat: learn from tables with dirty, high-cardinality string columns."""

from autocat import datasets as datasets
from autocat._auto import auto_fit
from autocat._datetime import DatetimeEncoder
from autocat._estimators import AutoClassifier, AutoRegressor
from autocat._gamma_poisson import GammaPoissonEncoder
from autocat._minhash import MinHashEncoder
from autocat._persistence import load
from autocat._recipe import Recipe
from autocat._result import AutoResult
from autocat._search_space import (
    param_distributions,
    param_grid,
    suggest_pipeline,
    suggest_vectorizer,
)
from autocat._table_vectorizer import TableVectorizer

__version__ = "0.1.0"

__all__ = [
    "AutoClassifier",
    "AutoRegressor",
    "AutoResult",
    "DatetimeEncoder",
    "GammaPoissonEncoder",
    "MinHashEncoder",
    "Recipe",
    "TableVectorizer",
    "__version__",
    "auto_fit",
    "load",
    "param_distributions",
    "param_grid",
    "suggest_pipeline",
    "suggest_vectorizer",
]

for _name in __all__:
    if _name != "__version__":
        globals()[_name].__module__ = "autocat"
del _name
