from __future__ import annotations

import copy
import hashlib
import io
import json
import logging
import pickle
import subprocess
import sys
import warnings
import zipfile

import numpy as np
import optuna
import pandas as pd
import pytest
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfTransformer, TfidfVectorizer
from sklearn.impute import SimpleImputer
from sklearn.pipeline import FeatureUnion, make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler, TargetEncoder

import autocat
from autocat import Recipe, TableVectorizer, auto_fit
from autocat import _model_state as model_state
from autocat._encoder_choice import ENCODER_NAMES
from autocat._persistence import FORMAT_VERSION, MAGIC, LegacyModelFileError

TASKS = ("regression", "binary", "multiclass")
ENCODERS = ("minhash", "gamma_poisson")


def _frame(n=80, seed=0):
    rng = np.random.default_rng(seed)
    jobs = ["police officer II", "Police Officer III", "bus operator", "nurse"]
    jobs += ["nurse manager", "firefighter", "crossing guard"]
    job = rng.choice(jobs, n)
    return pd.DataFrame(
        {
            "job": [f"{j} {k % 9}" for k, j in enumerate(job)],  # high cardinality
            "dept": rng.choice(["HHS", "POL", None], n),  # one-hot
            "years": rng.integers(0, 30, n).astype(float),
            "hired": pd.date_range("2001-01-01", periods=n, freq="17D"),
            "full_time": rng.random(n) > 0.3,
        }
    )


def _target(frame, task):
    score = frame["years"] + 6 * frame["job"].str.contains("manager|officer")
    if task == "regression":
        return 30_000 + 1_000 * score
    if task == "binary":
        return np.where(score > 16, "high", "low")
    return np.array(["a", "b", "c"])[np.digitize(score, [10, 20])]


@pytest.fixture(scope="module")
def results():
    """One auto_fit result per task and encoder (the encoder's recipe refit)."""
    frame, out = _frame(), {}
    for task in TASKS:
        y = _target(frame, task)
        result = auto_fit(
            frame.assign(y=y), "y", task=task, n_trials=1, cv=2, show_progress=False
        )
        for encoder in ENCODERS:
            variant = copy.copy(result)
            codes = y if task == "regression" else np.searchsorted(result.classes_, y)
            variant.pipeline_ = (
                Recipe(task=task, encoder=encoder, n_components=6, n_estimators=20)
                .build()
                .fit(frame, codes)
            )
            # the file then holds (and the tests check) that encoder's model
            variant.model_ = variant.pipeline_
            out[task, encoder] = variant
    return frame, out


def _same(got, expected):
    """Bit-identical: same dtype and bytes (same values for arrays of labels)."""
    if expected.dtype == object:
        return got.tolist() == expected.tolist()
    return got.dtype == expected.dtype and got.tobytes() == expected.tobytes()


def _outputs(result, frame):
    outputs = {"predict": result.predict(frame)}
    if result.task_ != "regression":
        outputs["proba"] = result.predict_proba(frame)
    return outputs


def _members(path):
    with zipfile.ZipFile(path) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def _write_zip(path, members):
    with warnings.catch_warnings():  # duplicate names are written on purpose
        warnings.simplefilter("ignore", UserWarning)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in members:
                archive.writestr(name, data)
    return path


def _rewrite(path, **replaced):
    """Write ``path`` again with some members replaced (name: bytes or JSON)."""
    members = _members(path)
    for key, value in replaced.items():
        name = {"manifest": "manifest.json", "graph": "graph.json"}.get(key, key)
        members[name] = (
            value if isinstance(value, bytes) else json.dumps(value).encode()
        )
    return _write_zip(path, members.items())


def _evil_pickle(canary):
    """Pickle bytes that create ``canary`` when unpickled."""

    class Payload:
        def __reduce__(self):
            return (open, (str(canary), "w"))

    return pickle.dumps(Payload(), protocol=4)


