/**
 * Deskbook kernel benchmark: `npm run bench`.
 *
 * Starts the real kernel the way Jupyter does (`node dist/src/cli/main.js kernel -f FILE`,
 * temp DESKBOOK_HOME) and measures start time, execute round trip, interrupt latency and
 * memory growth, talking to it over ZeroMQ with the integration tests' KernelClient.
 * Prints a table and writes the same rows to bench/results.json.
 *
 * Exit code is 0 when every measurement completed (even with MISS verdicts: this is a
 * report, not a gate) and 1 when the bench itself failed.
 *
 * BENCH_KERNEL_NODE_ARGS adds node flags to the kernel, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
 * (the executor is forked with the kernel's execArgv, so it is profiled too).
 *
 * `--peers` (`npm run bench -- --peers`) also times the other kernels bench/peer-kernels.ts
 * finds installed (scripts/setup-peers.sh): their round trips in the same turns as Deskbook's,
 * and the top-level code rows. A peer that is not installed gets one line saying so.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import * as zmq from "zeromq";
import { writeConnectionFile } from "../src/client/connection-file.js";
import { KernelClient } from "../src/client/kernel-client.js";
import { endpoint, type ConnectionInfo } from "../src/jupyter/connection.js";
import { decode, encode } from "../src/jupyter/framing.js";
import { newHeader, type JupyterMessage } from "../src/jupyter/message.js";
import { Signer } from "../src/jupyter/signing.js";
import { KERNEL_NODE_FLAGS } from "../src/kernel/node-flags.js";
import { kernelLaunchEnv } from "../src/kernel/extra-ca-handoff.js";
import { startScriptedHelper } from "../test/fixtures/start-scripted-helper.js";
import { RawHelperConnection } from "../test/fixtures/raw-helper-connection.js";
import { atMost, median, percentile, printTable, round, slope, timeAsync, type Row } from "./report.js";
import { treeCpuNs, treeWakeups } from "./process-cpu.js";
import { findPeer, PEER_KINDS, PEER_MISSING, PEER_NAMES, type PeerKernel, type PeerKind } from "./peer-kernels.js";

// Compiled to dist/bench/, so the repo root is two levels up.
const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CLI = join(REPO_ROOT, "dist/src/cli/main.js");
/** The kernel that does no work (bench/floor-kernel.ts): the round trip's floor. */
const FLOOR_KERNEL = join(REPO_ROOT, "dist/bench/floor-kernel.js");
const RESULTS_FILE = join(REPO_ROOT, "bench/results.json");

const START_RUNS = 5;
const START_TARGET_MS = 250;
const EXECUTOR_READY_TARGET_MS = 300;
/** Deskbook's round trip p50 over the floor kernel's, measured through the same client in the same run. */
const ROUND_TRIP_FLOOR_RATIO_TARGET = 1.25;
const RSS_AFTER_START_TARGET_KIB = 120 * 1024;
const RSS_FIRST_CELLS_TARGET_KIB = 10 * 1024;
/** How often the start probe resends kernel_info_request until one is answered. */
const START_RETRY_MS = 25;

const WARMUP_CELLS = 50;
const ROUND_TRIP_CELLS = 1000;
const ROUND_TRIP_BLOCK = 50;
const ROUND_TRIP_P50_TARGET_MS = 1;

const INTERRUPT_RUNS = 10;
const INTERRUPT_AFTER_MS = 200;
const INTERRUPT_TARGET_MS = 100;

const ESCAPE_RUNS = 10;
const ESCAPE_TARGET_MS = 200;

const RSS_CELLS = 1000;
/** V8 grows its heaps over the first few thousand cells of a fresh process; the trend is measured after that. */
const RSS_WARMUP_CELLS = 3000;
const RSS_SAMPLE_EVERY = 250;
const RSS_CELL = "Array.from({length: 1000}, (_, i) => i).join(',').length";
/**
 * A growth trend is a least-squares slope of at least 2 MiB per 1000 cells, i.e. ~2 KiB
 * retained per cell. Legitimate per-cell retention is far below that: the history keeps
 * input + output text (~100 B per cell) and the kernel remembers the last 64 cells' parents.
 * A real leak is far above it: each cell allocates ~12 KiB (a 1000-element array plus a
 * ~3.9 KB string) in the executor, and the kernel handles ~5 wire messages of ~0.5 KiB each,
 * so retaining a cell's data or its messages crosses the line.
 * Caveat: RSS also counts V8 sizing its heap (young generation growing towards its maximum,
 * old-generation slack before the next major GC). That can take thousands of cells in a fresh
 * process and reads as a slope here. Treat a MISS as "look at the post-GC heap", not as
 * proof of a leak.
 */
const RSS_SLOPE_LIMIT_KIB = 2048;

const KERNEL_STOP_GRACE_MS = 3000;

/** The same code at a cell's top level and inside a function, timed inside the cell. */
const TOP_LEVEL_WORKLOADS: ReadonlyArray<{ name: string; code: string }> = [
  { name: "loop", code: "let s = 0; for (let i = 0; i < 2e6; i++) s += i % 7" },
  { name: "property-heavy", code: "const o = { x: 0, y: 0 }; for (let i = 0; i < 2e6; i++) { o.x += i; o.y = o.x % 13 }" },
  { name: "closure over a top-level binding", code: "let n = 0; const inc = () => { n++ }; for (let i = 0; i < 2e6; i++) inc()" },
];
const TOP_LEVEL_RUNS = 15;
/** The executor's CPU time in ms since the cell's first line (the session exposes `process`). */
const CPU_CLOCK_START = "const __benchCpu0 = process.cpuUsage();";
const CPU_CLOCK_READ = "(({ user, system }) => (user + system) / 1000)(process.cpuUsage(__benchCpu0))";
const TOP_LEVEL_WARMUP = 2;
const TOP_LEVEL_RATIO_TARGET = 1.2;

interface Launched {
  proc: ChildProcess;
  info: ConnectionInfo;
  /** performance.now() just before spawn(). */
  spawnedAt: number;
  stderr: () => string;
  stop: () => Promise<void>;
}

/** Every kernel still running, so a failing bench does not leave processes behind. */
const running = new Set<Launched>();

