/**
 * `jupyter console` on a fresh kernel whose only client it is, with one of its sockets held by a
 * relay for a while, as a loaded machine can delay one socket's connection behind the others
 * (each connects on its own reconnect timer). The console shows its prompt as soon as the
 * kernel_info reply comes and the first cell is typed at once:
 * - iopub late: the console waits for that cell's `status: idle`, which must not go to nobody;
 * - stdin late: the cell's first `input()` must still reach the console, not be dropped by the
 *   kernel's stdin ROUTER for a peer it does not know yet.
 */
import { afterEach, describe, it } from "vitest";
import type { ChildProcess } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { writeConnectionFile } from "../../src/client/connection-file.js";
import type { ConnectionInfo } from "../../src/jupyter/connection.js";
import { CLI, JUPYTER, JupyterStack, sleep, stopProcess } from "./stack.js";
import { SlowRelay } from "../support/slow-relay.js";

const HOLD_MS = 1500;
const STEP_TIMEOUT_MS = 15_000;

/** A kernel and a console on it, the console's `port` going through a slow relay. */
class LateConsole {
  stdout = "";
  stderr = "";
  private constructor(
    readonly stack: JupyterStack,
    readonly relay: SlowRelay,
    readonly child: ChildProcess,
  ) {}

  static async start(port: "iopub_port" | "stdin_port"): Promise<LateConsole> {
    const stack = await JupyterStack.create();
    const { path, info } = await writeConnectionFile(stack.dir);
    const kernel = stack.spawn(process.execPath, [CLI, "kernel", "-f", path], { cwd: stack.dir, stdio: ["ignore", "ignore", "pipe"] });
    let kernelLog = "";
    kernel.stderr!.setEncoding("utf8").on("data", (text: string) => (kernelLog += text));
    await listening(info, kernel);
    const relay = await SlowRelay.start(info.ip, info[port], HOLD_MS);
    const file = join(stack.dir, "console-connection.json");
    await writeFile(file, JSON.stringify({ ...info, [port]: relay.port }), { mode: 0o600 });
    const child = stack.spawn(JUPYTER, ["console", "--existing", file, "--simple-prompt"], {
      cwd: stack.dir,
      env: { ...stack.env, PYTHONUNBUFFERED: "1" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const session = new LateConsole(stack, relay, child);
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
    await this.relay.close();
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

/** Resolves once the kernel accepts TCP connections on its shell port: it has bound its sockets. */
async function listening(info: ConnectionInfo, kernel: ChildProcess): Promise<void> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline && kernel.exitCode === null; await sleep(50)) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(info.shell_port, info.ip, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (up) return;
  }
  throw new Error(`the kernel never listened on ${info.ip}:${info.shell_port}`);
}
