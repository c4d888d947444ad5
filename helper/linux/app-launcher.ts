// Starting an app: its desktop entry's Exec (field codes stripped), detached so it outlives
// the helper, with accessibility switched on. Waits until it shows a window AND its AT-SPI tree
// is there, since the next thing a client does is read that tree.
import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { homedir } from "node:os";
import { DeskError } from "../../src/helper/desk-error.js";
import type { AppCatalog, AppRecord } from "./app-catalog.js";
import { launchFlags } from "./launch-flags.js";
import { descendsFrom, processInfo } from "./proc-info.js";
import { joinsAtspi } from "./toolkit-probe.js";
import { deadlineReason, unregisteredNote } from "./launch-note.js";
import { whyNotRegistered } from "./registration-check.js";
import type { Services } from "./services.js";
import { ownDesktop } from "./own-desktop.js";
import { windowOwnerPids } from "./windows.js";

export const LAUNCH_TIMEOUT_MS = 15_000;
/** An app with a window whose toolkit cannot be told is waited for this long to join AT-SPI. */
const ACCESSIBLE_GRACE_MS = 5_000;
const POLL_MS = 150;
/** How often a launch asks why an app with a window has not joined AT-SPI. */
const CHECK_EVERY_MS = 1_000;

interface Child {
  pid: number;
  /** Exit code once the process ended, else null. */
  exited: () => number | null;
}

export interface LaunchOptions {
  fresh?: boolean;
  /** Added over the helper's environment (and over the accessibility switches). */
  env?: Record<string, string>;
  /** Working directory; default the entry's Path, else HOME. */
  cwd?: string;
}

export interface Launched {
  app: AppRecord;
  /** Flags the helper added, and why (launch-flags.ts). */
  notes: string[];
}

/** Starts the app, `args` after its entry's own arguments (on a fresh profile when asked), and answers the process that shows its window. */
export async function launchApp(target: AppRecord, services: Services, catalog: AppCatalog, args: readonly string[] = [], options: LaunchOptions = {}): Promise<Launched> {
  const own = target.entry?.argv ?? (target.info.path ? [target.info.path] : []);
  if (own.length === 0) throw new DeskError("not_found", `${target.info.name} has no program to run`);
  const cwd = options.cwd ?? target.entry?.cwd;
  if (options.cwd !== undefined) checkDirectory(options.cwd);
  const flags = launchFlags(own[0]!, target.info.path, args, process.getuid?.() === 0);
  const profile = options.fresh ? services.profiles.create(target.info.name) : undefined;
  let shown: Shown;
  try {
    const runtimeDir = ownDesktop(services.env)?.runtimeDir;
    const env = { ...launchEnv({ ...services.env, ...profile?.env }, runtimeDir), ...options.env };
    const child = await start([...own, ...flags.args, ...args], cwd, env);
    shown = await waitUntilShown(child, target, services, catalog);
  } catch (error) {
    profile?.remove();
    throw error;
  }
  if (profile && shown.app.info.pid !== undefined) services.profiles.adopt(shown.app.info.pid, profile);
  return { app: shown.app, notes: shown.note ? [...flags.notes, shown.note] : flags.notes };
}

function checkDirectory(path: string): void {
  let directory = false;
  try {
    directory = statSync(path).isDirectory();
  } catch {
    throw new DeskError("bad_request", `launch's cwd ${JSON.stringify(path)} does not exist`);
  }
  if (!directory) throw new DeskError("bad_request", `launch's cwd ${JSON.stringify(path)} is not a directory`);
}

/**
 * The environment apps get: the helper's, with every toolkit's accessibility on. On Deskbook's
 * own desktop (`desktopRuntimeDir`, its private runtime directory) an environment with no
 * XDG_RUNTIME_DIR (a root CI job or a service: no login session made one) gets that directory,
 * as a login session's apps get theirs: without one, libraries fall back to shared places
 * (libpulse, which Chromium links, to $TMPDIR/pulse-*, Qt to $TMPDIR/runtime-$USER) and leave
 * their files there, while the desktop's directory goes when the desktop stops. One the
 * environment has stays.
 */
