"""Save and load an AutoResult as a zip archive whose loading runs no code.

A model file (format 2) is a zip archive, read in memory and never extracted:

- ``manifest.json``: ``{"format": "autocat-model", "format_version": 2,
  "versions": {...}, "sample": bool}``;
- ``graph.json``: the result as JSON. An object is written as its class's
  qualified name and its state (``__dict__``, or ``__getstate__()`` when the
  class defines it), recursively, down to plain values: dict, list, tuple, str,
  int, float, bool, None, numpy scalars, dtypes and scalar types, and object
  arrays of str / None / NaN / int / float. The Optuna study is plain data too
  (its trials, with ``distribution_to_json`` for the distributions);
- ``arrays/N.npy``: numeric, boolean and fixed-width string numpy arrays, read
  back with ``np.load(..., allow_pickle=False)``;
- ``xgboost/N.ubj``: XGBoost boosters in XGBoost's own format
  (``save_raw("ubj")``).

Loading checks the whole archive before building anything: member names, sizes
(zip bombs), that each class name is on the allow-list
(:func:`autocat._model_state.trust`; never imported by name), that each array
member has the dtype and shape the graph expects and no object dtype. It then
builds each object with ``cls.__new__(cls)`` and sets its state. Nothing is
unpickled. The pickle files of format 1 are read only with
``load(path, trusted=True)``.
"""

from __future__ import annotations

import copy
import datetime
import hashlib
import json
import logging
import pickle
import platform
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import optuna
import pandas as pd
import xgboost

from autocat._ensemble import EnsembleModel
from autocat._model_state import (
    check_graph,
    json_member,
    read_members,
    refuse,
    short,
    trust,
    write_archive,
)
from autocat._result import AutoResult

if TYPE_CHECKING:
    from optuna.trial import FrozenTrial

__all__ = ["FORMAT_VERSION", "load", "save", "trust"]

logger = logging.getLogger("autocat")

FORMAT_NAME = "autocat-model"
FORMAT_VERSION = 2
# Libraries whose classes' state must come from the same version (strict=True).
_CHECKED = ("autocat", "scikit-learn", "xgboost")
# The pickle files of format 1 start with these bytes.
MAGIC = b"AUTOCAT\x00"
_LEGACY_FORMAT = 1
_RESULT_CLASS = f"{AutoResult.__module__}.{AutoResult.__qualname__}"


# ---------------------------------------------- the training sample (opt-in)

_FRAME_DTYPES = frozenset(
    {"object", "str", "string", "category", "boolean", "Float32", "Float64"}
    | {f"{s}Int{b}" for s in ("", "U") for b in (8, 16, 32, 64)}
)


def _frame_state(frame: pd.DataFrame) -> dict[str, Any]:
    columns, data, dtypes = [], [], []
    for name, column in frame.items():
        dtype = column.dtype
        if isinstance(dtype, np.dtype) and dtype.kind in "biufMm":
            values = column.to_numpy()
        elif str(dtype) in _FRAME_DTYPES:
            values = column.to_numpy(dtype=object, na_value=None)
        else:
            raise TypeError(
                f"column {name!r} has dtype {dtype}, which a model file cannot hold"
            )
        columns.append(name)
        data.append(values)
        dtypes.append(str(dtype))
    index = frame.index.to_numpy() if frame.index.dtype.kind in "iu" else None
    return {"columns": columns, "data": data, "dtypes": dtypes, "index": index}


