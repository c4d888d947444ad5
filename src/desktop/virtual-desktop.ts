// The virtual desktop: Xvfb + a D-Bus session bus + the AT-SPI bus + openbox, started as ONE
// process group so that stopping it is a single kill(-pgid). State lives in
// $DESKBOOK_HOME/desktop.json so that every process (CLI, kernel, helper, tests) finds and
// reuses the same desktop.
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, readdirSync } from "node:fs";
import { mkdtemp, open, readFile, rename, rm, stat, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, isAbsolute, join } from "node:path";
import type { Message, MessageBus } from "dbus-next";
import { deskbookHome, ensureHome } from "../config/home.js";
import { switchOn } from "./a11y-status.js";
import { loadDbus } from "./dbus-module.js";
import { startRegistry } from "./atspi-registry.js";
import { within } from "./within.js";
import { closeDesktopApps } from "./close-desktop-apps.js";
import { isAlive } from "../process-signals.js";
import { pidsWithEnv } from "./process-env.js";
import { writeXauthority, type XCookie } from "./xauthority.js";
import { waitForWindowManager } from "./window-manager-ready.js";
import { DeskError } from "../helper/desk-error.js";

/** What a process needs in its environment to use the desktop. */
export interface DesktopEnv {
  DISPLAY: string;
  DBUS_SESSION_BUS_ADDRESS: string;
  /** Lets AT-SPI clients and GTK skip the org.a11y.Bus lookup. */
  AT_SPI_BUS_ADDRESS: string;
  /** The display's cookie (a 0600 file in the private runtime directory): X refuses clients without it. */
  XAUTHORITY: string;
}

export type DesktopPartName = "xvfb" | "dbus" | "atspi" | "openbox";
export const DESKTOP_PARTS: readonly DesktopPartName[] = ["xvfb", "dbus", "atspi", "openbox"];

export interface DesktopState {
  version: 1;
  display: string;
  screen: string;
  /** Process-group leader: kill(-leaderPid) stops every part, including D-Bus-activated ones. */
  leaderPid: number;
  pids: Record<DesktopPartName, number>;
  env: DesktopEnv;
  /** Private directory holding the session-bus socket and the AT-SPI runtime files. */
  runtimeDir: string;
  logPath: string;
  startedAt: string;
}

export interface PartStatus {
  name: DesktopPartName;
  pid: number;
  alive: boolean;
}

export interface DesktopStatus {
  running: boolean;
  statePath: string;
  state?: DesktopState;
  parts: PartStatus[];
}

export interface StartResult {
  env: DesktopEnv;
  state: DesktopState;
  /** True when a live desktop from desktop.json was reused. */
  reused: boolean;
}

export interface DesktopOptions {
  /** Defaults to deskbookHome(). */
  home?: string;
}

export const SCREEN_GEOMETRY = "1280x800x24";
const START_ATTEMPTS = 2;
const READY_TIMEOUT_MS = 15_000;
const STOP_GRACE_MS = 3_000;
const LOCK_TIMEOUT_MS = 30_000;
const ATSPI_LAUNCHERS = [
  "/usr/libexec/at-spi-bus-launcher",
  "/usr/lib/at-spi2-core/at-spi-bus-launcher",
  "/usr/lib/at-spi-bus-launcher",
];
// Executable names in /proc/<pid>/cmdline: guards against killing a recycled pid.
const PART_COMMANDS: Record<DesktopPartName, string> = {
  xvfb: "Xvfb",
  dbus: "dbus-daemon",
  atspi: "at-spi-bus-launcher",
  openbox: "openbox",
};

