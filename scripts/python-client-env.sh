#!/usr/bin/env bash
# The real Python MCP client used by test/python-client*.test.ts: a virtualenv with the `mcp`
# package, pinned, kept under node_modules/.cache so reruns cost nothing (and `npm ci` starts it
# afresh). Run by .ci/run before the tests, and by the test itself when the venv is missing.
# Prints the venv's python. Safe to run concurrently: the test files that need the venv run in
# parallel, and the first one builds it while the others wait on the lock.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=node_modules/.cache/mcp-python
version=2.3.0
marker="$venv/.mcp-$version"
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
if [ ! -f "$marker" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  # One retry: an unreachable index fails fast and pip moves on to the next configured one.
  "$venv/bin/pip" install --quiet --disable-pip-version-check --retries 1 "mcp==$version" >&2
  touch "$marker"
fi
echo "$PWD/$venv/bin/python"
