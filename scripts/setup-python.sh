#!/usr/bin/env bash
# Creates the virtual environments that hold the tests' Python peers, from the pinned
# requirements in test/python/. Python is for test harnesses and peers only: the product
# never imports it, and nothing is installed into the system Python.
#   .venv/peers    JupyterLab 4, Notebook 7, papermill, jupyter-mcp-server, JupyterHub …
#   .venv/gateway  Jupyter Enterprise Gateway (it needs an older jupyter-server)
# Safe to run again: an environment is rebuilt only when its requirements file changed.
set -euo pipefail
cd "$(dirname "$0")/.."

make_venv() {
  local name="$1" requirements="$2"
  local dir=".venv/$name" stamp=".venv/$name/.requirements.sha256"
  local want; want="$(sha256sum "$requirements" | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return; fi
  echo "setup: python environment $dir"
  rm -rf "$dir"
  /usr/bin/python3 -m venv "$dir"
  "$dir/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$requirements"
  echo "$want" > "$stamp"
}

make_venv peers test/python/requirements.txt
make_venv gateway test/python/gateway-requirements.txt
