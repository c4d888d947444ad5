// The CLI forks the executor before it loads the kernel's modules (src/kernel/executor-fork.ts):
// the kernel must adopt that child when it fits and end it when it does not, so a kernel always
// has exactly one executor, in the right directory with the right environment.
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { spawnSync } from "node:child_process";
import { closeSync, constants, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { CLI, REPO_ROOT, resultText, startKernel, streams, type RunningKernel } from "../support/kernel-process.js";
import { stopDirOf } from "../support/stop-dir.js";
import { tempDir } from "../support/temp-dir.js";

const EXECUTOR_MAIN = join("dist", "src", "executor", "main.js");

/** Live executors given a stop directory under `root` (whoever their parent is now). */
function executorsUnder(root: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (cmdline.includes(EXECUTOR_MAIN) && cmdline.includes(`--stop-dir=${root}/`)) pids.push(Number(entry));
    } catch {
      // The process ended while being read.
    }
  }
  return pids;
}

/** Live processes whose parent is `parent` and whose command line runs the executor. */
function executorChildren(parent: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      // State Z: a child killed but not yet reaped is not an executor any more.
      if (Number(fields[1]) === parent && fields[0] !== "Z" && cmdline.includes(EXECUTOR_MAIN)) pids.push(Number(entry));
    } catch {
      // The process ended while being read.
    }
  }
  return pids;
}

async function cellValue(kernel: RunningKernel, code: string): Promise<string | undefined> {
  const { reply, iopub } = await kernel.client.execute(code);
  expect(reply.content.status).toBe("ok");
  return resultText(iopub);
}

/** Polls until `check` holds (a discarded child's exit is asynchronous), for at most `withinMs`. */
async function eventually(check: () => boolean, withinMs = 5_000): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

/** What gatedNodeOptions holds back. */
interface Gates {
  /** The CLI, after its early fork, loads the module that adopts the child (serveKernel's) only once the child has said it is ready. */
  adoptionUntilReady?: boolean;
  /** An executor starting while this file exists waits before its own code, for ever: it never says it is ready. */
  executorWhile?: string;
}

/**
 * NODE_OPTIONS that load a module of the test's before the CLI's and the executor's code, holding
 * back what `gates` says. With `adoptionUntilReady` the early fork holds the child's "ready" and
 * its host replays it; the kernel logs `[gate] the early executor said it was ready (pid N)` then.
 */
async function gatedNodeOptions(gates: Gates): Promise<string> {
  const dir = await tempDir("early-fork-gate-");
  const gate = join(dir, "gate.mjs");
  const hooks = join(dir, "hooks.mjs");
  writeFileSync(
    gate,
    `import { existsSync } from "node:fs";
import { register, syncBuiltinESMExports } from "node:module";
import childProcess from "node:child_process";
import { MessageChannel } from "node:worker_threads";
const script = process.argv[1] ?? "";
if (${gates.adoptionUntilReady === true} && script.endsWith(${JSON.stringify(join("cli", "main.js"))})) {
  const { port1, port2 } = new MessageChannel();
  register(${JSON.stringify(pathToFileURL(hooks).href)}, { data: { port: port2 }, transferList: [port2] });
  const fork = childProcess.fork;
  childProcess.fork = (...args) => {
    // The first fork is the early one.
    childProcess.fork = fork;
    syncBuiltinESMExports();
    const child = fork(...args);
    child.once("message", (message) => {
      process.stderr.write("[gate] the early executor said it was ready (pid " + message.pid + ")\\n");
      port1.postMessage("ready");
      port1.close();
    });
    return child;
  };
  syncBuiltinESMExports();
}
const executorWhile = ${JSON.stringify(gates.executorWhile ?? null)};
if (executorWhile && script.endsWith(${JSON.stringify(join("executor", "main.js"))}) && existsSync(executorWhile)) {
  await new Promise(() => setInterval(() => undefined, 60_000));
}
`,
  );
  writeFileSync(
    hooks,
    `let ready;
export function initialize({ port }) {
  ready = new Promise((resolve) => port.once("message", resolve));
}
export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (loaded.source && String(loaded.source).includes("function serveKernel(")) await ready;
  return loaded;
}
`,
  );
  return `${process.env.NODE_OPTIONS ?? ""} --import=${pathToFileURL(gate).href}`.trim();
}

/** A kernel stopped just before it adopts its early fork, and that fork's pid. */
interface HeldKernel {
  early: number;
  /** Lets the kernel go on: it adopts the early fork, or not, and starts. */
  release: () => Promise<RunningKernel>;
}