// The group leader. Backgrounded jobs of a non-interactive sh stay in its process group, and
// `wait` keeps it alive as the group's anchor. Each part's pid goes to fd 3 (a file).
// Xvfb picks a free display itself (-displayfd): checking /tmp/.X11-unix first and starting
// Xvfb after is a race that parallel test files lose, ending with two desktops on one display.
// -noreset: by default an X server resets when its last client disconnects, and
// at-spi-bus-launcher's short-lived connection could be that client; openbox connecting during
// the reset failed ("Failed to open the display"), one desktop in a few when many start at once.
const LEADER_SCRIPT = `
set -u
wait_for() {
  n=0
  while ! eval "$1"; do
    kill -0 "$2" 2>/dev/null || exit "$3"
    n=$((n + 1)); [ "$n" -gt 200 ] && exit "$3"
    sleep 0.05
  done
}
Xvfb -displayfd 4 -screen 0 "$DESKBOOK_SCREEN" -nolisten tcp -noreset -auth "$XAUTHORITY" 3>&- 4>"$DESKBOOK_RUNTIME/display" &
x=$!; echo "xvfb $x" >&3
wait_for 'grep -qE "^[0-9]+$" "$DESKBOOK_RUNTIME/display"' "$x" 10
DISPLAY=":$(cat "$DESKBOOK_RUNTIME/display")"; export DISPLAY
echo "display $DISPLAY" >&3
dbus-daemon --session --nofork --nopidfile --address="$DBUS_SESSION_BUS_ADDRESS" 3>&- &
d=$!; echo "dbus $d" >&3
wait_for '[ -S "$DESKBOOK_BUS_SOCKET" ]' "$d" 11
"$DESKBOOK_ATSPI_LAUNCHER" --launch-immediately 3>&- &
echo "atspi $!" >&3
openbox 3>&- &
echo "openbox $!" >&3
exec 3>&-
wait
`;

export function desktopStatePath(home: string = deskbookHome()): string {
  return join(home, "desktop.json");
}

/**
 * Names the runtime directory of a launch under way, from before its leader is spawned until
 * desktop.json records it. A launcher killed in between (a kernel or executor ended while the
 * first desk call started the desktop) leaves this file and a desktop nobody recorded; the
 * next start or stop finds that desktop by the DESKBOOK_RUNTIME its processes carry and ends it.
 */
function pendingLaunchPath(home: string): string {
  return join(home, "desktop-launch.json");
}

/** Starts the desktop, or reuses the live one recorded in desktop.json. */
export async function startDesktop(options: DesktopOptions = {}): Promise<StartResult> {
  const home = options.home ?? deskbookHome();
  await ensureHome(home);
  return withLock(home, async () => {
    const existing = await readState(home);
    // A desktop recorded without a cookie (an older Deskbook) lets anyone connect: replace it.
    if (existing && existing.env.XAUTHORITY && partStatuses(existing).every((p) => p.alive)) {
      return { env: existing.env, state: existing, reused: true };
    }
    // A half-dead desktop is useless (no X, or no a11y bus): clear it and start over.
    if (existing) await killGroup(existing);
    await removeState(home, existing);
    await endAbandonedLaunch(home);
    const state = await launchWithRetries(home);
    await writeState(home, state);
    await unlink(pendingLaunchPath(home)).catch(() => undefined);
    return { env: state.env, state, reused: false };
  });
}

/** Stops the desktop group and removes its state. Resolves false when none was recorded. */
export async function stopDesktop(options: DesktopOptions = {}): Promise<boolean> {
  const home = options.home ?? deskbookHome();
  await ensureHome(home);
  const before = await readState(home);
  if (before) await closeDesktopApps(home, before.display);
  return withLock(home, async () => {
    const abandoned = await endAbandonedLaunch(home);
    const state = await readState(home);
    if (!state) return abandoned;
    await killGroup(state);
    await removeState(home, state);
    return true;
  });
}

export async function desktopStatus(options: DesktopOptions = {}): Promise<DesktopStatus> {
  const home = options.home ?? deskbookHome();
  const statePath = desktopStatePath(home);
  const state = await readState(home);
  if (!state) return { running: false, statePath, parts: [] };
  const parts = partStatuses(state);
  return { running: parts.every((p) => p.alive), statePath, state, parts };
}

