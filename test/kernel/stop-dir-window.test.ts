/**
 * A kernel killed (-9) right after it ended its executor's process group, before it saw the
 * exit, leaves no stop directory behind. The group kill takes the executor's orphan watch with
 * it, and the kernel's own removal waits for the exit event, so the directory has to go before
 * the kill. The "kernel" here is a process of its own running the real ExecutorHost (built)
 * with a real executor; it kills itself with SIGKILL at once after its group kill returns, on
 * each path that ends an executor: the restart after a stop that did not take, and close().
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { isAlive } from "../../src/process-signals.js";
import { REPO_ROOT } from "../support/kernel-process.js";
import { tempDir } from "../support/temp-dir.js";
import { waitFor } from "../jupyter-stack/stack.js";

const KERNEL = `
  import { readFileSync } from "node:fs";
  import { ExecutorHost } from ${JSON.stringify(pathToFileURL(join(REPO_ROOT, "dist", "src", "kernel", "executor-host.js")).href)};
  const stopDirOf = (pid) => readFileSync("/proc/" + pid + "/cmdline", "utf8").split("\\0").find((a) => a.startsWith("--stop-dir=")).slice("--stop-dir=".length);
  const host = new ExecutorHost({ cwd: process.cwd(), env: process.env, log: () => undefined });
  await host.whenReady();
  const executor = host.pid;
  process.stdout.write(JSON.stringify({ executor, stopDir: stopDirOf(executor) }) + "\\n");
  // The moment after the group kill: the kernel dies before it can see the exit.
  const kill = process.kill.bind(process);
  process.kill = (pid, signal) => {
    const done = kill(pid, signal);
    if (pid === -executor) kill(process.pid, "SIGKILL");
    return done;
  };
  if (process.env.END === "restart") await host.restart();
  else await host.close();
  process.stdout.write("survived\\n");
`;

async function killedAfterGroupKill(end: "restart" | "close"): Promise<void> {
  const root = await tempDir("deskbook-stop-window-");
  const tmp = join(root, "tmp");
  mkdirSync(tmp);
  const script = join(root, "kernel.mjs");
  await writeFile(script, KERNEL);
  const child = spawn(process.execPath, [script], { env: { ...process.env, TMPDIR: tmp, END: end, DESKBOOK_HOME: join(root, "home") }, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (out += text));
  const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
  expect({ code, signal }, out).toEqual({ code: null, signal: "SIGKILL" });
  const { executor, stopDir } = JSON.parse(out.split("\n")[0]!) as { executor: number; stopDir: string };
  expect(stopDir.startsWith(join(tmp, "deskbook-stop-"))).toBe(true);
  // Gone at once, not later by some other hand.
  expect(existsSync(stopDir)).toBe(false);
  // The executor a restart started meanwhile is ended by its orphan watch, its directory first.
  await waitFor("the executors to end and their stop directories to go", 10_000, async () => (!isAlive(executor) && readdirSync(tmp).length === 0 ? true : undefined));
}

describe("the stop directory when the kernel is killed between its group kill and the exit", () => {
  it("goes on a restart of the executor", async () => {
    await killedAfterGroupKill("restart");
  }, 30_000);

  it("goes on close()", async () => {
    await killedAfterGroupKill("close");
  }, 30_000);
});
