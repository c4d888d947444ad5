/**
 * `deskbook gateway-kernel` binds its ports before it tells the gateway about them, so EG never
 * gets a port the kernel does not hold. With any port (0..0) the sockets bind where the OS says;
 * inside a port range a port another process holds is picked again in the same process. The
 * collision is real: this test listens on a port and, through the launcher's port-picking
 * parameter (run in a process of its own, as the command runs), hands the kernel that port
 * first; the kernel's ZeroMQ bind then meets EADDRINUSE. This test is the gateway's response address.
 */
import { spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { once } from "node:events";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createServer, type AddressInfo, type Server } from "node:net";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { readConnectionFile, type ConnectionInfo } from "../../src/jupyter/connection.js";
import { KernelClient } from "../../src/client/kernel-client.js";
import { PORT_PICKS } from "../../src/cli/gateway-kernel.js";
import { PORT_IN_USE_EXIT_CODE } from "../../src/jupyter/port-in-use.js";
import { kernelDesktopDirs } from "../../src/desktop/kernel-desktop.js";
import { CLI, REPO_ROOT } from "../support/kernel-process.js";
import { tempDir } from "../support/temp-dir.js";

const KERNEL_ID = "7d1f0a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b";
const PUBLIC_KEY = generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ type: "spki", format: "der" }).toString("base64");
const dist = (path: string) => JSON.stringify(pathToFileURL(join(REPO_ROOT, "dist", "src", path)).href);

/**
 * The command's own entry, with a port picker that puts `held` first in the first pick (every
 * pick with `always`); the rest of each pick comes from the real picker, inside the range.
 */
const LAUNCHER = `
  import { runGatewayKernel } from ${dist("cli/gateway-kernel.js")};
  import { freePorts } from ${dist("client/free-ports.js")};
  const held = Number(process.env.HELD_PORT);
  let picks = 0;
  const pick = async (count, options) => {
    const free = await freePorts(count, options);
    picks += 1;
    if (picks > 1 && process.env.ALWAYS !== "1") return free;
    return [held, ...free.filter((port) => port !== held).slice(0, count - 1)];
  };
  runGatewayKernel(process.argv.slice(2), process.env, pick).then((code) => process.exit(code));
`;

/** A file, not `node -e`: the executor is forked with the kernel's exec arguments, and `-e` would run the launcher again. */
async function launcherFile(root: string): Promise<string> {
  const file = join(root, "launcher.mjs");
  await writeFile(file, LAUNCHER);
  return file;
}

const children: ReturnType<typeof spawn>[] = [];
const servers: Server[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const server of servers.splice(0)) server.close();
});

async function listen(port: number): Promise<Server> {
  const server = createServer((socket) => {
    socket.resume();
    socket.once("end", () => socket.end());
  });
  servers.push(server);
  server.listen(port, "127.0.0.1");
  await once(server, "listening");
  return server;
}

interface Launch {
  pid: number;
  home: string;
  /** Resolves once the connection info reached the "gateway". */
  reported: Promise<void>;
  exited: Promise<number | null>;
  stderr: () => string;
  /** The kernel's connection file, once written. */
  file: () => string | undefined;
}

