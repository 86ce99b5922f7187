"""Optuna storages for studies that processes share: journal files and databases."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import optuna

__all__ = ["make_storage"]


def make_storage(storage: Any) -> Any:
    """Turn ``storage`` into what :func:`optuna.create_study` takes.

    Parameters
    ----------
    storage : None, str, path or optuna.storages.BaseStorage
        ``None`` keeps the study in memory. A string with ``://`` is a database
        URL (``'sqlite:///study.db'``, ``'postgresql://...'``), opened with a
        retry for processes that create it at the same time. Any other string
        or path is a journal file, shared safely by processes on one machine (or
        over NFS): it is created if absent.

    Returns
    -------
    None or optuna.storages.BaseStorage
    """
    if storage is None or isinstance(storage, optuna.storages.BaseStorage):
        return storage
    if isinstance(storage, str) and "://" in storage:
        return _database_storage(storage)
    if isinstance(storage, (str, os.PathLike)):
        from optuna.storages import JournalStorage
        from optuna.storages.journal import JournalFileBackend

        path = Path(storage)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            journal = JournalStorage(JournalFileBackend(str(path)))
            journal.get_all_studies()  # reads the file now: a damaged one fails here
        except (OSError, ValueError) as exc:  # UnicodeDecodeError, JSONDecodeError
            kind = "is not an Optuna journal" if path.exists() else "cannot be created"
            raise ValueError(
                f"The journal file {str(path)!r} given as storage= {kind} "
                f"({type(exc).__name__}: {' '.join(str(exc).split())[:160]}). Pass "
                "storage= a new file path, or a database URL such as "
                "'sqlite:///study.db'."
            ) from exc
        return journal
    raise TypeError(
        "storage must be None, a database URL such as 'sqlite:///study.db', a journal "
        f"file path, or an optuna storage; got {type(storage).__name__}."
    )


def _database_storage(url: str, attempts: int = 5) -> Any:
    """Open a database storage, retrying while another process creates its tables.

    Two processes opening a new database at once race to create the schema; the
    loser gets an integrity error and succeeds on a second try.
    """
    from sqlalchemy.exc import SQLAlchemyError

    for attempt in range(attempts):
        try:
            return optuna.storages.RDBStorage(url)
        except (SQLAlchemyError, ValueError, ImportError) as exc:
            # only a race to create the tables heals by trying again
            lasting = not isinstance(exc, SQLAlchemyError)  # a bad URL, no driver
            lasting = lasting or "unable to open" in str(exc)  # no such folder
            if attempt == attempts - 1 or lasting:
                reason = " ".join(str(getattr(exc, "orig", None) or exc).split())
                raise ValueError(
                    f"Cannot open the Optuna storage {url!r} given as storage= "
                    f"({type(exc).__name__}: {reason[:160]}). Check that its folder "
                    "exists and is writable and that the URL is right "
                    "(e.g. 'sqlite:///study.db'), or pass storage= a journal file "
                    "path."
                ) from exc
            time.sleep(0.2 * (attempt + 1))
    raise AssertionError("unreachable")  # pragma: no cover
