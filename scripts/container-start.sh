#!/bin/sh
# The entrypoint of the image the Dockerfile builds. In a kernel pod that Enterprise Gateway's
# Kubernetes launcher created (it sets KERNEL_ID and RESPONSE_ADDRESS in the pod's environment)
# it runs the Deskbook kernel that reports back to the gateway; otherwise it runs the command
# it was given (jupyterhub-singleuser, for JupyterHub's spawners).
set -eu
if [ -n "${KERNEL_ID:-}" ] && [ -n "${RESPONSE_ADDRESS:-}" ]; then
  exec node "$(dirname "$0")/../dist/src/cli/main.js" gateway-kernel
fi
exec "$@"
