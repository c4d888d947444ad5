/**
 * `deskbook run`'s engine: starts a Deskbook kernel with the product's own client, runs the
 * notebook's code cells one by one, stops at the first failure, and writes the executed
 * notebook (nbformat 4) with every output, the parameters and how the run ended.
 */
import { dirname } from "node:path";
import { startKernel, type RunningKernel } from "../client/kernel-process.js";
import type { JupyterMessage } from "../jupyter/message.js";
import { loadConfig } from "../config/config.js";
import { deskbookHome } from "../config/home.js";
import { cellTitle } from "../cell-title.js";
import { cellOutputs } from "./cell-outputs.js";
import { EXIT, type ExitStatus } from "./exit-status.js";
import { hasTag, joinSource, markdownCell, writeNotebook, type Cell, type Notebook } from "./notebook.js";
import { INJECTED_TAG, injectParameters, type Parameters } from "./parameters.js";
import { seconds, type CellEnd, type Progress } from "./progress.js";
import { RunnerError } from "./runner-error.js";

export interface RunOptions {
  /** The notebook as read (not yet parameterised). */
  notebook: Notebook;
  /** Where the notebook came from: its folder is the kernel's working directory. */
  inputPath: string;
  outPath: string;
  parameters: Parameters;
  /** Per-cell time limit in ms; default config.json's timeoutMs. */
  timeoutMs?: number;
  /** Start apps with fresh profiles by default (desk.getApp's `fresh`). */
  fresh: boolean;
  progress: Progress;
  /** Extra environment for the kernel (tests). */
  env?: NodeJS.ProcessEnv;
}

export interface FailedCell {
  /** The cell's execution count in the output notebook: `[n]`. */
  n: number;
  title: string | undefined;
  ename: string;
  evalue: string;
}

export interface RunResult {
  status: ExitStatus;
  /** One line saying how the run ended (also printed). */
  message: string;
  ran: number;
  total: number;
  failed?: FailedCell;
}

/** nbclient's tag for a cell whose error is part of the story: the run goes on. */
const RAISES_TAG = "raises-exception";

/** How long past the cell's own limit the client waits before calling the kernel dead: the stop path needs up to 5 s. */
const STOP_GRACE_MS = 15_000;

export async function runNotebook(options: RunOptions): Promise<RunResult> {
  const started = Date.now();
  const nb = injectParameters(options.notebook, options.parameters);
  // Outputs of an earlier run must not pass for this run's (cells after a failure stay empty).
  for (const cell of nb.cells) if (cell.cell_type === "code") Object.assign(cell, { outputs: [], execution_count: null });
  const cells = nb.cells.filter((c) => c.cell_type === "code" && joinSource(c.source).trim() !== "");
  const limitMs = options.timeoutMs ?? loadConfig(deskbookHome({ ...process.env, ...options.env })).timeoutMs;
  let kernel: RunningKernel;
  try {
    kernel = await startKernel({ cwd: dirname(options.inputPath), env: kernelEnv(options) });
  } catch (error) {
    return finish(nb, options, started, { status: EXIT.kernelDied, message: `kernel_failed: the kernel did not start: ${(error as Error).message}`, ran: 0, total: cells.length });
  }
  try {
    nb.metadata.language_info = await languageInfo(kernel);
    const result = await runCells(kernel, cells, limitMs, options.progress);
    return await finish(nb, options, started, result);
  } finally {
    await shutDown(kernel);
  }
}

/** How long the kernel may take to close the apps the run started (each at most ~8 s, in parallel). */
const SHUTDOWN_MS = 20_000;

/** shutdown_request, so the session closes its apps gracefully, then the process ends for sure. */
async function shutDown(kernel: RunningKernel): Promise<void> {
  const exited = kernel.exited.then(() => true);
  const timer = new Promise<false>((resolve) => setTimeout(() => resolve(false), SHUTDOWN_MS).unref());
  try {
    await kernel.client.request("control", "shutdown_request", { restart: false }, { timeoutMs: 5000 });
    await Promise.race([exited, timer]);
  } catch {
    // no answer: stop() ends it
  }
  await kernel.stop();
}

function kernelEnv(options: RunOptions): NodeJS.ProcessEnv {
  // --timeout becomes the session's limit inside the kernel, so its one stop path enforces it.
  return {
    DESKBOOK_CLIENT: "deskbook run",
    DESKBOOK_FRESH_APPS: options.fresh ? "1" : "0",
    ...(options.timeoutMs !== undefined && { DESKBOOK_TIME_LIMIT_MS: String(options.timeoutMs) }),
    ...options.env,
  };
}

