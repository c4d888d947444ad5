#!/usr/bin/env bash
# Sets up a fresh Debian machine, registers the kernel and runs the demo recipe headless.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh

node dist/src/cli/main.js install --user
mkdir -p notebooks/out
jupyter nbconvert --to notebook --execute notebooks/kernel-tour.ipynb \
  --ExecutePreprocessor.kernel_name=deskbook --ExecutePreprocessor.timeout=120 \
  --output-dir notebooks/out --output kernel-tour
echo "demo: executed notebook written to notebooks/out/kernel-tour.ipynb"
jupyter nbconvert --to markdown --stdout notebooks/out/kernel-tour.ipynb 2>/dev/null | head -80
