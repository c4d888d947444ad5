// The real Linux helper (dist/helper/linux/main.js, built by `npm run build`) on a private
// virtual desktop, for the helper-*.test.ts files. Each test file gets its own desktop, HOME
// and DESKBOOK_HOME; stop() ends the helpers, the apps they reported, and the desktop.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startDesktop, stopDesktop, type DesktopEnv } from "../../src/desktop/virtual-desktop.js";
import { RawHelperConnection } from "../fixtures/raw-helper-connection.js";

export const HELPER_ENTRY = fileURLToPath(new URL("../../dist/helper/linux/main.js", import.meta.url));

/** Binaries missing for these tests (they skip, naming them). */
export function missingTools(tools: readonly string[] = ["Xvfb", "openbox", "dbus-daemon", "galculator", "mousepad"]): string[] {
  const missing = tools.filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0);
  if (!existsSync(HELPER_ENTRY)) missing.push(`${HELPER_ENTRY} (run npm run build)`);
  return missing;
}

export interface RunningHelper {
  child: ChildProcess;
  socket: string;
  /** Everything it printed on stdout and stderr so far. */
  output(): string;
  connect(hello?: boolean): Promise<RawHelperConnection>;
  /** Resolves with the exit code once the process ended by itself. */
  exited: Promise<number | null>;
  /** Sends a signal and waits for the exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface HelperDesktop {
  dir: string;
  /** DESKBOOK_HOME: config.json and actions.log live here. */
  home: string;
  desktop: DesktopEnv;
  /** What the helper and test-started apps get: the desktop, a private HOME. */
  env: NodeJS.ProcessEnv;
  writeConfig(config: Record<string, unknown>): void;
  /** Starts a helper; by default on <dir>/s/helper.sock and waits for "listening". */
  startHelper(options?: { socket?: string; env?: NodeJS.ProcessEnv; waitForListening?: boolean }): Promise<RunningHelper>;
  /** Starts a program on the desktop outside the helper; killed by stop(). */
  spawnApp(command: string, args?: string[]): ChildProcess;
  /** Pids to kill at stop() (apps the helper launched detached). */
  trackPid(pid: number): void;
  stop(): Promise<void>;
}

export async function startHelperDesktop(): Promise<HelperDesktop> {
  const dir = mkdtempSync(join(tmpdir(), "dbh-"));
  const home = join(dir, "deskbook");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  mkdirSync(join(dir, "runtime"), { mode: 0o700 });
  const { env: desktop } = await startDesktop({ home: join(dir, "desktop") }).catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true }); // a failed start must not leave the directory behind
    throw error;
  });
  const env = helperEnv(dir, home, desktop);
  const helpers: RunningHelper[] = [];
  const apps: ChildProcess[] = [];
  const pids = new Set<number>();
  return {
    dir,
    home,
    desktop,
    env,
    writeConfig: (config) => writeFileSync(join(home, "config.json"), JSON.stringify(config, null, 2), { mode: 0o600 }),
    async startHelper(options = {}) {
      const helper = await runHelper(options.socket ?? join(dir, "s", "helper.sock"), options.env ?? env, options.waitForListening !== false);
      helpers.push(helper);
      return helper;
    },
    spawnApp(command, args = []) {
      const child = spawn(command, args, { env, stdio: "ignore" });
      apps.push(child);
      return child;
    },
    trackPid: (pid) => void pids.add(pid),
    async stop() {
      await Promise.all(helpers.map((h) => h.stop()));
      for (const child of apps) child.kill("SIGKILL");
      for (const pid of pids) killQuietly(pid);
      await stopDesktop({ home: join(dir, "desktop") });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function helperEnv(dir: string, home: string, desktop: DesktopEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...desktop,
    HOME: dir,
    DESKBOOK_HOME: home,
    XDG_CONFIG_HOME: join(dir, ".config"),
    XDG_CACHE_HOME: join(dir, ".cache"),
    XDG_DATA_HOME: join(dir, ".local/share"),
    GSETTINGS_BACKEND: "memory",
    // Apps' runtime files stay in the test's directory: without one, Qt makes TMPDIR/runtime-$USER.
    XDG_RUNTIME_DIR: join(dir, "runtime"),
  };
  delete env.DESKBOOK_SOCKET;
  delete env.NO_AT_BRIDGE;
  return env;
}

async function runHelper(socket: string, env: NodeJS.ProcessEnv, waitForListening: boolean): Promise<RunningHelper> {
  const child = spawn(process.execPath, [HELPER_ENTRY, "--socket", socket], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  if (waitForListening) await untilListening(() => output, socket, exited);
  return {
    child,
    socket,
    exited,
    output: () => output,
    connect: (hello = true) => RawHelperConnection.open(socket, hello),
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

async function untilListening(output: () => string, socket: string, exited: Promise<number | null>): Promise<void> {
  const deadline = Date.now() + 15_000;
  let done = false;
  void exited.then(() => (done = true));
  while (!output().includes(`listening ${socket}`)) {
    if (done) throw new Error(`the helper exited before listening:\n${output()}`);
    if (Date.now() > deadline) throw new Error(`the helper did not listen within 15 s:\n${output()}`);
    await sleep(25);
  }
}

/** Polls until `probe` gives a truthy value. */
export async function waitFor<T>(probe: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}