def _legacy_file(path, payload):
    """A format-1 file: the old header (correct checksum) then ``payload``."""
    header = json.dumps(
        {
            "format": 1,
            "versions": model_state_versions(),
            "size": len(payload),
            "sha256": hashlib.sha256(payload).hexdigest(),
        }
    ).encode()
    path.write_bytes(MAGIC + len(header).to_bytes(4, "big") + header + payload)
    return path


def model_state_versions():
    from autocat._persistence import _versions

    return _versions()


# --- round trip -------------------------------------------------------------------


@pytest.mark.parametrize("task", TASKS)
def test_round_trip_keeps_predictions_study_and_leaves_no_files(
    results, task, tmp_path
):
    frame, fitted = results
    result = fitted[task, "minhash"]
    path = result.save(tmp_path / "models" / "m.autocat")
    before = sorted(p.name for p in path.parent.iterdir())
    loaded = autocat.load(path)
    assert sorted(p.name for p in path.parent.iterdir()) == before == ["m.autocat"]
    for name, value in _outputs(result, frame).items():
        assert _same(_outputs(loaded, frame)[name], value), name
    assert loaded.best_params_ == result.best_params_
    assert loaded.summary() == result.summary()
    assert loaded.sample_ is None
    assert isinstance(loaded.study_._storage, optuna.storages.InMemoryStorage)
    assert loaded.study_.user_attrs == result.study_.user_attrs
    finished = [t for t in result.study_.trials if t.state.is_finished()]
    pairs = zip(loaded.study_.trials, finished, strict=True)
    for new, old in pairs:
        assert (new.state, new.values, new.params) == (
            old.state,
            old.values,
            old.params,
        )
        assert new.distributions == old.distributions
        assert new.user_attrs == old.user_attrs
        assert new.intermediate_values == old.intermediate_values
        assert new.datetime_start == old.datetime_start
    pd.testing.assert_frame_equal(loaded.leaderboard_, result.leaderboard_)


def test_sample_is_stored_only_when_asked(results, tmp_path):
    _, fitted = results
    result = fitted["binary", "minhash"]
    plain = result.save(tmp_path / "plain.autocat")
    with_rows = result.save(tmp_path / "rows.autocat", include_sample=True)
    # A value seen only in the training rows is absent from the default file.
    marker = result.sample_[0]["job"].iloc[0].encode()
    assert all(marker not in data for data in _members(plain).values())
    loaded = autocat.load(with_rows)
    X, y = loaded.sample_
    pd.testing.assert_frame_equal(X, result.sample_[0], check_dtype=False)
    np.testing.assert_array_equal(y, result.sample_[1])
    assert json.loads(_members(with_rows)["manifest.json"])["sample"] is True


@pytest.mark.slow
def test_a_database_study_is_copied_into_the_file(results, tmp_path):
    result = copy.copy(results[1]["regression", "minhash"])
    result.study_ = optuna.create_study(
        storage=f"sqlite:///{tmp_path / 'study.db'}", direction="maximize"
    )
    result.study_.add_trials(results[1]["regression", "minhash"].study_.trials)
    path = result.save(tmp_path / "m.autocat")
    (tmp_path / "study.db").unlink()
    loaded = autocat.load(path)
    assert isinstance(loaded.study_._storage, optuna.storages.InMemoryStorage)
    assert [t.value for t in loaded.study_.trials] == [
        t.value for t in result.study_.trials if t.state.is_finished()
    ]


