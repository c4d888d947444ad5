/**
 * Deskbook scale-out benchmark: `npm run build && node dist/bench/scaleout-bench.js`.
 *
 * Desktops per kernel, side by side on one machine. Starts real kernels (the product's own
 * launcher) in a temporary DESKBOOK_HOME with `"desktop": "per-kernel"`, one after the other,
 * and keeps them all running:
 *
 * - time to the first usable desktop: a fresh kernel's first desk call (`desk.listApps()`),
 *   which starts Xvfb, D-Bus, AT-SPI and openbox, launches the kernel's helper and connects;
 *   and its first `desk.getApp("galculator")` after that (the app started and its tree found);
 * - the memory of each extra desktop: the proportional set size (PSS, shared pages split
 *   among their users) of one desktop's processes — its Xvfb, D-Bus daemons, AT-SPI launcher,
 *   openbox, its helper and its reaper — measured with every desktop running; galculator apart.
 *
 * Prints a table and writes bench/scaleout-results.json. Exit code 0 when it completed or was
 * skipped (no Xvfb, not Linux), even with MISS verdicts; 1 when it failed.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { endHomeProcesses, pidsWithEnv } from "../src/client/home-processes.js";
import { startKernel, type RunningKernel } from "../src/client/kernel-process.js";
import { desktopStatus } from "../src/desktop/virtual-desktop.js";
import { atMost, median, printTable, round, type Row } from "./report.js";

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const RESULTS_FILE = join(REPO_ROOT, "bench/scaleout-results.json");
const DESKTOPS = 4;
const FIRST_DESKTOP_TARGET_MS = 3_000;
const FIRST_APP_TARGET_MS = 3_000;
/** Four desktops in 512 MiB: what a small CI machine or a modest Hub node can spare. */
const DESKTOP_PSS_TARGET_KIB = 128 * 1024;

interface Measured {
  firstDeskMs: number;
  firstAppMs: number;
  pssKiB: number;
  appPssKiB: number;
  parts: Record<string, number>;
}

function skipReason(): string | undefined {
  if (process.platform !== "linux") return `not Linux (${process.platform})`;
  const missing = ["Xvfb", "openbox", "dbus-daemon", "galculator"].filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0);
  return missing.length > 0 ? `${missing.join(", ")} not installed (see scripts/setup-debian.sh)` : undefined;
}

