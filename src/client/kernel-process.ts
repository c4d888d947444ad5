/**
 * Starts a Deskbook kernel the way Jupyter does — `node dist/src/cli/main.js kernel -f FILE`
 * from a real connection file — and connects a KernelClient to it. Used by every front door
 * that is not a Jupyter frontend (the headless runner, the MCP server) and by the tests.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeConnectionFile } from "./connection-file.js";
import { KernelClient } from "./kernel-client.js";
import type { ConnectionInfo } from "../jupyter/connection.js";
import { endHomeProcesses } from "./home-processes.js";
import { PORT_IN_USE_EXIT_CODE } from "../jupyter/port-in-use.js";
import { KERNEL_NODE_FLAGS } from "../kernel/node-flags.js";
import { kernelLaunchEnv } from "../kernel/extra-ca-handoff.js";

/**
 * The built CLI entry point: beside this module once built (dist/src/cli/main.js); from the
 * TypeScript source (as the tests load it), the same file in dist/.
 */
export const CLI = [new URL("../cli/main.js", import.meta.url), new URL("../../dist/src/cli/main.js", import.meta.url)]
  .map((url) => fileURLToPath(url))
  .find((path) => existsSync(path)) ?? fileURLToPath(new URL("../cli/main.js", import.meta.url));

export interface RunningKernel {
  client: KernelClient;
  process: ChildProcess;
  info: ConnectionInfo;
  /** The kernel's DESKBOOK_HOME. */
  home: string;
  /** Everything the kernel wrote to stderr (its log). */
  stderr: () => string;
  /** Resolves when the kernel process has exited, with its exit code or signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Closes the client, then ends the kernel (SIGTERM, SIGKILL after 3 s). */
  stop: () => Promise<void>;
}

export interface StartOptions {
  /** DESKBOOK_HOME for the kernel. Default: the caller's environment decides (a private temp home when `privateHome`). */
  home?: string;
  /** Give the kernel a fresh DESKBOOK_HOME in the scratch directory (removed on stop) unless `home` is set. */
  privateHome?: boolean;
  key?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** The header's username on the client. */
  username?: string;
  /** Passed to KernelClient.connect: false for long-lived front doors (memory stays flat). */
  keepHistory?: boolean;
  /** How long the kernel may take to come up. Default 10 s (KernelClient.connect's). */
  readyTimeoutMs?: number;
  /** Where the launcher says what it does about a failed start (a kernel started again). Default: stderr. */
  log?: (line: string) => void;
}

/** Launches on new ports this many times in all before giving up (jupyter_client's restart limit). */
const MAX_LAUNCHES = 5;

export async function startKernel(options: StartOptions = {}): Promise<RunningKernel> {
  const scratch = await mkdtemp(join(tmpdir(), "deskbook-kernel-"));
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  if (options.home) env.DESKBOOK_HOME = options.home;
  else if (options.privateHome) env.DESKBOOK_HOME = join(scratch, "home");
  const ownsHome = !options.home && options.privateHome === true;
  const home = env.DESKBOOK_HOME ?? "";
  const log = options.log ?? ((line: string) => process.stderr.write(`[deskbook] ${line}\n`));
  let launched: Launched;
  try {
    launched = await launchWithRetries(scratch, env, options, log);
  } catch (error) {
    await rm(scratch, { recursive: true, force: true });
    throw error;
  }
  const { client, child, info, exited, stderr } = launched;
  const stop = async () => {
    try {
      await client.close();
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
        await exited;
        clearTimeout(timer);
      }
      // A private home is this launcher's: the helper, apps and desktop started for it end with it.
      if (ownsHome) await endHomeProcesses(home);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  };
  return { client, process: child, info, home, stderr, exited, stop };
}

interface Launched {
  client: KernelClient;
  child: ChildProcess;
  info: ConnectionInfo;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr: () => string;
}

/** The kernel exited because a port of its connection file was in use (`reason`: its own words). */
class PortTakenError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** Launches until a kernel is up; a port this launcher picked that was taken before the kernel bound it means new ports. */
async function launchWithRetries(scratch: string, env: NodeJS.ProcessEnv, options: StartOptions, log: (line: string) => void): Promise<Launched> {
  for (let launch = 1; ; launch++) {
    try {
      return await launchOnce(scratch, env, options);
    } catch (error) {
      if (!(error instanceof PortTakenError) || launch >= MAX_LAUNCHES) throw error;
      log(`${error.reason}; starting the kernel again on new ports (launch ${launch + 1} of at most ${MAX_LAUNCHES})`);
    }
  }
}

/** Writes a connection file on free ports, starts a kernel on it and connects; a kernel that exits first fails it at once. */
async function launchOnce(scratch: string, env: NodeJS.ProcessEnv, options: StartOptions): Promise<Launched> {
  const { path, info } = await writeConnectionFile(scratch, { key: options.key });
  const child = spawn(process.execPath, [...KERNEL_NODE_FLAGS, CLI, "kernel", "-f", path], {
    cwd: options.cwd ?? scratch,
    env: kernelLaunchEnv(env),
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  let log = "";
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (log += text));
  const gone = new AbortController();
  void exited.then(() => gone.abort(new Error("the kernel exited before it was ready")));
  try {
    const client = await KernelClient.connect(info, {
      username: options.username,
      keepHistory: options.keepHistory,
      readyTimeoutMs: options.readyTimeoutMs,
      signal: gone.signal,
    });
    return { client, child, info, exited, stderr: () => log };
  } catch (error) {
    child.kill("SIGKILL");
    const exit = await exited;
    await rm(path, { force: true });
    const message = `${(error as Error).message}; kernel exit: ${exit.code ?? exit.signal}; kernel log:\n${log}`;
    if (exit.code === PORT_IN_USE_EXIT_CODE) throw new PortTakenError(lastLine(log), message);
    throw new Error(message);
  }
}

function lastLine(text: string): string {
  return text.trimEnd().split("\n").at(-1) ?? "";
}
