import { readConnectionFile, type ConnectionInfo } from "../jupyter/connection.js";
import { deskbookHome } from "../config/home.js";
import { desktopMode, openKernelDesktop, type KernelDesktop } from "../desktop/kernel-desktop.js";
import { DesktopModeError } from "../desktop/desktop-mode-env.js";
import { PORT_IN_USE_EXIT_CODE, PortInUseError } from "../jupyter/port-in-use.js";
import { CONNECTION_FILE_UNWRITABLE_EXIT_CODE, ConnectionFileUnwritableError, portsDiffer, writeBoundPorts } from "../jupyter/bound-ports-write.js";
import { ExecutorHost } from "../kernel/executor-host.js";
import { discardEarlyExecutor } from "../kernel/executor-fork.js";
import type { Kernel, KernelOptions } from "../kernel/kernel.js";
import { connectionFileArg } from "./connection-file-arg.js";

const USAGE = "usage: deskbook kernel -f CONNECTION_FILE";

/** `deskbook kernel -f FILE`: what Jupyter runs (the kernelspec's argv). */
export async function runKernel(args: string[]): Promise<number> {
  const file = connectionFileArg(args);
  if (!file) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const served = await serveKernel(file);
  return typeof served === "number" ? served : new Promise<number>(() => undefined);
}

/** A kernel serving: its connection as bound (a port 0 of the file is the port the OS chose). */
export interface ServedKernel {
  connection: ConnectionInfo;
}

/** What a launcher that runs the kernel in its own process adds to serveKernel. */
export interface ServeOptions {
  /** New ports when one was taken before the kernel bound it (Kernel.start's rebind): only the bind is tried again. */
  rebind?: KernelOptions["rebind"];
}

/**
 * Starts the kernel on a connection file and keeps it serving until it shuts down (the process
 * then exits). Resolves once its sockets are bound, or to an exit code when the environment is
 * wrong or a port was taken (PORT_IN_USE_EXIT_CODE) and no kernel started.
 */
export async function serveKernel(file: string, serve: ServeOptions = {}): Promise<number | ServedKernel> {
  const log = (line: string) => process.stderr.write(`[deskbook] ${line}\n`);
  try {
    return await startServing(file, serve, log);
  } finally {
    // Every way out that did not adopt the CLI's early executor (a bad environment, a thrown
    // error) ends it now, not ~200 ms after this process exits; once adopted this does nothing.
    await discardEarlyExecutor("the kernel did not start", log);
  }
}

