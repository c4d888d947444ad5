/**
 * What a run tells the person watching it, on stderr: on a terminal one live line per cell
 * (n/N, title, elapsed, updated every second) that becomes its result line; elsewhere one
 * plain line per finished cell; with --quiet nothing but the final failure, if any.
 */
export interface CellProgress {
  n: number;
  total: number;
  label: string;
}

/** "raised": the cell failed as its `raises-exception` tag said it would. */
export type CellEnd = "ok" | "raised" | "failed" | "stopped";

export interface Progress {
  cellStarted(cell: CellProgress): void;
  cellEnded(cell: CellProgress, end: CellEnd, ms: number): void;
  /** Lines that must reach the user even with --quiet (the failure, the summary of a failed run). */
  note(text: string): void;
  summary(text: string): void;
}

export type ProgressMode = "tty" | "plain" | "quiet";

export function progressFor(mode: ProgressMode, write: (text: string) => void): Progress {
  if (mode === "quiet") return { cellStarted: () => undefined, cellEnded: () => undefined, note: (t) => write(`${t}\n`), summary: () => undefined };
  return mode === "tty" ? ttyProgress(write) : plainProgress(write);
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

const MARK: Record<CellEnd, string> = { ok: "ok", raised: "raised", failed: "FAILED", stopped: "STOPPED" };

function head(cell: CellProgress): string {
  const width = String(cell.total).length;
  return `[${String(cell.n).padStart(width)}/${cell.total}]`;
}

function plainProgress(write: (text: string) => void): Progress {
  return {
    cellStarted: () => undefined,
    cellEnded: (cell, end, ms) => write(`${head(cell)} ${MARK[end].padEnd(7)} ${seconds(ms).padStart(7)}  ${cell.label}\n`),
    note: (text) => write(`${text}\n`),
    summary: (text) => write(`${text}\n`),
  };
}

function ttyProgress(write: (text: string) => void): Progress {
  let timer: NodeJS.Timeout | undefined;
  const clear = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };
  return {
    cellStarted: (cell) => {
      const started = Date.now();
      const draw = () => write(`\r\x1b[K${head(cell)} …       ${seconds(Date.now() - started).padStart(7)}  ${cell.label}`);
      draw();
      timer = setInterval(draw, 1000);
      timer.unref();
    },
    cellEnded: (cell, end, ms) => {
      clear();
      const mark = end === "ok" || end === "raised" ? `\x1b[32m${MARK[end].padEnd(7)}\x1b[0m` : `\x1b[31m${MARK[end].padEnd(7)}\x1b[0m`;
      write(`\r\x1b[K${head(cell)} ${mark} ${seconds(ms).padStart(7)}  ${cell.label}\n`);
    },
    note: (text) => {
      clear();
      write(`\r\x1b[K${text}\n`);
    },
    summary: (text) => write(`${text}\n`),
  };
}
