/**
 * Faults on the kernel side: the executor killed with SIGKILL (mid-cell and between cells),
 * and a full disk under history.jsonl. Each must end in a clear message and a kernel that
 * goes on running cells.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startKernel, resultText, streams, type RunningKernel } from "../support/kernel-process.js";
import { printTable, type Row } from "../../bench/report.js";
import { isAlive } from "../../src/process-signals.js";
import { stopDirOf } from "../support/stop-dir.js";

let kernel: RunningKernel | undefined;
const rows: Row[] = [];
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});
afterAll(() => printTable(rows));

async function executorPid(k: RunningKernel): Promise<number> {
  return Number(resultText((await k.client.execute("process.pid")).iopub));
}

describe("kernel faults", () => {
  it("kill -9 of the executor mid-cell: the cell says the bindings were lost, and the next cell runs", async () => {
    kernel = await startKernel();
    const k = kernel;
    await k.client.execute("const doomed = 'here'");
    const pid = await executorPid(k);
    const running = k.client.execute("await new Promise(r => setTimeout(r, 60000))");
    await k.client.waitForIopub((m) => m.header.msg_type === "execute_input" && String((m.content as { code: string }).code).includes("60000"));
    const killed = performance.now();
    process.kill(pid, "SIGKILL");
    const { reply } = await running;
    const errorMs = performance.now() - killed;
    expect(reply.content).toMatchObject({ status: "error", ename: "ExecutorLost" });
    expect(String(reply.content.evalue)).toMatch(/killed by SIGKILL.*bindings were lost/);
    const after = await k.client.execute("typeof doomed");
    const nextCellMs = performance.now() - killed;
    expect(resultText(after.iopub)).toBe("'undefined'");
    expect(await executorPid(k)).not.toBe(pid);
    rows.push(
      { metric: "executor SIGKILL mid-cell: time to the cell's error", value: errorMs, unit: "ms", target: "", verdict: "-" },
      { metric: "executor SIGKILL mid-cell: time to the next cell's result", value: nextCellMs, unit: "ms", target: "", verdict: "-" },
    );
  });

  it("kill -9 of the executor between cells: the next cell runs and says the bindings were lost", async () => {
    kernel = await startKernel();
    const k = kernel;
    await k.client.execute("const doomed = 'here'");
    const pid = await executorPid(k);
    process.kill(pid, "SIGKILL");
    await new Promise((r) => setTimeout(r, 300));
    const after = await k.client.execute("typeof doomed");
    expect(resultText(after.iopub)).toBe("'undefined'");
    expect(streams(after.iopub, "stderr")).toMatch(/^Deskbook: the executor process ended while no cell ran \(killed by SIGKILL\).*bindings were lost/);
    // Said once: the cell after that is quiet.
    expect(streams((await k.client.execute("1")).iopub, "stderr")).toBe("");
  });

  it("kill -9 of the executor during a completion: the next cell says the bindings were lost", async () => {
    kernel = await startKernel();
    const k = kernel;
    await k.client.execute("const doomed = 'here'");
    const pid = await executorPid(k);
    // The executor's main thread is busy after the cell, so the completion waits in it when it is killed.
    await k.client.execute("setTimeout(() => { const until = Date.now() + 10000; while (Date.now() < until); }, 0)");
    const completing = k.client.request("shell", "complete_request", { code: "doo", cursor_pos: 3 }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 500));
    process.kill(pid, "SIGKILL");
    await completing;
    const after = await k.client.execute("typeof doomed");
    expect(resultText(after.iopub)).toBe("'undefined'");
    expect(streams(after.iopub, "stderr")).toMatch(/^Deskbook: the executor process ended while no cell ran \(killed by SIGKILL\).*bindings were lost/);
  });

  it("kill -9 of the kernel while a cell spins: the executor, what its cell started and its stop marks end too", async () => {
    kernel = await startKernel();
    const k = kernel;
    const pid = await executorPid(k);
    const stopDir = stopDirOf(pid);
    expect(existsSync(stopDir), stopDir).toBe(true);
    const child = Number(resultText((await k.client.execute("require('node:child_process').spawn('sleep', ['271.828']).pid")).iopub));
    const running = k.client.execute("while (true) {}");
    await k.client.waitForIopub((m) => m.header.msg_type === "execute_input" && (m.content as { code: string }).code === "while (true) {}");
    running.catch(() => undefined); // the kernel dies under it
    const killed = performance.now();
    k.process.kill("SIGKILL");
    await k.exited;
    // Nobody is left to read its results: a spinning executor must not run on alone.
    const deadline = Date.now() + 10_000;
    while ((isAlive(pid) || isAlive(child)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(isAlive(pid), `executor ${pid}`).toBe(false);
    expect(isAlive(child), `its child ${child}`).toBe(false);
    // The dead kernel could not remove the directory of stop marks; the executor's orphan watch did.
    while (existsSync(stopDir) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(stopDir), stopDir).toBe(false);
    rows.push({ metric: "kernel SIGKILL mid-cell: executor gone after", value: performance.now() - killed, unit: "ms", target: "", verdict: "-" });
  });

  it("kill -9 of the kernel between cells: the executor exits, and what its cells started and its stop marks end too", async () => {
    kernel = await startKernel();
    const k = kernel;
    const pid = await executorPid(k);
    const stopDir = stopDirOf(pid);
    const child = Number(resultText((await k.client.execute("require('node:child_process').spawn('sleep', ['314.159']).pid")).iopub));
    k.process.kill("SIGKILL");
    await k.exited;
    // The free executor exits on the IPC disconnect by itself; its child is ended by the orphan watch.
    const deadline = Date.now() + 10_000;
    while ((isAlive(pid) || isAlive(child) || existsSync(stopDir)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(isAlive(pid), `executor ${pid}`).toBe(false);
    expect(isAlive(child), `its child ${child}`).toBe(false);
    expect(existsSync(stopDir), stopDir).toBe(false);
  });

  it("kill -9 of the kernel: the orphan watch removes the stop marks even when a removal fails", async () => {
    // A mark the executor writes while rm runs fails rm's rmdir; an `rm` that fails its first two
    // calls stands for that race, which no test can time.
    const dir = await mkdtemp(join(tmpdir(), "deskbook-rm-race-"));
    try {
      await mkdir(join(dir, "bin"));
      const calls = join(dir, "calls");
      await writeFile(join(dir, "bin", "rm"), `#!/bin/sh\necho >> "${calls}"\n[ "$(wc -l < "${calls}")" -gt 2 ] || exit 1\nexec /bin/rm "$@"\n`, { mode: 0o755 });
      kernel = await startKernel({ env: { PATH: `${join(dir, "bin")}:${process.env.PATH}` } });
      const k = kernel;
      const pid = await executorPid(k);
      const stopDir = stopDirOf(pid);
      k.process.kill("SIGKILL");
      await k.exited;
      const deadline = Date.now() + 10_000;
      while ((isAlive(pid) || existsSync(stopDir)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(existsSync(stopDir), stopDir).toBe(false);
      expect((await readFile(calls, "utf8")).split("\n").length - 1).toBe(3);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a full disk under history.jsonl: every cell still runs, and the user is warned once", async () => {
    const home = await mkdtemp(join(tmpdir(), "deskbook-fulldisk-"));
    try {
      await mkdir(home, { recursive: true });
      // /dev/full answers every write with ENOSPC, as a full disk does.
      await symlink("/dev/full", join(home, "history.jsonl"));
      kernel = await startKernel({ home });
      const k = kernel;
      const cells = await Promise.all([1, 2, 3].map(async (n) => k.client.execute(`${n} * 7`)));
      expect(cells.map((c) => resultText(c.iopub))).toEqual(["7", "14", "21"]);
      const warnings = cells.map((c) => streams(c.iopub, "stderr")).join("");
      expect(warnings.match(/cannot keep the command history on disk/g)).toHaveLength(1);
      expect(warnings).toMatch(/^Deskbook: cannot keep the command history on disk \(ENOSPC: no space left on device.*\); this session's history is kept in memory only\n$/);
      // History still answers, from memory.
      const history = await k.client.request("shell", "history_request", { hist_access_type: "tail", n: 3, output: false, raw: true });
      expect((history.content.history as unknown[]).map((e) => (e as unknown[])[2])).toEqual(["1 * 7", "2 * 7", "3 * 7"]);
      rows.push({ metric: "history on a full disk: cells run / warnings shown", value: cells.length, unit: `cells / ${warnings.match(/cannot keep/g)?.length} warning`, target: "", verdict: "-" });
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it("history.jsonl replaced by a FIFO: the kernel never blocks on it, cells run, one warning", async () => {
    const home = await mkdtemp(join(tmpdir(), "deskbook-fifo-"));
    try {
      expect(spawnSync("mkfifo", [join(home, "history.jsonl")]).status).toBe(0);
      kernel = await startKernel({ home });
      const cells = [await kernel.client.execute("'a'"), await kernel.client.execute("'b'")];
      expect(cells.map((c) => resultText(c.iopub))).toEqual(["'a'", "'b'"]);
      const warnings = cells.map((c) => streams(c.iopub, "stderr")).join("");
      expect(warnings).toMatch(/^Deskbook: cannot keep the command history on disk \(.* is not a regular file\); this session's history is kept in memory only\n$/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
