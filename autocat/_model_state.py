"""Trusted classes, and their state as JSON, .npy and XGBoost members of a zip.

:func:`trust` is the allow-list of classes a model file may hold. An instance
is written as its class's qualified name plus its state (``__getstate__()``
when the class defines it, else ``__dict__``), recursively, down to plain
values: dict, list, tuple, str, int, float, bool, None, numpy scalars, dtypes
and scalar types, object arrays of str / None / NaN / int / float (JSON lists),
numeric, boolean and fixed-width string arrays (``arrays/N.npy``, read with
``allow_pickle=False``) and XGBoost boosters (``xgboost/N.ubj``, XGBoost's own
format). Reading checks the whole archive and graph before it builds anything,
looks class names up in the allow-list (never imports a name from the file),
builds each object with ``cls.__new__(cls)`` and sets its state.
"""

from __future__ import annotations

import encodings.cp437  # noqa: F401  # zipfile's name codec, so loading imports nothing
import io
import json
import math
import re
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import xgboost
from sklearn.decomposition import TruncatedSVD
from sklearn.exceptions import InconsistentVersionWarning
from sklearn.feature_extraction.text import (
    CountVectorizer,
    TfidfTransformer,
    TfidfVectorizer,
)
from sklearn.impute import SimpleImputer
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.pipeline import FeatureUnion, Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler, TargetEncoder

from autocat._categorical import CategoryCodes
from autocat._column_kinds import Decision
from autocat._datetime import DatetimeEncoder
from autocat._forest import ForestClassifier, ForestRegressor
from autocat._gamma_poisson import GammaPoissonEncoder, _ColumnModel
from autocat._linear import LinearClassifier, LinearRegressor
from autocat._log_target import LogTargetRegressor
from autocat._minhash import MinHashEncoder
from autocat._ngrams import NgramVocabulary
from autocat._table_vectorizer import TableVectorizer
from autocat._text import TextEncoder
from autocat._text import _ColumnModel as _TextColumnModel
from autocat._vectorizer_columns import Column

__all__ = [
    "check_graph",
    "json_member",
    "read_members",
    "refuse",
    "short",
    "trust",
    "write_archive",
]

# Archive limits: uncompressed bytes at most max(floor, ratio x file size).
_MAX_BYTES_FLOOR = 64 * 2**20
_MAX_EXPANSION = 50
_MAX_MEMBERS = 100_000
_MAX_DEPTH = 100
_MEMBER = re.compile(r"(manifest\.json|graph\.json|arrays/\d+\.npy|xgboost/\d+\.ubj)")
_ARRAY_KINDS = "biufcUSMm"  # numbers, booleans, fixed-width strings, datetimes
_PICKLE_START = tuple(bytes([0x80, protocol]) for protocol in range(2, 6))
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
# Attribute names an object's state may set (no dunders).
_ATTRIBUTE = re.compile(r"(?!__)[A-Za-z_][A-Za-z0-9_]*")


# ------------------------------------------------------------------ registry


@dataclass(frozen=True)
class _Trusted:
    """A class that model files may name, and how its state is written and read."""

    name: str
    cls: type
    get_state: Callable[[Any], Any] | None
    rebuild: Callable[[Any], Any] | None


_BY_NAME: dict[str, _Trusted] = {}
_BY_CLASS: dict[type, _Trusted] = {}


def trust(
    cls: type,
    *,
    get_state: Callable[[Any], Any] | None = None,
    rebuild: Callable[[Any], Any] | None = None,
) -> type:
    """Allow model files to hold instances of ``cls`` (exactly that class).

    By default an instance is written as its state (``__getstate__()`` if the
    class defines one, else ``__dict__``), which must be plain data or trusted
    objects, and read back with ``cls.__new__(cls)`` and ``__setstate__`` (or
    ``__dict__.update``). One line extends the list from any module:
    ``trust(EnsembleModel)``.

    Parameters
    ----------
    cls : type
        The class; it is stored under ``f"{cls.__module__}.{cls.__qualname__}"``
        as named when ``trust`` is called.
    get_state : callable, optional
        ``obj -> plain data`` instead of the default state.
    rebuild : callable, optional
        ``plain data -> obj``, the inverse of ``get_state``; it must check its
        input and raise ``ValueError`` when it is not what it expects.

    Returns
    -------
    type
        ``cls``, so that ``trust`` also works as a class decorator.
    """
    entry = _Trusted(f"{cls.__module__}.{cls.__qualname__}", cls, get_state, rebuild)
    _BY_NAME[entry.name] = entry
    _BY_CLASS[cls] = entry
    return cls


