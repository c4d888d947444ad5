#!/usr/bin/env bash
# Installs everything Deskbook needs on a fresh Debian 12 machine and builds it.
# Safe to run again: apt-get and npm ci are idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

PACKAGES=(
  # Debian's Jupyter stack: the real clients the kernel is proven with.
  jupyter-client jupyter-console jupyter-nbconvert jupyter-server jupyter-notebook
  python3-nbclient python3-nbformat
  # Virtual environments for the pinned PyPI peers (scripts/setup-python.sh).
  python3-venv
  # The virtual desktop: X server, session bus, accessibility bus, a window manager.
  xvfb dbus at-spi2-core openbox
  # Real apps for the demo and the tests; zenity for approval dialogs; xdotool plays "the user".
  galculator mousepad zenity xdotool x11-utils
  # The toolkit matrix (docs/linux.md): a Qt 5 app, and an X11 app with no accessibility (xcalc).
  speedcrunch x11-apps
  # A terminal emulator: the tests check the approval gate blocks it by default.
  xterm
  # The macOS signing certificate is generated for real in the tests.
  openssl
  # The Linux helper's clipboard (X11 CLIPBOARD selection: reading, and owning it after a write).
  xclip
  # The Linux helper's OCR (readText), with its English data.
  tesseract-ocr tesseract-ocr-eng
  # ss: the Linux helper asks the kernel (sock_diag) who is on the other end of its socket.
  iproute2
  # useradd/userdel: the security tests play a second local user.
  passwd
  # The browser tests drive JupyterLab 4 and Notebook 7 in Debian's Chromium (playwright-core).
  chromium
  # The live view of the desktop (`deskbook desktop view`): a VNC server, and noVNC with its
  # WebSocket bridge so a browser (or a notebook cell) can show it.
  x11vnc novnc websockify
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

echo "setup: npm ci"
npm ci --no-audit --no-fund --loglevel=error
echo "setup: build"
npm run --silent build