async function runCells(kernel: RunningKernel, cells: Cell[], limitMs: number, progress: Progress): Promise<RunResult> {
  const total = cells.length;
  for (const [i, cell] of cells.entries()) {
    const n = i + 1;
    const title = cellTitle(joinSource(cell.source));
    const info = { n, total, label: label(cell, title) };
    progress.cellStarted(info);
    const began = Date.now();
    const outcome = await executeCell(kernel, cell, n, limitMs);
    const expected = outcome.kind === "error" && hasTag(cell, RAISES_TAG);
    const end: CellEnd = outcome.kind === "ok" ? "ok" : expected ? "raised" : outcome.kind === "error" && outcome.ename === "Stopped" ? "stopped" : "failed";
    progress.cellEnded(info, end, Date.now() - began);
    if (outcome.kind === "died") {
      return { status: EXIT.kernelDied, message: `kernel_died: the kernel ${outcome.how} while cell ${n}${quoted(title)} ran${outcome.log}`, ran: i, total };
    }
    if (outcome.kind === "error" && !expected) {
      const failed: FailedCell = { n, title, ename: outcome.ename, evalue: outcome.evalue };
      markFailed(cell, failed);
      return { status: EXIT.cellFailed, message: `cell ${n}${quoted(title)} failed: ${errorLine(outcome.ename, outcome.evalue)}`, ran: i, total, failed };
    }
  }
  return { status: EXIT.ok, message: `${total} cell${total === 1 ? "" : "s"} ran`, ran: total, total };
}

type CellOutcome = { kind: "ok" } | { kind: "error"; ename: string; evalue: string } | { kind: "died"; how: string; log: string };

async function executeCell(kernel: RunningKernel, cell: Cell, n: number, limitMs: number): Promise<CellOutcome> {
  const code = joinSource(cell.source);
  const exited = kernel.exited.then((e) => ({ died: e }));
  let reply: JupyterMessage;
  let iopub: JupyterMessage[];
  try {
    const done = kernel.client.execute(code, { timeoutMs: limitMs + STOP_GRACE_MS, stop_on_error: true, allow_stdin: false });
    const first = await Promise.race([done, exited]);
    if ("died" in first) {
      done.catch(() => undefined);
      const how = first.died.signal ? `was killed by ${first.died.signal}` : `exited with status ${first.died.code}`;
      return { kind: "died", how, log: logTail(kernel.stderr()) };
    }
    ({ reply, iopub } = first);
  } catch (error) {
    return { kind: "died", how: `stopped answering (${(error as Error).message})`, log: logTail(kernel.stderr()) };
  }
  cell.outputs = cellOutputs(iopub);
  const content = reply.content as { status?: string; execution_count?: number; ename?: string; evalue?: string };
  cell.execution_count = typeof content.execution_count === "number" ? content.execution_count : n;
  if (content.status === "ok") return { kind: "ok" };
  return { kind: "error", ename: content.ename ?? "Error", evalue: content.evalue ?? "" };
}

/** The failing cell carries the failure in its metadata and a `failed` tag; a note above it says so in any frontend. */
function markFailed(cell: Cell, failed: FailedCell): void {
  cell.metadata.tags = [...(cell.metadata.tags ?? []).filter((t) => t !== "failed"), "failed"];
  cell.metadata.deskbook = { ...(cell.metadata.deskbook as object | undefined), failed: { ename: failed.ename, evalue: failed.evalue } };
}

async function finish(nb: Notebook, options: RunOptions, started: number, result: RunResult): Promise<RunResult> {
  const failedId = result.failed ? nb.cells.find((c) => c.metadata.tags?.includes("failed"))?.id : undefined;
  if (failedId) {
    const at = nb.cells.findIndex((c) => c.id === failedId);
    nb.cells.splice(at, 0, markdownCell(`**deskbook run stopped here:** ${escapeMarkdown(result.message)}`, ["deskbook-failure"]));
  }
  nb.metadata.deskbook = {
    ...(nb.metadata.deskbook as object | undefined),
    run: {
      status: result.status === EXIT.ok ? "ok" : result.status === EXIT.cellFailed ? "failed" : "kernel_died",
      exitStatus: result.status,
      message: result.message,
      ran: result.ran,
      total: result.total,
      started: new Date(started).toISOString(),
      seconds: Number(((Date.now() - started) / 1000).toFixed(3)),
      ...(result.failed && { failedCell: result.failed }),
    },
  };
  try {
    await writeNotebook(options.outPath, nb);
  } catch (error) {
    throw new RunnerError("usage", `cannot write ${options.outPath}: ${(error as Error).message}`);
  }
  const line = `${result.message} in ${seconds(Date.now() - started)}; wrote ${options.outPath}`;
  if (result.status === EXIT.ok) options.progress.summary(line);
  else options.progress.note(`deskbook run: ${line}`);
  return result;
}

async function languageInfo(kernel: RunningKernel): Promise<unknown> {
  const reply = await kernel.client.request("shell", "kernel_info_request", {});
  return (reply.content as { language_info?: unknown }).language_info;
}

function label(cell: Cell, title: string | undefined): string {
  if (cell.metadata.tags?.includes(INJECTED_TAG)) return title ?? "injected parameters";
  return title ?? firstLine(joinSource(cell.source));
}

function firstLine(source: string): string {
  const line = source.trim().split("\n")[0] ?? "";
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

/** "TypeError: …", or just the value when it already starts with the name ("Stopped: …"). */
function errorLine(ename: string, evalue: string): string {
  return evalue.startsWith(`${ename}:`) ? evalue : `${ename}: ${evalue}`;
}

function quoted(title: string | undefined): string {
  return title ? ` ("${title}")` : "";
}

function logTail(log: string): string {
  const lines = log.trimEnd().split("\n").slice(-10).join("\n");
  return lines ? `; the kernel's last log lines:\n${lines}` : "";
}

function escapeMarkdown(text: string): string {
  return text.replace(/([\\`*_[\]<>])/g, "\\$1");
}
