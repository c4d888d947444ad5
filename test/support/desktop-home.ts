/**
 * A private DESKBOOK_HOME for tests that let a kernel start its own virtual desktop: no
 * DISPLAY, fresh app settings, the named apps pre-approved (nobody can answer a dialog).
 * cleanup() ends what that kernel left running on purpose — the helper, the desktop, and
 * the apps the helper launched (they carry DESKBOOK_HOME) — and removes the directory.
 */
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { desktopStatus } from "../../src/desktop/virtual-desktop.js";
import { endHomeProcesses } from "../../src/client/home-processes.js";
import { headlessEnv } from "./kernel-process.js";

export interface DesktopHome {
  dir: string;
  /** DESKBOOK_HOME. */
  home: string;
  /** Overrides for the kernel's (or the front door's) environment; undefined drops a variable. */
  env: NodeJS.ProcessEnv;
  /** What an X client needs to reach the kernel's desktop, once it runs: DISPLAY and its cookie. */
  x11Env(): Promise<{ DISPLAY: string; XAUTHORITY: string }>;
  cleanup(): Promise<void>;
}

/** Desktop tools these tests need; non-empty means skip (naming them). */
export function missingDesktopTools(extra: readonly string[] = []): string[] {
  return ["Xvfb", "openbox", "dbus-daemon", "galculator", "mousepad", ...extra].filter(
    (tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0,
  );
}

export async function desktopHome(config: Record<string, unknown>): Promise<DesktopHome> {
  const dir = await mkdtemp(join(tmpdir(), "deskbook-desktop-"));
  const home = join(dir, "home");
  await mkdir(home, { recursive: true, mode: 0o700 });
  await writeFile(join(home, "config.json"), JSON.stringify(config));
  const env: NodeJS.ProcessEnv = { DESKBOOK_HOME: home, ...headlessEnv(dir) };
  return {
    dir,
    home,
    env,
    async x11Env() {
      const status = await desktopStatus({ home });
      if (!status.running || !status.state) throw new Error(`no virtual desktop runs under ${home}`);
      return { DISPLAY: status.state.env.DISPLAY, XAUTHORITY: status.state.env.XAUTHORITY };
    },
    async cleanup() {
      await endHomeProcesses(home);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A copy of `base` with `overrides` applied; an undefined override removes the variable. */
export function withEnv(base: NodeJS.ProcessEnv, overrides: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...base, ...overrides })) if (value !== undefined) env[name] = value;
  return env;
}
