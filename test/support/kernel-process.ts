/**
 * Starts the real kernel the way Jupyter does — `node dist/src/cli/main.js kernel -f FILE`
 * from a real connection file — with its own DESKBOOK_HOME, and connects a KernelClient.
 * The build (`npm run build`) must have run first; `npm test` does that.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeConnectionFile } from "./connection-file.js";
import { KernelClient } from "./kernel-client.js";
import type { ConnectionInfo } from "../../src/jupyter/connection.js";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const CLI = join(REPO_ROOT, "dist/src/cli/main.js");

export interface RunningKernel {
  client: KernelClient;
  process: ChildProcess;
  info: ConnectionInfo;
  home: string;
  /** Everything the kernel wrote to stderr (its log). */
  stderr: () => string;
  stop: () => Promise<void>;
}

export interface StartOptions {
  home?: string;
  key?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export async function startKernel(options: StartOptions = {}): Promise<RunningKernel> {
  const scratch = await mkdtemp(join(tmpdir(), "deskbook-kernel-"));
  const home = options.home ?? join(scratch, "home");
  const { path, info } = await writeConnectionFile(scratch, { key: options.key });
  const child = spawn(process.execPath, [CLI, "kernel", "-f", path], {
    cwd: options.cwd ?? scratch,
    env: { ...process.env, DESKBOOK_HOME: home, ...options.env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (log += text));
  let client: KernelClient;
  try {
    client = await KernelClient.connect(info);
  } catch (error) {
    child.kill("SIGKILL");
    const exit = child.exitCode ?? child.signalCode ?? "still running";
    throw new Error(`${(error as Error).message}; kernel exit: ${exit}; kernel log:\n${log}`);
  }
  const stop = async () => {
    await client.close();
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
      await exited;
      clearTimeout(timer);
    }
    if (!options.home) await rm(scratch, { recursive: true, force: true });
  };
  return { client, process: child, info, home, stderr: () => log, stop };
}

/** The text of every `stream` message of an execution, per stream name. */
export function streams(iopub: { header: { msg_type: string }; content: unknown }[], name = "stdout"): string {
  return iopub
    .filter((m) => m.header.msg_type === "stream" && (m.content as { name: string }).name === name)
    .map((m) => (m.content as { text: string }).text)
    .join("");
}

/** The text/plain of the execute_result, if any. */
export function resultText(iopub: { header: { msg_type: string }; content: unknown }[]): string | undefined {
  const result = iopub.find((m) => m.header.msg_type === "execute_result");
  return (result?.content as { data?: Record<string, string> } | undefined)?.data?.["text/plain"];
}