/** For the kernel and the helper when DISPLAY is unset: a live desktop's environment. */
export async function ensureDesktop(options: DesktopOptions = {}): Promise<DesktopEnv> {
  return (await startDesktop(options)).env;
}

/** `export NAME='value'` lines for a POSIX shell (`eval "$(deskbook desktop start)"`). */
export function formatEnvExports(env: DesktopEnv): string {
  return Object.entries(env)
    .map(([name, value]) => `export ${name}=${shellQuote(value)}\n`)
    .join("");
}

function shellQuote(value: string): string {
  return /^[\w:/.,=@%+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

// ---------------------------------------------------------------------------------------------
// Launch

async function launchWithRetries(home: string): Promise<DesktopState> {
  let lastError: Error | undefined;
  for (let attempt = 0; attempt < START_ATTEMPTS; attempt++) {
    try {
      return await launch(home);
    } catch (error) {
      lastError = error instanceof Error ? error : new Error(String(error));
    }
  }
  throw new DeskError("failed", `could not start the virtual desktop: ${lastError?.message ?? "unknown error"}`);
}

function atspiLauncher(): string {
  const found = ATSPI_LAUNCHERS.find((path) => existsSync(path));
  if (!found) throw new Error(`at-spi-bus-launcher not found in ${ATSPI_LAUNCHERS.join(", ")} (install at-spi2-core)`);
  return found;
}

async function launch(home: string): Promise<DesktopState> {
  const launcher = atspiLauncher();
  // A short /tmp path: unix socket paths are limited to 108 bytes and DESKBOOK_HOME may be deep.
  const runtimeDir = await mkdtemp(join(tmpdir(), "deskbook-desktop-"));
  await writeFile(pendingLaunchPath(home), `${JSON.stringify({ runtimeDir })}\n`, { mode: 0o600 });
  const busSocket = join(runtimeDir, "bus");
  const pidsPath = join(runtimeDir, "pids");
  const xauthority = join(runtimeDir, "Xauthority");
  const logPath = join(home, "desktop.log");
  const sessionAddress = `unix:path=${busSocket}`;
  let cookie: XCookie;
  try {
    cookie = await writeXauthority(xauthority);
  } catch (error) {
    await rm(runtimeDir, { recursive: true, force: true });
    await unlink(pendingLaunchPath(home)).catch(() => undefined);
    throw error;
  }
  const leaderPid = spawnLeader({ sessionAddress, busSocket, runtimeDir, launcher, logPath, pidsPath, xauthority });
  try {
    const { display, pids } = await waitForPids(pidsPath, leaderPid);
    // Ready means openbox manages windows (window-manager-ready.ts): a window mapped earlier is
    // mapped unmanaged, or waits unmapped while openbox starts. Checked while AT-SPI starts.
    const [a11yAddress] = await Promise.all([
      enableAccessibility(sessionAddress),
      within(waitForWindowManager(display, cookie, READY_TIMEOUT_MS), READY_TIMEOUT_MS + 1_000, "the X server stopped answering while the window manager started"),
    ]);
    const state: DesktopState = {
      version: 1,
      display,
      screen: SCREEN_GEOMETRY,
      leaderPid,
      pids,
      env: { DISPLAY: display, DBUS_SESSION_BUS_ADDRESS: sessionAddress, AT_SPI_BUS_ADDRESS: a11yAddress, XAUTHORITY: xauthority },
      runtimeDir,
      logPath,
      startedAt: new Date().toISOString(),
    };
    assertAllAlive(state);
    return state;
  } catch (error) {
    await killGroupByLeader(leaderPid);
    await rm(runtimeDir, { recursive: true, force: true });
    await unlink(pendingLaunchPath(home)).catch(() => undefined);
    const log = tail(logPath);
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(log ? `${message}\n--- ${logPath} ---\n${log}` : message);
  }
}

/** Never record a desktop with a dead part (openbox quits at once if a WM already runs). */
function assertAllAlive(state: DesktopState): void {
  const dead = partStatuses(state).filter((part) => !part.alive);
  if (dead.length > 0) throw new Error(`desktop part(s) exited during start: ${dead.map((p) => p.name).join(", ")}`);
}

interface LeaderSpec {
  sessionAddress: string;
  busSocket: string;
  runtimeDir: string;
  launcher: string;
  logPath: string;
  pidsPath: string;
  xauthority: string;
}

function spawnLeader(spec: LeaderSpec): number {
  const log = openSync(spec.logPath, "a", 0o600);
  const pids = openSync(spec.pidsPath, "w", 0o600);
  try {
    const child = spawn("/bin/sh", ["-c", LEADER_SCRIPT], {
      // detached: a new session and process group, so the desktop outlives `deskbook desktop start`
      // and a terminal's Ctrl+C or hangup never reaches it.
      detached: true,
      stdio: ["ignore", log, log, pids],
      env: {
        PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
        HOME: process.env.HOME ?? spec.runtimeDir,
        LANG: process.env.LANG ?? "C.UTF-8",
        DBUS_SESSION_BUS_ADDRESS: spec.sessionAddress,
        // Xvfb's -auth file, and what openbox and at-spi-bus-launcher connect with.
        XAUTHORITY: spec.xauthority,
        // at-spi-bus-launcher puts its bus socket here; removed with the runtime dir on stop.
        XDG_RUNTIME_DIR: spec.runtimeDir,
        // IsEnabled is stored through GSettings: keep it in memory, never in the user's dconf.
        GSETTINGS_BACKEND: "memory",
        DESKBOOK_SCREEN: SCREEN_GEOMETRY,
        DESKBOOK_RUNTIME: spec.runtimeDir,
        DESKBOOK_BUS_SOCKET: spec.busSocket,
        DESKBOOK_ATSPI_LAUNCHER: spec.launcher,
      },
    });
    child.unref();
    if (child.pid === undefined) throw new Error("could not spawn /bin/sh for the desktop");
    return child.pid;
  } finally {
    closeSync(log);
    closeSync(pids);
  }
}

interface LeaderReport {
  display: string;
  pids: Record<DesktopPartName, number>;
}

async function waitForPids(pidsPath: string, leaderPid: number): Promise<LeaderReport> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const report = parseReport(await readFile(pidsPath, "utf8").catch(() => ""));
    if (report) return report;
    if (!isAlive(leaderPid)) throw new Error("the desktop's processes exited during start");
    if (Date.now() > deadline) throw new Error("timed out waiting for Xvfb and the session bus");
    await sleep(50);
  }
}

