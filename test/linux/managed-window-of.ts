// A process's window once the window manager manages it: in the root's _NET_CLIENT_LIST, the
// list the helper's `windows` reads. A window an app has created and named (_NET_WM_PID) but the
// WM has not yet taken on is not in it, and on a loaded machine that gap lasts long enough for
// the next request to see no window at all; tests that need the window to be listed wait here.
//
// The window is found in _NET_CLIENT_LIST rather than with `xdotool search`: besides finding
// windows not yet managed, Debian's xdotool (3.20160805) walks every window on the display and
// exits with BadWindow when any of them is destroyed during the walk (fixed upstream only in
// 2021), which on a busy desktop (a dialog's own short-lived windows, other apps) happens now and then.
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);
const FIND_TIMEOUT_MS = 15_000;
const POLL_MS = 100;

/** Waits for `pid`'s first managed window on the display `env` names; its X window id. */
export async function managedWindowOf(env: NodeJS.ProcessEnv, pid: number): Promise<number> {
  const deadline = Date.now() + FIND_TIMEOUT_MS;
  for (;;) {
    for (const window of await clientList(env)) {
      if ((await windowPid(env, window)) === pid) return window;
    }
    if (Date.now() > deadline) throw new Error(`no window of pid ${pid} in _NET_CLIENT_LIST after ${FIND_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The managed top-level windows, e.g. "_NET_CLIENT_LIST: window id # 0x400007, 0x600003". */
async function clientList(env: NodeJS.ProcessEnv): Promise<number[]> {
  const { stdout } = await execFileAsync("xprop", ["-root", "-notype", "_NET_CLIENT_LIST"], { env, timeout: 10_000 });
  return [...stdout.matchAll(/0x[0-9a-f]+/gi)].map((m) => Number(m[0]));
}

/** The window's _NET_WM_PID, or null when it has none or is gone by now (a window may close at any time). */
async function windowPid(env: NodeJS.ProcessEnv, window: number): Promise<number | null> {
  try {
    const { stdout } = await execFileAsync("xprop", ["-id", String(window), "-notype", "_NET_WM_PID"], { env, timeout: 10_000 });
    const match = /=\s*(\d+)/.exec(stdout);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}