def _random_state_state(rng: np.random.RandomState) -> list[Any]:
    return list(rng.get_state(legacy=True))


def _rebuild_random_state(state: Any) -> np.random.RandomState:
    ok = (
        isinstance(state, list)
        and len(state) == 5
        and state[0] == "MT19937"
        and isinstance(state[1], np.ndarray)
        and state[1].dtype == np.uint32
        and state[1].shape == (624,)
    )
    if not ok:
        raise ValueError("a RandomState needs ['MT19937', 624 uint32 keys, ...]")
    rng = np.random.RandomState()
    rng.set_state(tuple(state))
    return rng


def _index_state(index: pd.Index) -> dict[str, Any]:
    if not isinstance(index.dtype, np.dtype) or index.dtype.kind not in "Obiuf":
        raise TypeError(f"a pandas Index of dtype {index.dtype} cannot be saved")
    return {"values": index.to_numpy(), "name": index.name}


def _rebuild_index(state: Any) -> pd.Index:
    values = state.get("values") if isinstance(state, dict) else None
    name = state.get("name") if isinstance(state, dict) else None
    if not isinstance(values, np.ndarray) or values.ndim != 1:
        raise ValueError("a pandas Index needs 1-D 'values'")
    if not (name is None or isinstance(name, (str, int))):
        raise ValueError(f"a pandas Index name must be a str or int, not {name!r}")
    return pd.Index(values, dtype=values.dtype, name=name)


for _cls in (
    TableVectorizer,
    Column,
    Decision,
    MinHashEncoder,
    GammaPoissonEncoder,
    _ColumnModel,
    NgramVocabulary,
    TextEncoder,
    _TextColumnModel,
    CountVectorizer,
    DatetimeEncoder,
    Pipeline,
    FeatureUnion,
    OneHotEncoder,
    CategoryCodes,
    TargetEncoder,
    KFold,  # TargetEncoder's seeded cross-fitting folds
    StratifiedKFold,
    TfidfVectorizer,
    TfidfTransformer,
    TruncatedSVD,
    SimpleImputer,
    StandardScaler,
    xgboost.XGBRegressor,
    xgboost.XGBClassifier,
    LogTargetRegressor,
    LinearRegressor,
    LinearClassifier,
    ForestRegressor,
    ForestClassifier,
):
    trust(_cls)
del _cls
trust(
    np.random.RandomState, get_state=_random_state_state, rebuild=_rebuild_random_state
)
trust(pd.Index, get_state=_index_state, rebuild=_rebuild_index)

# Scalar types a state may hold (e.g. OneHotEncoder(dtype=np.float32)).
_NUMPY_TYPES = (
    *(np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16),
    *(np.uint32, np.uint64, np.float16, np.float32, np.float64, np.complex64),
    *(np.complex128, np.str_, np.bytes_),
)
_TYPES: dict[str, type] = {
    **{f"builtins.{t.__name__}": t for t in (bool, int, float, str, object)},
    **{f"numpy.{t.__name__}": t for t in _NUMPY_TYPES},
}
_TYPE_NAMES = {t: name for name, t in _TYPES.items()}


# -------------------------------------------------------------------- write