/**
 * Starts a kernel with its config.json a FIFO: the kernel reads it (the desktop mode) just
 * before it adopts the early fork, with nothing asynchronous in between, so it waits there,
 * handling nothing, until written to. Resolves once the kernel is inside that read.
 */
async function startKernelHeldBeforeAdoption(dir: string, env: NodeJS.ProcessEnv): Promise<HeldKernel> {
  const home = join(dir, "home");
  // The early fork's stop directory goes under TMPDIR, which finds it.
  const tmp = join(dir, "tmp");
  mkdirSync(home);
  mkdirSync(tmp);
  const config = join(home, "config.json");
  expect(spawnSync("mkfifo", [config]).status).toBe(0);
  const starting = startKernel({ cwd: dir, home, env: { ...env, TMPDIR: tmp, DESKBOOK_DESKTOP: undefined } });
  starting.catch(() => undefined);
  let fifo = -1;
  const release = async () => {
    if (fifo >= 0) {
      // Later reads of config.json find a plain file; this one gets its text down the FIFO.
      writeFileSync(`${config}.next`, "{}");
      renameSync(`${config}.next`, config);
      writeSync(fifo, "{}");
      closeSync(fifo);
      fifo = -1;
    }
    return starting;
  };
  // A failed expect before the test's release would leave the kernel blocked in its read, with its
  // executor: let it go and end it. A kernel the test released is the test's to stop.
  onTestFinished(async () => {
    if (fifo < 0) return;
    await release()
      .then((running) => running.stop())
      .catch(() => undefined);
  });
  // Opens once the kernel has opened the FIFO to read it: Node's start, the early fork and the
  // kernel's modules first, slow on a loaded machine.
  const opened = await eventually(() => {
    try {
      fifo = openSync(config, constants.O_WRONLY | constants.O_NONBLOCK);
      return true;
    } catch {
      return false;
    }
  }, 30_000);
  expect(opened).toBe(true);
  const early = executorsUnder(tmp);
  expect(early).toHaveLength(1);
  return { early: early[0]!, release };
}

/** SIGKILLs `pid` and waits until it is dead but not reaped: its parent has not handled the exit. */
async function killUnreaped(pid: number): Promise<void> {
  process.kill(pid, "SIGKILL");
  expect(await eventually(() => processState(pid) === "Z")).toBe(true);
}

/** The first cell runs, in an executor other than `gone`, with no word of lost bindings; its pid. */
async function firstCellRunsQuietly(kernel: RunningKernel, gone: number): Promise<number> {
  const { reply, iopub } = await kernel.client.execute("process.pid");
  expect(reply.content.status).toBe("ok");
  expect(streams(iopub, "stderr")).toBe("");
  const pid = Number(resultText(iopub));
  expect(pid).not.toBe(gone);
  expect(executorChildren(kernel.process.pid!)).toEqual([pid]);
  expect(kernel.stderr()).toContain(`executor killed by SIGKILL before any cell was sent to it; starting a new one`);
  expect(kernel.stderr()).not.toMatch(/dropped an executor lost event|failed to start/);
  // The session is the new executor's, as if it had been there from the start.
  await cellValue(kernel, "let afterTheKill = 1");
  expect(await cellValue(kernel, "afterTheKill + 1")).toBe("2");
  return pid;
}

/** Interrupts until the kernel says it is stopping the cell: an interrupt before it has the cell stops nothing. */
async function interruptUntilStopping(k: RunningKernel): Promise<void> {
  const stopping = (): boolean => k.stderr().includes("stopping the cell: interrupted");
  for (let i = 0; i < 300 && !stopping(); i++) {
    const reply = await k.client.request("control", "interrupt_request", {});
    expect(reply.content.status).toBe("ok");
    if (!stopping()) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(stopping()).toBe(true);
}

/** The state letter of process `pid` (Z: exited, not yet reaped by its parent), or undefined once it is gone. */
function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
  } catch {
    return undefined;
  }
}

let kernel: RunningKernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

