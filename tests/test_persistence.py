from __future__ import annotations

import json

import numpy as np
import optuna
import pandas as pd
import pytest

import autocat
from autocat import auto_fit
from autocat._persistence import MAGIC


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    rng = np.random.default_rng(0)
    n = 60
    jobs = rng.choice(["police officer", "bus operator", "nurse"], n)
    df = pd.DataFrame({"job": jobs, "years": rng.integers(0, 30, n).astype(float)})
    df["band"] = np.where(df["years"] + (df["job"] == "nurse") * 9 > 18, "hi", "lo")
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'study.db'}"
    result = auto_fit(df, "band", n_trials=1, cv=2, storage=url, show_progress=False)
    return df, result


def _rewrite_header(path, **changes):
    data = path.read_bytes()
    size = int.from_bytes(data[8:12], "big")
    header = json.loads(data[12 : 12 + size])
    for key, value in changes.items():
        if key in header:
            header[key] = value
        else:
            header["versions"][key] = value
    new = json.dumps(header).encode()
    path.write_bytes(MAGIC + len(new).to_bytes(4, "big") + new + data[12 + size :])


def test_round_trip(fitted, tmp_path):
    df, result = fitted
    path = result.save(tmp_path / "models" / "band.autocat")
    assert path.is_file() and path.read_bytes().startswith(MAGIC)
    loaded = autocat.load(path)
    np.testing.assert_array_equal(loaded.predict(df), result.predict(df))
    np.testing.assert_allclose(loaded.predict_proba(df), result.predict_proba(df))
    assert loaded.best_params_ == result.best_params_
    assert loaded.classes_.tolist() == ["hi", "lo"]
    assert loaded.summary() == result.summary()
    # The study now lives in memory, with the same trials.
    storage = loaded.study_._storage
    assert isinstance(storage, optuna.storages.InMemoryStorage)
    finished = [t for t in result.study_.trials if t.state.is_finished()]
    assert [t.value for t in loaded.study_.trials] == [t.value for t in finished]
    pd.testing.assert_frame_equal(
        loaded.leaderboard_.drop(columns="duration_s"),
        result.leaderboard_.drop(columns="duration_s"),
    )


def test_version_mismatch_is_refused(fitted, tmp_path):
    _, result = fitted
    path = result.save(tmp_path / "m.autocat")
    _rewrite_header(path, autocat="0.0.1", xgboost="1.0.0")
    with pytest.raises(ValueError, match=r"saved with autocat 0\.0\.1 \(now") as info:
        autocat.load(path)
    assert "xgboost==1.0.0" in str(info.value) and "strict=False" in str(info.value)
    assert autocat.load(path, strict=False).task_ == "binary"
    _rewrite_header(path, format=99)
    with pytest.raises(ValueError, match="file format 99"):
        autocat.load(path)


def test_corrupted_files_are_refused(fitted, tmp_path):
    _, result = fitted
    path = result.save(tmp_path / "m.autocat")
    data = bytearray(path.read_bytes())
    data[-10] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"corrupted.*checksum mismatch"):
        autocat.load(path)
    path.write_bytes(bytes(data[:-100]))
    with pytest.raises(ValueError, match=r"corrupted.*payload bytes"):
        autocat.load(path)
    path.write_bytes(MAGIC + (5).to_bytes(4, "big") + b"{nope")
    with pytest.raises(ValueError, match=r"corrupted.*unreadable header"):
        autocat.load(path)
    path.write_bytes(b"name,age\n")
    with pytest.raises(ValueError, match="not an autocat model file"):
        autocat.load(path)
    with pytest.raises(FileNotFoundError, match="No autocat model file"):
        autocat.load(tmp_path / "absent.autocat")


def test_save_checks_its_input(tmp_path):
    from autocat._persistence import save

    with pytest.raises(TypeError, match="expects an AutoResult"):
        save({"a": 1}, tmp_path / "x")
