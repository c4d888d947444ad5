#!/usr/bin/env bash
# Installs the kernel bench's peers (`npm run bench -- --peers`): other Jupyter kernels timed
# beside Deskbook. Exact versions and a lock in bench/peers/, installed into
# bench/peers/node_modules (git-ignored); the product never depends on them.
#   deno   Deno's Jupyter kernel (`deno jupyter --kernel`), the binary from @deno/<platform>
# IJavascript is not installed: its zeromq 5 addon fetches libzmq's source from GitHub at
# install time (docs/design.md, execute round trip).
# Safe to run again: npm ci installs exactly what the lock says.
set -euo pipefail
cd "$(dirname "$0")/.."
# --ignore-scripts: deno's postinstall only copies the platform binary the bench runs from @deno/<platform>.
npm ci --prefix bench/peers --ignore-scripts --no-audit --no-fund