def _rebuild_frame(state: Any) -> pd.DataFrame:
    if not isinstance(state, dict):
        raise ValueError("a DataFrame needs a dict of 'columns', 'data', 'dtypes'")
    columns, data, dtypes = (state.get(k) for k in ("columns", "data", "dtypes"))
    if not (isinstance(columns, list) and isinstance(data, list)):
        raise ValueError("a DataFrame needs 'columns' and 'data' lists")
    if not isinstance(dtypes, list) or not len(columns) == len(data) == len(dtypes):
        raise ValueError("a DataFrame needs one dtype per column")
    series = {}
    for name, values, dtype in zip(columns, data, dtypes, strict=True):
        if not isinstance(values, np.ndarray) or values.ndim != 1:
            raise ValueError(f"column {name!r} of a DataFrame must be a 1-D array")
        if dtype in _FRAME_DTYPES:
            series[name] = pd.Series(values, dtype=dtype, name=name)
        elif dtype == str(values.dtype) and values.dtype.kind in "biufMm":
            series[name] = pd.Series(values, name=name)
        else:
            raise ValueError(f"column {name!r} has the dtype {dtype!r}")
    index = state.get("index")
    if index is not None and not (
        isinstance(index, np.ndarray) and index.dtype.kind in "iu" and index.ndim == 1
    ):
        raise ValueError("a DataFrame index must be a 1-D integer array")
    frame = pd.DataFrame(series)
    if index is not None:
        frame.index = pd.Index(index)
    return frame


trust(AutoResult)
trust(EnsembleModel)
trust(pd.DataFrame, get_state=_frame_state, rebuild=_rebuild_frame)


# ----------------------------------------------------------------- archive


def _versions() -> dict[str, str]:
    import sklearn

    import autocat

    return {
        "autocat": autocat.__version__,
        "scikit-learn": sklearn.__version__,
        "xgboost": xgboost.__version__,
        "optuna": optuna.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
    }


def _manifest(*, include_sample: bool) -> dict[str, Any]:
    return {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "versions": _versions(),
        "sample": include_sample,
    }


def _check_manifest(manifest: Any, where: str, strict: bool) -> dict[str, Any]:
    if type(manifest) is not dict or manifest.get("format") != FORMAT_NAME:
        raise refuse(f"{where}:manifest.json", f"found {short(manifest)}")
    version = manifest.get("format_version")
    versions = manifest.get("versions")
    if type(version) is not int or type(versions) is not dict:
        raise refuse(f"{where}:manifest.json", "no format_version or versions")
    current = _versions()
    if version > FORMAT_VERSION:
        raise ValueError(
            f"{where} was written by autocat {versions.get('autocat', '?')} with "
            f"format {version}; this autocat ({current['autocat']}) reads up to "
            f"format {FORMAT_VERSION}: upgrade autocat (pip install -U autocat)."
        )
    if version < FORMAT_VERSION:
        raise refuse(f"{where}:manifest.json", f"the unknown format {version}")
    mismatched = {
        name: (str(versions.get(name)), current[name])
        for name in _CHECKED
        if versions.get(name) != current[name]
    }
    if mismatched:
        listing = ", ".join(f"{n} {s} (now {c})" for n, (s, c) in mismatched.items())
        if strict:
            pins = " ".join(f"{n}=={s}" for n, (s, _) in mismatched.items())
            raise ValueError(
                f"{where} was saved with {listing}. Install the same versions "
                f"(pip install {pins}), refit the model, or pass strict=False to try "
                "loading it anyway (no code from the file runs either way)."
            )
        logger.warning("loading %s saved with %s", where, listing)
    return manifest


def _from_archive(data: bytes, where: str, *, strict: bool = True) -> tuple[Any, Any]:
    """Check a whole model archive; return a reader and its checked graph."""
    members = read_members(data, where)
    _check_manifest(json_member(members, "manifest.json", where), where, strict)
    return check_graph(members, where)


# -------------------------------------------------------------------- study


def _study_data(study: optuna.Study) -> dict[str, Any]:
    from optuna.distributions import distribution_to_json
    from optuna.trial import TrialState

    finished = (TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL)
    trials = []
    for trial in study.get_trials(deepcopy=False, states=finished):
        trials.append(
            {
                "number": trial.number,
                "state": trial.state.name,
                "values": trial.values,
                "params": {
                    name: [
                        distribution_to_json(dist),
                        dist.to_internal_repr(trial.params[name]),
                    ]
                    for name, dist in trial.distributions.items()
                },
                "intermediate_values": [
                    [step, value] for step, value in trial.intermediate_values.items()
                ],
                "user_attrs": dict(trial.user_attrs),
                "system_attrs": dict(trial.system_attrs),
                "datetime_start": _iso(trial.datetime_start),
                "datetime_complete": _iso(trial.datetime_complete),
            }
        )
    return {
        "study_name": study.study_name,
        "directions": [d.name for d in study.directions],
        "user_attrs": dict(study.user_attrs),
        "trials": trials,
    }


