// Starts the built Linux helper (dist/helper/linux/main.js) for the contract suite, with a
// temporary DESKBOOK_HOME holding the given config.json, on a desktop that is given or on a
// private virtual desktop of its own. Plain JavaScript so that scripts/contract.mjs (plain
// node) and the test files (vitest) share it; linux-helper.d.mts types it.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const LINUX_HELPER_JS = join(ROOT, "dist/helper/linux/main.js");
// The compiled module, not the .ts source: this file also runs under plain node.
const DESKTOP_JS = join(ROOT, "dist/src/desktop/virtual-desktop.js");
const READY_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 3_000;

export function hasCommand(name) {
  return spawnSync("sh", ["-c", 'command -v "$1"', "sh", name], { stdio: "ignore" }).status === 0;
}

export async function startLinuxHelper({ config = { approval: "allow-all" }, desktopEnv } = {}) {
  for (const file of [LINUX_HELPER_JS, DESKTOP_JS]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
  }
  // mkdtemp makes the directory 0700, as the protocol wants the socket's directory; /tmp keeps
  // the socket path far below the 103-byte limit.
  const dir = await mkdtemp(join(tmpdir(), "dbk-contract-"));
  const home = join(dir, "home");
  const user = join(dir, "user");
  await mkdir(home, { mode: 0o700 });
  await writeFile(join(home, "config.json"), `${JSON.stringify(config)}\n`, { mode: 0o600 });
  await writeGtkSettings(user);

  const { startDesktop, stopDesktop } = await import(DESKTOP_JS);
  const ownDesktop = desktopEnv === undefined;
  const desktop = desktopEnv ?? (await startDesktop({ home })).env;
  const socketPath = join(dir, "helper.sock");
  // The apps the helper launches inherit this: a throwaway HOME, so galculator's and mousepad's
  // settings and recent files never touch the user's, and no dconf writes.
  const env = {
    ...process.env,
    ...desktop,
    DESKBOOK_HOME: home,
    HOME: user,
    XDG_CONFIG_HOME: join(user, ".config"),
    XDG_CACHE_HOME: join(user, ".cache"),
    XDG_DATA_HOME: join(user, ".local/share"),
    XDG_STATE_HOME: join(user, ".local/state"),
    GSETTINGS_BACKEND: "memory",
    // Classic scrollbars: overlay ones appear and fade under the pointer.
    GTK_OVERLAY_SCROLLING: "0",
  };
  // The socket comes from --socket; NO_AT_BRIDGE=1 would hide every GTK app's tree.
  delete env.DESKBOOK_SOCKET;
  delete env.NO_AT_BRIDGE;

  const child = spawn(process.execPath, [LINUX_HELPER_JS, "--socket", socketPath], { env, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout.setEncoding("utf8").on("data", (text) => (log += text));
  child.stderr.setEncoding("utf8").on("data", (text) => (log += text));
  // A crashed test run must not leave a helper behind.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);

  const stop = async () => {
    process.off("exit", killOnExit);
    await killChild(child);
    if (ownDesktop) await stopDesktop({ home }).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };

  try {
    await untilListening(child, socketPath, () => log);
  } catch (error) {
    await stop();
    throw error;
  }
  return { socketPath, home, env, desktopEnv: desktop, log: () => log, stop };
}

function untilListening(child, socketPath, log) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(`did not print "listening ${socketPath}" within ${READY_TIMEOUT_MS} ms`), READY_TIMEOUT_MS);
    const onData = () => {
      if (log().includes(`listening ${socketPath}`)) done();
    };
    const onExit = (code, signal) => fail(`exited (${code ?? signal}) before listening`);
    function done() {
      clearTimeout(timer);
      child.stdout.off("data", onData);
      child.off("exit", onExit);
      resolve();
    }
    function fail(what) {
      clearTimeout(timer);
      child.stdout.off("data", onData);
      child.off("exit", onExit);
      reject(new Error(`the Linux helper ${what}; its output:\n${log()}`));
    }
    child.stdout.on("data", onData);
    child.once("exit", onExit);
  });
}

async function killChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

/** No caret blink and no animations: the apps look the same from one screenshot to the next. */
async function writeGtkSettings(user) {
  const gtk = join(user, ".config", "gtk-3.0");
  await mkdir(gtk, { recursive: true });
  await writeFile(join(gtk, "settings.ini"), "[Settings]\ngtk-cursor-blink=false\ngtk-enable-animations=false\n");
}
