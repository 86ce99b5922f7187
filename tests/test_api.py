"""The public surface: names, imports and docstrings."""

import inspect
import subprocess
import sys

import pytest
from numpydoc.validate import validate

import autocat

OPTIONAL_PACKAGES = ["polars", "dask", "pyspark", "flaml", "matplotlib", "skrub"]

# numpydoc rules that the project does not follow, each with its reason.
IGNORED_RULES = {
    "GL08",  # private helpers and inherited dunder methods need no docstring
    "ES01",  # an extended summary is optional for short methods
    "SA01",  # "See Also" only where there is something worth pointing to
    "EX01",  # methods are exemplified in their class's Examples section
    "RT02",  # numpydoc wants the return name only when several values are returned
    "PR02",  # sklearn's set_output/set_params signatures are generated
}


def test_all_names_resolve_and_are_sorted():
    for name in autocat.__all__:
        assert hasattr(autocat, name), name
    public = [n for n in autocat.__all__ if n != "__version__"]
    assert public == sorted(public)


def test_reprs_show_the_public_module():
    for name in autocat.__all__:
        obj = getattr(autocat, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert obj.__module__.split(".")[0] == "autocat"
            assert obj.__module__ in {"autocat", "autocat.datasets"}, obj.__module__


def test_import_loads_no_optional_package():
    # every module of the package, except the integrations that exist to load them
    code = (
        "import importlib, pkgutil, sys, autocat\n"
        "for m in pkgutil.walk_packages(autocat.__path__, 'autocat.'):\n"
        "    if not m.name.startswith('autocat.integrations'):\n"
        "        importlib.import_module(m.name)\n"
        f"print([m for m in {OPTIONAL_PACKAGES!r} if m in sys.modules])"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == "[]"


def test_functions_that_use_the_package_pickle_by_value():
    # joblib, Dask and Spark ship such functions with cloudpickle, which pickles
    # the module ``autocat`` by name; a module subclass without ``__reduce__``
    # made that fail with "cannot pickle '_Package' object".
    cloudpickle = pytest.importorskip("cloudpickle")
    code = (
        "import pickle, cloudpickle, autocat\n"
        "def width(n):\n"
        "    return autocat.MinHashEncoder(n_components=n).n_components\n"
        "blob = cloudpickle.dumps(width)\n"
        "print(pickle.loads(blob)(7), pickle.loads(pickle.dumps(autocat)) is autocat)"
    )
    assert cloudpickle is not None
    printed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert printed == "7 True"


def _public_objects():
    for name in sorted(autocat.__all__):
        obj = getattr(autocat, name)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        yield f"autocat.{name}"
        if inspect.isclass(obj):
            for attr, member in sorted(vars(obj).items()):
                if not attr.startswith("_") and callable(member):
                    yield f"autocat.{name}.{attr}"


@pytest.mark.parametrize("import_path", list(_public_objects()))
def test_docstring_is_valid_numpydoc(import_path):
    result = validate(import_path)
    errors = [
        (code, msg) for code, msg in result["errors"] if code not in IGNORED_RULES
    ]
    assert not errors, "\n".join(f"{code}: {msg}" for code, msg in errors)