/** Lines "xvfb 123", "display :21", "dbus 125" … as the leader script writes them. */
function parseReport(text: string): LeaderReport | undefined {
  const found = new Map<string, string>();
  for (const line of text.split("\n")) {
    const [name, value] = line.trim().split(/\s+/);
    if (name && value) found.set(name, value);
  }
  const display = found.get("display");
  if (!display || !/^:\d+$/.test(display) || !DESKTOP_PARTS.every((part) => /^\d+$/.test(found.get(part) ?? ""))) {
    return undefined;
  }
  const pid = (part: DesktopPartName): number => Number(found.get(part));
  return { display, pids: { xvfb: pid("xvfb"), dbus: pid("dbus"), atspi: pid("atspi"), openbox: pid("openbox") } };
}

/**
 * Waits for org.a11y.Bus, reads the a11y bus address, switches org.a11y.Status on (IsEnabled
 * and ScreenReaderEnabled), which Qt and other toolkits check before exposing a tree, and starts
 * the AT-SPI registry, which Qt 5 otherwise waits on with its tree unexported (atspi-registry.ts).
 */
async function enableAccessibility(sessionAddress: string): Promise<string> {
  const dbus = await loadDbus();
  const bus = dbus.sessionBus({ busAddress: sessionAddress });
  bus.on("error", () => undefined); // reported through the calls below instead
  try {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(await nameHasOwner(bus, "org.a11y.Bus"))) {
      if (Date.now() > deadline) throw new Error("timed out waiting for at-spi-bus-launcher (org.a11y.Bus)");
      await sleep(50);
    }
    const address = await callSession(bus, "org.a11y.Bus", "GetAddress", "", []);
    if (typeof address !== "string" || !address) throw new Error("org.a11y.Bus.GetAddress returned no address");
    await switchOn(bus);
    await startRegistry(address, READY_TIMEOUT_MS);
    return address;
  } finally {
    bus.disconnect();
  }
}

