/**
 * What the benches share: timing loops, the statistics they report, and the table they print.
 * One copy, so the three benches measure and print by the same rules.
 */
import { performance } from "node:perf_hooks";

/** One line of a bench's table and of its JSON results file. */
export interface Row {
  metric: string;
  value: number | null;
  unit: string;
  target: string;
  verdict: "ok" | "MISS" | "-";
}

// ---------------------------------------------------------------------------
// Timing: `warmup` untimed runs first, because what runs in a long-lived process is steady state.

export function timeSync(runs: number, warmup: number, body: () => void): number[] {
  for (let k = 0; k < warmup; k++) body();
  const times: number[] = [];
  for (let k = 0; k < runs; k++) {
    const t0 = performance.now();
    body();
    times.push(performance.now() - t0);
  }
  return times;
}

export async function timeAsync(runs: number, warmup: number, body: () => Promise<unknown>): Promise<number[]> {
  for (let k = 0; k < warmup; k++) await body();
  const times: number[] = [];
  for (let k = 0; k < runs; k++) {
    const t0 = performance.now();
    await body();
    times.push(performance.now() - t0);
  }
  return times;
}

/** Wall and CPU time of each run, in ms. CPU is this process's, every thread's (sharp's workers too). */
export interface Timed {
  wall: number[];
  cpu: number[];
}

/**
 * timeAsync with the CPU time each run took: on a shared, loaded machine wall time measures
 * the queue for a core as much as the work, and CPU time says which it was.
 */
export async function timeAsyncCpu(runs: number, warmup: number, body: () => Promise<unknown>): Promise<Timed> {
  for (let k = 0; k < warmup; k++) await body();
  const timed: Timed = { wall: [], cpu: [] };
  for (let k = 0; k < runs; k++) {
    const [c0, t0] = [process.cpuUsage(), performance.now()];
    await body();
    const c = process.cpuUsage(c0);
    timed.wall.push(performance.now() - t0);
    timed.cpu.push((c.user + c.system) / 1000);
  }
  return timed;
}

// ---------------------------------------------------------------------------
// Statistics

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

/** Least-squares slope of y over x. */
export function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return num / den;
}

/** Rounds for the JSON results: 3 digits is a microsecond on a millisecond figure. */
export function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function atMost(value: number, limit: number): Row["verdict"] {
  return value <= limit ? "ok" : "MISS";
}

// ---------------------------------------------------------------------------
// Printing

/**
 * One rule for every bench. Milliseconds: 3 decimals below 10 ms, where a microsecond
 * matters, and 2 above, which the desk and Linux benches printed before sharing this.
 * KiB (sizes, RSS and RSS slopes) and plain counts: whole numbers, a fraction of a KiB is
 * noise. Any other unit: 2 decimals.
 */
export function formatValue(row: Row): string {
  if (row.value === null) return "n/a";
  const whole = row.unit === "" || row.unit === "KiB" || row.unit.startsWith("KiB/");
  const digits = row.unit === "ms" ? (row.value < 10 ? 3 : 2) : whole ? 0 : 2;
  return `${row.value.toFixed(digits)}${row.unit ? ` ${row.unit}` : ""}`;
}

/** A Markdown table, values right-aligned so their decimals line up. */
export function printTable(rows: readonly Row[]): void {
  const cells = rows.map((r) => [r.metric, formatValue(r), r.target, r.verdict]);
  const header = ["metric", "value", "target", "verdict"];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]): string =>
    `| ${c.map((s, i) => (i === 1 ? s.padStart(widths[i]!) : s.padEnd(widths[i]!))).join(" | ")} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const c of cells) console.log(line(c));
}
