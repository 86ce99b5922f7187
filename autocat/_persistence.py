r"""Save and load an AutoResult, with a versioned, checksummed header.

File layout: the 8 magic bytes ``b"AUTOCAT\\x00"``, a 4-byte big-endian header
length, a UTF-8 JSON header (format, library versions, payload size and SHA-256),
then the pickled result. The header is read and checked before anything is
unpickled, so a file from another version or a damaged file gives a clear error.
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import pickle
import platform
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from autocat._result import AutoResult

__all__ = ["FORMAT_VERSION", "load", "save"]

logger = logging.getLogger("autocat")

MAGIC = b"AUTOCAT\x00"
FORMAT_VERSION = 1
# Libraries whose pickles must come from the same version to be trusted.
_CHECKED = ("autocat", "scikit-learn", "xgboost")


def _versions() -> dict[str, str]:
    import optuna
    import sklearn
    import xgboost

    import autocat

    return {
        "autocat": autocat.__version__,
        "scikit-learn": sklearn.__version__,
        "xgboost": xgboost.__version__,
        "optuna": optuna.__version__,
        "python": platform.python_version(),
    }


def _in_memory_study(study: Any) -> Any:
    """Copy ``study`` into memory, so the file does not point at a database."""
    import optuna
    from optuna.trial import TrialState

    if isinstance(study._storage, optuna.storages.InMemoryStorage):
        return study
    from autocat._tuning import quiet_optuna

    with quiet_optuna():
        copied = optuna.create_study(direction="maximize", study_name=study.study_name)
    finished = (TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL)
    copied.add_trials(study.get_trials(deepcopy=False, states=finished))
    for key, value in study.user_attrs.items():
        copied.set_user_attr(key, value)
    return copied


def save(result: AutoResult, path: str | Path) -> Path:
    """Write ``result`` to ``path`` (see :meth:`AutoResult.save`).

    Parameters
    ----------
    result : AutoResult
        The result to save.
    path : str or pathlib.Path
        The file to write; its folder is created if needed.

    Returns
    -------
    pathlib.Path
        The path written.
    """
    from autocat._result import AutoResult

    if not isinstance(result, AutoResult):
        raise TypeError(f"save expects an AutoResult, got {type(result).__name__}.")
    path = Path(path)
    to_pickle = copy.copy(result)
    to_pickle.study_ = _in_memory_study(result.study_)
    payload = pickle.dumps(to_pickle, protocol=pickle.HIGHEST_PROTOCOL)
    header = json.dumps(
        {
            "format": FORMAT_VERSION,
            "versions": _versions(),
            "size": len(payload),
            "sha256": hashlib.sha256(payload).hexdigest(),
        },
        sort_keys=True,
    ).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(MAGIC + len(header).to_bytes(4, "big") + header + payload)
    tmp.replace(path)
    logger.info("saved %s (%d bytes)", path, path.stat().st_size)
    return path


def _corrupted(path: Path, why: str) -> ValueError:
    return ValueError(
        f"{path} is a corrupted autocat model file ({why}). Save the model again, "
        "or copy the file anew (binary mode)."
    )


def load(path: str | Path, *, strict: bool = True) -> AutoResult:
    """Load a result saved with :meth:`AutoResult.save`.

    Parameters
    ----------
    path : str or pathlib.Path
        The file.
    strict : bool, default=True
        Refuse files written with another version of autocat, scikit-learn or
        XGBoost (their pickles may load wrongly). With ``False``, a mismatch is
        only logged.

    Returns
    -------
    AutoResult
        The result as saved, its study in memory.

    Raises
    ------
    ValueError
        The file is not an autocat model, is damaged, or comes from other
        library versions (with ``strict=True``).

    Notes
    -----
    The payload is a pickle: load only files you trust. Its checksum guards
    against damage, not against tampering.

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
    if not data.startswith(MAGIC):
        raise ValueError(
            f"{path} is not an autocat model file (it lacks the autocat header). Load "
            "files written by AutoResult.save or `autocat fit --out`."
        )
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
    if file_format != FORMAT_VERSION:
        raise ValueError(
            f"{path} uses autocat file format {file_format}, this autocat "
            f"({_versions()['autocat']}) reads format {FORMAT_VERSION}. Install "
            f"autocat=={versions.get('autocat')} to load it, or refit the model."
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
    result = pickle.loads(payload)
    from autocat._result import AutoResult

    if not isinstance(result, AutoResult):
        raise _corrupted(path, f"it holds a {type(result).__name__}, not an AutoResult")
    return result