def test_same_result_gives_the_same_bytes(results, tmp_path):
    _, fitted = results
    result = fitted["multiclass", "gamma_poisson"]
    first = result.save(tmp_path / "a.autocat").read_bytes()
    assert result.save(tmp_path / "b.autocat").read_bytes() == first


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("encoder", ENCODERS)
def test_file_is_no_larger_than_the_pickle(results, task, encoder, tmp_path):
    _, fitted = results
    result = fitted[task, encoder]
    legacy = len(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    size = result.save(tmp_path / "m.autocat").stat().st_size
    assert size <= legacy, (size, legacy)


FRESH_PROCESS = """
import json, sys
import numpy as np
import autocat
import pandas as pd
paths, out = json.loads(sys.argv[1]), sys.argv[2]
frame = pd.read_pickle(sys.argv[3])
public = [getattr(autocat, name) for name in autocat.__all__]  # imports autocat
before = set(sys.modules)
loaded = {key: autocat.load(path) for key, path in paths.items()}
new_modules = sorted(set(sys.modules) - before)
arrays = {}
for key, result in loaded.items():
    labels = result.predict(frame)
    arrays[key + "/predict"] = labels.astype(str) if labels.dtype == object else labels
    if result.task_ != "regression":
        arrays[key + "/proba"] = result.predict_proba(frame)
np.savez(out, **arrays)
print(json.dumps(new_modules))
"""


@pytest.fixture(scope="module")
def fresh_process(results, tmp_path_factory):
    """Load every saved result in a new interpreter; its outputs and new modules."""
    frame, fitted = results
    folder = tmp_path_factory.mktemp("fresh")
    paths = {
        f"{task}-{encoder}": str(result.save(folder / f"{task}-{encoder}.autocat"))
        for (task, encoder), result in fitted.items()
    }
    frame.to_pickle(folder / "frame.pkl")  # the test's own data, not a model file
    outputs = [str(folder / "out.npz"), str(folder / "frame.pkl")]
    done = subprocess.run(
        [sys.executable, "-c", FRESH_PROCESS, json.dumps(paths), *outputs],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    with np.load(folder / "out.npz", allow_pickle=False) as arrays:
        outputs = dict(arrays)
    return outputs, json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("encoder", ENCODERS)
def test_fresh_process_gives_bit_identical_predictions(
    results, fresh_process, task, encoder
):
    frame, fitted = results
    outputs, _ = fresh_process
    expected = _outputs(fitted[task, encoder], frame)
    for name, value in expected.items():
        assert _same(outputs[f"{task}-{encoder}/{name}"], value), name


@pytest.mark.slow
def test_loading_imports_no_module(fresh_process):
    _, new_modules = fresh_process
    assert new_modules == []


@pytest.mark.parametrize(
    "estimator",
    [
        TargetEncoder(random_state=0),
        make_pipeline(TfidfVectorizer(), TruncatedSVD(2, random_state=0)),
        make_pipeline(SimpleImputer(), StandardScaler()),
        FeatureUnion([("scaled", StandardScaler()), ("raw", SimpleImputer())]),
        make_pipeline(TfidfTransformer()),
    ],
    ids=lambda e: type(e).__name__,
)
def test_estimators_about_to_be_used_round_trip(estimator):
    rng = np.random.default_rng(0)
    words = np.array(["red fox", "blue fox", "red hen", "old dog", "blue hen"])
    name = type(estimator).__name__
    steps = [type(s).__name__ for _, s in getattr(estimator, "steps", [])]
    if name == "TargetEncoder":
        X, y = rng.choice(words, (60, 1)), rng.random(60)
    elif "TfidfVectorizer" in steps:
        X, y = rng.choice(words, 60), None
    elif "TfidfTransformer" in steps:
        X, y = rng.integers(0, 3, (60, 4)), None
    else:
        X, y = rng.normal(size=(60, 3)), None
        X[::7, 1] = np.nan
    estimator.fit(X, y)
    reader, graph = model_state.check_graph(
        _members(io.BytesIO(model_state.write_archive(estimator, {}))), "test"
    )
    loaded = reader.build(graph)
    assert type(loaded) is type(estimator)
    expected = estimator.transform(X)
    got = loaded.transform(X)
    expected, got = (getattr(a, "toarray", lambda a=a: a)() for a in (expected, got))
    assert got.tobytes() == expected.tobytes()


ENCODER_CLASSES = {
    "minhash": "MinHashEncoder",
    "gamma_poisson": "GammaPoissonEncoder",
    "target": "TargetEncoder",
    "text": "TextEncoder",
}


@pytest.mark.parametrize("encoder", ENCODER_NAMES)
def test_every_encoder_auto_fit_may_choose_round_trips(encoder):
    # the search picks any of these for dirty and text columns; a model holding
    # one that the allow-list missed could not be saved at all
    rng = np.random.default_rng(0)
    words = np.array(["senior", "bus", "operator", "police", "officer", "iii"])
    titles = [" ".join(rng.choice(words, 3)) + f" {i % 40}" for i in range(200)]
    table = pd.DataFrame(
        {
            "title": titles,
            "note": [" ".join(rng.choice(words, 9)) for _ in range(200)],
        }
    )
    y = rng.random(200)
    vectorizer = TableVectorizer(
        high_cardinality=encoder, text=encoder, n_components=4
    ).fit(table, y)
    described = vectorizer.describe()
    assert described["kind"].tolist() == ["high_cardinality", "text"]
    assert set(described["transformer"]) == {ENCODER_CLASSES[encoder]}
    reader, graph = model_state.check_graph(
        _members(io.BytesIO(model_state.write_archive(vectorizer, {}))), "test"
    )
    loaded = reader.build(graph)
    assert loaded.transform(table).tobytes() == vectorizer.transform(table).tobytes()


class Extension:
    """A class some module trusts in one line."""


def test_trust_extends_the_allow_list_in_one_line(monkeypatch):
    monkeypatch.setattr(model_state, "_BY_NAME", dict(model_state._BY_NAME))
    monkeypatch.setattr(model_state, "_BY_CLASS", dict(model_state._BY_CLASS))
    thing = Extension()
    thing.weights_ = np.arange(3.0)
    with pytest.raises(
        TypeError, match=r"Cannot save the object: a .*Extension is not"
    ):
        model_state.write_archive(thing, {})
    model_state.trust(Extension)
    data = model_state.write_archive(thing, {})
    reader, graph = model_state.check_graph(_members(io.BytesIO(data)), "test")
    loaded = reader.build(graph)
    assert type(loaded) is Extension and loaded.weights_.tolist() == [0.0, 1.0, 2.0]


def test_saving_an_untrusted_object_names_its_path(results, tmp_path):
    _, fitted = results
    result = copy.copy(fitted["regression", "minhash"])
    vectorizer = result.pipeline_.steps[0][1]
    result.pipeline_ = make_pipeline(FunctionTransformer(np.log1p))
    expected = r"Cannot save result\.pipeline_\.steps\[0\]\[1\]: a sklearn\..*Function"
    with pytest.raises(TypeError, match=expected):
        result.save(tmp_path / "m.autocat")
    result.pipeline_ = make_pipeline(vectorizer)
    result.target_ = pd.NA
    with pytest.raises(TypeError, match=r"Cannot save .*\.target_: a .*NAType"):
        result.save(tmp_path / "m.autocat")
    assert not (tmp_path / "m.autocat").exists()


# --- versions and legacy files -----------------------------------------------------


@pytest.fixture
def saved(results, tmp_path):
    _, fitted = results
    return fitted["binary", "gamma_poisson"].save(tmp_path / "m.autocat")


def test_other_library_versions_are_refused_unless_not_strict(saved, caplog):
    manifest = json.loads(_members(saved)["manifest.json"])
    manifest["versions"].update(autocat="0.0.1", xgboost="1.0.0")
    _rewrite(saved, manifest=manifest)
    with pytest.raises(ValueError, match=r"saved with autocat 0\.0\.1 \(now") as info:
        autocat.load(saved)
    assert "xgboost==1.0.0" in str(info.value) and "strict=False" in str(info.value)
    with caplog.at_level(logging.WARNING, logger="autocat"):
        assert autocat.load(saved, strict=False).task_ == "binary"
    assert "saved with autocat 0.0.1" in caplog.text


def test_a_newer_format_asks_to_upgrade(saved):
    manifest = json.loads(_members(saved)["manifest.json"])
    manifest.update(format_version=FORMAT_VERSION + 1)
    manifest["versions"]["autocat"] = "9.0"
    _rewrite(saved, manifest=manifest)
    expected = (
        f"written by autocat 9.0 with format {FORMAT_VERSION + 1}; this autocat "
        rf"\(.*\) reads up to format {FORMAT_VERSION}: upgrade autocat"
    )
    with pytest.raises(ValueError, match=expected):
        autocat.load(saved)


def test_legacy_pickles_are_refused_without_running_them(tmp_path):
    canary = tmp_path / "canary"
    path = _legacy_file(tmp_path / "old.pkl", _evil_pickle(canary))
    with pytest.raises(LegacyModelFileError, match="can run any code") as info:
        autocat.load(path)
    assert "Refit" in str(info.value) and "trusted=True" in str(info.value)
    with pytest.raises(LegacyModelFileError):
        autocat.load(path, strict=False)
    assert not canary.exists()


def test_legacy_pickles_load_with_trusted(results, tmp_path):
    frame, fitted = results
    result = fitted["regression", "minhash"]
    path = _legacy_file(tmp_path / "old.pkl", pickle.dumps(result))
    loaded = autocat.load(path, trusted=True)
    assert loaded.predict(frame).tobytes() == result.predict(frame).tobytes()
    data = bytearray(path.read_bytes())
    data[-10] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"corrupted.*checksum mismatch"):
        autocat.load(path, trusted=True)


# --- crafted files: refused, nothing runs, nothing written ------------------------


def _load_refused(path, *fragments):
    with pytest.raises(ValueError, match="not a valid autocat model file") as info:
        autocat.load(path)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, message
    return message


@pytest.mark.parametrize(
    "name",
    [
        "os.system",
        "builtins.eval",
        "subprocess.Popen",
        "posix.system",
        "sklearn.preprocessing._function_transformer.FunctionTransformer",
        "xgboost.sklearn.XGBRanker",  # its module is on the list, the class is not
        "autocat._vectorizer_columns.Encoded",
    ],
)
def test_classes_off_the_list_are_refused_before_building(
    saved, tmp_path, name, monkeypatch
):
    canary = tmp_path / "canary"
    graph = json.loads(_members(saved)["graph.json"])
    result = graph["$dict"]["result"]["$object"][2]["$dict"]
    result["target_"] = {"$object": [1, name, {"$dict": {"args": f"touch {canary}"}}]}
    _rewrite(saved, graph=graph)
    built = []
    monkeypatch.setattr(model_state._Reader, "build", lambda *a: built.append(a))
    _load_refused(saved, f"the class '{name}'", "not on autocat's list")
    assert built == [] and not canary.exists()


@pytest.mark.parametrize("member", ["graph.json", "arrays/0.npy", "xgboost/0.ubj"])
def test_pickle_bytes_in_any_member_are_refused(saved, tmp_path, member):
    canary = tmp_path / "canary"
    assert member in _members(saved)
    _rewrite(saved, **{member: _evil_pickle(canary)})
    _load_refused(saved, member, "pickle data")
    assert not canary.exists()


def test_object_dtype_npy_is_refused(saved, tmp_path):
    canary = tmp_path / "canary"
    buffer = io.BytesIO()
    np.save(buffer, np.array([_Unpickled(canary)], dtype=object), allow_pickle=True)
    _rewrite(saved, **{"arrays/0.npy": buffer.getvalue()})
    _load_refused(saved, "arrays/0.npy", "dtype object")
    assert not canary.exists()


class _Unpickled:
    def __init__(self, canary):
        self.canary = canary

    def __reduce__(self):
        return (open, (str(self.canary), "w"))


def test_arrays_of_another_dtype_or_shape_are_refused(saved):
    members = _members(saved)
    graph = members["graph.json"].decode()
    reference = json.loads(graph[graph.index('{"$array":') :].split("}", 1)[0] + "}")
    member, dtype, shape = reference["$array"]
    other = np.zeros([n + 1 for n in shape] or [2], dtype=np.dtype(dtype))
    buffer = io.BytesIO()
    np.save(buffer, other)
    _rewrite(saved, **{member: buffer.getvalue()})
    _load_refused(saved, member, "where the graph expects")
    text = json.dumps(reference["$array"], separators=(",", ":"))
    assert graph.count(text) == 1
    swapped = graph.replace(
        text, json.dumps([member, "<c16", shape], separators=(",", ":"))
    )
    _rewrite(saved, **{member: members[member]}, graph=swapped.encode())
    _load_refused(saved, member, "where the graph expects complex128")


@pytest.mark.parametrize(
    "bad_name", ["../../x.npy", "/etc/x.json", "arrays\\0.npy", "model.py", "a/b.json"]
)
def test_unsafe_or_unexpected_member_names_are_refused(saved, tmp_path, bad_name):
    members = [*_members(saved).items(), (bad_name, b"{}")]
    _write_zip(saved, members)
    _load_refused(saved, repr(bad_name))
    assert not (tmp_path.parent / "x.npy").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.autocat"]


def test_duplicate_members_are_refused(saved):
    members = list(_members(saved).items())
    _write_zip(saved, [*members, ("graph.json", b'{"$dict": {}}')])
    _load_refused(saved, "duplicate members ['graph.json']")


def _patch_sizes(data, member, size, *, local=True):
    """Set ``member``'s uncompressed size in the central (and local) headers."""
    data = bytearray(data)
    name = member.encode()
    for signature, offset in ((b"PK\x01\x02", 24), (b"PK\x03\x04", 22)):
        if signature == b"PK\x03\x04" and not local:
            continue
        start = 0
        while (start := data.find(signature, start)) >= 0:
            name_at = start + (46 if signature == b"PK\x01\x02" else 30)
            if data[name_at : name_at + len(name)] == name:
                data[start + offset : start + offset + 4] = size.to_bytes(4, "little")
            start += 4
    return bytes(data)


def test_zip_bombs_are_refused_by_declared_and_actual_size(
    saved, tmp_path, monkeypatch
):
    data, members = saved.read_bytes(), _members(saved)
    saved.write_bytes(_patch_sizes(data, "graph.json", 2**31 - 1, local=False))
    _load_refused(saved, "members declaring 2,1", "zip bomb")
    saved.write_bytes(_patch_sizes(data, "graph.json", 100))  # expands past 100 bytes
    _load_refused(saved, "graph.json")
    # at most max(floor, 50 x the file's size): 4 MiB of zeros in ~60 kB is refused
    monkeypatch.setattr(model_state, "_MAX_BYTES_FLOOR", 2**20)
    bomb = tmp_path / "bomb.autocat"
    _write_zip(bomb, [*members.items(), ("arrays/99.npy", bytes(4 * 2**20))])
    assert 50 * bomb.stat().st_size < 4 * 2**20
    _load_refused(bomb, "zip bomb")
    monkeypatch.setattr(model_state, "_MAX_BYTES_FLOOR", 64 * 2**20)
    assert "zip bomb" not in _load_refused(bomb, "arrays/99.npy")  # then unused


def _patch_central(data, member, offset, value, size=2):
    """Set a field of ``member``'s central directory entry."""
    data, name = bytearray(data), member.encode()
    start = 0
    while (start := data.find(b"PK\x01\x02", start)) >= 0:
        if data[start + 46 : start + 46 + len(name)] == name:
            data[start + offset : start + offset + size] = value.to_bytes(
                size, "little"
            )
        start += 4
    return bytes(data)


def test_other_compression_methods_and_encryption_are_refused(saved):
    data = saved.read_bytes()
    saved.write_bytes(_patch_central(data, "graph.json", 10, 14))  # LZMA
    _load_refused(saved, "graph.json compressed with method 14")
    saved.write_bytes(_patch_central(data, "graph.json", 8, 0x1))  # encrypted flag
    _load_refused(saved, "the encrypted member graph.json")


def test_truncated_and_foreign_files_are_refused(saved):
    data = saved.read_bytes()
    saved.write_bytes(data[: len(data) // 2])
    _load_refused(saved, "damaged or truncated")
    saved.write_bytes(b"name,age\n")
    with pytest.raises(ValueError, match="not an autocat model file"):
        autocat.load(saved)
    with pytest.raises(FileNotFoundError, match="No autocat model file"):
        autocat.load(saved.with_name("absent.autocat"))


def test_malformed_graphs_are_refused(saved):
    graph = json.loads(_members(saved)["graph.json"])
    state = graph["$dict"]["result"]["$object"][2]["$dict"]
    for value, found in [
        ({"$eval": "1"}, "{'$eval': '1'}"),
        ({"$ref": 999}, "a reference to object 999"),
        ({"$type": "os.system"}, "the type 'os.system'"),
        ({"$dtype": "O,O"}, "the dtype 'O,O'"),
        ({"$scalar": ["<i1", 1000]}, "int8 scalar holding 1000"),
        ({"$object_array": [[2], ["a", {"$object": []}]]}, "an object-array value"),
        ({"$array": ["arrays/999.npy", "<f8", [1]]}, "missing member"),
    ]:
        patched = copy.deepcopy(graph)
        patched["$dict"]["result"]["$object"][2]["$dict"] = dict(state, task_=value)
        _rewrite(saved, graph=patched)
        _load_refused(saved, "graph.json at result.task_", found)
    patched = copy.deepcopy(graph)
    patched["$dict"]["study"]["$dict"]["user_attrs"] = {"$ref": 0}  # not plain data
    _rewrite(saved, graph=patched)
    _load_refused(saved, "graph.json at study['user_attrs']", "{'$ref': 0}")
    patched = copy.deepcopy(graph)
    patched["$dict"]["result"]["$object"][2]["$dict"]["__class__"] = None
    _rewrite(saved, graph=patched)
    _load_refused(saved, "setting the attribute '__class__'")


def test_report_of_a_loaded_result_says_why_importances_are_missing(results, tmp_path):
    _, fitted = results
    loaded = autocat.load(fitted["regression", "gamma_poisson"].save(tmp_path / "m"))
    html = loaded.report(tmp_path / "r.html").read_text()
    assert "include_sample=True" in html and "Write the report before saving" in html
    assert "Gamma-Poisson topics" in html  # from the fitted encoder alone


def test_a_budgeted_model_with_early_stopped_boosters_round_trips(tmp_path):
    # A budget too short for a trial returns the rescue recipe, whose XGBoost kept
    # the model early stopping chose (so do fold models a budget leaves unrefit).
    # XGBoost logs its stop rows' loss in OrderedDicts, which a model file refused.
    frame = _frame(120)
    frame["salary"] = _target(frame, "regression")
    result = auto_fit(frame, "salary", time_budget=0.01, show_progress=False)
    booster = result.model_.named_steps["model"]
    assert booster.get_params()["early_stopping_rounds"], "not an early-stopped model"
    loaded = autocat.load(result.save(tmp_path / "budgeted.autocat"))
    assert _same(loaded.predict(frame), result.predict(frame))
    log = loaded.model_.named_steps["model"].evals_result()
    assert log == booster.evals_result() and len(log["validation_0"]["rmse"]) > 1