async function nameHasOwner(bus: MessageBus, name: string): Promise<boolean> {
  const dbus = await loadDbus();
  const reply = await callWithin(
    bus,
    new dbus.Message({
      destination: "org.freedesktop.DBus",
      path: "/org/freedesktop/DBus",
      interface: "org.freedesktop.DBus",
      member: "NameHasOwner",
      signature: "s",
      body: [name],
    }),
  );
  return reply?.body[0] === true;
}

/** A stuck launcher must not hang `desktop start`. */
function callWithin(bus: MessageBus, message: Message): Promise<Message | null> {
  return within(bus.call(message), READY_TIMEOUT_MS, `${message.member} on the session bus got no answer`);
}

async function callSession(
  bus: MessageBus,
  iface: string,
  member: string,
  signature: string,
  body: unknown[],
): Promise<unknown> {
  const dbus = await loadDbus();
  const message = new dbus.Message({ destination: "org.a11y.Bus", path: "/org/a11y/bus", interface: iface, member, signature, body });
  const reply = await callWithin(bus, message);
  return reply?.body[0];
}

// ---------------------------------------------------------------------------------------------
// Liveness and stopping

function partStatuses(state: DesktopState): PartStatus[] {
  return DESKTOP_PARTS.map((name) => {
    const pid = state.pids[name];
    return { name, pid, alive: isPart(pid, name) };
  });
}

function isPart(pid: number, name: DesktopPartName): boolean {
  if (!isAlive(pid)) return false;
  try {
    const argv0 = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] ?? "";
    return argv0.endsWith(PART_COMMANDS[name]);
  } catch {
    return false;
  }
}

function processGroupOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[2]);
  } catch {
    return undefined;
  }
}

/** Kills the group only when it is still ours: pids get recycled. */
async function killGroup(state: DesktopState): Promise<void> {
  const partInGroup = DESKTOP_PARTS.some((name) => {
    const pid = state.pids[name];
    return isPart(pid, name) && processGroupOf(pid) === state.leaderPid;
  });
  if (partInGroup || isLeader(state.leaderPid)) await killGroupByLeader(state.leaderPid);
}

function isLeader(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("DESKBOOK_RUNTIME");
  } catch {
    return false;
  }
}

async function killGroupByLeader(leaderPid: number): Promise<void> {
  if (!signalGroup(leaderPid, "SIGTERM")) return;
  const deadline = Date.now() + STOP_GRACE_MS;
  while (Date.now() < deadline) {
    if (!groupExists(leaderPid)) return;
    await sleep(50);
  }
  signalGroup(leaderPid, "SIGKILL");
}

function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  // Zombies keep the group "existing"; only count live members.
  return isAlive(pgid) || hasLiveMember(pgid);
}

function hasLiveMember(pgid: number): boolean {
  return procPids().some((pid) => pid !== pgid && processGroupOf(pid) === pgid && isAlive(pid));
}

function procPids(): number[] {
  try {
    return readdirSync("/proc").filter((name) => /^\d+$/.test(name)).map(Number);
  } catch {
    return [];
  }
}

// ---------------------------------------------------------------------------------------------
// State file and lock

