/**
 * `jupyter console --kernel deskbook --simple-prompt` driven through pipes, one line
 * at a time, the way a person types: each line is sent only after the console has
 * answered the previous one. (The simple prompt reads plain lines, so no TTY is
 * needed; it also submits every line as its own cell, so cells here are one-liners.)
 *
 * The console launches the kernel from its kernelspec on Unix sockets in the stack's own
 * directory (`--transport=ipc`), not on TCP ports. Over TCP, jupyter_client picks five free
 * ports by binding and closing them, and any process on the machine can be given one of them
 * before the kernel binds it; the kernel then exits with code 3 naming the port (docs/kernel.md),
 * and jupyter_console 6.4.4, which runs no restarter, waits for it forever. Other test runs on
 * a shared machine took a port that way. Nobody else names paths in the stack's directory.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { JUPYTER, JupyterStack, REPO_ROOT, sleep, stopProcess } from "./stack.js";

const STEP_TIMEOUT_MS = 20_000;
const PACKAGE_VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;

/** A running console: what it printed so far, and a way to type into it. */
class ConsoleSession {
  stdout = "";
  stderr = "";
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcess) {
    child.stdout!.setEncoding("utf8").on("data", (t: string) => (this.stdout += t));
    child.stderr!.setEncoding("utf8").on("data", (t: string) => (this.stderr += t));
    child.stdin!.on("error", () => undefined);
    this.exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  }

  type(line: string): void {
    this.child.stdin!.write(`${line}\n`);
  }

  /** Waits until `stream` (from offset `from`) matches, and returns the match. */
  async expect(stream: "stdout" | "stderr", pattern: RegExp, from = 0): Promise<RegExpMatchArray> {
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    for (;;) {
      const match = this[stream].slice(from).match(pattern);
      if (match) return match;
      if (Date.now() > deadline || this.child.exitCode !== null) {
        throw new Error(`console ${stream} never matched ${pattern}\n--- stdout\n${this.stdout}\n--- stderr\n${this.stderr}`);
      }
      await sleep(50);
    }
  }

  /** Types a line and waits for the next `In [n]:` prompt, returning what was printed in between. */
  async run(line: string): Promise<{ out: string; err: string }> {
    const out0 = this.stdout.length;
    const err0 = this.stderr.length;
    const next = this.promptCount() + 1;
    this.type(line);
    await this.expect("stdout", new RegExp(`In \\[${next}\\]: `), out0);
    const out = this.stdout.slice(out0);
    return { out: out.slice(0, out.lastIndexOf(`In [${next}]: `)), err: this.stderr.slice(err0) };
  }

  promptCount(): number {
    return (this.stdout.match(/In \[\d+\]: /g) ?? []).length;
  }
}

let stack: JupyterStack | undefined;
let session: ConsoleSession;

beforeAll(async () => {
  stack = await JupyterStack.create();
  const sockets = stack.kernelSockets;
  const child = stack.spawn(JUPYTER, ["console", "--kernel", "deskbook", "--simple-prompt", "--transport=ipc", `--ip=${sockets}`], {
    cwd: stack.dir,
    // Unbuffered, so prompts reach the pipe as soon as they are printed.
    env: { ...stack.env, PYTHONUNBUFFERED: "1" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  session = new ConsoleSession(child);
  await session.expect("stdout", /In \[1\]: /);
}, 60_000);

afterAll(async () => {
  if (session) await stopProcess(session.child);
  await stack?.cleanup();
}, 30_000);

describe("jupyter console --kernel deskbook", () => {
  it("shows the kernel's banner", () => {
    expect(session.stdout).toMatch(/^Jupyter console [\d.]+\n/);
    expect(session.stdout).toContain(`Deskbook ${PACKAGE_VERSION} — JavaScript on Node ${process.versions.node}`);
  });

  it("runs the kernel on Unix sockets in the stack's directory (no TCP port to lose)", () => {
    const runtime = stack!.env.JUPYTER_RUNTIME_DIR!;
    const files = readdirSync(runtime).filter((f) => /^kernel-.*\.json$/.test(f));
    expect(files).toHaveLength(1);
    const info = JSON.parse(readFileSync(join(runtime, files[0]!), "utf8")) as { transport: string; ip: string };
    expect(info).toMatchObject({ transport: "ipc", ip: stack!.kernelSockets });
  });

  it("prints results as Out[n] and keeps bindings between lines", async () => {
    expect((await session.run("const xs = [1, 2, 3]")).out.trim()).toBe("");
    expect((await session.run("xs.map((x) => x * 2)")).out.trim()).toBe("Out[2]: [ 2, 4, 6 ]");
  });

  it("prints console.log output", async () => {
    const { out } = await session.run('console.log("sum", xs.reduce((a, b) => a + b))');
    expect(out.trim()).toBe("sum 6");
  });

  it("answers input() from the console's own stdin", async () => {
    const out0 = session.stdout.length;
    const next = session.promptCount() + 1;
    session.type('const who = await input("Name? ")');
    await session.expect("stdout", /Name\? /, out0);
    session.type("Grace");
    await session.expect("stdout", new RegExp(`In \\[${next}\\]: `), out0);
    expect((await session.run("`hi ${who}`")).out.trim()).toMatch(/^Out\[\d+\]: 'hi Grace'$/);
  });

  it("prints a failing cell's error on stderr and carries on", async () => {
    const { out, err } = await session.run("null.x");
    expect(out.trim()).toBe("");
    expect(err).toContain("TypeError: Cannot read properties of null (reading 'x')");
    expect(err).not.toContain("Uncaught (in background)");
  });

  it("interrupts a spinning cell on Ctrl-C (SIGINT to the console)", async () => {
    const out0 = session.stdout.length;
    const err0 = session.stderr.length;
    const next = session.promptCount() + 1;
    session.type("while (true) {}");
    // The console has no busy indicator: give the cell time to start spinning.
    await sleep(1500);
    expect(session.promptCount()).toBe(next - 1);
    session.child.kill("SIGINT");
    await session.expect("stderr", /Stopped: interrupted\./, err0);
    await session.expect("stdout", new RegExp(`In \\[${next}\\]: `), out0);
    expect((await session.run("xs.length")).out.trim()).toMatch(/^Out\[\d+\]: 3$/);
  });

  it("shuts the kernel down when the input ends", async () => {
    // Besides the console: the kernel it launched and the kernel's executor.
    const kernels = (await stack!.ownProcesses()).filter((pid) => pid !== session.child.pid);
    expect(kernels.length).toBeGreaterThanOrEqual(2);
    session.child.stdin!.end();
    // EOF at the prompt asks to confirm exit; EOF again takes the default (yes).
    const code = await session.exited;
    expect(code).toBe(0);
    expect(session.stdout).toContain("Shutting down kernel");
    await sleep(500);
    expect(await stack!.ownProcesses()).toEqual([]);
  }, 30_000);
});
