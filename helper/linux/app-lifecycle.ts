// Quitting and hiding an app on X11. A polite quit closes every window the way its close
// button does (_NET_CLOSE_WINDOW) and waits for the process to end; an app that asks about
// unsaved work keeps running, and the caller is told so. A forced quit signals the process
// (SIGTERM, then SIGKILL). Hiding minimizes every window, X11 having no "hide app".
import { DeskError } from "../../src/helper/desk-error.js";
import type { QuitResult } from "../../src/helper/protocol.js";
import { processInfo } from "./proc-info.js";
import { requestClose, windowAction } from "./window-actions.js";
import { windowsOfPid } from "./windows.js";

const POLITE_TIMEOUT_MS = 5_000;
const TERM_TIMEOUT_MS = 2_000;
const KILL_TIMEOUT_MS = 1_000;
const POLL_MS = 50;

export async function quitApp(pid: number, force: boolean): Promise<QuitResult> {
  if (force) return { exited: await signalled(pid) };
  const windows = await windowsOfPid(pid);
  if (windows.length === 0) throw new DeskError("action_failed", `pid ${pid} has no window to close; quit({ force: true }) ends it`);
  for (const w of windows) if (w.windowId !== undefined) await requestClose(w.windowId);
  const before = new Set(windows.map((w) => w.windowId));
  return { exited: await gone(pid, POLITE_TIMEOUT_MS, async () => (await windowsOfPid(pid)).some((w) => !before.has(w.windowId))) };
}

export async function hideApp(pid: number): Promise<void> {
  const windows = (await windowsOfPid(pid)).filter((w) => !w.minimized && w.windowId !== undefined);
  await Promise.all(windows.map((w) => windowAction({ pid, windowId: w.windowId!, action: "minimize" })));
}

async function signalled(pid: number): Promise<boolean> {
  if (!send(pid, "SIGTERM")) return true;
  if (await gone(pid, TERM_TIMEOUT_MS)) return true;
  if (!send(pid, "SIGKILL")) return true;
  return gone(pid, KILL_TIMEOUT_MS);
}

/** False when the process was already gone. */
function send(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw new DeskError("failed", `cannot signal pid ${pid}: ${(error as Error).message}`);
  }
}

/** Polls until the process ended (true), or the timeout or `staying` says it will not (false). */
async function gone(pid: number, timeoutMs: number, staying: () => Promise<boolean> = async () => false): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!(await processInfo(pid))) return true;
    // A new window once its windows were asked to close: the app asks something (save changes?).
    if (Date.now() > deadline || (await staying().catch(() => false))) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
