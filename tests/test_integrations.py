"""The integration modules import their framework only when used, with a pip hint."""

import importlib.util
import subprocess
import sys

import pytest

FRAMEWORKS = {"flaml": "flaml", "autogluon": "autogluon", "tpot": "tpot"}


@pytest.mark.parametrize(
    "imports",
    [
        "import autocat",
        "import autocat.integrations.flaml, autocat.integrations.autogluon\n"
        "import autocat.integrations.tpot",
    ],
)
def test_importing_loads_no_framework(imports):
    code = (
        f"import sys\n{imports}\n"
        f"print([m for m in {sorted(FRAMEWORKS.values())!r} if m in sys.modules])"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == "[]"


@pytest.mark.parametrize(
    ("module", "call"),
    [
        ("flaml", lambda m: m.add_learners(object())),
        ("autogluon", lambda m: m.feature_generator()),
        ("tpot", lambda m: m.vectorizer_node()),
    ],
)
def test_missing_framework_gives_the_install_command(module, call):
    if importlib.util.find_spec(FRAMEWORKS[module]) is not None:
        pytest.skip(f"{module} is installed here")
    integration = importlib.import_module(f"autocat.integrations.{module}")
    with pytest.raises(ImportError, match=rf"pip install 'autocat\[{module}\]'"):
        call(integration)
