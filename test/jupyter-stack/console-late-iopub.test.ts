/**
 * `jupyter console` asks for kernel_info and, as soon as the reply comes, shows its prompt and
 * sends the first cell; then it waits for that cell's `status: idle` on iopub. Its iopub socket
 * connects on its own reconnect timer, so on a loaded machine its subscription can reach a
 * fresh kernel after the first cell's idle was published to nobody, and the console waits
 * forever at `In [1]`. Here a relay holds the console's iopub connection for a while, and the
 * kernel has no other client: the first cell must still finish.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChildProcess } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { writeConnectionFile } from "../../src/client/connection-file.js";
import { CLI, JUPYTER, JupyterStack, sleep, stopProcess } from "./stack.js";
import { SlowRelay } from "../support/slow-relay.js";

const HOLD_MS = 1500;
const STEP_TIMEOUT_MS = 15_000;

let stack: JupyterStack | undefined;
let relay: SlowRelay | undefined;
let kernel: ChildProcess | undefined;
let console_: ChildProcess | undefined;
let stdout = "";
let stderr = "";

beforeAll(async () => {
  stack = await JupyterStack.create();
  const { path, info } = await writeConnectionFile(stack.dir);
  kernel = stack.spawn(process.execPath, [CLI, "kernel", "-f", path], { cwd: stack.dir, stdio: ["ignore", "ignore", "pipe"] });
  kernel.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  await listening(info.ip, info.shell_port);
  relay = await SlowRelay.start(info.ip, info.iopub_port, HOLD_MS);
  const file = join(stack.dir, "console-connection.json");
  await writeFile(file, JSON.stringify({ ...info, iopub_port: relay.port }), { mode: 0o600 });
  console_ = stack.spawn(JUPYTER, ["console", "--existing", file, "--simple-prompt"], {
    cwd: stack.dir,
    env: { ...stack.env, PYTHONUNBUFFERED: "1" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  console_.stdout!.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  console_.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  console_.stdin!.on("error", () => undefined);
}, 60_000);

afterAll(async () => {
  if (console_) await stopProcess(console_);
  await relay?.close();
  await stack?.cleanup();
}, 30_000);

describe("jupyter console whose iopub connects late", () => {
  it("finishes the first cell, typed as soon as the prompt shows", async () => {
    await until(/In \[1\]: /);
    console_!.stdin!.write("6 * 7\n");
    await until(/Out\[1\]: 42\s+In \[2\]: /);
  }, 60_000);
});

/** Waits for the console's stdout to match, failing with everything it and the kernel said. */
async function until(pattern: RegExp): Promise<void> {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  while (!pattern.test(stdout)) {
    if (Date.now() > deadline || console_!.exitCode !== null) throw new Error(`console stdout never matched ${pattern}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`);
    await sleep(50);
  }
}

/** Resolves once something accepts TCP connections on the port: the kernel has bound it. */
async function listening(host: string, port: number): Promise<void> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(50)) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, host, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (up) return;
  }
  throw new Error(`nothing listens on ${host}:${port}\n${stderr}`);
}