/**
 * Deskbook's kernel, the floor kernel, the floor with one Node IPC hop each way to a child
 * process (`relay`), or with one postMessage hop each way to a worker thread (`thread`), and the
 * IPC relay that also sends the two messages more a real kernel sends for a cell of `1`
 * (`design`: the least Deskbook's design, two processes and the protocol, can cost).
 */
type KernelKind = "deskbook" | "floor" | "relay" | "thread" | "design" | PeerKind;

/** The floor kernel's flags for each of its kinds (bench/floor-kernel.ts). */
const FLOOR_KERNEL_FLAGS: Record<Exclude<KernelKind, "deskbook" | PeerKind>, string[]> = { floor: [], relay: ["--relay"], thread: ["--relay-thread"], design: ["--relay", "--messages"] };

async function launchKernel(scratch: string, extraEnv: NodeJS.ProcessEnv = {}, kind: KernelKind = "deskbook"): Promise<Launched> {
  const dir = await mkdtemp(join(scratch, "kernel-"));
  const { path, info } = await writeConnectionFile(dir);
  const { file, args } = kernelCommand(kind, path);
  const spawnedAt = performance.now();
  const proc = spawn(file, args, {
    cwd: dir,
    // A fresh home per kernel: history.jsonl from earlier runs must not slow later starts.
    // Deskbook's kernel gets NODE_EXTRA_CA_CERTS the way its launchers pass it (src/kernel/extra-ca-handoff.ts).
    env: (kind === "deskbook" ? kernelLaunchEnv : (env: NodeJS.ProcessEnv) => env)({ ...process.env, DESKBOOK_HOME: join(dir, "home"), ...extraEnv }),
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  proc.stderr!.setEncoding("utf8").on("data", (text: string) => (log += text));
  const launched: Launched = {
    proc,
    info,
    spawnedAt,
    stderr: () => log,
    stop: async () => {
      running.delete(launched);
      if (proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise((resolve) => proc.once("exit", resolve));
        // SIGTERM lets the kernel kill its executor and close its sockets (and write --cpu-prof).
        proc.kill("SIGTERM");
        const timer = setTimeout(() => proc.kill("SIGKILL"), KERNEL_STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }
    },
  };
  running.add(launched);
  return launched;
}

/** The executable and arguments that start a kernel of this kind on a connection file. */
function kernelCommand(kind: KernelKind, path: string): { file: string; args: string[] } {
  if (isPeer(kind)) {
    const peer = findPeer(kind, REPO_ROOT);
    if (!peer) throw new Error(`${PEER_NAMES[kind]} is ${PEER_MISSING[kind]}`);
    return peer.command(path);
  }
  const nodeArgs = (process.env.BENCH_KERNEL_NODE_ARGS ?? "").split(/\s+/).filter(Boolean);
  // Deskbook's kernel runs with the flags its kernelspec gives it (src/kernel/node-flags.ts).
  const command = kind === "deskbook" ? [...KERNEL_NODE_FLAGS, CLI, "kernel", "-f", path] : [FLOOR_KERNEL, "-f", path, ...FLOOR_KERNEL_FLAGS[kind]];
  return { file: process.execPath, args: [...nodeArgs, ...command] };
}

const isPeer = (kind: KernelKind): kind is PeerKind => (PEER_KINDS as readonly string[]).includes(kind);

/**
 * Spawn → first kernel_info_reply. The probe is a bare DEALER built from the same wire code
 * as KernelClient, because KernelClient.connect first waits for iopub and only then could
 * ask; this one connects right after spawn and resends kernel_info_request until answered.
 * reconnectInterval is 10 ms instead of ZeroMQ's 100 ms so the client's reconnect timer does
 * not quantise a number that should measure the kernel.
 */
async function timeToKernelInfo(kernel: Launched, timeoutMs = 10_000): Promise<number> {
  const { info } = kernel;
  const signer = new Signer(info.signature_scheme, info.key);
  const session = randomUUID();
  const dealer = new zmq.Dealer({ linger: 0, reconnectInterval: 10 });
  dealer.connect(endpoint(info, info.shell_port));
  // As every frontend does: a fresh kernel serves shell requests once someone listens on iopub
  // (src/kernel/iopub-listeners.ts), so a client without it would wait seconds, not measure the start.
  const iopub = new zmq.Subscriber({ linger: 0, reconnectInterval: 10 });
  iopub.connect(endpoint(info, info.iopub_port));
  iopub.subscribe();
  const sent = new Set<string>();
  let answeredAt: number | undefined;
  const answered = (async () => {
    while (answeredAt === undefined) {
      const frames = await dealer.receive();
      const result = decode(frames, signer, 1 << 30);
      if (result.ok && result.message.header.msg_type === "kernel_info_reply" && sent.has(result.message.parent_header.msg_id ?? "")) {
        answeredAt = performance.now();
      }
    }
  })();
  answered.catch(() => undefined); // rejects when the socket closes on timeout
  try {
    const stopAt = performance.now() + timeoutMs;
    while (answeredAt === undefined) {
      if (performance.now() > stopAt) throw new Error(`no kernel_info_reply within ${timeoutMs} ms; kernel log:\n${kernel.stderr()}`);
      if (kernel.proc.exitCode !== null) throw new Error(`kernel exited with ${kernel.proc.exitCode}; log:\n${kernel.stderr()}`);
      const header = newHeader("kernel_info_request", session, "deskbook-bench");
      sent.add(header.msg_id);
      await dealer.send(encode({ identities: [], header, parent_header: {}, metadata: {}, content: {}, buffers: [] }, signer));
      await Promise.race([answered, sleep(START_RETRY_MS)]);
    }
    return answeredAt - kernel.spawnedAt;
  } finally {
    dealer.close();
    iopub.close();
  }
}

interface StartTimes {
  /** Spawn → first kernel_info_reply. */
  kernelInfoMs: number[];
  /** Spawn → the first cell's execute_reply: the executor is ready for cells. */
  executorReadyMs: number[];
}

/** START_RUNS fresh kernels: one start is one sample of a number the machine's load moves by tens of ms. */
async function benchStart(scratch: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<StartTimes> {
  const times: StartTimes = { kernelInfoMs: [], executorReadyMs: [] };
  for (let i = 0; i < START_RUNS; i++) {
    const kernel = await launchKernel(scratch, extraEnv);
    let client: KernelClient | undefined;
    try {
      times.kernelInfoMs.push(await timeToKernelInfo(kernel));
      client = await KernelClient.connect(kernel.info);
      await runCell(client, "1");
      times.executorReadyMs.push(performance.now() - kernel.spawnedAt);
    } finally {
      await client?.close();
      await kernel.stop();
    }
  }
  return times;
}

async function withClient<T>(
  scratch: string,
  body: (client: KernelClient, kernel: Launched) => Promise<T>,
  env: NodeJS.ProcessEnv = {},
  kind: KernelKind = "deskbook",
): Promise<T> {
  const kernel = await launchKernel(scratch, env, kind);
  let client: KernelClient | undefined;
  try {
    client = await KernelClient.connect(kernel.info);
    return await body(client, kernel);
  } catch (error) {
    throw new Error(`${(error as Error).message}\nkernel log:\n${kernel.stderr()}`, { cause: error });
  } finally {
    await client?.close();
    await kernel.stop();
  }
}

interface Opened {
  kind: KernelKind;
  client: KernelClient;
  kernel: Launched;
}

/** withClient for several kernels at once, one of each kind given, in that order. */
async function withClients<T>(scratch: string, kinds: readonly KernelKind[], body: (opened: Opened[]) => Promise<T>): Promise<T> {
  const [kind, ...rest] = kinds;
  if (kind === undefined) return body([]);
  return withClient(scratch, (client, kernel) => withClients(scratch, rest, (opened) => body([{ kind, client, kernel }, ...opened])), {}, kind);
}

/** Runs a cell that must succeed, then drops the client's iopub log. */
async function runCell(client: KernelClient, code: string): Promise<void> {
  const { reply } = await client.execute(code, { timeoutMs: 10_000 });
  // KernelClient keeps every iopub message and scans that log per execute; clearing it keeps
  // the client's cost flat over 1000 cells so it does not pose as kernel slowdown.
  client.iopubLog.length = 0;
  if (reply.content.status !== "ok") throw new Error(`cell ${JSON.stringify(code)} failed: ${JSON.stringify(reply.content)}`);
}

/** Each kernel's round trips (ms), and its CPU per cell (µs; it and its children, every thread), one value per turn. */
type RoundTrips = Record<KernelKind, number[]> & { cpuUs: Record<KernelKind, number[]> };

/**
 * Deskbook's round trip, each installed peer's (`--peers`), the floor kernel's, the relay's (the floor plus one IPC hop each way:
 * the least two processes cost) and the thread relay's (the floor plus one hop each way to a
 * worker thread: the least an executor inside the kernel's process would cost) and the design
 * floor's (the IPC relay sending execute_input and execute_result too), in turns of
 * ROUND_TRIP_BLOCK cells through one client process: on a shared machine the load changes by
 * the second, and measured one after the other they would meet different loads. Turns of
 * single cells would time the floor's cell while Deskbook's processes still finish the last
 * one (its GC, its timers): measured, that doubled the floor's p50.
 */
async function benchRoundTrips(scratch: string, peers: readonly PeerKind[] = []): Promise<RoundTrips> {
  return withClients(scratch, ["deskbook", "floor", "relay", "thread", "design", ...peers], async (kernels) => {
    for (const { client } of kernels) await timeAsync(0, WARMUP_CELLS, () => runCell(client, "1"));
    const times: RoundTrips = { deskbook: [], floor: [], relay: [], thread: [], design: [], deno: [], cpuUs: { deskbook: [], floor: [], relay: [], thread: [], design: [], deno: [] } };
    for (let done = 0; done < ROUND_TRIP_CELLS; done += ROUND_TRIP_BLOCK) {
      for (const { kind, client, kernel } of kernels) {
        // The first cell of a turn meets the other kernels' leftovers: warm-up, not measured.
        await runCell(client, "1");
        const cpuBefore = await treeCpuNs(kernel.proc.pid!);
        times[kind].push(...(await timeAsync(ROUND_TRIP_BLOCK, 0, () => runCell(client, "1"))));
        times.cpuUs[kind].push(((await treeCpuNs(kernel.proc.pid!)) - cpuBefore) / ROUND_TRIP_BLOCK / 1000);
      }
    }
    return times;
  });
}

/** The kernel's and the executor's memory at one moment. */
interface PairMemory {
  kernelRssKiB: number;
  executorRssKiB: number;
  /** RSS counts the pages of the node binary both map in each; PSS splits shared pages between them. */
  kernelPssKiB: number;
  executorPssKiB: number;
  /** The executor's orphan watch, a shell (src/executor/orphan-watch.ts): not in the sums, shown on its own. */
  watchRssKiB: number;
}

interface StartSample {
  /** Spawn → the first cell's execute_reply: the executor is ready for cells. */
  executorReadyMs: number;
  /** After that first cell (`1`). */
  afterStart: PairMemory;
  /** After a first desk call (`desk.getApp`, against the scripted helper). */
  afterDesk: PairMemory;
  /** After RSS_CELLS more cells. */
  afterCells: PairMemory;
  /** Then idle: kernel and executor (all threads, the executor's children too), per IDLE_WINDOW_MS window. */
  idle: IdleCost[];
}

interface IdleCost {
  wakeupsPerS: number;
  cpuMsPerS: number;
}

/**
 * Idle is read in two windows after the last cell: in the first seconds after a burst of cells
 * V8's own threads still wake (collections, compiles); after that nothing should run at all.
 */
const IDLE_WINDOW_MS = 10_000;
const IDLE_WINDOWS = 2;

/** A kernel nobody talks to: how often its processes get a CPU, and the CPU that costs, per second. */
async function idleCost(kernelPid: number): Promise<IdleCost[]> {
  const windows: IdleCost[] = [];
  const perS = 1000 / IDLE_WINDOW_MS;
  for (let i = 0; i < IDLE_WINDOWS; i++) {
    const wakeups = await treeWakeups(kernelPid);
    const cpuNs = await treeCpuNs(kernelPid);
    await sleep(IDLE_WINDOW_MS);
    windows.push({ wakeupsPerS: ((await treeWakeups(kernelPid)) - wakeups) * perS, cpuMsPerS: (((await treeCpuNs(kernelPid)) - cpuNs) / 1e6) * perS });
  }
  return windows;
}

/** The first desk call of a session: connects to the helper and loads what a desk call needs. */
const FIRST_DESK_CELL = "const calc = await desk.getApp('Calculator'); calc.name";

async function pairMemory(kernelPid: number): Promise<PairMemory> {
  const executorPid = await findExecutorPid(kernelPid);
  return {
    kernelRssKiB: await vmRssKiB(kernelPid),
    executorRssKiB: await vmRssKiB(executorPid),
    kernelPssKiB: await pssKiB(kernelPid),
    executorPssKiB: await pssKiB(executorPid),
    watchRssKiB: await childRssKiB(executorPid, "deskbook-orphan-watch"),
  };
}

const rssSum = (m: PairMemory): number => m.kernelRssKiB + m.executorRssKiB;
const pssSum = (m: PairMemory): number => m.kernelPssKiB + m.executorPssKiB;

/**
 * A fresh kernel: how soon its first cell is answered, and its memory then, after a first
 * desk call, and 1000 cells later. A desk call loads what a fresh session does not need yet
 * (the helper client's schema checks, the desktop modules), so it is measured on its own.
 */
async function benchFreshKernel(scratch: string): Promise<StartSample> {
  const helper = await startScriptedHelper();
  const kernel = await launchKernel(scratch, { DESKBOOK_SOCKET: helper.socketPath });
  let client: KernelClient | undefined;
  try {
    client = await KernelClient.connect(kernel.info);
    await runCell(client, "1");
    const executorReadyMs = performance.now() - kernel.spawnedAt;
    const pid = kernel.proc.pid!;
    const afterStart = await pairMemory(pid);
    await runCell(client, FIRST_DESK_CELL);
    const afterDesk = await pairMemory(pid);
    for (let i = 0; i < RSS_CELLS; i++) await runCell(client, RSS_CELL);
    const afterCells = await pairMemory(pid);
    return { executorReadyMs, afterStart, afterDesk, afterCells, idle: await idleCost(pid) };
  } finally {
    await client?.close();
    await kernel.stop();
    await helper.stop();
  }
}

function freshKernelRows(fresh: StartSample): Row[] {
  const { afterStart, afterDesk, afterCells, idle } = fresh;
  const firstCellsKiB = rssSum(afterCells) - rssSum(afterDesk);
  return [
    { metric: "kernel + executor RSS after start (first cell)", value: rssSum(afterStart), unit: "KiB", target: `≤ ${RSS_AFTER_START_TARGET_KIB} KiB`, verdict: atMost(rssSum(afterStart), RSS_AFTER_START_TARGET_KIB) },
    { metric: "  kernel RSS after start", value: afterStart.kernelRssKiB, unit: "KiB", target: "-", verdict: "-" },
    { metric: "  executor RSS after start", value: afterStart.executorRssKiB, unit: "KiB", target: "-", verdict: "-" },
    { metric: "kernel + executor PSS after start (shared pages split)", value: pssSum(afterStart), unit: "KiB", target: "-", verdict: "-" },
    { metric: "  the executor's orphan watch (sh) RSS, not in the sums", value: afterStart.watchRssKiB, unit: "KiB", target: "-", verdict: "-" },
    { metric: "kernel + executor RSS after a first desk call", value: rssSum(afterDesk), unit: "KiB", target: "-", verdict: "-" },
    { metric: "  kernel RSS after a first desk call", value: afterDesk.kernelRssKiB, unit: "KiB", target: "-", verdict: "-" },
    { metric: "  executor RSS after a first desk call", value: afterDesk.executorRssKiB, unit: "KiB", target: "-", verdict: "-" },
    { metric: "kernel + executor PSS after a first desk call", value: pssSum(afterDesk), unit: "KiB", target: "-", verdict: "-" },
    { metric: `kernel + executor RSS added by the next ${RSS_CELLS} cells`, value: firstCellsKiB, unit: "KiB", target: `≤ ${RSS_FIRST_CELLS_TARGET_KIB} KiB`, verdict: atMost(firstCellsKiB, RSS_FIRST_CELLS_TARGET_KIB) },
    // Nothing runs: what is left is timers and polls (an idle executor's pump woke ~40 times a second).
    ...idle.flatMap((w, i): Row[] => {
      const span = `${(i * IDLE_WINDOW_MS) / 1000}–${((i + 1) * IDLE_WINDOW_MS) / 1000} s after the last cell`;
      return [
        { metric: `idle kernel + executor, ${span}: times on a CPU per second, all threads`, value: w.wakeupsPerS, unit: "/s", target: "-", verdict: "-" },
        { metric: "  CPU per second of that idle", value: w.cpuMsPerS, unit: "ms", target: "-", verdict: "-" },
      ];
    }),
  ];
}

/** Runs a cell and returns the number it evaluates to. */
async function cellNumber(client: KernelClient, code: string): Promise<number> {
  const { reply, iopub } = await client.execute(code, { timeoutMs: 30_000 });
  const isResult = (m: JupyterMessage): boolean => m.header.msg_type === "execute_result" && m.parent_header.msg_id === reply.parent_header.msg_id;
  // Deno's kernel publishes some results after its idle status, out of the protocol's order.
  const result = iopub.find(isResult) ?? (reply.content.status === "ok" ? await client.waitForIopub(isResult, 5000) : undefined);
  client.iopubLog.length = 0;
  const text = (result?.content as { data?: Record<string, string> } | undefined)?.data?.["text/plain"];
  if (reply.content.status !== "ok" || text === undefined) throw new Error(`cell ${JSON.stringify(code)} failed: ${JSON.stringify(reply.content)}`);
  // Deno's kernel colours its text/plain results with ANSI escapes.
  return Number(text.replace(/\u001b\[[0-9;]*m/g, ""));
}

interface TopLevelTiming {
  name: string;
  topLevelMs: number[];
  inFunctionMs: number[];
}

/**
 * Each workload as a cell's top-level code and wrapped in a function, alternating, in one
 * session. The clock is read inside the cell, so only the code's own run is timed, and it is
 * the executor's CPU time, not wall time: on a shared machine, time spent waiting for a core
 * would otherwise swamp a ratio of two ~5 ms runs.
 */
async function benchTopLevel(scratch: string, kind: KernelKind = "deskbook"): Promise<TopLevelTiming[]> {
  return withClient(scratch, async (client) => {
    const timings: TopLevelTiming[] = [];
    for (const { name, code } of TOP_LEVEL_WORKLOADS) {
      const topLevel = `${CPU_CLOCK_START}\n${code};\n${CPU_CLOCK_READ}`;
      const inFunction = `${CPU_CLOCK_START}\n(() => { ${code}; })();\n${CPU_CLOCK_READ}`;
      const timing: TopLevelTiming = { name, topLevelMs: [], inFunctionMs: [] };
      for (let k = 0; k < TOP_LEVEL_WARMUP + TOP_LEVEL_RUNS; k++) {
        const top = await cellNumber(client, topLevel);
        const fn = await cellNumber(client, inFunction);
        if (k < TOP_LEVEL_WARMUP) continue;
        timing.topLevelMs.push(top);
        timing.inFunctionMs.push(fn);
      }
      timings.push(timing);
    }
    return timings;
  }, {}, kind);
}

function topLevelRows(timings: readonly TopLevelTiming[]): Row[] {
  return timings.flatMap(({ name, topLevelMs, inFunctionMs }) => {
    const top = median(topLevelMs);
    const fn = median(inFunctionMs);
    const ratio = top / fn;
    return [
      { metric: `${name} at a cell's top level (CPU, median of ${TOP_LEVEL_RUNS})`, value: top, unit: "ms", target: "-", verdict: "-" },
      { metric: `${name} inside a function (CPU, median of ${TOP_LEVEL_RUNS})`, value: fn, unit: "ms", target: "-", verdict: "-" },
      { metric: `${name}: top level / function`, value: ratio, unit: "×", target: `≤ ${TOP_LEVEL_RATIO_TARGET}×`, verdict: atMost(ratio, TOP_LEVEL_RATIO_TARGET) },
    ] satisfies Row[];
  });
}

/** A peer kernel's figures, taken as Deskbook's are: round trips in the same turns, top-level code in a session of its own. */
interface PeerResult {
  kind: PeerKind;
  roundTripMs: number[];
  cpuUs: number[];
  topLevel: TopLevelTiming[];
}

/** Deskbook's figures a peer's rows compare with. */
interface DeskbookFigures {
  roundTripP50: number;
  floorP50: number;
  topLevel: readonly TopLevelTiming[];
}

/**
 * A peer's rows. Its top-level cells are Deskbook's code unchanged: `process.cpuUsage()` read
 * inside the cell, which Deno provides too, so both are the kernel process's CPU (every thread).
 */
function peerRows({ kind, roundTripMs, cpuUs, topLevel }: PeerResult, deskbook: DeskbookFigures): Row[] {
  const name = PEER_NAMES[kind];
  const p50 = percentile(roundTripMs, 50);
  const rows: Row[] = [
    { metric: `${name}: execute round trip p50, in the same turns (${roundTripMs.length} cells)`, value: p50, unit: "ms", target: "-", verdict: "-" },
    { metric: "  that / kernel doing no work", value: p50 / deskbook.floorP50, unit: "×", target: "-", verdict: "-" },
    { metric: "  Deskbook / that", value: deskbook.roundTripP50 / p50, unit: "×", target: "-", verdict: "-" },
    { metric: `  CPU per cell, its process, every thread (median of ${cpuUs.length} turns)`, value: median(cpuUs), unit: "µs", target: "-", verdict: "-" },
  ];
  for (const { name: workload, topLevelMs, inFunctionMs } of topLevel) {
    const top = median(topLevelMs);
    const ours = deskbook.topLevel.find((t) => t.name === workload);
    rows.push(
      { metric: `${name}: ${workload} at a cell's top level (CPU, process.cpuUsage in the cell, median of ${topLevelMs.length})`, value: top, unit: "ms", target: "-", verdict: "-" },
      { metric: `${name}: ${workload} inside a function (CPU, process.cpuUsage in the cell, median of ${inFunctionMs.length})`, value: median(inFunctionMs), unit: "ms", target: "-", verdict: "-" },
      { metric: `  ${name}: top level / function`, value: top / median(inFunctionMs), unit: "×", target: "-", verdict: "-" },
      { metric: `  Deskbook's top level / ${name}'s`, value: ours ? median(ours.topLevelMs) / top : null, unit: "×", target: "-", verdict: "-" },
    );
  }
  return rows;
}

/** interrupt_request sent → the cell's execute_reply (Stopped) and its idle received. */
async function benchInterrupt(scratch: string): Promise<number[]> {
  return withClient(scratch, async (client) => {
    await runCell(client, "1"); // executor is up before the first busy loop
    const times: number[] = [];
    for (let i = 0; i < INTERRUPT_RUNS; i++) {
      const cell = client.execute("while (true) {}", { timeoutMs: 15_000 });
      await sleep(INTERRUPT_AFTER_MS);
      const t0 = performance.now();
      const interrupt = client.request("control", "interrupt_request", {});
      const { reply } = await cell;
      times.push(performance.now() - t0);
      await interrupt;
      client.iopubLog.length = 0;
      if (reply.content.status !== "error" || reply.content.ename !== "Stopped") {
        throw new Error(`interrupted cell replied ${JSON.stringify(reply.content)}, expected ename "Stopped"`);
      }
      await runCell(client, "1"); // the session must still work after the stop
    }
    return times;
  });
}

/**
 * Escape → stopped cell, against the scripted helper: the helper sends the event the moment
 * it is asked to, so this measures the kernel's side (its own helper connection, the stopper,
 * SIGINT into the spinning executor, the reply).
 */
async function benchEscape(scratch: string): Promise<number[]> {
  const helper = await startScriptedHelper();
  try {
    const env = { DESKBOOK_SOCKET: helper.socketPath };
    return await withClient(scratch, async (client) => {
      await runCell(client, "const calc = await desk.getApp('Calculator')");
      const control = await RawHelperConnection.open(helper.socketPath, false);
      const times: number[] = [];
      try {
        for (let i = 0; i < ESCAPE_RUNS; i++) {
          const cell = client.execute("while (true) {}", { timeoutMs: 15_000 });
          await sleep(INTERRUPT_AFTER_MS);
          const t0 = performance.now();
          await control.script({ op: "escape" });
          const { reply } = await cell;
          times.push(performance.now() - t0);
          client.iopubLog.length = 0;
          if (reply.content.evalue !== "Stopped: the user pressed Escape.") throw new Error(`Escape: ${JSON.stringify(reply.content)}`);
        }
      } finally {
        control.close();
      }
      return times;
    }, env);
  } finally {
    await helper.stop();
  }
}

interface RssSample {
  cells: number;
  kernelKiB: number;
  executorKiB: number;
  /** The executor's V8 heap after two full collections: what a leak would grow. */
  executorHeapKiB: number;
  executorPid: number;
}

// Runs in the executor (the session exposes `process` and `require`): exposes gc for this
// process, collects twice, and reports the live heap.
const HEAP_AFTER_GC_CELL = [
  "require('node:v8').setFlagsFromString('--expose-gc');",
  "const __benchGc = require('node:vm').runInNewContext('gc');",
  "__benchGc(); __benchGc();",
  "process.memoryUsage().heapUsed",
].join("\n");

async function executorHeapAfterGcKiB(client: KernelClient): Promise<number> {
  const { reply, iopub } = await client.execute(HEAP_AFTER_GC_CELL, { timeoutMs: 10_000, store_history: false });
  client.iopubLog.length = 0;
  const result = iopub.find((m) => m.header.msg_type === "execute_result");
  const text = (result?.content as { data?: Record<string, string> } | undefined)?.data?.["text/plain"];
  if (reply.content.status !== "ok" || text === undefined) throw new Error(`heap probe failed: ${JSON.stringify(reply.content)}`);
  return Math.round(Number(text) / 1024);
}

async function benchRss(scratch: string): Promise<RssSample[]> {
  return withClient(scratch, async (client, kernel) => {
    // Warm-up first so one-time costs (JIT, lazy module loads, heap sizing) do not read as a trend.
    for (let i = 0; i < RSS_WARMUP_CELLS; i++) await runCell(client, RSS_CELL);
    const samples: RssSample[] = [];
    const sample = async (cells: number) => {
      const kernelPid = kernel.proc.pid!;
      const executorPid = await findExecutorPid(kernelPid);
      const executorHeapKiB = await executorHeapAfterGcKiB(client);
      samples.push({ cells, kernelKiB: await vmRssKiB(kernelPid), executorKiB: await vmRssKiB(executorPid), executorHeapKiB, executorPid });
    };
    await sample(0);
    for (let i = 1; i <= RSS_CELLS; i++) {
      await runCell(client, RSS_CELL);
      if (i % RSS_SAMPLE_EVERY === 0) await sample(i);
    }
    return samples;
  });
}

/** The kernel's executor child: /proc/<pid>/task/<tid>/children, else a scan of ppids in /proc/<pid>/stat. */
async function findExecutorPid(kernelPid: number): Promise<number> {
  let children: number[] = [];
  try {
    for (const tid of await readdir(`/proc/${kernelPid}/task`)) {
      const text = await readFile(`/proc/${kernelPid}/task/${tid}/children`, "utf8").catch(() => "");
      children.push(...text.split(/\s+/).filter(Boolean).map(Number));
    }
  } catch {
    children = [];
  }
  if (children.length === 0) children = await childrenByPpid(kernelPid);
  for (const pid of children) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes("executor/main.js")) return pid;
  }
  throw new Error(`no executor child found for kernel ${kernelPid} (children: ${children.join(", ") || "none"})`);
}

async function childrenByPpid(parent: number): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    // comm (field 2) may contain spaces and parentheses; fields after the last ")" are fixed.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[1]) === parent) pids.push(Number(entry));
  }
  return pids;
}

/** RSS of the child of `parent` whose command line names `marker`; 0 when there is none. */
async function childRssKiB(parent: number, marker: string): Promise<number> {
  for (const pid of await childrenByPpid(parent)) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes(marker)) return vmRssKiB(pid).catch(() => 0);
  }
  return 0;
}

