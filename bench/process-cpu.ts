/**
 * CPU time a process and its direct children have used, every thread of each: the sum of
 * the first field of /proc/<pid>/task/<tid>/schedstat (ns on a CPU). On a shared, loaded
 * machine a round trip's wall time is mostly waits for a core; what each cell costs in CPU
 * is what a change to the kernel or the executor can move (issue 12, docs/design.md).
 * Threads that ended between two readings drop out of the sum, so read around work done by
 * long-lived threads (the kernel's, the executor's, V8's and ZeroMQ's), as the bench does.
 */
import { readdir, readFile } from "node:fs/promises";

/**
 * Nanoseconds on a CPU so far: `pid` and its children but those in `skip`, all threads; 0 for a
 * process that is gone. The Linux helper is the parent of every app it launched, so what it
 * spends alone is its tree without those apps.
 */
export async function treeCpuNs(pid: number, skip: ReadonlySet<number> = new Set()): Promise<number> {
  let total = await processCpuNs(pid);
  for (const child of await childPids(pid)) if (!skip.has(child)) total += await processCpuNs(child);
  return total;
}

/** Nanoseconds on a CPU so far: `pid` alone, all its threads; 0 for a process that is gone. */
export async function processCpuNs(pid: number): Promise<number> {
  const tids = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  let total = 0;
  for (const tid of tids) {
    const text = await readFile(`/proc/${pid}/task/${tid}/schedstat`, "utf8").catch(() => "");
    total += Number(text.split(" ")[0]) || 0;
  }
  return total;
}

/**
 * Times `pid` and its children have been put on a CPU so far, all threads (the third field of
 * schedstat): over a window with no work, how often something (a timer, a poll) woke them.
 */
export async function treeWakeups(pid: number): Promise<number> {
  let total = 0;
  for (const each of [pid, ...(await childPids(pid))]) {
    for (const tid of await readdir(`/proc/${each}/task`).catch(() => [] as string[])) {
      const text = await readFile(`/proc/${each}/task/${tid}/schedstat`, "utf8").catch(() => "");
      total += Number(text.split(" ")[2]) || 0;
    }
  }
  return total;
}

async function childPids(pid: number): Promise<number[]> {
  const pids: number[] = [];
  for (const tid of await readdir(`/proc/${pid}/task`).catch(() => [] as string[])) {
    const text = await readFile(`/proc/${pid}/task/${tid}/children`, "utf8").catch(() => "");
    pids.push(...text.split(/\s+/).filter(Boolean).map(Number));
  }
  return pids;
}