export function launchEnv(env: NodeJS.ProcessEnv, desktopRuntimeDir?: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env, NO_AT_BRIDGE: "0", QT_LINUX_ACCESSIBILITY_ALWAYS_ON: "1", QT_ACCESSIBILITY: "1" };
  // GTK 4 turns its AT-SPI backend off with GTK_A11Y=none; any other value is left alone.
  if (out.GTK_A11Y === "none") delete out.GTK_A11Y;
  if (!out.XDG_RUNTIME_DIR && desktopRuntimeDir) out.XDG_RUNTIME_DIR = desktopRuntimeDir;
  return out;
}

function start(argv: string[], cwd: string | undefined, env: NodeJS.ProcessEnv): Promise<Child> {
  const [program, ...args] = argv as [string, ...string[]];
  const child = spawn(program, args, { env, cwd: cwd ?? env.HOME ?? homedir(), detached: true, stdio: "ignore" });
  let code: number | null = null;
  child.once("exit", (status, signal) => (code = status ?? (signal ? 128 : 0)));
  return new Promise((resolve, reject) => {
    child.once("error", (error) => reject(new DeskError("failed", `cannot start ${program}: ${error.message}`)));
    child.once("spawn", () => {
      child.unref();
      resolve({ pid: child.pid ?? 0, exited: () => code });
    });
  });
}

interface Shown {
  app: AppRecord;
  /** Why the app shows no accessible tree, when it shows a window without one. */
  note?: string;
}

async function waitUntilShown(child: Child, target: AppRecord, services: Services, catalog: AppCatalog): Promise<Shown> {
  const deadline = Date.now() + LAUNCH_TIMEOUT_MS;
  let windowSince: number | null = null;
  let checked = 0;
  // The window's process and whether its toolkit joins AT-SPI, as last seen (for the deadline's note).
  let last: { pid: number; joins: boolean | null } | null = null;
  while (Date.now() < deadline) {
    await sleep(POLL_MS);
    const shown = await shownPid(child.pid);
    if (shown !== null) {
      windowSince ??= Date.now();
      if (await isAccessible(services, shown)) return { app: await catalog.appOfPid(shown) };
      // A toolkit that joins AT-SPI is waited for (Qt takes seconds on a loaded machine); one that never will is not.
      const joins = await joinsAtspi(shown);
      last = { pid: shown, joins };
      if (joins === false || (joins === null && Date.now() - windowSince > ACCESSIBLE_GRACE_MS)) return { app: await catalog.appOfPid(shown) };
      // One that cannot (its environment keeps it off the bus) is not waited for either, nor one still off the bus after the grace.
      // (Asked once a second: it lists every connection on the bus.)
      const graceOver = Date.now() - windowSince > ACCESSIBLE_GRACE_MS;
      if (joins === true && Date.now() - checked >= CHECK_EVERY_MS) {
        checked = Date.now();
        const why = await whyNotRegistered(shown, services);
        if (why && (why.certain || graceOver)) return { app: await catalog.appOfPid(shown), note: unregisteredNote(why.reason, Date.now() - windowSince) };
      }
    } else if (child.exited() !== null) {
      // Single-instance apps hand the request to a running instance and exit.
      const instance = await catalog.runningInstance(target);
      if (instance) return { app: instance };
      if (child.exited() !== 0) throw new DeskError("failed", `${target.info.name} exited with status ${child.exited()} before showing a window`);
    }
  }
  if (!(await processInfo(child.pid))) throw new DeskError("failed", `${target.info.name} showed no window within ${LAUNCH_TIMEOUT_MS / 1000} s`);
  const app = await catalog.appOfPid(child.pid);
  if (windowSince === null || last === null) return { app };
  const reason = deadlineReason(last.joins, last.joins === true ? await whyNotRegistered(last.pid, services) : null);
  return reason === null ? { app } : { app, note: unregisteredNote(reason, Date.now() - windowSince) };
}

/** The launched process, or a descendant of it, that owns a managed window. */
async function shownPid(root: number): Promise<number | null> {
  for (const pid of await windowOwnerPids().catch(() => [])) {
    if (await descendsFrom(pid, root)) return pid;
  }
  return null;
}

async function isAccessible(services: Services, pid: number): Promise<boolean> {
  try {
    return (await (await services.atspi()).listApplications()).some((app) => app.pid === pid);
  } catch {
    return false;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
