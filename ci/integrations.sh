#!/usr/bin/env bash
# The AutoML framework integrations, each in its own fresh virtual environment.
#
# For every framework (default: flaml autogluon tpot; or those given as arguments)
# this creates a virtual environment from scratch, installs autocat with the
# framework's extra under the exact versions of ci/<framework>.txt, and runs
# tests/integrations/test_<framework>.py and the framework's recipe there.
# It fails when a test fails, when the framework cannot be imported (the tests
# would only skip) or when pytest collects nothing.
#
#     bash ci/integrations.sh            # all three
#     bash ci/integrations.sh flaml      # one
#
# AUTOCAT_CI_VENVS sets where the environments go and stay (default: a temporary
# folder, removed at exit).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$#" -gt 0 ]; then frameworks=("$@"); else frameworks=(flaml autogluon tpot); fi
declare -A module=([flaml]=flaml [autogluon]=autogluon.tabular [tpot]=tpot)
if [ -n "${AUTOCAT_CI_VENVS:-}" ]; then
    root=$AUTOCAT_CI_VENVS
else
    # a temporary folder is removed at exit: each run leaves about 4 GB otherwise
    root=$(mktemp -d)
    trap 'rm -rf "$root"' EXIT
fi
failed=()
for framework in "${frameworks[@]}"; do
    start=$SECONDS
    venv="$root/$framework"
    echo "+ $framework: fresh environment in $venv from ci/$framework.txt"
    rm -rf "$venv"
    python3 -m venv "$venv"
    # no byte-compiling: the tests import a small part of these packages
    "$venv/bin/pip" install -q --no-compile -c "ci/$framework.txt" -e ".[$framework]" pytest
    "$venv/bin/python" -c "import ${module[$framework]}"
    set +e
    "$venv/bin/python" -m pytest -p no:cacheprovider -q \
        "tests/integrations/test_$framework.py" tests/test_recipes.py \
        -k "$framework"
    status=$?
    set -e
    echo "+ $framework: environment and tests took $((SECONDS - start)) s (exit $status)"
    if [ "$status" -eq 5 ]; then
        echo "pytest collected no test for $framework: failing the run" >&2
    fi
    if [ "$status" -ne 0 ]; then failed+=("$framework"); fi
done
if [ "${#failed[@]}" -gt 0 ]; then
    echo "integration tests failed for: ${failed[*]}" >&2
    exit 1
fi
