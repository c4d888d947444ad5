// Whether the helper runs on Deskbook's own virtual desktop, and that desktop's record: it does
// when its DISPLAY is the one desktop.json records (a helper in a shell that took the desktop's
// environment, `eval "$(deskbook desktop start)"`, counts too). Read from the file each time:
// it is small, and the desktop may have been started after the helper's environment was set.
// The record is where this process's desktop lives (desktopHome): a kernel's own desktop dir,
// else DESKBOOK_HOME's shared desktop.
import { readFileSync, statSync } from "node:fs";
import { desktopHome } from "../../src/config/home.js";
import { desktopStatePath } from "../../src/desktop/virtual-desktop.js";

export interface OwnDesktop {
  display: string;
  /** The desktop's private 0700 directory (its bus socket, its cookie, AT-SPI's files), removed when it stops. */
  runtimeDir: string;
}

/** The virtual desktop `env` names (desktopHome) when `env`'s DISPLAY is its display; undefined otherwise. */
export function ownDesktop(env: NodeJS.ProcessEnv): OwnDesktop | undefined {
  const display = env.DISPLAY;
  if (!display) return undefined;
  let state: { display?: unknown; runtimeDir?: unknown };
  try {
    state = JSON.parse(readFileSync(desktopStatePath(desktopHome(env)), "utf8")) as typeof state;
  } catch {
    return undefined; // no virtual desktop recorded
  }
  if (state.display !== display || typeof state.runtimeDir !== "string" || state.runtimeDir === "") return undefined;
  // A record a killed desktop left behind, its display since taken by another X server: its
  // runtime dir went with it (or is not ours), and is no one's to hand on.
  if (!isOwnDirectory(state.runtimeDir)) return undefined;
  return { display, runtimeDir: state.runtimeDir };
}

function isOwnDirectory(path: string): boolean {
  try {
    const dir = statSync(path);
    return dir.isDirectory() && dir.uid === process.getuid?.();
  } catch {
    return false;
  }
}