def _iso(moment: datetime.datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _rebuild_study(data: Any, where: str) -> optuna.Study:
    from optuna.distributions import json_to_distribution
    from optuna.study import StudyDirection
    from optuna.trial import TrialState, create_trial

    from autocat._tuning import quiet_optuna

    frozen: list[FrozenTrial] = []
    try:
        directions = [StudyDirection[name] for name in data["directions"]]
        for trial in data["trials"]:
            distributions = {
                str(name): json_to_distribution(spec)
                for name, (spec, _) in trial["params"].items()
            }
            params = {
                name: distributions[name].to_external_repr(internal)
                for name, (_, internal) in trial["params"].items()
            }
            made = create_trial(
                state=TrialState[trial["state"]],
                values=trial["values"],
                params=params,
                distributions=distributions,
                user_attrs=dict(trial["user_attrs"]),
                system_attrs=dict(trial["system_attrs"]),
                intermediate_values={
                    int(s): v for s, v in trial["intermediate_values"]
                },
            )
            made.datetime_start = _datetime(trial["datetime_start"])
            made.datetime_complete = _datetime(trial["datetime_complete"])
            frozen.append(made)
        with quiet_optuna():
            study = optuna.create_study(
                directions=directions, study_name=str(data["study_name"])
            )
        study.add_trials(frozen)
        for key, value in dict(data["user_attrs"]).items():
            study.set_user_attr(str(key), value)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise refuse(f"{where}:graph.json at study", f"found {exc!r}") from None
    return study


def _datetime(text: Any) -> datetime.datetime | None:
    return None if text is None else datetime.datetime.fromisoformat(str(text))


# --------------------------------------------------------------- save/load


def save(result: AutoResult, path: str | Path, *, include_sample: bool = False) -> Path:
    """Write ``result`` to ``path`` (see :meth:`AutoResult.save`).

    Parameters
    ----------
    result : AutoResult
        The result to save.
    path : str or pathlib.Path
        The file to write; its folder is created if needed.
    include_sample : bool, default=False
        Also store ``result.sample_`` (up to 2,000 training rows and targets).

    Returns
    -------
    pathlib.Path
        The path written.
    """
    if not isinstance(result, AutoResult):
        raise TypeError(f"save expects an AutoResult, got {type(result).__name__}.")
    path = Path(path)
    shallow = copy.copy(result)
    shallow.study_ = None  # stored as plain data
    if not include_sample:
        shallow.sample_ = None  # type: ignore[assignment]
    study = None if result.study_ is None else _study_data(result.study_)
    root = {"result": shallow, "study": study}
    data = write_archive(root, _manifest(include_sample=include_sample))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
    logger.info("saved %s (%d bytes)", path, len(data))
    return path


class LegacyModelFileError(ValueError):
    """A pickle model file of format 1, refused unless ``trusted=True``."""


def load(path: str | Path, *, strict: bool = True, trusted: bool = False) -> AutoResult:
    """Load a result saved with :meth:`AutoResult.save`.

    Loading a model file runs no code from it: the file holds JSON, numpy arrays
    and XGBoost models, and only the classes autocat lists are built from it.

    Parameters
    ----------
    path : str or pathlib.Path
        The file (any extension; ``.autocat`` by convention).
    strict : bool, default=True
        Refuse files written with another version of autocat, scikit-learn or
        XGBoost: the objects' state is stored attribute by attribute, as those
        versions define it, so it may not fit other versions' classes. With
        ``False``, a mismatch is logged as a warning and the file loaded anyway.
    trusted : bool, default=False
        Also read the pickle files of autocat's earlier format (format 1).
        **Unpickling runs any code the file contains**: pass ``True`` only for
        files you made yourself or fully trust, then save the result again to
        convert it. Files of the current format ignore this.

    Returns
    -------
    AutoResult
        The result as saved, its study in memory. ``sample_`` is None unless
        the file was saved with ``include_sample=True``.

    Raises
    ------
    ValueError
        The file is not an autocat model, is damaged or crafted, comes from a
        newer format or other library versions (with ``strict=True``), or is a
        pickle of format 1 without ``trusted=True``.

    Examples
    --------
    >>> import autocat
    >>> autocat.load("missing.autocat")
    Traceback (most recent call last):
    ...
    FileNotFoundError: No autocat model file at missing.autocat.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"No autocat model file at {path}.")
    data = path.read_bytes()
    if data.startswith(MAGIC):
        if not trusted:
            raise LegacyModelFileError(
                f"{path} is a pickle written by an earlier autocat (format "
                f"{_LEGACY_FORMAT}), and loading a pickle can run any code it "
                "contains, so autocat no longer reads it by default. Refit the model "
                "and save it again, or, if you trust where the file comes from, load "
                "it with autocat.load(path, trusted=True) and save it again."
            )
        return _load_legacy(path, data, strict)
    if not data.startswith(b"PK"):
        raise ValueError(
            f"{path} is not an autocat model file (it is not a zip archive). Load "
            "files written by AutoResult.save or `autocat fit --out`."
        )
    reader, graph = _from_archive(data, str(path), strict=strict)
    if not (
        type(graph) is dict
        and set(graph) == {"$dict"}
        and set(graph["$dict"]) == {"result", "study"}
        and type(graph["$dict"]["result"]) is dict
        and graph["$dict"]["result"].get("$object", [None, None])[1] == _RESULT_CLASS
    ):
        raise refuse(f"{path}:graph.json", "its root is not an AutoResult")
    reader.check(graph["$dict"]["study"], "study", objects=False)  # plain data only
    study_data = reader.build(graph["$dict"]["study"])
    study = None if study_data is None else _rebuild_study(study_data, str(path))
    result = reader.build(graph["$dict"]["result"])
    result.study_ = study
    return result  # type: ignore[no-any-return]


# ------------------------------------------------------------ legacy files


def _corrupted(path: Path, why: str) -> ValueError:
    return ValueError(
        f"{path} is a corrupted autocat model file ({why}). Save the model again, "
        "or copy the file anew (binary mode)."
    )


def _load_legacy(path: Path, data: bytes, strict: bool) -> AutoResult:
    """Unpickle a format-1 file, after its header checks (runs code from it)."""
    start = len(MAGIC) + 4
    size = int.from_bytes(data[len(MAGIC) : start], "big")
    try:
        header = json.loads(data[start : start + size].decode())
        expected_size = int(header["size"])
        expected_sha = str(header["sha256"])
        file_format = int(header["format"])
        versions = dict(header["versions"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        raise _corrupted(path, f"unreadable header: {exc}") from None
    if file_format != _LEGACY_FORMAT:
        raise ValueError(
            f"{path} uses autocat pickle format {file_format}; this autocat reads "
            f"pickle format {_LEGACY_FORMAT} only. Refit the model."
        )
    current = _versions()
    mismatched = {
        name: (versions.get(name), current[name])
        for name in _CHECKED
        if versions.get(name) != current[name]
    }
    if mismatched:
        listing = ", ".join(
            f"{n} {saved} (now {now})" for n, (saved, now) in mismatched.items()
        )
        if strict:
            pins = " ".join(f"{n}=={saved}" for n, (saved, _) in mismatched.items())
            raise ValueError(
                f"{path} was saved with {listing}. Install the same versions "
                f"(pip install {pins}), refit the model, or pass strict=False to try "
                "loading it anyway."
            )
        logger.warning("loading %s saved with %s", path, listing)
    payload = data[start + size :]
    if len(payload) != expected_size:
        raise _corrupted(
            path, f"{len(payload)} payload bytes where the header says {expected_size}"
        )
    if hashlib.sha256(payload).hexdigest() != expected_sha:
        raise _corrupted(path, "checksum mismatch")
    result = pickle.loads(payload)  # trusted=True: the caller vouches for the file
    if not isinstance(result, AutoResult):
        raise _corrupted(path, f"it holds a {type(result).__name__}, not an AutoResult")
    return result
