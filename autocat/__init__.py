"""autocat: learn from tables with dirty, high-cardinality string columns."""

from autocat._gamma_poisson import GammaPoissonEncoder
from autocat._minhash import MinHashEncoder

__version__ = "0.1.0"

__all__ = ["GammaPoissonEncoder", "MinHashEncoder", "__version__"]

for _name in __all__[:-1]:
    globals()[_name].__module__ = "autocat"
del _name