describe("the executor forked at the CLI's first line", () => {
  it("is the kernel's one executor, in the kernel's directory with the kernel's environment", async () => {
    const dir = await tempDir("early-fork-");
    kernel = await startKernel({ cwd: dir, privateHome: true, env: { EARLY_FORK_MARK: "from the launcher" } });
    const kernelPid = kernel.process.pid!;
    const pid = Number(await cellValue(kernel, "process.pid"));
    expect(executorChildren(kernelPid)).toEqual([pid]);
    // The one executor is the early fork, adopted, not a second fork after a discarded first.
    expect(kernel.stderr()).toContain(`adopted the early executor (pid ${pid})`);
    expect(kernel.stderr()).not.toContain("discarded the early executor");
    expect(await cellValue(kernel, "process.cwd()")).toBe(JSON.stringify(dir).replace(/"/g, "'"));
    expect(await cellValue(kernel, "process.env.EARLY_FORK_MARK")).toBe("'from the launcher'");
    // Bindings and the session are the adopted child's: a second cell sees the first's.
    await cellValue(kernel, "let earlyForkBinding = 41");
    expect(await cellValue(kernel, "earlyForkBinding + 1")).toBe("42");
  });

  it("is ended, and a fresh one forked, when a per-kernel desktop gives the executor another environment", async () => {
    const dir = await tempDir("early-fork-desktop-");
    const home = join(dir, "home");
    kernel = await startKernel({ cwd: dir, home, env: { DESKBOOK_DESKTOP: undefined } });
    await kernel.stop();
    // config.json, not DESKBOOK_DESKTOP: the CLI forks early and the kernel learns only later.
    writeFileSync(join(home, "config.json"), JSON.stringify({ desktop: "per-kernel" }));
    kernel = await startKernel({ cwd: dir, home, env: { DESKBOOK_DESKTOP: undefined } });
    const kernelPid = kernel.process.pid!;
    const desktopDir = await cellValue(kernel, "process.env.DESKBOOK_DESKTOP_DIR");
    expect(desktopDir).toContain("desktops");
    const pid = Number(await cellValue(kernel, "process.pid"));
    expect(await eventually(() => executorChildren(kernelPid).length === 1)).toBe(true);
    expect(executorChildren(kernelPid)).toEqual([pid]);
    expect(kernel.stderr()).toMatch(/discarded the early executor \(pid \d+\): this kernel has a desktop of its own/);
  });

  it("is the one that runs the first cell when it was ready before the kernel adopted it", async () => {
    kernel = await startKernel({ env: { NODE_OPTIONS: await gatedNodeOptions({ adoptionUntilReady: true }) } });
    const pid = Number(await cellValue(kernel, "process.pid"));
    const log = kernel.stderr();
    const ready = log.indexOf(`[gate] the early executor said it was ready (pid ${pid})`);
    expect(ready, log).toBeGreaterThanOrEqual(0);
    expect(log.indexOf(`adopted the early executor (pid ${pid})`), log).toBeGreaterThan(ready);
    expect(executorChildren(kernel.process.pid!)).toEqual([pid]);
    await cellValue(kernel, "let readyEarlyBinding = 6");
    expect(await cellValue(kernel, "readyEarlyBinding * 7")).toBe("42");
  });

  it("killed once ready, before the kernel saw it exit, is adopted and replaced without a word", async () => {
    const dir = await tempDir("early-fork-killed-ready-");
    const held = await startKernelHeldBeforeAdoption(dir, { NODE_OPTIONS: await gatedNodeOptions({ adoptionUntilReady: true }) });
    await killUnreaped(held.early);
    kernel = await held.release();
    expect(kernel.stderr()).toContain(`[gate] the early executor said it was ready (pid ${held.early})`);
    expect(kernel.stderr()).toContain(`adopted the early executor (pid ${held.early})`);
    await firstCellRunsQuietly(kernel, held.early);
  });

  it("killed before it was ready, before the kernel saw it exit, is adopted and replaced at once, not as an executor failing to start", async () => {
    const dir = await tempDir("early-fork-killed-starting-");
    const starting = join(dir, "executors-never-ready");
    writeFileSync(starting, "");
    const held = await startKernelHeldBeforeAdoption(dir, { NODE_OPTIONS: await gatedNodeOptions({ executorWhile: starting }) });
    await killUnreaped(held.early);
    rmSync(starting);
    kernel = await held.release();
    expect(kernel.stderr()).toContain(`adopted the early executor (pid ${held.early})`);
    await firstCellRunsQuietly(kernel, held.early);
  });

  it("killed after the kernel adopted it, before any cell, is replaced without a word", async () => {
    kernel = await startKernel({ env: { NODE_OPTIONS: await gatedNodeOptions({ adoptionUntilReady: true }) } });
    const kernelPid = kernel.process.pid!;
    const [early] = executorChildren(kernelPid);
    expect(kernel.stderr()).toContain(`adopted the early executor (pid ${early})`);
    process.kill(early!, "SIGKILL");
    // The kernel has handled the exit once it forked the next executor.
    expect(await eventually(() => executorChildren(kernelPid).some((pid) => pid !== early))).toBe(true);
    await firstCellRunsQuietly(kernel, early!);
  });

  it("killed three times in a row with no cell sent, is replaced at once the first time and after a wait from then on", async () => {
    kernel = await startKernel({ env: { NODE_OPTIONS: await gatedNodeOptions({ adoptionUntilReady: true }) } });
    const kernelPid = kernel.process.pid!;
    let [current] = executorChildren(kernelPid);
    let killed = -1;
    const gaps: number[] = [];
    for (let kill = 1; kill <= 3; kill++) {
      // A completion waits for the executor to be ready and sends no cell: the child killed next was ready.
      expect((await kernel.client.request("shell", "complete_request", { code: "proc", cursor_pos: 4 })).content.status).toBe("ok");
      killed = current!;
      process.kill(killed, "SIGKILL");
      const at = Date.now();
      expect(await eventually(() => executorChildren(kernelPid).some((pid) => pid !== killed), 30_000)).toBe(true);
      gaps.push(Date.now() - at);
      [current] = executorChildren(kernelPid);
    }
    const log = kernel.stderr();
    expect(log).toContain("executor killed by SIGKILL before any cell was sent to it; starting a new one\n");
    expect(log).toContain("executor killed by SIGKILL before any cell was sent to it, 2 times in a row; starting a new one in 1000 ms");
    expect(log).toContain("executor killed by SIGKILL before any cell was sent to it, 3 times in a row; starting a new one in 1000 ms");
    expect(gaps[1]).toBeGreaterThanOrEqual(900);
    expect(gaps[2]).toBeGreaterThanOrEqual(900);
    expect(log).not.toContain("failed to start");
    await firstCellRunsQuietly(kernel, killed);
  });

  it("keeps a first cell stopped while it waited for an early fork that never got ready from running in the fork's replacement", async () => {
    const dir = await tempDir("early-fork-stop-waiting-");
    const starting = join(dir, "executors-never-ready");
    writeFileSync(starting, "");
    kernel = await startKernel({ cwd: dir, env: { NODE_OPTIONS: await gatedNodeOptions({ executorWhile: starting }) } });
    const [early] = executorChildren(kernel.process.pid!);
    expect(kernel.stderr()).toContain(`adopted the early executor (pid ${early})`);
    const running = kernel.client.execute("globalThis.ranAfterItsStop = true; while (true) {}");
    await interruptUntilStopping(kernel);
    rmSync(starting);
    process.kill(early!, "SIGKILL");
    const { reply } = await running;
    expect(reply.content).toMatchObject({ status: "error", ename: "Stopped", evalue: "Stopped: interrupted." });
    expect(await cellValue(kernel, "typeof globalThis.ranAfterItsStop")).toBe("'undefined'");
    expect(kernel.stderr()).not.toContain("replacing the executor");
  });

  it("breaks a first cell that waited for an early fork that never got ready and spins in its replacement, bindings kept", async () => {
    const dir = await tempDir("early-fork-stop-replaced-");
    const starting = join(dir, "executors-never-ready");
    writeFileSync(starting, "");
    kernel = await startKernel({ cwd: dir, env: { NODE_OPTIONS: await gatedNodeOptions({ executorWhile: starting }) } });
    const kernelPid = kernel.process.pid!;
    const [early] = executorChildren(kernelPid);
    const running = kernel.client.execute("globalThis.spunIn = process.pid; while (true) {}");
    // The kernel has the cell once it waits for the executor: a stop now would be kept, not sent.
    await new Promise((resolve) => setTimeout(resolve, 300));
    rmSync(starting);
    process.kill(early!, "SIGKILL");
    let next = -1;
    expect(await eventually(() => (next = executorChildren(kernelPid).find((pid) => pid !== early) ?? -1) !== -1, 30_000)).toBe(true);
    // The cell is inside user code in the new executor: its inside mark is there.
    const stopDir = stopDirOf(next);
    expect(await eventually(() => readdirSync(stopDir).some((name) => /^inside-[1-9]/.test(name)), 30_000)).toBe(true);
    await interruptUntilStopping(kernel);
    const { reply } = await running;
    expect(reply.content).toMatchObject({ status: "error", ename: "Stopped", evalue: "Stopped: interrupted." });
    expect(await cellValue(kernel, "globalThis.spunIn === process.pid")).toBe("true");
    expect(executorChildren(kernelPid)).toEqual([next]);
    expect(kernel.stderr()).not.toContain("replacing the executor");
  });

  /** The CLI run as Jupyter runs it, on a connection file that is never written, with `TMPDIR` and DESKBOOK_HOME in `dir`. */
  function refusedKernel(dir: string, name: string, value: string) {
    // The stop directory goes under TMPDIR (src/kernel/executor-fork.ts), so what is left is seen here.
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: dir, DESKBOOK_HOME: join(dir, "home"), DESKBOOK_DESKTOP: undefined, [name]: value };
    const result = spawnSync(process.execPath, [CLI, "kernel", "-f", join(dir, "kernel-refused.json")], { env, encoding: "utf8" });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(name);
    expect(executorsUnder(dir)).toEqual([]);
    expect(readdirSync(dir).filter((entry) => entry.startsWith("deskbook-stop-"))).toEqual([]);
    return result;
  }

  for (const [name, value] of [
    ["DESKBOOK_TIME_LIMIT_MS", "soon"],
    ["DESKBOOK_MAX_MESSAGE_BYTES", "12"],
  ]) {
    it(`is ended, stop directory and all, by the time a kernel refused for ${name}=${value} has exited`, async () => {
      const result = refusedKernel(await tempDir("early-fork-refused-"), name, value);
      expect(result.stderr).toMatch(/discarded the early executor \(pid \d+\): the kernel did not start/);
    });
  }

  it("is not forked for a DESKBOOK_DESKTOP the kernel refuses, which it refuses with its coded message", async () => {
    const result = refusedKernel(await tempDir("early-fork-bad-desktop-"), "DESKBOOK_DESKTOP", "bogus");
    expect(result.stderr).toContain('deskbook kernel: DESKBOOK_DESKTOP must be "shared" or "per-kernel", not "bogus"');
    expect(result.stderr).not.toContain("early executor");
  });

  it("is refused by its taker, and ended, when the taker's directory or environment differs from the CLI's", async () => {
    const dir = await tempDir("early-fork-misfit-");
    // The module itself, built, in a process of its own: its early fork is per process, and the executor it forks is dist's.
    const script = `
      import { forkExecutorEarly, takeEarlyExecutor, killChild } from ${JSON.stringify(join(REPO_ROOT, "dist/src/kernel/executor-fork.js"))};
      const lines = [];
      const log = (line) => lines.push(line);
      const gone = async (line) => {
        const pid = Number(/pid (\\d+)/.exec(line)[1]);
        for (let i = 0; i < 100; i++) {
          try { process.kill(pid, 0); } catch { return true; }
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return false;
      };
      const results = [];
      for (const place of [
        { cwd: process.cwd(), env: { ...process.env, DESKBOOK_DESKTOP_DIR: "/elsewhere" } },
        { cwd: "/", env: process.env },
        { cwd: process.cwd(), env: process.env },
      ]) {
        forkExecutorEarly();
        const taken = takeEarlyExecutor(place, log);
        results.push({ taken: taken !== undefined, line: lines.at(-1), gone: taken ? null : await gone(lines.at(-1)) });
        if (taken) await killChild(taken.child, taken.stopDir);
      }
      process.stdout.write(JSON.stringify(results));
      process.exit(0);
    `;
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: dir, env: { ...process.env, TMPDIR: dir }, encoding: "utf8" });
    expect(result.stderr).toBe("");
    const [envMisfit, cwdMisfit, fit] = JSON.parse(result.stdout) as { taken: boolean; line: string; gone: boolean | null }[];
    expect(envMisfit).toMatchObject({ taken: false, gone: true, line: expect.stringMatching(/^discarded the early executor \(pid \d+\): the environment differs in DESKBOOK_DESKTOP_DIR$/) });
    expect(cwdMisfit).toMatchObject({ taken: false, gone: true, line: expect.stringMatching(/^discarded the early executor \(pid \d+\): the kernel's directory differs$/) });
    expect(fit).toMatchObject({ taken: true, line: expect.stringMatching(/^adopted the early executor \(pid \d+\)$/) });
    expect(executorsUnder(dir)).toEqual([]);
    expect(readdirSync(dir).filter((entry) => entry.startsWith("deskbook-stop-"))).toEqual([]);
  });
});