class _Writer:
    """Turn an object graph into JSON plus array and booster members."""

    def __init__(self) -> None:
        self.members: dict[str, bytes] = {}
        self._memo: dict[int, int] = {}
        self._arrays: dict[int, list[Any]] = {}
        self._alive: list[Any] = []  # keeps memoised ids valid

    def encode(self, value: Any, path: str, depth: int = 0) -> Any:
        if depth > _MAX_DEPTH:
            raise TypeError(f"{path} is nested more than {_MAX_DEPTH} levels deep")
        kind = type(value)
        if value is None or kind in (bool, int, str):
            return value
        if kind is float:
            return value
        if kind is list:
            return [
                self.encode(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)
            ]
        if kind is tuple:
            items = [
                self.encode(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)
            ]
            return {"$tuple": items}
        if kind is dict:
            return self._dict(value, path, depth)
        if isinstance(value, np.ndarray) and kind is np.ndarray:
            return self._array(value, path)
        if isinstance(value, np.generic):
            return self._scalar(value, path)
        if kind is np.dtype or isinstance(value, np.dtype):
            if value.kind not in _ARRAY_KINDS + "O":
                raise TypeError(f"{path} is the dtype {value}, which cannot be saved")
            return {"$dtype": value.str}
        if isinstance(value, type) and value in _TYPE_NAMES:
            return {"$type": _TYPE_NAMES[value]}
        if kind is xgboost.Booster:
            return self._booster(value, path, depth)
        if kind in _BY_CLASS:
            return self._object(value, path, depth)
        raise TypeError(
            f"Cannot save {path or 'the object'}: a {kind.__module__}."
            f"{kind.__qualname__} is not "
            "plain data nor a trusted class. Model files hold only the classes "
            "listed with autocat._model_state.trust, so that loading runs no code."
        )

    def _dict(self, value: dict[Any, Any], path: str, depth: int) -> Any:
        if all(type(k) is str for k in value):
            return {
                "$dict": {
                    k: self.encode(v, _child(path, k), depth + 1)
                    for k, v in value.items()
                }
            }
        return {
            "$items": [
                [
                    self.encode(k, f"{path} key {k!r}", depth + 1),
                    self.encode(v, f"{path}[{k!r}]", depth + 1),
                ]
                for k, v in value.items()
            ]
        }

    def _array(self, value: np.ndarray, path: str) -> Any:
        if value.dtype.kind == "O":
            flat = [_plain_element(v, path) for v in value.ravel(order="C")]
            return {"$object_array": [list(value.shape), flat]}
        if value.dtype.kind not in _ARRAY_KINDS or value.dtype.fields is not None:
            raise TypeError(f"Cannot save {path}: an array of dtype {value.dtype}")
        if id(value) in self._arrays:
            return {"$array": self._arrays[id(value)]}
        member = f"arrays/{len(self._arrays)}.npy"
        buffer = io.BytesIO()
        np.save(buffer, value, allow_pickle=False)
        self.members[member] = buffer.getvalue()
        reference = [member, value.dtype.str, list(value.shape)]
        self._arrays[id(value)] = reference
        self._alive.append(value)
        return {"$array": reference}

    def _scalar(self, value: np.generic, path: str) -> Any:
        dtype = value.dtype
        if dtype.kind not in "biufU" or (dtype.kind == "f" and dtype.itemsize > 8):
            raise TypeError(f"Cannot save {path}: a numpy scalar of dtype {dtype}")
        return {"$scalar": [dtype.str, value.item()]}

    def _booster(self, booster: xgboost.Booster, path: str, depth: int) -> Any:
        member = f"xgboost/{sum(m.startswith('xgboost/') for m in self.members)}.ubj"
        self.members[member] = bytes(booster.save_raw("ubj"))
        rest = {k: v for k, v in vars(booster).items() if k != "handle"}
        return {"$booster": [member, self._dict(rest, path, depth)]}

    def _object(self, value: Any, path: str, depth: int) -> Any:
        if id(value) in self._memo:
            return {"$ref": self._memo[id(value)]}
        number = len(self._memo)
        self._memo[id(value)] = number
        self._alive.append(value)
        entry = _BY_CLASS[type(value)]
        if entry.get_state is not None:
            state = self.encode(entry.get_state(value), path, depth + 1)
        else:
            raw = _state_of(value)
            if not isinstance(raw, dict) or not all(
                type(k) is str and _ATTRIBUTE.fullmatch(k) for k in raw
            ):
                raise TypeError(
                    f"Cannot save {path}: its state is not a dict of attribute names"
                )
            state = {
                "$dict": {
                    k: self.encode(v, f"{path}.{k}", depth + 1) for k, v in raw.items()
                }
            }
        return {"$object": [number, entry.name, state]}


