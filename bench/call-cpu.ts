// CPU time per call of a desk verb, for the Linux bench's rows: the helper's, this process's
// (the desk API's, as a kernel's executor would spend it) and, where given, the app's own.
import { processCpuNs, treeCpuNs } from "./process-cpu.js";
import { round, type Row } from "./report.js";

/** CPU time per call, in ms. */
export interface CallCpu {
  helper: number;
  client: number;
  /** The app's process (its main process only), when asked for. */
  app?: number;
}

/** The helper process, and the apps it launched (its children, whose time is not the helper's). */
export interface HelperProcess {
  pid: number;
  apps: () => number[];
}

/**
 * The helper's time counts every thread and its children but the apps (process-cpu.ts); the
 * app's its main process only.
 */
export async function cpuPerCall(helper: HelperProcess, runs: number, body: () => Promise<unknown>, appPid?: number): Promise<CallCpu> {
  const skip = new Set(helper.apps());
  const helperPid = helper.pid;
  const [helper0, app0] = [await treeCpuNs(helperPid, skip), appPid ? await processCpuNs(appPid) : 0];
  const client0 = process.cpuUsage();
  for (let k = 0; k < runs; k++) await body();
  const client = process.cpuUsage(client0);
  const ms = (ns: number): number => round(ns / 1e6 / runs);
  const cpu: CallCpu = { helper: ms((await treeCpuNs(helperPid, skip)) - helper0), client: round((client.user + client.system) / 1000 / runs) };
  if (appPid) cpu.app = ms((await processCpuNs(appPid)) - app0);
  return cpu;
}

/** The row's value is the helper's and this process's time; the app's is named beside them. */
export function cpuRow(what: string, cpu: CallCpu, app = "the app"): Row {
  const appPart = cpu.app === undefined ? "" : `; ${app} ${cpu.app.toFixed(1)} ms`;
  return { metric: `${what}, CPU time per call (mean): helper + this process, ${cpu.helper.toFixed(1)} + ${cpu.client.toFixed(1)} ms${appPart}`, value: cpu.helper + cpu.client, unit: "ms", target: "-", verdict: "-" };
}
