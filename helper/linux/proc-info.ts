// What /proc says about a process: its executable, name and command line. The helper uses it
// to name an app for the gate and to tell whether a pid still runs, on every gated call. Only
// /proc/<pid>/stat is read per call, synchronously (cheap, and it answers without the target's
// memory lock). exe and cmdline are read once per process, asynchronously, and kept by (pid,
// start time, name): reading cmdline takes the target's memory lock and waits while it is held
// (a process stuck in a page fault on a hung network mount), which must not freeze the helper.
// The name is in the key because exec keeps the pid and the start time but not the name.
import { readFileSync } from "node:fs";
import { readFile, readlink } from "node:fs/promises";
import { basename } from "node:path";

export interface ProcessInfo {
  pid: number;
  /** Absolute path of the executable ("" when /proc hides it). */
  exe: string;
  /** The kernel's process name (at most 15 characters). */
  comm: string;
  argv: string[];
  ppid: number;
}

interface Fixed {
  start: string;
  comm: string;
  read: Promise<{ exe: string; argv: string[] }>;
}

const MAX_KNOWN = 4096;
const known = new Map<number, Fixed>();

/** The process, or null when it does not exist or is a zombie (it no longer runs). */
export async function processInfo(pid: number): Promise<ProcessInfo | null> {
  const stat = readProc(`/proc/${pid}/stat`);
  const parsed = stat === null ? null : parseStat(stat);
  if (!parsed || parsed.state === "Z" || parsed.state === "X") {
    known.delete(pid);
    return null;
  }
  let fixed = known.get(pid);
  if (!fixed || fixed.start !== parsed.start || fixed.comm !== parsed.comm) {
    fixed = { start: parsed.start, comm: parsed.comm, read: readFixed(pid) };
    known.delete(pid);
    if (known.size >= MAX_KNOWN) known.delete(known.keys().next().value as number);
    known.set(pid, fixed);
  }
  const { exe, argv } = await fixed.read;
  return { pid, exe, comm: parsed.comm, argv, ppid: parsed.ppid };
}

async function readFixed(pid: number): Promise<{ exe: string; argv: string[] }> {
  const [exe, cmdline] = await Promise.all([readlink(`/proc/${pid}/exe`).catch(() => ""), readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")]);
  return { exe: exe.replace(/ \(deleted\)$/, ""), argv: cmdline.split("\0").filter((a) => a !== "") };
}

/** Names a process answers to: executable basename, process name, argv[0] basename. */
export function processNames(info: ProcessInfo): string[] {
  const names = [info.exe ? basename(info.exe) : "", info.comm, info.argv[0] ? basename(info.argv[0]) : ""];
  return [...new Set(names.filter((n) => n !== ""))];
}

/** True when `pid` is `ancestor` or one of its descendants. */
export async function descendsFrom(pid: number, ancestor: number): Promise<boolean> {
  let current = pid;
  for (let hops = 0; hops < 32 && current > 1; hops++) {
    if (current === ancestor) return true;
    const info = readProc(`/proc/${current}/stat`);
    const parsed = info === null ? null : parseStat(info);
    if (!parsed) return false;
    current = parsed.ppid;
  }
  return false;
}

function readProc(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/** "pid (comm) state ppid … starttime(22) …": comm may hold spaces and parentheses, so split at the last ")". */
function parseStat(text: string): { comm: string; state: string; ppid: number; start: string } | null {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  const rest = text.slice(close + 2).split(" ");
  return { comm: text.slice(open + 1, close), state: rest[0] ?? "", ppid: Number(rest[1] ?? 0), start: rest[19] ?? "" };
}