def _state_of(value: Any) -> Any:
    getstate = getattr(type(value), "__getstate__", None)
    if getstate is None or getstate is getattr(object, "__getstate__", None):
        return dict(vars(value))
    state = value.__getstate__()
    return dict(vars(value)) if state is None else state


def _plain_element(value: Any, path: str) -> Any:
    if value is None or type(value) in (str, int, float, bool):
        return value
    if isinstance(value, np.generic) and value.dtype.kind in "biufU":
        item = value.item()
        return float(item) if value.dtype.kind == "f" else item
    if isinstance(value, str):
        return str(value)
    raise TypeError(
        f"Cannot save {path}: an object array holding a {type(value).__name__} "
        "(object arrays may hold only str, None, NaN, int and float)"
    )


# --------------------------------------------------------------------- read


def refuse(where: str, what: str) -> ValueError:
    return ValueError(f"{where}: {what}. It is not a valid autocat model file.")


class _Reader:
    """Check a graph read from JSON in full, then build it."""

    def __init__(self, where: str, members: dict[str, bytes]) -> None:
        self.where = where
        self.members = members
        self.used: set[str] = set()
        self.arrays: dict[str, np.ndarray] = {}
        self.boosters: dict[str, xgboost.Booster] = {}
        self._n_objects = 0
        self._pending: set[int] = set()  # custom-built objects not finished yet
        self._built: list[Any] = []

    # -- check: validates everything, builds nothing
    def check(self, node: Any, path: str, depth: int = 0, objects: bool = True) -> None:
        if depth > _MAX_DEPTH:
            raise self._bad(path, f"nesting deeper than {_MAX_DEPTH} levels")
        if node is None or type(node) in (bool, int, float, str):
            return
        if type(node) is list:
            for i, item in enumerate(node):
                self.check(item, f"{path}[{i}]", depth + 1, objects)
            return
        if type(node) is not dict or len(node) != 1:
            raise self._bad(path, f"a JSON {type(node).__name__} {short(node)}")
        ((tag, body),) = node.items()
        if tag == "$tuple" and type(body) is list:
            self.check(body, path, depth, objects)
        elif tag == "$dict" and type(body) is dict:
            for key, item in body.items():
                self.check(item, _child(path, key), depth + 1, objects)
        elif tag == "$items" and type(body) is list:
            for i, pair in enumerate(body):
                if type(pair) is not list or len(pair) != 2:
                    raise self._bad(f"{path}[{i}]", f"{short(pair)} (not a pair)")
                self._check_key(pair[0], f"{path} key {i}")
                self.check(pair[1], f"{path}[{i}]", depth + 1, objects)
        elif tag == "$scalar":
            self._check_scalar(body, path)
        elif tag == "$dtype":
            self._dtype(body, path, _ARRAY_KINDS + "O")
        elif tag == "$type":
            if not (type(body) is str and body in _TYPES):
                raise self._bad(path, f"the type {short(body)}, which is not allowed")
        elif tag == "$object_array":
            self._check_strings(body, path)
        elif tag == "$array":
            self._check_array(body, path)
        elif tag == "$booster" and objects:
            self._check_booster(body, path, depth)
        elif tag == "$object" and objects:
            self._check_object(body, path, depth)
        elif tag == "$ref" and objects:
            ok = type(body) is int and 0 <= body < self._n_objects
            if not ok or body in self._pending:
                raise self._bad(path, f"a reference to object {short(body)}")
        else:
            raise self._bad(path, f"{short(node)}")

    def _check_key(self, node: Any, path: str) -> None:
        if node is None or type(node) in (bool, int, float, str):
            return
        if (
            type(node) is dict
            and set(node) == {"$tuple"}
            and type(node["$tuple"]) is list
        ):
            for item in node["$tuple"]:
                self._check_key(item, path)
            return
        if type(node) is dict and set(node) == {"$scalar"}:
            self._check_scalar(node["$scalar"], path)
            return
        raise self._bad(path, f"the dict key {short(node)}")

    def _check_object(self, body: Any, path: str, depth: int) -> None:
        if type(body) is not list or len(body) != 3:
            raise self._bad(path, f"an object entry {short(body)}")
        number, name, state = body
        entry = _BY_NAME.get(name) if type(name) is str else None
        if entry is None:
            raise self._bad(
                path,
                f"the class {short(name)}, which is not on autocat's list of "
                "classes a model file may hold",
            )
        if number != self._n_objects or type(number) is not int:
            raise self._bad(path, f"object number {short(number)} out of order")
        self._n_objects += 1
        if entry.rebuild is not None:
            self._pending.add(number)
            self.check(state, path, depth + 1)
            self._pending.discard(number)
            return
        self._check_attributes(state, path, f"the state of {name}")
        for key, item in state["$dict"].items():
            self.check(item, f"{path}.{key}", depth + 1)

    def _check_attributes(self, state: Any, path: str, what: str) -> None:
        ok = type(state) is dict and set(state) == {"$dict"}
        if not ok or type(state["$dict"]) is not dict:
            raise self._bad(path, f"{what}, which is not a dict of attributes")
        for key in state["$dict"]:
            if not _ATTRIBUTE.fullmatch(key):
                raise self._bad(path, f"{what} setting the attribute {key!r}")

    def _check_booster(self, body: Any, path: str, depth: int) -> None:
        if type(body) is not list or len(body) != 2:
            raise self._bad(path, f"a booster entry {short(body)}")
        member, state = body
        if not (type(member) is str and re.fullmatch(r"xgboost/\d+\.ubj", member)):
            raise self._bad(path, f"the booster member {short(member)}")
        raw = self._member(member, path)
        self._check_attributes(state, path, "a booster state")
        self.check(state, path, depth + 1, objects=False)
        if member not in self.boosters:
            booster = xgboost.Booster()
            try:
                booster.load_model(bytearray(raw))
            except (xgboost.core.XGBoostError, ValueError) as exc:
                raise self._bad(
                    path, f"{member}, not an XGBoost model ({exc})"
                ) from None
            self.boosters[member] = booster

    def _check_scalar(self, body: Any, path: str) -> None:
        if type(body) is not list or len(body) != 2:
            raise self._bad(path, f"a scalar entry {short(body)}")
        dtype = self._dtype(body[0], path, "biufU")
        expected = {"b": (bool,), "U": (str,), "f": (float, int)}.get(
            dtype.kind, (int,)
        )
        if type(body[1]) not in expected:
            raise self._bad(path, f"a {dtype} scalar holding {short(body[1])}")
        try:
            dtype.type(body[1])
        except (OverflowError, ValueError) as exc:
            raise self._bad(
                path, f"a {dtype} scalar holding {body[1]!r} ({exc})"
            ) from None

    def _check_strings(self, body: Any, path: str) -> None:
        if type(body) is not list or len(body) != 2 or type(body[1]) is not list:
            raise self._bad(path, f"an object-array entry {short(body)}")
        shape = self._shape(body[0], path)
        if math.prod(shape) != len(body[1]):
            raise self._bad(path, f"{len(body[1])} values for the shape {shape}")
        for value in body[1]:
            if not (value is None or type(value) in (str, int, float, bool)):
                raise self._bad(path, f"an object-array value {short(value)}")

    def _check_array(self, body: Any, path: str) -> None:
        if type(body) is not list or len(body) != 3 or type(body[0]) is not str:
            raise self._bad(path, f"an array entry {short(body)}")
        member, dtype_text, shape_list = body
        if not re.fullmatch(r"arrays/\d+\.npy", member):
            raise self._bad(path, f"the array member {member!r}")
        dtype = self._dtype(dtype_text, path, _ARRAY_KINDS)
        shape = self._shape(shape_list, path)
        if member in self.arrays:
            found = self.arrays[member]
        else:
            found = _read_npy(self._member(member, path), f"{self.where}:{member}")
            self.arrays[member] = found
        if found.dtype != dtype or found.shape != shape:
            raise self._bad(
                path,
                f"{member} holds a {found.dtype} array of shape {found.shape} where "
                f"the graph expects {dtype} and {shape}",
            )

    def _member(self, member: str, path: str) -> bytes:
        if member not in self.members:
            raise self._bad(path, f"a reference to the missing member {member!r}")
        self.used.add(member)
        return self.members[member]

    def _dtype(self, text: Any, path: str, kinds: str) -> np.dtype[Any]:
        try:
            dtype = np.dtype(text) if type(text) is str and len(text) <= 16 else None
        except TypeError:
            dtype = None
        if dtype is None or dtype.kind not in kinds or dtype.fields is not None:
            raise self._bad(path, f"the dtype {short(text)}, which is not allowed")
        return dtype

    def _shape(self, value: Any, path: str) -> tuple[int, ...]:
        if type(value) is not list or not all(type(n) is int and n >= 0 for n in value):
            raise self._bad(path, f"the shape {short(value)}")
        return tuple(value)

    def _bad(self, path: str, found: str) -> ValueError:
        return refuse(f"{self.where}:graph.json at {path}", f"found {found}")

    # -- build: only after check() passed on the same node
    def build(self, node: Any) -> Any:
        if node is None or type(node) in (bool, int, float, str):
            return node
        if type(node) is list:
            return [self.build(item) for item in node]
        ((tag, body),) = node.items()
        if tag == "$tuple":
            return tuple(self.build(item) for item in body)
        if tag == "$dict":
            return {key: self.build(item) for key, item in body.items()}
        if tag == "$items":
            return {self.build(k): self.build(v) for k, v in body}
        if tag == "$scalar":
            return np.dtype(body[0]).type(body[1])
        if tag == "$dtype":
            return np.dtype(body)
        if tag == "$type":
            return _TYPES[body]
        if tag == "$object_array":
            flat = np.empty(len(body[1]), dtype=object)
            flat[:] = body[1]
            return flat.reshape(body[0])
        if tag == "$array":
            return self.arrays[body[0]]
        if tag == "$booster":
            booster = self.boosters[body[0]]
            vars(booster).update(self.build(body[1]))
            return booster
        if tag == "$ref":
            return self._built[body]
        return self._build_object(body)

    def _build_object(self, body: list[Any]) -> Any:
        number, name, state_node = body
        entry = _BY_NAME[name]
        if entry.rebuild is not None:
            self._built.append(None)
            try:
                obj = entry.rebuild(self.build(state_node))
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                raise refuse(f"{self.where}:graph.json", f"bad {name}: {exc}") from None
            self._built[number] = obj
            return obj
        cls: Any = entry.cls
        obj = cls.__new__(cls)
        self._built.append(obj)
        state = self.build(state_node)
        if not hasattr(entry.cls, "__setstate__"):
            vars(obj).update(state)
            return obj
        try:
            with warnings.catch_warnings():  # versions were checked from the manifest
                warnings.simplefilter("ignore", InconsistentVersionWarning)
                obj.__setstate__(state)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise refuse(f"{self.where}:graph.json", f"bad {name}: {exc}") from None
        return obj


