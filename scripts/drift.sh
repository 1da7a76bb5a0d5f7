#!/usr/bin/env bash
# The suite against other versions than the lock (.ci/constraints.txt), so upstream breakage is seen early:
#   newest  the newest releases pyproject.toml allows (what `make lock` would pin next)
#   lowest  the lowest versions pyproject.toml declares (what a user with old packages gets)
# Prints the versions that differ from the lock and the suite's result. Never fails: drift is reported, not gating.
set -u
mode=${1:?newest or lowest}
cd "$(dirname "$0")/.."
PY=${PY:-python3}
venv=.venv-$mode
rm -rf "$venv"
"$PY" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
case "$mode" in
  newest) "$venv/bin/python" -m pip install --quiet --upgrade -e '.[test]' ;;
  # pip cannot pick the lowest release of a range (`>=2.3` when only 2.3.1 exists); uv's resolver can
  lowest) "$venv/bin/python" -m pip install --quiet uv &&
          "$venv/bin/uv" pip install --quiet --python "$venv/bin/python" --resolution lowest-direct -e '.[test]' ;;
  *) echo "drift: unknown mode $mode (newest or lowest)"; exit 0 ;;
esac
if [ $? -ne 0 ]; then
  echo "drift($mode): could not install; the declared ranges do not resolve"
  exit 0
fi
echo "drift($mode): versions that differ from the lock (< lock, > $mode):"
diff <(grep -v '^#' .ci/constraints.txt | tr 'A-Z_' 'a-z-' | sort) \
     <("$venv/bin/python" -m pip freeze --exclude-editable | grep -v -i '^tenantdeck' | tr 'A-Z_' 'a-z-' | sort) \
  | grep '^[<>]' || echo "  (none)"
start=$(date +%s)
timeout 1500 "$venv/bin/python" -m pytest -n auto -q -p no:randomly --timeout 300 -o addopts="" > "$venv/pytest.log" 2>&1
code=$?
echo "drift($mode): pytest exit $code in $(( $(date +%s) - start )) s"
grep -E "^(FAILED|ERROR) " "$venv/pytest.log" | head -40
tail -n 1 "$venv/pytest.log"
exit 0