/** Proportional set size: each shared page counted once across the processes that map it. */
async function pssKiB(pid: number): Promise<number> {
  const rollup = await readFile(`/proc/${pid}/smaps_rollup`, "utf8");
  const match = /^Pss:\s+(\d+)\s+kB/m.exec(rollup);
  if (!match) throw new Error(`no Pss in /proc/${pid}/smaps_rollup`);
  return Number(match[1]);
}

async function vmRssKiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]);
}

function summary(values: number[]): Record<string, number> {
  return {
    n: values.length,
    min: round(Math.min(...values)),
    p50: round(percentile(values, 50)),
    p90: round(percentile(values, 90)),
    p95: round(percentile(values, 95)),
    p99: round(percentile(values, 99)),
    max: round(Math.max(...values)),
    mean: round(values.reduce((a, b) => a + b, 0) / values.length),
  };
}

/** The peers `--peers` asks for, split into those installed here and those not. */
function peersFromArgs(args: readonly string[]): { installed: PeerKind[]; missing: PeerKind[] } {
  const unknown = args.filter((a) => a !== "--peers");
  if (unknown.length) throw new Error(`unknown argument(s) ${unknown.join(" ")}; usage: kernel-bench [--peers]`);
  if (!args.includes("--peers")) return { installed: [], missing: [] };
  const found = PEER_KINDS.map((kind) => findPeer(kind, REPO_ROOT)).filter((p): p is PeerKernel => p !== undefined);
  const installed = found.map((p) => p.kind);
  return { installed, missing: PEER_KINDS.filter((kind) => !installed.includes(kind)) };
}