def _child(path: str, key: str) -> str:
    """Return the path of ``key`` in the dict at ``path`` (root keys stand alone)."""
    return key if not path else f"{path}[{key!r}]"


def short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _read_npy(data: bytes, where: str) -> np.ndarray:
    if data.startswith(_PICKLE_START):
        raise refuse(where, "it holds pickle data, which autocat never loads")
    buffer = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(buffer)
        if version not in ((1, 0), (2, 0)):
            raise ValueError(f"version {version}")
        read_header = (
            np.lib.format.read_array_header_1_0
            if version == (1, 0)
            else np.lib.format.read_array_header_2_0
        )
        shape, _, dtype = read_header(buffer)
    except ValueError as exc:
        raise refuse(where, f"not a numpy .npy array ({exc})") from None
    if dtype.kind not in _ARRAY_KINDS or dtype.hasobject or dtype.fields is not None:
        raise refuse(where, f"an array of dtype {dtype} (only numbers and strings)")
    if math.prod(shape) * dtype.itemsize > len(data):
        raise refuse(where, f"a {dtype} array of shape {shape} in {len(data)} bytes")
    buffer.seek(0)
    try:
        array: np.ndarray = np.load(buffer, allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise refuse(where, f"an unreadable array ({exc})") from None
    return array


# ----------------------------------------------------------------- archive


def write_archive(root: Any, manifest: dict[str, Any]) -> bytes:
    """Return the zip archive of ``manifest`` and ``root``'s graph and members.

    Raises ``TypeError`` naming the attribute path of anything ``root`` holds
    that is neither plain data nor an instance of a trusted class.
    """
    writer = _Writer()
    graph = writer.encode(root, "")
    members = {
        "manifest.json": json.dumps(manifest, indent=1).encode(),
        "graph.json": json.dumps(graph, separators=(",", ":")).encode(),
        **writer.members,
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data, compresslevel=6)
    return buffer.getvalue()


def read_members(data: bytes, where: str) -> dict[str, bytes]:
    """Read every member into memory, after checking names and sizes."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:
        raise refuse(where, f"a damaged or truncated archive ({exc})") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > _MAX_MEMBERS:
            raise refuse(where, f"{len(infos)} members (at most {_MAX_MEMBERS})")
        names = [info.filename for info in infos]
        for name in names:
            if ".." in name.split("/") or name.startswith("/") or "\\" in name:
                raise refuse(where, f"the unsafe member name {name!r}")
            if not _MEMBER.fullmatch(name):
                raise refuse(where, f"the unexpected member {name!r}")
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise refuse(where, f"duplicate members {duplicates}")
        limit = max(_MAX_BYTES_FLOOR, _MAX_EXPANSION * len(data))
        declared = sum(info.file_size for info in infos)
        if declared > limit:
            raise refuse(
                where,
                f"members declaring {declared:,} bytes uncompressed, more than "
                f"{limit:,} for a {len(data):,}-byte file (a zip bomb?)",
            )
        members, total = {}, 0
        for info in infos:
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise refuse(
                    where,
                    f"the member {info.filename} compressed with method "
                    f"{info.compress_type} (only stored or deflated)",
                )
            if info.flag_bits & 0x1:
                raise refuse(where, f"the encrypted member {info.filename}")
            try:
                with archive.open(info) as member:
                    content = member.read(info.file_size + 1)
            except (zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:
                raise refuse(
                    where, f"the damaged member {info.filename} ({exc})"
                ) from None
            total += len(content)
            if len(content) != info.file_size or total > limit:
                raise refuse(
                    where,
                    f"the member {info.filename} expanding past its declared "
                    f"{info.file_size:,} bytes",
                )
            if content.startswith(_PICKLE_START):
                raise refuse(
                    f"{where}:{info.filename}",
                    "it holds pickle data, which autocat never loads",
                )
            members[info.filename] = content
    return members


def json_member(members: dict[str, bytes], name: str, where: str) -> Any:
    if name not in members:
        raise refuse(where, f"no {name} member")
    try:
        return json.loads(members[name].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise refuse(f"{where}:{name}", f"not valid JSON ({short(str(exc))})") from None


def check_graph(members: dict[str, bytes], where: str) -> tuple[_Reader, Any]:
    """Check ``graph.json`` and every member it uses; build nothing.

    Returns the reader, whose ``build`` turns checked nodes into objects, and
    the graph. Raises ``ValueError`` naming the member or path at fault.
    """
    graph = json_member(members, "graph.json", where)
    reader = _Reader(where, members)
    reader.check(graph, "")
    unused = sorted(set(members) - reader.used - {"manifest.json", "graph.json"})
    if unused:
        raise refuse(where, f"members the graph does not use: {unused[:5]}")
    return reader, graph
