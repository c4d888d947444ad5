import { spawn } from "node:child_process";
import { existsSync, openSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DeskError } from "./desk-error.js";
import { desktopHome } from "../config/home.js";
import { ensureDesktop } from "../desktop/virtual-desktop.js";
import { launchMacHelper } from "../macos/launch-app.js";
import { makeDirsSync } from "../make-dirs.js";

/** The Linux helper's entry, built next to this file's package (dist/helper/linux/main.js). */
const LINUX_HELPER = fileURLToPath(new URL("../../helper/linux/main.js", import.meta.url));

/**
 * Starts the platform's helper in the background, serving `socketPath`. It outlives the
 * kernel on purpose: approvals and element indices belong to the helper's life, and other
 * clients share it. Its output goes to `$DESKBOOK_HOME/helper.log`.
 */
export async function launchHelper(socketPath: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  // On macOS the helper is an app bundle that `deskbook setup` builds; DESKBOOK_HELPER still
  // wins there, so tests and forks can run a node helper.
  if (process.platform === "darwin" && !env.DESKBOOK_HELPER) return launchMacHelper(socketPath, env);
  if (process.platform !== "linux" && !env.DESKBOOK_HELPER) {
    throw new DeskError("failed", `no helper is available for ${process.platform} yet`);
  }
  // DESKBOOK_HELPER names another helper to run with node: a fork, or the scripted one in tests.
  const entry = env.DESKBOOK_HELPER || LINUX_HELPER;
  if (!existsSync(entry)) throw new DeskError("failed", `the helper is not built (${entry}); run "npm run build"`);
  // A headless machine (CI, a server) gets the virtual desktop, so recipes run anywhere.
  // Its apps must open there too, not on a Wayland session the user may also have.
  if (process.platform === "linux" && !env.DISPLAY) {
    const { WAYLAND_DISPLAY: _wayland, ...rest } = env;
    // The desktop of the helper's own environment (its DESKBOOK_HOME's, or a kernel's own), which need not be this process's.
    env = { ...rest, ...(await ensureDesktop({ home: desktopHome(env) })) };
  }
  makeDirsSync(dirname(socketPath), 0o700);
  const log = openSync(join(dirname(socketPath), "helper.log"), "a", 0o600);
  const child = spawn(process.execPath, [entry, "--socket", socketPath], {
    detached: true,
    stdio: ["ignore", log, log],
    env,
  });
  child.unref();
}
