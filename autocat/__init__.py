"""autocat: learn from tables with dirty, high-cardinality string columns."""

from autocat._datetime import DatetimeEncoder
from autocat._minhash import MinHashEncoder
from autocat._table_vectorizer import TableVectorizer

__version__ = "0.1.0"

__all__ = ["DatetimeEncoder", "MinHashEncoder", "TableVectorizer", "__version__"]

for _name in __all__[:-1]:
    globals()[_name].__module__ = "autocat"
del _name