async function launch(options: { range?: string; held?: number; always?: boolean; desktop?: "per-kernel" }): Promise<Launch> {
  const root = await tempDir("deskbook-gateway-ports-");
  const tmp = join(root, "tmp");
  mkdirSync(tmp);
  let reached: () => void = () => undefined;
  const reported = new Promise<void>((resolve) => (reached = resolve));
  const gateway = createServer((socket) => {
    socket.resume();
    socket.once("end", () => {
      socket.end();
      reached();
    });
  });
  servers.push(gateway);
  gateway.listen(0, "127.0.0.1");
  await once(gateway, "listening");
  const args = ["--kernel-id", KERNEL_ID, "--response-address", `127.0.0.1:${(gateway.address() as AddressInfo).port}`, "--public-key", PUBLIC_KEY, "--ip", "127.0.0.1"];
  if (options.range) args.push("--port-range", options.range);
  const home = join(root, "home");
  const env = { ...process.env, TMPDIR: tmp, DESKBOOK_HOME: home, HELD_PORT: String(options.held ?? 0), ALWAYS: options.always ? "1" : "0", DESKBOOK_DESKTOP: options.desktop ?? "shared" };
  const child = options.held === undefined
    ? spawn(process.execPath, [CLI, "gateway-kernel", ...args], { env, stdio: ["ignore", "ignore", "pipe"] })
    : spawn(process.execPath, [await launcherFile(root), ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
  children.push(child);
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const exited = once(child, "exit").then(([code]) => code as number | null);
  const file = () => {
    const dir = readdirSync(tmp).find((name) => name.startsWith("deskbook-gateway-kernel-"));
    return dir === undefined ? undefined : join(tmp, dir, `kernel-${KERNEL_ID}.json`);
  };
  return { pid: child.pid!, home, reported, exited, stderr: () => stderr, file };
}

const PORTS = ["shell_port", "iopub_port", "stdin_port", "control_port", "hb_port"] as const;
const portsOf = (info: ConnectionInfo): number[] => PORTS.map((key) => info[key]);

/** The kernel answers on the ports its file names; then EG's SIGTERM ends it, and its scratch directory goes with it. */
async function answersThenEnds(kernel: Launch, info: ConnectionInfo): Promise<void> {
  const client = await KernelClient.connect(info);
  try {
    const reply = (await client.execute("6 * 7")).reply.content;
    expect(reply.status, JSON.stringify(reply)).toBe("ok");
  } finally {
    await client.close();
  }
  const scratch = dirname(kernel.file()!);
  process.kill(kernel.pid, "SIGTERM");
  expect(await kernel.exited, kernel.stderr()).toBe(0);
  expect(existsSync(scratch)).toBe(false);
}

/** The command lines (arguments split) of the kernel process's children, from /proc. */
function childCommands(pid: number): string[][] {
  const commands: string[][] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) !== pid) continue;
      commands.push(readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0"));
    } catch {
      // It ended while being read.
    }
  }
  return commands;
}

describe("deskbook gateway-kernel's ports", () => {
  it("any port (0..0): the sockets bind where the OS says, and those ports are what it reports", async () => {
    const kernel = await launch({});
    await kernel.reported;
    const info = await readConnectionFile(kernel.file()!);
    const ports = portsOf(info);
    expect(ports.every((port) => port > 0), JSON.stringify(info)).toBe(true);
    expect(new Set(ports).size).toBe(5);
    await answersThenEnds(kernel, info);
  }, 30_000);

  it("inside a range: a picked port another process holds is picked again before anything is sent, and only the bind is tried again", async () => {
    const occupant = await listen(0);
    const held = (occupant.address() as AddressInfo).port;
    const range = `${held}..${held + 40}`;
    // Its own desktop, so that a kernel started once per pick would leave a reaper per pick.
    const kernel = await launch({ range, held, desktop: "per-kernel" });
    await kernel.reported;
    expect(kernel.stderr()).toContain(`cannot bind the shell socket to tcp://127.0.0.1:${held}: the port is in use by another process: a port picked in ${range} was taken before the kernel bound it; picking again (2 of ${PORT_PICKS})`);
    const children = childCommands(kernel.pid);
    const executors = children.filter((argv) => argv.some((arg) => arg.endsWith(join("executor", "main.js"))));
    const reapers = children.filter((argv) => argv.includes("deskbook-reaper"));
    expect(executors.length, JSON.stringify(children)).toBe(1);
    expect(reapers.length, JSON.stringify(children)).toBe(1);
    expect(kernel.stderr().split("this kernel has its own desktop").length - 1).toBe(1);
    const info = await readConnectionFile(kernel.file()!);
    const ports = portsOf(info);
    expect(ports).not.toContain(held);
    expect(ports.every((port) => port > held && port <= held + 40), JSON.stringify(info)).toBe(true);
    await answersThenEnds(kernel, info);
    // The desktop's directory went with the kernel too.
    expect(await kernelDesktopDirs(kernel.home)).toEqual([]);
  }, 30_000);

  it(`inside a range: gives up after ${PORT_PICKS} picks that each lost a port, says so, and sends nothing`, async () => {
    const occupant = await listen(0);
    const held = (occupant.address() as AddressInfo).port;
    let reported = false;
    const kernel = await launch({ range: `${held}..${held + 40}`, held, always: true });
    void kernel.reported.then(() => (reported = true));
    expect(await kernel.exited, kernel.stderr()).toBe(PORT_IN_USE_EXIT_CODE);
    expect(kernel.stderr().split(`cannot bind the shell socket to tcp://127.0.0.1:${held}`).length - 1).toBe(PORT_PICKS);
    expect(kernel.stderr()).toContain(`the range is too busy; give EG a wider one (EG_PORT_RANGE)`);
    expect(reported).toBe(false);
    // Its temp directory went with it.
    expect(kernel.file() === undefined || !existsSync(kernel.file()!)).toBe(true);
  }, 60_000);
});
