/**
 * `jupyter console` on a fresh kernel whose only client it is, with one of its sockets
 * connecting 1.5 s after its shell, as a loaded machine can delay one socket's connection behind
 * the others (each connects on its own reconnect timer). The sockets are Unix sockets (transport
 * ipc), so the late one then connects to the kernel itself (test/support/late-unix-path.ts).
 * A TCP relay that held the connection stayed in the path, and its lag lost the first cell's
 * output in about one run in four at load ~20: jupyter_console 6.4.4 takes its own
 * kernel_info_request's `status: idle`, still unread when the first cell starts, as that cell's,
 * then drains iopub once when the execute_reply comes, so an execute_result that trails the reply
 * is never shown (this happens with any kernel once iopub lags shell).
 *
 * The console shows its prompt as soon as the kernel_info reply comes and the first cell is
 * typed at once:
 * - iopub late: the console waits for that cell's `status: idle`, which must not go to nobody;
 * - stdin late: the cell's first `input()` must still reach the console, not be dropped by the
 *   kernel's stdin ROUTER for a peer it does not know yet.
 */
import { afterEach, describe, it } from "vitest";
import type { ChildProcess } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { writeConnectionFile } from "../../src/client/connection-file.js";
import type { ConnectionInfo } from "../../src/jupyter/connection.js";
import { CLI, JUPYTER, JupyterStack, sleep, stopProcess } from "./stack.js";
import { connectedTo, listeningAt, openLater } from "../support/late-unix-path.js";

const HOLD_MS = 1500;
const STEP_TIMEOUT_MS = 15_000;

/** The console's name for its late socket: an ipc "port" no kernel socket has. */
const LATE_PORT = 1;

/** A kernel and a console on it, the console's `port` connecting late. */
class LateConsole {
  stdout = "";
  stderr = "";
  private constructor(
    readonly stack: JupyterStack,
    readonly opened: Promise<void>,
    readonly child: ChildProcess,
  ) {}

  static async start(port: "iopub_port" | "stdin_port"): Promise<LateConsole> {
    const stack = await JupyterStack.create();
    const { info: tcp } = await writeConnectionFile(stack.dir);
    const info: ConnectionInfo = { ...tcp, transport: "ipc", ip: join(stack.dir, "kernel") };
    const path = join(stack.dir, "kernel-connection.json");
    await writeFile(path, JSON.stringify(info), { mode: 0o600 });
    const kernel = stack.spawn(process.execPath, [CLI, "kernel", "-f", path], { cwd: stack.dir, stdio: ["ignore", "ignore", "pipe"] });
    let kernelLog = "";
    kernel.stderr!.setEncoding("utf8").on("data", (text: string) => (kernelLog += text));
    await listening(info, kernel);
    const file = join(stack.dir, "console-connection.json");
    await writeFile(file, JSON.stringify({ ...info, [port]: LATE_PORT }), { mode: 0o600 });
    const child = stack.spawn(JUPYTER, ["console", "--existing", file, "--simple-prompt"], {
      cwd: stack.dir,
      env: { ...stack.env, PYTHONUNBUFFERED: "1" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const shellUp = connectedTo(socketPath(info, info.shell_port), STEP_TIMEOUT_MS);
    const opened = shellUp.then(() => openLater(socketPath(info, LATE_PORT), socketPath(info, info[port]), HOLD_MS));
    opened.catch(() => undefined);
    const session = new LateConsole(stack, opened, child);
    child.stdout!.setEncoding("utf8").on("data", (text: string) => (session.stdout += text));
    child.stderr!.setEncoding("utf8").on("data", (text: string) => (session.stderr += text));
    kernel.stderr!.on("data", (text: string) => (session.stderr += text));
    session.stderr += kernelLog;
    child.stdin!.on("error", () => undefined);
    return session;
  }

  type(line: string): void {
    this.child.stdin!.write(`${line}\n`);
  }

  /** Waits for stdout to match, failing with everything the console and the kernel said. */
  async until(pattern: RegExp): Promise<void> {
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    while (!pattern.test(this.stdout)) {
      if (Date.now() > deadline || this.child.exitCode !== null) throw new Error(`console stdout never matched ${pattern}\n--- stdout\n${this.stdout}\n--- stderr\n${this.stderr}`);
      await sleep(50);
    }
  }

  async end(): Promise<void> {
    await stopProcess(this.child);
    await this.opened.catch(() => undefined);
    await this.stack.cleanup();
  }
}

let session: LateConsole | undefined;
afterEach(async () => {
  await session?.end();
  session = undefined;
}, 30_000);

describe("jupyter console with a socket that connects late", () => {
  it("finishes the first cell when its iopub subscription comes late", async () => {
    session = await LateConsole.start("iopub_port");
    await session.until(/In \[1\]: /);
    session.type("6 * 7");
    await session.until(/Out\[1\]: 42\s+In \[2\]: /);
  }, 60_000);

  it("asks the first cell's input() when its stdin connects late", async () => {
    session = await LateConsole.start("stdin_port");
    await session.until(/In \[1\]: /);
    session.type('await input("Name? ")');
    await session.until(/Name\? /);
    session.type("Ada");
    await session.until(/Out\[1\]: 'Ada'\s+In \[2\]: /);
  }, 60_000);
});

/** The Unix socket behind an ipc "port", as jupyter_client and the kernel name it. */
function socketPath(info: ConnectionInfo, port: number): string {
  return `${info.ip}-${port}`;
}

/** Resolves once the kernel listens on its shell socket: it has bound its sockets. */
async function listening(info: ConnectionInfo, kernel: ChildProcess): Promise<void> {
  const bound = listeningAt(socketPath(info, info.shell_port), 30_000);
  bound.catch(() => undefined);
  const exit = new Promise<string>((resolve) => kernel.once("exit", (code, signal) => resolve(`the kernel exited (${signal ?? code}) before it listened`)));
  const early = await Promise.race([bound.then(() => undefined), exit]);
  if (early !== undefined) throw new Error(early);
}
