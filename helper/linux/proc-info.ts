// What /proc says about a process: its executable, name and command line. The helper uses it
// to name an app for the gate and to tell whether a pid still runs.
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

/** The process, or null when it does not exist or is a zombie (it no longer runs). */
export async function processInfo(pid: number): Promise<ProcessInfo | null> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
  if (stat === null) return null;
  const parsed = parseStat(stat);
  if (!parsed || parsed.state === "Z" || parsed.state === "X") return null;
  const [exe, cmdline] = await Promise.all([
    readlink(`/proc/${pid}/exe`).catch(() => ""),
    readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => ""),
  ]);
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
    const info = await readFile(`/proc/${current}/stat`, "utf8").catch(() => null);
    const parsed = info === null ? null : parseStat(info);
    if (!parsed) return false;
    current = parsed.ppid;
  }
  return false;
}

/** "pid (comm) state ppid …": comm may hold spaces and parentheses, so split at the last ")". */
function parseStat(text: string): { comm: string; state: string; ppid: number } | null {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  const rest = text.slice(close + 2).split(" ");
  return { comm: text.slice(open + 1, close), state: rest[0] ?? "", ppid: Number(rest[1] ?? 0) };
}
