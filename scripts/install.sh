#!/usr/bin/env bash
# Make .venv with exactly the versions of the lock (the Makefile's install step, before `make run` and `make test`).
#
# With uv when it can be had: PyPI's `uv` package, taken by this Python's own pip into a scratch folder, makes the
# venv and installs the lock in parallel, byte-compiled as pip does (every test worker would otherwise compile the
# same modules at once). From a fresh clone with an empty HOME: ~7 s against pip's ~18 s (docs/benchmarks.md,
# "The install"). Anything in that path that fails (no pip for this Python, no uv on the index, a registry uv cannot
# reach) is said on one line and pip does the install as before: the result is the same lock either way.
#
# Usage: scripts/install.sh PYTHON VENV LOCK
set -euo pipefail
py=$1
venv=$2
lock=$3
project='.[test,dev]'

with_uv() {
    local tools status=0
    tools=$(mktemp -d "${TMPDIR:-/tmp}/tenantdeck-uv.XXXXXX")
    # --system-certs: the registry may be reached through a proxy whose CA only the system's store has (uv's
    # built-in roots then fail the handshake, as they do on these machines)
    { "$py" -m pip install --quiet --disable-pip-version-check --target "$tools" 'uv>=0.13.9' &&
        "$tools/bin/uv" venv --quiet --system-certs --python "$("$py" -c 'import sys; print(sys.executable)')" \
            "$venv" &&
        "$tools/bin/uv" pip install --quiet --system-certs --python "$venv/bin/python" --compile-bytecode \
            --constraint "$lock" -e "$project" pip; } || status=$?
    rm -rf "$tools"
    return "$status"
}

with_pip() {
    "$py" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --upgrade pip
    "$venv/bin/python" -m pip install --quiet --constraint "$lock" -e "$project"
}

log=$(mktemp "${TMPDIR:-/tmp}/tenantdeck-install.XXXXXX")
trap 'rm -f "$log"' EXIT
rm -rf "$venv"
if ! with_uv 2>"$log"; then
    echo "install: uv could not install here ($(tail -n 1 "$log" | sed "s/^ *//")); installing with pip" >&2
    rm -rf "$venv"
    with_pip
fi