async function startServing(file: string, serve: ServeOptions, log: (line: string) => void): Promise<number | ServedKernel> {
  const timeLimitMs = timeLimitFromEnv(process.env.DESKBOOK_TIME_LIMIT_MS);
  if (timeLimitMs === null) {
    process.stderr.write(`deskbook kernel: DESKBOOK_TIME_LIMIT_MS must be a positive whole number of milliseconds, not ${JSON.stringify(process.env.DESKBOOK_TIME_LIMIT_MS)}\n`);
    return 2;
  }
  const maxMessageBytes = maxMessageBytesFromEnv(process.env.DESKBOOK_MAX_MESSAGE_BYTES);
  if (maxMessageBytes === null) {
    process.stderr.write(`deskbook kernel: DESKBOOK_MAX_MESSAGE_BYTES must be a whole number of bytes, at least 1024, not ${JSON.stringify(process.env.DESKBOOK_MAX_MESSAGE_BYTES)}\n`);
    return 2;
  }
  const home = deskbookHome();
  let desktop: KernelDesktop | undefined;
  try {
    if (desktopMode(home) === "per-kernel") {
      // Its executor needs the desktop's environment: the early one would only load meanwhile.
      await discardEarlyExecutor("this kernel has a desktop of its own", log);
      desktop = await openKernelDesktop(home, file);
    }
  } catch (error) {
    if (!(error instanceof DesktopModeError)) throw error;
    process.stderr.write(`deskbook kernel: ${error.message}\n`);
    return 2;
  }
  if (desktop) log(`this kernel has its own desktop: ${desktop.dir}`);
  // The executor is forked before the kernel reads its connection file and loads its wire code
  // (zeromq and the handlers, ~75 ms of CPU), so the two processes start side by side and the
  // first cell waits for neither in turn: the executor's start is the longer one. `deskbook
  // kernel` forked it already at the CLI's first line; ExecutorHost adopts that child when it
  // runs here with this environment (src/kernel/executor-fork.ts).
  let executor: ExecutorHost | undefined;
  let kernel: Kernel;
  let connection: ConnectionInfo;
  try {
    executor = new ExecutorHost({ cwd: process.cwd(), env: desktop?.env ?? process.env, log });
    connection = await readConnectionFile(file);
    const { Kernel } = await import("../kernel/kernel.js");
    kernel = await Kernel.start({ executor, connection, home, log, timeLimitMs, maxMessageBytes, executorEnv: desktop?.env, onShutdown: desktop?.end, rebind: serve.rebind });
  } catch (error) {
    // A kernel that could not start, for whatever reason, leaves no executor and no desktop of its own behind.
    await executor?.close();
    await desktop?.end();
    if (!(error instanceof PortInUseError)) throw error;
    // Say why with the code a launcher reads.
    process.stderr.write(`deskbook kernel: ${error.message}\n`);
    return PORT_IN_USE_EXIT_CODE;
  }
  const published = await publishBoundPorts(file, connection, kernel);
  if (published !== undefined) return published;
  process.on("SIGINT", () => kernel.stopRunningCell());
  // Exits either way: a shutdown that failed must not leave the process up until a SIGKILL.
  process.on("SIGTERM", () =>
    void kernel.shutdown().then(
      () => process.exit(0),
      (error: unknown) => {
        log(`shutdown failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        process.exit(1);
      },
    ),
  );
  // A kernel must outlive bugs in one request; log them and keep serving.
  process.on("uncaughtException", (error) => log(`uncaught: ${error.stack ?? String(error)}`));
  process.on("unhandledRejection", (reason) => log(`unhandled rejection: ${String(reason)}`));
  return { connection: kernel.connection };
}

/**
 * Port 0 in the file: writes the ports the kernel bound back into it, the only way a frontend can
 * find them. A kernel that cannot do that would run unreachable: it shuts down and answers
 * CONNECTION_FILE_UNWRITABLE_EXIT_CODE instead. Undefined when the kernel serves on.
 */
async function publishBoundPorts(file: string, asked: ConnectionInfo, kernel: Kernel): Promise<number | undefined> {
  if (!portsDiffer(asked, kernel.connection)) return undefined;
  try {
    await writeBoundPorts(file, kernel.connection);
    return undefined;
  } catch (error) {
    if (!(error instanceof ConnectionFileUnwritableError)) throw error;
    process.stderr.write(`deskbook kernel: ${error.code}: ${error.message}\n`);
    await kernel.shutdown();
    return CONNECTION_FILE_UNWRITABLE_EXIT_CODE;
  }
}

/** DESKBOOK_TIME_LIMIT_MS (set by `deskbook run --timeout`): undefined when unset, null when not a positive integer. */
function timeLimitFromEnv(value: string | undefined): number | undefined | null {
  if (value === undefined || value.trim() === "") return undefined;
  const ms = Number(value);
  return Number.isInteger(ms) && ms > 0 ? ms : null;
}

/** DESKBOOK_MAX_MESSAGE_BYTES: the largest incoming Jupyter message (default 256 MiB); null when malformed. */
function maxMessageBytesFromEnv(value: string | undefined): number | undefined | null {
  if (value === undefined || value.trim() === "") return undefined;
  const bytes = Number(value);
  return Number.isSafeInteger(bytes) && bytes >= 1024 ? bytes : null;
}
