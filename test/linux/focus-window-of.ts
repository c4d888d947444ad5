// Gives the keyboard focus to a process's window, as a person's click on it would: the tests
// that answer an approval dialog with Escape do this first.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { managedWindowOf } from "./managed-window-of.js";

const execFileAsync = promisify(execFile);

/** Waits for `pid`'s managed window on the display `env` names and activates it (`--sync`: until it is active). */
export async function focusWindowOf(env: NodeJS.ProcessEnv, pid: number): Promise<void> {
  const window = await managedWindowOf(env, pid);
  await execFileAsync("xdotool", ["windowactivate", "--sync", String(window)], { env, timeout: 10_000 });
}
