// CPU time per call of a desk verb, for the Linux bench's rows: the helper's, this process's
// (the desk API's, as a kernel's executor would spend it) and, where given, the app's own.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { round, type Row } from "./report.js";

/** CPU time per call, in ms. */
export interface CallCpu {
  helper: number;
  client: number;
  /** The app's process (its main process only), when asked for. */
  app?: number;
}

export async function cpuPerCall(helperPid: number, runs: number, body: () => Promise<unknown>, appPid?: number): Promise<CallCpu> {
  const [helper0, client0, app0] = [processCpuMs(helperPid), process.cpuUsage(), appPid ? processCpuMs(appPid) : 0];
  for (let k = 0; k < runs; k++) await body();
  const client = process.cpuUsage(client0);
  const cpu: CallCpu = { helper: round((processCpuMs(helperPid) - helper0) / runs), client: round((client.user + client.system) / 1000 / runs) };
  if (appPid) cpu.app = round((processCpuMs(appPid) - app0) / runs);
  return cpu;
}

/** The row's value is the helper's and this process's time; the app's is named beside them. */
export function cpuRow(what: string, cpu: CallCpu, app = "the app"): Row {
  const appPart = cpu.app === undefined ? "" : `; ${app} ${cpu.app.toFixed(1)} ms`;
  return { metric: `${what}, CPU time per call (mean): helper + this process, ${cpu.helper.toFixed(1)} + ${cpu.client.toFixed(1)} ms${appPart}`, value: cpu.helper + cpu.client, unit: "ms", target: "-", verdict: "-" };
}

const CLOCK_TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/** A process's user + system CPU time so far, in ms, from /proc (clock-tick resolution: average over many calls). */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}