async function readState(home: string): Promise<DesktopState | undefined> {
  let text: string;
  try {
    text = await readFile(desktopStatePath(home), "utf8");
  } catch {
    return undefined;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return isDesktopState(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function isDesktopState(value: unknown): value is DesktopState {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Partial<DesktopState>;
  return (
    v.version === 1 &&
    typeof v.display === "string" &&
    typeof v.leaderPid === "number" &&
    typeof v.runtimeDir === "string" &&
    typeof v.env === "object" &&
    v.env !== null &&
    typeof v.pids === "object" &&
    v.pids !== null &&
    DESKTOP_PARTS.every((part) => typeof v.pids?.[part] === "number")
  );
}

async function writeState(home: string, state: DesktopState): Promise<void> {
  const path = desktopStatePath(home);
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, path);
}

async function removeState(home: string, state: DesktopState | undefined): Promise<void> {
  await unlink(desktopStatePath(home)).catch(() => undefined);
  if (state) await removeRuntimeDir(state.runtimeDir);
}

/**
 * Removes a runtime directory a launch made (mkdtemp's deskbook-desktop-XXXXXX), wherever the
 * launcher's TMPDIR was: the stopping process may have another one (a reaper runs with a bare
 * environment).
 */
async function removeRuntimeDir(runtimeDir: string): Promise<void> {
  if (isAbsolute(runtimeDir) && /^deskbook-desktop-[\w]{6}$/.test(basename(runtimeDir))) await rm(runtimeDir, { recursive: true, force: true });
}

/**
 * Under the lock, so a pending launch found here has no live launcher: ends the desktop it
 * started (every process carrying its DESKBOOK_RUNTIME, by process group) and removes its
 * runtime directory. True when a process was ended. A launch that did reach desktop.json is
 * that desktop and is left alone.
 */
async function endAbandonedLaunch(home: string): Promise<boolean> {
  const path = pendingLaunchPath(home);
  const text = await readFile(path, "utf8").catch(() => undefined);
  if (text === undefined) return false;
  await unlink(path).catch(() => undefined);
  const runtimeDir = pendingRuntimeDir(text);
  if (!runtimeDir || (await readState(home))?.runtimeDir === runtimeDir) return false;
  const ownGroup = processGroupOf(process.pid);
  const groups = new Set(
    pidsWithEnv("DESKBOOK_RUNTIME", runtimeDir)
      .map(processGroupOf)
      .filter((group): group is number => group !== undefined && group > 1 && group !== ownGroup),
  );
  for (const group of groups) await killGroupByLeader(group);
  await removeRuntimeDir(runtimeDir);
  return groups.size > 0;
}

function pendingRuntimeDir(text: string): string | undefined {
  try {
    const { runtimeDir } = JSON.parse(text) as { runtimeDir?: unknown };
    return typeof runtimeDir === "string" && runtimeDir !== "" ? runtimeDir : undefined;
  } catch {
    return undefined;
  }
}

/** One start/stop at a time across processes (parallel test files, kernel + CLI). */
async function withLock<T>(home: string, body: () => Promise<T>): Promise<T> {
  const lockPath = join(home, "desktop.lock");
  const deadline = Date.now() + LOCK_TIMEOUT_MS;
  for (;;) {
    try {
      const handle = await open(lockPath, "wx", 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (await lockIsStale(lockPath)) {
        await unlink(lockPath).catch(() => undefined);
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lockPath}`);
      await sleep(100);
    }
  }
  try {
    return await body();
  } finally {
    await unlink(lockPath).catch(() => undefined);
  }
}

async function lockIsStale(lockPath: string): Promise<boolean> {
  const owner = Number((await readFile(lockPath, "utf8").catch(() => "")).trim());
  if (owner) return owner !== process.pid && !isAlive(owner);
  // An empty lock is being written right now, unless its writer died between open and write.
  const written = await stat(lockPath).then((s) => s.mtimeMs, () => 0);
  return Date.now() - written > 5_000;
}

function tail(path: string, lines = 20): string {
  try {
    return readFileSync(path, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
