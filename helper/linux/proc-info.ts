// What /proc says about a process: its executable, name and command line. The helper uses it
// to name an app for the gate and to tell whether a pid still runs, on every gated call. The
// files are read synchronously: /proc answers from the kernel's memory without blocking, and
// fs/promises cost every read several thread-pool round trips (open, stat, read, close), about
// a tenth of the helper's CPU in a warm tree read.
import { readFileSync, readlinkSync } from "node:fs";
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

/** The process, or null when it does not exist or is a zombie (it no longer runs). */
export async function processInfo(pid: number): Promise<ProcessInfo | null> {
  const stat = readProc(`/proc/${pid}/stat`);
  if (stat === null) return null;
  const parsed = parseStat(stat);
  if (!parsed || parsed.state === "Z" || parsed.state === "X") return null;
  const exe = readLinkOrEmpty(`/proc/${pid}/exe`);
  const cmdline = readProc(`/proc/${pid}/cmdline`) ?? "";
  return { pid, exe: exe.replace(/ \(deleted\)$/, ""), comm: parsed.comm, argv: cmdline.split("\0").filter((a) => a !== ""), ppid: parsed.ppid };
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

function readLinkOrEmpty(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "";
  }
}

/** "pid (comm) state ppid …": comm may hold spaces and parentheses, so split at the last ")". */
function parseStat(text: string): { comm: string; state: string; ppid: number } | null {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  const rest = text.slice(close + 2).split(" ");
  return { comm: text.slice(open + 1, close), state: rest[0] ?? "", ppid: Number(rest[1] ?? 0) };
}
