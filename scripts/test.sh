#!/usr/bin/env bash
# Sets up a fresh Debian machine and runs every test; the last line says
# "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
bash scripts/setup-python.sh

results_dir="$(mktemp -d)"
results="$results_dir/vitest.json"
# A private temp directory for the run: whatever is still in it, or still running and naming
# it, once the tests end is a leftover (scripts/leftovers.mjs): listed, counted, ended, and
# counted as one failed check in the closing line (a test run must leave nothing behind).
run_tmp="$(mktemp -d "${TMPDIR:-/tmp}/deskbook-run-XXXXXX")"
# Traversable like /tmp itself (names not listable): the security tests play a second local
# user who must reach a socket under it to be refused by the helper rather than by the path.
chmod 711 "$run_tmp"
# A login session has a private XDG_RUNTIME_DIR; CI runs as root with none, and libpulse
# (Chromium's audio) then makes "$TMPDIR/pulse-*", session state that outlives the run. The
# run gets a runtime directory of its own, as a session would, removed with the session.
runtime_dir=""
if [ -z "${XDG_RUNTIME_DIR:-}" ]; then
  runtime_dir="$(mktemp -d)"
  chmod 700 "$runtime_dir"
  export XDG_RUNTIME_DIR="$runtime_dir"
fi
status=0
TMPDIR="$run_tmp" npx vitest run --reporter=default --reporter=json --outputFile.json="$results" || status=$?
leftovers=0
if ! node scripts/leftovers.mjs "$run_tmp"; then
  leftovers=1
  status=1
fi
node scripts/test-summary.mjs "$results" "$leftovers"
rm -rf "$results_dir"
[ -z "$runtime_dir" ] || rm -rf "$runtime_dir"
exit "$status"
