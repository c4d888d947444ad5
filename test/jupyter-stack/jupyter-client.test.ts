/**
 * Drives the kernel from Python's jupyter_client (KernelManager + blocking client),
 * the library every Python frontend builds on. drive_kernel.py does the talking and
 * prints one JSON report; this file asserts on it. The kernel runs on Unix sockets in the
 * stack's directory (stack.ts says why not on TCP ports).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { JupyterStack, SYSTEM_PYTHON } from "./stack.js";

const DRIVER = fileURLToPath(new URL("./drive_kernel.py", import.meta.url));

interface Cell {
  status: string;
  execution_count: number | null;
  ename: string | null;
  evalue: string | null;
  stdout: string;
  stderr: string;
  result: string | null;
  error_outputs: { ename: string; evalue: string }[];
  output_types: string[];
}

interface Report {
  steps: string[];
  error?: string;
  kernelspec: { display_name: string; language: string; interrupt_mode: string; resource_dir_files: string[] };
  connection: { transport: string; ip: string; sockets: string[] };
  kernel_info: {
    status: string;
    protocol_version: string;
    implementation: string;
    language_info: Record<string, string>;
    banner: string;
  };
  cells: Record<"define" | "use" | "log" | "cwd" | "throws", Cell>;
  interrupt: Cell & { heartbeat_while_spinning: boolean; interrupt_to_reply_seconds: number };
  after_interrupt: Cell;
  input: { answered: Cell & { prompts: { prompt: string; password: boolean }[] }; without_stdin: Cell };
  history_before_restart: { status: string; history: [number, number, string][] };
  restart_new_process: boolean;
  restart_old_exit_code: number | null;
  after_restart: Record<"kept" | "total" | "fresh", Cell>;
  history_after_restart: { status: string; history: [number, number, string][] };
  shutdown: { seconds: number; exit_code: number | null; is_alive: boolean; sockets_left: string[] };
}

let stack: JupyterStack | undefined;
let report: Report;
let kernelCwd: string;

beforeAll(async () => {
  stack = await JupyterStack.create();
  kernelCwd = join(stack.dir, "work");
  await mkdir(kernelCwd);
  const run = await stack.run(SYSTEM_PYTHON, [DRIVER, kernelCwd, stack.kernelSockets], { timeoutMs: 170_000 });
  const line = run.stdout.trim().split("\n").pop() ?? "";
  try {
    report = JSON.parse(line) as Report;
  } catch {
    throw new Error(`drive_kernel.py printed no JSON (exit ${run.code ?? run.signal}):\n${run.stdout}\n${run.stderr}`);
  }
}, 180_000);

afterAll(async () => {
  await stack?.cleanup();
}, 30_000);

describe("jupyter_client drives the deskbook kernel", () => {
  it("went through every step without a Python-side error", () => {
    expect(report.error).toBeUndefined();
    expect(report.steps.at(-1)).toBe("done");
  });

  it("finds the installed kernelspec with its logos", () => {
    expect(report.kernelspec).toEqual({
      display_name: "Deskbook (JavaScript)",
      language: "javascript",
      interrupt_mode: "message",
      resource_dir_files: ["kernel.json", "logo-32x32.png", "logo-64x64.png", "logo-svg.svg"],
    });
  });

  it("runs the kernel on Unix sockets in the stack's directory (no TCP port to lose)", () => {
    expect(report.connection).toEqual({
      transport: "ipc",
      ip: stack!.kernelSockets,
      sockets: ["kernel-1", "kernel-2", "kernel-3", "kernel-4", "kernel-5"],
    });
  });

  it("answers kernel_info", () => {
    expect(report.kernel_info).toMatchObject({
      status: "ok",
      protocol_version: expect.stringMatching(/^5\.\d+$/),
      implementation: "deskbook",
      language_info: { name: "javascript", file_extension: ".js", version: process.versions.node },
    });
    expect(report.kernel_info.banner).toContain("Deskbook");
  });

  it("keeps bindings across executions and counts them", () => {
    const { define, use, log, cwd } = report.cells;
    expect(define).toMatchObject({ status: "ok", execution_count: 1, result: null, output_types: [] });
    expect(use).toMatchObject({ status: "ok", execution_count: 2, result: "42" });
    expect(log).toMatchObject({ status: "ok", execution_count: 3, stdout: "still here: 42\nsecond line\n", result: null });
    // KernelManager.start_kernel(cwd=…) is where the kernel runs cells.
    expect(cwd.result).toBe(`'${kernelCwd}'`);
  });

  it("reports a thrown error once, as the cell's error", () => {
    const { throws } = report.cells;
    expect(throws).toMatchObject({ status: "error", ename: "TypeError", evalue: "nope" });
    expect(throws.error_outputs).toEqual([{ ename: "TypeError", evalue: "nope" }]);
    // The cell's own error is not also an uncaught background error.
    expect(throws.stderr).toBe("");
    expect(throws.output_types).toEqual(["error"]);
  });

  it("stops a spinning cell on km.interrupt_kernel() and keeps the bindings", () => {
    const { interrupt, after_interrupt } = report;
    expect(interrupt).toMatchObject({ status: "error", ename: "Stopped", evalue: "Stopped: interrupted." });
    expect(interrupt.error_outputs).toEqual([{ ename: "Stopped", evalue: "Stopped: interrupted." }]);
    expect(interrupt.heartbeat_while_spinning).toBe(true);
    expect(interrupt.interrupt_to_reply_seconds).toBeLessThan(5);
    expect(after_interrupt).toMatchObject({ status: "ok", result: "'still here, total=42'" });
  });

  it("asks for input over stdin when allowed, and refuses when not", () => {
    const { answered, without_stdin } = report.input;
    expect(answered.prompts).toEqual([
      { prompt: "Your name? ", password: false },
      { prompt: "Token: ", password: true },
    ]);
    expect(answered).toMatchObject({ status: "ok", result: "'Hello, Ada! Your token has 6 characters.'" });
    expect(without_stdin).toMatchObject({ status: "error", ename: "StdinNotAllowedError" });
  });

  it("restarts into a fresh process with no bindings", () => {
    expect(report.restart_new_process).toBe(true);
    expect(report.restart_old_exit_code).toBe(0);
    const { kept, total, fresh } = report.after_restart;
    expect(kept.result).toBe("'undefined'");
    expect(total.result).toBe("'undefined'");
    // Execution counts start over in the new session.
    expect(fresh).toMatchObject({ status: "ok", execution_count: 3, result: "42" });
  });

  it("keeps history across the restart, as a new session", () => {
    const before = report.history_before_restart;
    expect(before.status).toBe("ok");
    const after = report.history_after_restart;
    expect(after.status).toBe("ok");
    const inputs = after.history.map(([, , input]) => input);
    expect(inputs).toContain('const kept = "still here";\nlet total = 40;');
    expect(inputs).toContain("while (true) {}");
    expect(inputs.slice(-3)).toEqual(["typeof kept", "typeof total", "6 * 7"]);
    // Everything from before the restart is still there, and the restart began a new session numbered from 1.
    expect(after.history.slice(0, before.history.length)).toEqual(before.history);
    const [firstSession] = before.history[0]!;
    expect(after.history.slice(-3).map(([session, line]) => [session, line])).toEqual([
      [firstSession + 1, 1],
      [firstSession + 1, 2],
      [firstSession + 1, 3],
    ]);
  });

  it("shuts down cleanly on request", () => {
    expect(report.shutdown.exit_code).toBe(0);
    expect(report.shutdown.is_alive).toBe(false);
    expect(report.shutdown.seconds).toBeLessThan(5);
    expect(report.shutdown.sockets_left).toEqual([]);
  });

  it("left no kernel process behind", async () => {
    expect(await stack!.ownProcesses()).toEqual([]);
  });
});