async function main(): Promise<number> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing; run npm run build first`);
  const peers = peersFromArgs(process.argv.slice(2));
  for (const kind of peers.missing) console.error(`bench: peer ${PEER_NAMES[kind]} not timed: ${PEER_MISSING[kind]}`);
  const scratch = await mkdtemp(join(tmpdir(), "deskbook-bench-"));
  const began = performance.now();
  // Timings on a shared machine mean little without the load they were taken at.
  const loadAtStart = loadavg();
  const phase = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    process.stderr.write(`bench: ${name} … `);
    const result = await run();
    process.stderr.write(`${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    return result;
  };
  try {
    const { kernelInfoMs: startMs, executorReadyMs } = await phase("kernel start", () => benchStart(scratch));
    // Node 20 reads and parses its whole CA store at every process start when NODE_EXTRA_CA_CERTS
    // is set (some machines set it for a proxy), before any of Deskbook's code runs: the start
    // rows above keep the environment as given, these show its share.
    const noExtraCa = process.env.NODE_EXTRA_CA_CERTS
      ? await phase("kernel start without NODE_EXTRA_CA_CERTS", () => benchStart(scratch, { NODE_EXTRA_CA_CERTS: undefined }))
      : undefined;
    const {
      deskbook: roundTripMs,
      floor: floorRoundTripMs,
      relay: relayRoundTripMs,
      thread: threadRoundTripMs,
      design: designRoundTripMs,
      cpuUs,
      ...peerRoundTrips
    } = await phase(`execute round trip, Deskbook, a kernel doing no work, that kernel with an IPC hop, with a thread hop, and with an IPC hop and the protocol's messages${peers.installed.map((k) => `, ${PEER_NAMES[k]}`).join("")}, in turn`, () => benchRoundTrips(scratch, peers.installed));
    const fresh = await phase("fresh kernel: first cell, memory", () => benchFreshKernel(scratch));
    const topLevel = await phase("top-level code speed", () => benchTopLevel(scratch));
    const peerResults: PeerResult[] = [];
    for (const kind of peers.installed) {
      const peerTopLevel = await phase(`top-level code speed, ${PEER_NAMES[kind]}`, () => benchTopLevel(scratch, kind));
      peerResults.push({ kind, roundTripMs: peerRoundTrips[kind], cpuUs: cpuUs[kind], topLevel: peerTopLevel });
    }
    const interruptMs = await phase("interrupt latency", () => benchInterrupt(scratch));
    const escapeMs = await phase("Escape latency", () => benchEscape(scratch));
    const hasProc = existsSync("/proc/self/status");
    const rss = hasProc ? await phase("RSS over 1000 cells", () => benchRss(scratch)) : [];

    const startMedian = median(startMs);
    const p50 = percentile(roundTripMs, 50);
    const floorP50 = percentile(floorRoundTripMs, 50);
    const floorRatio = p50 / floorP50;
    const relayP50 = percentile(relayRoundTripMs, 50);
    const threadP50 = percentile(threadRoundTripMs, 50);
    const designP50 = percentile(designRoundTripMs, 50);
    const p95 = percentile(roundTripMs, 95);
    const interruptMedian = median(interruptMs);
    const escapeMedian = median(escapeMs);
    const last = rss.at(-1);
    const xs = rss.map((s) => s.cells);
    const kernelSlope = rss.length ? slope(xs, rss.map((s) => s.kernelKiB)) * 1000 : null;
    const executorSlope = rss.length ? slope(xs, rss.map((s) => s.executorKiB)) * 1000 : null;
    const executorHeapSlope = rss.length ? slope(xs, rss.map((s) => s.executorHeapKiB)) * 1000 : null;
    const slopeTarget = `< ${RSS_SLOPE_LIMIT_KIB} KiB/1000 cells (no growth trend)`;
    const slopeVerdict = (s: number | null): Row["verdict"] => (s === null ? "-" : s < RSS_SLOPE_LIMIT_KIB ? "ok" : "MISS");

    const rows: Row[] = [
      { metric: `kernel start, spawn → kernel_info_reply (median of ${START_RUNS})`, value: startMedian, unit: "ms", target: `≤ ${START_TARGET_MS} ms`, verdict: atMost(startMedian, START_TARGET_MS) },
      { metric: `executor ready: spawn → first cell's execute_reply (median of ${START_RUNS})`, value: median(executorReadyMs), unit: "ms", target: `≤ ${EXECUTOR_READY_TARGET_MS} ms`, verdict: atMost(median(executorReadyMs), EXECUTOR_READY_TARGET_MS) },
      ...(noExtraCa
        ? [
            { metric: `  the same, NODE_EXTRA_CA_CERTS unset (set here): kernel start (median of ${START_RUNS})`, value: median(noExtraCa.kernelInfoMs), unit: "ms", target: "-", verdict: "-" },
            { metric: `  the same, NODE_EXTRA_CA_CERTS unset (set here): executor ready (median of ${START_RUNS})`, value: median(noExtraCa.executorReadyMs), unit: "ms", target: "-", verdict: "-" },
          ] satisfies Row[]
        : []),
      { metric: `execute round trip p50 (${ROUND_TRIP_CELLS} cells)`, value: p50, unit: "ms", target: `≤ ${ROUND_TRIP_P50_TARGET_MS} ms`, verdict: atMost(p50, ROUND_TRIP_P50_TARGET_MS) },
      { metric: `execute round trip p50, kernel doing no work (${ROUND_TRIP_CELLS} cells)`, value: floorP50, unit: "ms", target: "-", verdict: "-" },
      { metric: "execute round trip p50: Deskbook / kernel doing no work", value: floorRatio, unit: "×", target: `≤ ${ROUND_TRIP_FLOOR_RATIO_TARGET}×`, verdict: atMost(floorRatio, ROUND_TRIP_FLOOR_RATIO_TARGET) },
      // What two processes cost at the least: where the ratio above can go with an executor process.
      { metric: `execute round trip p50, kernel doing no work + one IPC hop each way (${ROUND_TRIP_CELLS} cells)`, value: relayP50, unit: "ms", target: "-", verdict: "-" },
      { metric: "  that / kernel doing no work", value: relayP50 / floorP50, unit: "×", target: "-", verdict: "-" },
      { metric: "  Deskbook / that", value: p50 / relayP50, unit: "×", target: "-", verdict: "-" },
      // What an executor in the kernel's process (a worker thread) would cost at the least.
      { metric: `execute round trip p50, kernel doing no work + one worker-thread hop each way (${ROUND_TRIP_CELLS} cells)`, value: threadP50, unit: "ms", target: "-", verdict: "-" },
      { metric: "  that / kernel doing no work", value: threadP50 / floorP50, unit: "×", target: "-", verdict: "-" },
      { metric: "  that / the IPC hop's", value: threadP50 / relayP50, unit: "×", target: "-", verdict: "-" },
      // The target's ratio for a kernel of this design doing nothing beyond what the protocol asks.
      { metric: `execute round trip p50, one IPC hop each way + execute_input and execute_result, no work (${ROUND_TRIP_CELLS} cells)`, value: designP50, unit: "ms", target: "-", verdict: "-" },
      { metric: "  that / kernel doing no work", value: designP50 / floorP50, unit: "×", target: "-", verdict: "-" },
      { metric: "  Deskbook / that", value: p50 / designP50, unit: "×", target: "-", verdict: "-" },
      { metric: `execute round trip p95 (${ROUND_TRIP_CELLS} cells)`, value: p95, unit: "ms", target: "-", verdict: "-" },
      // CPU, not wall time: on a loaded machine the p50 is mostly waits for a core (docs/design.md).
      { metric: `CPU per cell, kernel + executor, every thread (median of ${cpuUs.deskbook.length} turns)`, value: median(cpuUs.deskbook), unit: "µs", target: "-", verdict: "-" },
      { metric: "  the same, kernel doing no work", value: median(cpuUs.floor), unit: "µs", target: "-", verdict: "-" },
      { metric: "  the same, kernel doing no work + one IPC hop each way (its child too)", value: median(cpuUs.relay), unit: "µs", target: "-", verdict: "-" },
      { metric: "  the same, kernel doing no work + one worker-thread hop each way (its worker too)", value: median(cpuUs.thread), unit: "µs", target: "-", verdict: "-" },
      { metric: "  the same, one IPC hop each way + execute_input and execute_result (its child too)", value: median(cpuUs.design), unit: "µs", target: "-", verdict: "-" },
      { metric: "  Deskbook / kernel doing no work", value: median(cpuUs.deskbook) / median(cpuUs.floor), unit: "×", target: "-", verdict: "-" },
      ...topLevelRows(topLevel),
      ...peerResults.flatMap((peer) => peerRows(peer, { roundTripP50: p50, floorP50, topLevel })),
      { metric: `interrupt latency (median of ${INTERRUPT_RUNS})`, value: interruptMedian, unit: "ms", target: `≤ ${INTERRUPT_TARGET_MS} ms`, verdict: atMost(interruptMedian, INTERRUPT_TARGET_MS) },
      { metric: `Escape → spinning cell stopped (median of ${ESCAPE_RUNS})`, value: escapeMedian, unit: "ms", target: `≤ ${ESCAPE_TARGET_MS} ms`, verdict: atMost(escapeMedian, ESCAPE_TARGET_MS) },
      ...freshKernelRows(fresh),
      { metric: `kernel RSS after ${RSS_CELLS} cells`, value: last ? last.kernelKiB : null, unit: "KiB", target: "-", verdict: "-" },
      { metric: `executor RSS after ${RSS_CELLS} cells`, value: last ? last.executorKiB : null, unit: "KiB", target: "-", verdict: "-" },
      { metric: "kernel RSS slope", value: kernelSlope, unit: "KiB/1000 cells", target: slopeTarget, verdict: slopeVerdict(kernelSlope) },
      // The executor's RSS keeps rising for ~16 000 cells while V8 sizes its young generation,
      // then levels off (~107 MB); its post-GC heap is the leak signal, so that row carries the verdict.
      { metric: "executor RSS slope (heap sizing, see next row)", value: executorSlope, unit: "KiB/1000 cells", target: "-", verdict: "-" },
      { metric: "executor heap after GC slope", value: executorHeapSlope, unit: "KiB/1000 cells", target: slopeTarget, verdict: slopeVerdict(executorHeapSlope) },
    ];

    console.log();
    printTable(rows);
    for (const kind of peers.missing) console.log(`\npeer ${PEER_NAMES[kind]} not timed: ${PEER_MISSING[kind]}`);
    if (rss.length) {
      console.log(`\nRSS samples (KiB): ${rss.map((s) => `${s.cells} cells: kernel ${s.kernelKiB}, executor ${s.executorKiB} (heap after GC ${s.executorHeapKiB})`).join("; ")}`);
    }
    const misses = rows.filter((r) => r.verdict === "MISS").length;
    const totalS = (performance.now() - began) / 1000;
    const load = (l: number[]): string => l.map((v) => v.toFixed(2)).join(" ");
    console.log(`\nload average (1, 5, 15 min) at the start: ${load(loadAtStart)}, at the end: ${load(loadavg())} (${cpus().length} CPUs)`);
    console.log(`${misses ? `${misses} target(s) missed` : "all targets met"}; bench took ${totalS.toFixed(1)} s; results in bench/results.json`);

    const results = {
      generatedAt: new Date().toISOString(),
      environment: { node: process.version, platform: `${process.platform}-${process.arch}`, cpus: cpus().length, cpuModel: cpus()[0]?.model, loadavg: loadavg(), loadavgAtStart: loadAtStart, kernelNodeArgs: process.env.BENCH_KERNEL_NODE_ARGS ?? "" },
      rows: rows.map((r) => ({ ...r, value: r.value === null ? null : round(r.value) })),
      samples: {
        startMs: startMs.map((v) => round(v)),
        executorReadyMs: executorReadyMs.map((v) => round(v)),
        roundTripMs: summary(roundTripMs),
        floorRoundTripMs: summary(floorRoundTripMs),
        relayRoundTripMs: summary(relayRoundTripMs),
        threadRoundTripMs: summary(threadRoundTripMs),
        designRoundTripMs: summary(designRoundTripMs),
        freshKernel: fresh,
        topLevel: topLevel.map((t) => ({ name: t.name, topLevelMs: t.topLevelMs.map((v) => round(v)), inFunctionMs: t.inFunctionMs.map((v) => round(v)) })),
        peers: peerResults.map((p) => ({ kind: p.kind, roundTripMs: summary(p.roundTripMs), cpuUs: p.cpuUs.map((v) => round(v)), topLevel: p.topLevel.map((t) => ({ name: t.name, topLevelMs: t.topLevelMs.map((v) => round(v)), inFunctionMs: t.inFunctionMs.map((v) => round(v)) })) })),
        peersNotInstalled: peers.missing,
        interruptMs: interruptMs.map((v) => round(v)),
        rss,
      },
      durationSeconds: round(totalS, 1),
    };
    await writeFile(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
    return 0;
  } finally {
    await Promise.all([...running].map((k) => k.stop()));
    await rm(scratch, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  async (error: unknown) => {
    console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await Promise.all([...running].map((k) => k.stop()));
    process.exit(1);
  },
);
