#!/usr/bin/env bash
# Sets up a fresh Debian machine, registers the kernel and runs the demo recipe headless:
# galculator computes 6 × 7 by pressing its buttons, mousepad is typed into and read back,
# with screenshots — on the virtual desktop when there is no display.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh

deskbook() { node dist/src/cli/main.js "$@"; }
deskbook install --user
# Nobody is there to answer an approval dialog on a headless run: approve the recipe's two apps.
deskbook allow galculator mousepad

mkdir -p notebooks/out
jupyter nbconvert --to notebook --execute notebooks/calculator-and-editor.ipynb \
  --ExecutePreprocessor.kernel_name=deskbook --ExecutePreprocessor.timeout=120 \
  --output-dir notebooks/out --output calculator-and-editor
echo
echo "demo: the executed recipe is notebooks/out/calculator-and-editor.ipynb; its text outputs:"
node scripts/print-notebook.mjs notebooks/out/calculator-and-editor.ipynb
