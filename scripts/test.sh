#!/usr/bin/env bash
# Sets up a fresh Debian machine and runs every test; the last line says
# "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
bash scripts/setup-python.sh

results="$(mktemp -d)/vitest.json"
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json="$results" || status=$?
node scripts/test-summary.mjs "$results"
exit "$status"