async function main(): Promise<number> {
  const skip = skipReason();
  if (skip) {
    console.log(`scale-out bench skipped: ${skip}`);
    return 0;
  }
  const dir = await mkdtemp(join(tmpdir(), "deskbook-scaleout-bench-"));
  const home = join(dir, "home");
  await mkdir(home, { recursive: true, mode: 0o700 });
  await writeFile(join(home, "config.json"), JSON.stringify({ desktop: "per-kernel", allow: ["galculator"] }));
  const kernels: RunningKernel[] = [];
  const started = performance.now();
  try {
    const timings: { firstDeskMs: number; firstAppMs: number; dir: string }[] = [];
    for (let i = 0; i < DESKTOPS; i++) {
      const kernel = await startKernel({ home, cwd: dir, env: { DISPLAY: undefined, WAYLAND_DISPLAY: undefined, GSETTINGS_BACKEND: "memory" } });
      kernels.push(kernel);
      const firstDeskMs = await timeCell(kernel, "(await desk.listApps()).length");
      const firstAppMs = await timeCell(kernel, 'const calc = await desk.getApp("galculator"); calc.name');
      const own = /its own desktop: (\S+)/.exec(kernel.stderr())?.[1];
      if (!own) throw new Error(`kernel ${i} did not say where its desktop is`);
      timings.push({ firstDeskMs, firstAppMs, dir: own });
    }
    const measured: Measured[] = [];
    for (const timing of timings) measured.push({ ...timing, ...(await desktopMemory(timing.dir)) });
    const rows: Row[] = [
      row("first usable desktop (first desk call of a kernel), median", median(measured.map((m) => m.firstDeskMs)), "ms", FIRST_DESKTOP_TARGET_MS),
      row("first desk.getApp(\"galculator\") on it, median", median(measured.map((m) => m.firstAppMs)), "ms", FIRST_APP_TARGET_MS),
      row(`memory of each extra desktop (PSS, ${DESKTOPS} running), median`, median(measured.map((m) => m.pssKiB)), "KiB", DESKTOP_PSS_TARGET_KIB),
      { metric: "of which its helper (node), median", value: median(measured.map((m) => m.parts.node ?? 0)), unit: "KiB", target: "-", verdict: "-" },
      { metric: "galculator on it (PSS), median", value: median(measured.map((m) => m.appPssKiB)), unit: "KiB", target: "-", verdict: "-" },
    ];
    console.log(`\nDeskbook scale-out bench: ${DESKTOPS} per-kernel desktops side by side, started one after the other\n`);
    printTable(rows);
    await writeFile(
      RESULTS_FILE,
      `${JSON.stringify(
        {
          generatedAt: new Date().toISOString(),
          environment: { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model, loadavg: loadavg() },
          rows: rows.map((r) => ({ ...r, value: r.value === null ? null : round(r.value) })),
          desktops: measured.map((m) => ({ ...m, firstDeskMs: round(m.firstDeskMs), firstAppMs: round(m.firstAppMs) })),
          durationSeconds: round((performance.now() - started) / 1000, 1),
        },
        null,
        2,
      )}\n`,
    );
    return 0;
  } finally {
    await Promise.all(kernels.map((kernel) => kernel.stop().catch(() => undefined)));
    await endHomeProcesses(home);
    await rm(dir, { recursive: true, force: true });
  }
}

async function timeCell(kernel: RunningKernel, code: string): Promise<number> {
  const t0 = performance.now();
  const { reply } = await kernel.client.execute(code, { timeoutMs: 90_000 });
  const ms = performance.now() - t0;
  if (reply.content.status !== "ok") throw new Error(`${code}: ${String(reply.content.ename)}: ${String(reply.content.evalue)}\n${kernel.stderr()}`);
  return ms;
}

/** PSS of the desktop's process group and of the processes started with its DESKBOOK_DESKTOP_DIR (the helper, the apps), plus its reaper. */
async function desktopMemory(dir: string): Promise<{ pssKiB: number; appPssKiB: number; parts: Record<string, number> }> {
  const status = await desktopStatus({ home: dir });
  if (!status.state) throw new Error(`no desktop in ${dir}`);
  const pids = new Set([...groupMembers(status.state.leaderPid), ...pidsWithEnv("DESKBOOK_DESKTOP_DIR", dir), ...reapersOf(dir)]);
  const parts: Record<string, number> = {};
  let pssKiB = 0;
  let appPssKiB = 0;
  for (const pid of pids) {
    const name = comm(pid);
    const pss = pssOf(pid);
    if (name === "galculator") appPssKiB += pss;
    else pssKiB += pss;
    parts[name] = (parts[name] ?? 0) + pss;
  }
  return { pssKiB, appPssKiB, parts };
}

function groupMembers(pgid: number): number[] {
  return procPids().filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) === pgid;
    } catch {
      return false;
    }
  });
}

/** The reaper: the shell that names the directory in its command line, and its tail. */
function reapersOf(dir: string): number[] {
  const shells = procPids().filter((pid) => comm(pid) === "sh" && cmdline(pid).includes(dir));
  return [...shells, ...procPids().filter((pid) => shells.includes(parentOf(pid)))];
}

function cmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return [];
  }
}

function parentOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return 0;
  }
}

function pssOf(pid: number): number {
  try {
    return Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function comm(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "?";
  }
}

function procPids(): number[] {
  return readdirSync("/proc").filter((name) => /^\d+$/.test(name)).map(Number);
}

function row(metric: string, value: number, unit: string, limit: number): Row {
  return { metric, value, unit, target: `≤ ${limit} ${unit}`, verdict: atMost(value, limit) };
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  },
);
