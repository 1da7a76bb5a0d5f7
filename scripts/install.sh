#!/usr/bin/env bash
# Make .venv with exactly the versions of the lock (the Makefile's install step, before `make run` and `make test`).
#
# With uv when it can be had: PyPI's `uv` package, taken by this Python's own pip into a scratch folder, makes the
# venv and installs the lock in parallel, byte-compiled as pip does (every test worker would otherwise compile the
# same modules at once). From a fresh clone with an empty HOME: ~6 s against pip's ~18 s (docs/benchmarks.md, "Each
# stylesheet parsed once, a pilot's wait only for busy widgets, the install with uv"). Anything in that path that
# fails (no pip for this Python, no uv on the index, a registry uv cannot reach) is said on one line and pip does
# the install as before: the result is the same lock either way.
#
# A venv that worked is kept aside until the new one is installed, and put back if the install fails or is
# interrupted (Ctrl-C stops it: it is not taken for uv failing).
#
# Usage: scripts/install.sh PYTHON VENV LOCK
set -euo pipefail
py=$1
venv=$2
lock=$3
project='.[test,dev]'

# the project needs Python 3.11 or newer: said here, once, rather than by each installer in its own words
if ! command -v "$py" >/dev/null 2>&1; then
    echo "install: no Python called '$py' here (PY=... names another)" >&2
    exit 1
fi
if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "install: tenantdeck needs Python 3.11 or newer; '$py' is $("$py" -V 2>&1) (PY=... names another)" >&2
    exit 1
fi

tools=$(mktemp -d "${TMPDIR:-/tmp}/tenantdeck-uv.XXXXXX")
log="$tools/uv.log"
kept="$venv.before-install"
finish() {
    status=$?
    rm -rf "$tools"
    if [ "$status" -ne 0 ] && [ -d "$kept" ]; then
        rm -rf "$venv" && mv "$kept" "$venv" && echo "install: kept the venv there was before" >&2
    fi
    rm -rf "$kept"
    exit "$status"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

with_uv() {
    # --system-certs: the registry may be reached through a proxy whose CA only the system's store has (uv's
    # built-in roots then fail the handshake, as they do on these machines)
    "$py" -m pip install --quiet --disable-pip-version-check --target "$tools/uv" 'uv>=0.13.9' &&
        "$tools/uv/bin/uv" venv --quiet --system-certs --python "$("$py" -c 'import sys; print(sys.executable)')" \
            "$venv" &&
        "$tools/uv/bin/uv" pip install --quiet --system-certs --python "$venv/bin/python" --compile-bytecode \
            --constraint "$lock" -e "$project" pip
}

with_pip() {
    "$py" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --upgrade pip
    "$venv/bin/python" -m pip install --quiet --constraint "$lock" -e "$project"
}

echo "install: $venv with the versions of $lock (uv, or pip where uv cannot; ~6 s, ~20 s with pip)" >&2
rm -rf "$kept"
if [ -d "$venv" ]; then
    mv "$venv" "$kept"
fi
if ! with_uv 2>"$log"; then
    # uv's first `error:` line says what failed and its last `cause:` line why (a hint may follow them)
    failed=$(grep -m 1 -i '^error' "$log" || tail -n 1 "$log" | sed 's/^ *//')
    why=$(grep -i '^ *cause' "$log" | tail -n 1 | sed 's/^ *//' || true)
    reason="$failed${why:+; $why}"
    echo "install: uv could not install here ($reason); installing with pip" >&2
    rm -rf "$venv"
    with_pip
fi
