// Which apps exist: running ones (AT-SPI applications and owners of managed X11 windows, named
// through /proc and their desktop entry) and installed ones (.desktop files). Answers listApps,
// resolveApp, the target of launch, and the identity the gate checks for a pid.
import { existsSync, realpathSync } from "node:fs";
import { basename } from "node:path";
import { DeskError } from "../../src/helper/desk-error.js";
import type { AppInfo, LaunchParams } from "../../src/helper/protocol.js";
import { desktopEntries, findProgram, programName, readEntry, type DesktopEntry } from "./desktop-entries.js";
import type { PolicyApp } from "./policy.js";
import { processInfo, processNames, type ProcessInfo } from "./proc-info.js";
import type { Services } from "./services.js";
import { pidOfActiveWindow, windowOwnerPids } from "./windows.js";

/** An app with what the helper knows beyond AppInfo. */
export interface AppRecord {
  info: AppInfo;
  entry?: DesktopEntry;
  process?: ProcessInfo;
}

/** Interpreters whose first argument names the app (`python3 /usr/bin/terminator`). */
const INTERPRETERS = /^(python[\d.]*|perl[\d.]*|ruby[\d.]*|node|nodejs|gjs|lua[\d.]*|sh|bash|dash)$/;
const HELPER_ENTRY = /helper\/linux\/main\.js$/;

export class AppCatalog {
  constructor(private readonly services: Services) {}

  /** Running apps front to back (by their windows), then accessible ones without a window. */
  async running(): Promise<AppRecord[]> {
    const [windowPids, accessible, active] = await Promise.all([
      windowOwnerPids().catch(() => []),
      this.accessibleApps(),
      pidOfActiveWindow().catch(() => null),
    ]);
    const pids = [...new Set([...windowPids, ...accessible.keys()])].filter((pid) => pid !== process.pid);
    const records = await Promise.all(pids.map((pid) => this.describePid(pid, accessible.get(pid), active)));
    return records.filter((r): r is AppRecord => r !== null);
  }

  /** Installed apps, from desktop entries. */
  installed(): AppRecord[] {
    return desktopEntries(this.services.env).map((entry) => installedRecord(entry));
  }

  /** Running apps, then installed apps that are not running. */
  async list(): Promise<AppInfo[]> {
    const running = await this.running();
    const runningIds = new Set(running.map((r) => r.info.bundleId).filter(Boolean));
    const idle = this.installed().filter((r) => !runningIds.has(r.info.bundleId));
    return [...running, ...idle].map((r) => r.info);
  }

  /** The gate's and the log's view of a pid; not_running when no such process runs. */
  async appOfPid(pid: number): Promise<AppRecord> {
    const record = await this.describePid(pid, undefined, await pidOfActiveWindow().catch(() => null));
    if (!record) throw new DeskError("not_running", `no running app has pid ${pid}`);
    return record;
  }

  /** resolveApp: `pid:N`, a path, a desktop id, or a name; running apps win over installed ones. */
  async resolve(query: string): Promise<AppRecord> {
    const q = query.trim();
    const pid = /^pid:(\d+)$/i.exec(q);
    if (pid) return this.appOfPid(Number(pid[1])).catch(() => notFound(`no running app has pid ${pid[1]}`));
    const found = q.startsWith("/") ? await this.byPath(q) : await this.byName(q);
    return found ?? notFound(`no app matches ${JSON.stringify(query)} (try a name from listApps, a desktop id, "pid:N" or a path)`);
  }

  /** launch's target: the first of bundleId, path, name that is given. */
  async launchTarget(params: LaunchParams): Promise<AppRecord> {
    const found =
      params.bundleId !== undefined
        ? await this.byId(params.bundleId)
        : params.path !== undefined
          ? await this.byPath(params.path)
          : await this.byName(params.name ?? "");
    return found ?? notFound(`nothing to launch matches ${JSON.stringify(params)}`);
  }

  /** A running instance of the same app (same desktop entry, else same executable), if any. */
  async runningInstance(target: AppRecord): Promise<AppRecord | undefined> {
    const running = await this.running();
    if (target.info.bundleId) return running.find((r) => r.info.bundleId === target.info.bundleId);
    return running.find((r) => r.info.path !== undefined && r.info.path === target.info.path);
  }

  /** What the approval gate matches for this app. */
  identity(record: AppRecord): PolicyApp {
    const executable = record.process?.exe ? basename(record.process.exe) : record.entry ? programName(record.entry) : undefined;
    const app: PolicyApp = { name: record.info.name, aliases: record.process ? aliasesOf(record.process) : [] };
    if (record.info.bundleId) app.bundleId = record.info.bundleId;
    if (executable) app.executable = executable;
    if (record.process && isHelperProcess(record.process)) app.self = true;
    return app;
  }

  // -------------------------------------------------------------------------------------------

  private async describePid(pid: number, accessibleName: string | undefined, active: number | null): Promise<AppRecord | null> {
    const proc = await processInfo(pid);
    if (!proc) return null;
    const entry = matchEntry(proc, desktopEntries(this.services.env));
    const info: AppInfo = { name: entry?.name ?? accessibleName ?? proc.comm, running: true, pid, active: pid === active };
    if (entry) info.bundleId = entry.id;
    const path = proc.exe || entry?.executable;
    if (path) info.path = path;
    const record: AppRecord = { info, process: proc };
    if (entry) record.entry = entry;
    return record;
  }

  /** pid → AT-SPI name of every accessible app; empty when the bus is out of reach. */
  private async accessibleApps(): Promise<Map<number, string>> {
    try {
      const apps = await (await this.services.atspi()).listApplications();
      return new Map(apps.filter((a) => a.pid > 0).map((a) => [a.pid, a.name]));
    } catch {
      return new Map();
    }
  }

  private async byId(id: string): Promise<AppRecord | undefined> {
    const wanted = id.replace(/\.desktop$/i, "").toLowerCase();
    const running = (await this.running()).find((r) => r.info.bundleId?.toLowerCase() === wanted);
    if (running) return running;
    const entry = desktopEntries(this.services.env).find((e) => e.id.toLowerCase() === wanted);
    return entry ? installedRecord(entry) : undefined;
  }

  private async byName(query: string): Promise<AppRecord | undefined> {
    const wanted = query.replace(/\.desktop$/i, "").toLowerCase();
    if (wanted === "") return undefined;
    const running = (await this.running()).filter((r) => answersTo(r, wanted));
    if (running.length > 0) return onlyOne(running, query);
    const entries = desktopEntries(this.services.env);
    const byId = entries.find((e) => e.id.toLowerCase() === wanted);
    if (byId) return installedRecord(byId);
    const named = entries.filter((e) => e.name.toLowerCase() === wanted);
    if (named.length > 0) return onlyOne(named.map(installedRecord), query);
    const entry = bestEntry(entries.filter((e) => programName(e).toLowerCase() === wanted), wanted);
    if (entry) return installedRecord(entry);
    // A program on PATH with no desktop entry (xcalc, a script): runnable by its name too.
    const program = /^[\w.+-]+$/.test(query) ? findProgram(query, this.services.env) : null;
    return program ? { info: { name: basename(program), path: program, running: false } } : undefined;
  }

  /** A running executable, a .desktop file, an installed entry's program, or any executable file. */
  private async byPath(path: string): Promise<AppRecord | undefined> {
    if (path.endsWith(".desktop")) {
      // An installed entry keeps its real id; a loose file is named after itself.
      const entry = desktopEntries(this.services.env).find((e) => e.file === path) ?? readEntry(path, basename(path, ".desktop"), this.services.env);
      if (!entry) return undefined;
      return (await this.runningInstance(installedRecord(entry))) ?? installedRecord(entry);
    }
    const real = realPath(path);
    const running = (await this.running()).find((r) => r.info.path === real);
    if (running) return running;
    const entry = desktopEntries(this.services.env).find((e) => e.executable === real);
    if (entry) return installedRecord(entry);
    const program = findProgram(path, this.services.env);
    return program ? { info: { name: basename(program), path: program, running: false } } : undefined;
  }
}

/**
 * The one app a name means. Several instances of one app (same desktop id or program) are that
 * app, the frontmost first; two different apps by one name are `ambiguous`, since acting on the
 * wrong one is worse than asking for its id.
 */
function onlyOne(records: AppRecord[], query: string): AppRecord {
  const identity = (r: AppRecord): string => r.info.bundleId ?? r.info.path ?? r.info.name;
  const distinct = [...new Map(records.map((r) => [identity(r), r])).values()];
  if (distinct.length === 1) return records[0]!;
  const names = distinct.map((r) => `${r.info.name} (${r.info.bundleId ? `id ${r.info.bundleId}` : r.info.path}${r.info.pid ? `, pid:${r.info.pid}` : ""})`);
  throw new DeskError("ambiguous", `"${query}" names ${distinct.length} apps: ${names.join(", ")}; name one by its id, path or pid:N`);
}

function installedRecord(entry: DesktopEntry): AppRecord {
  return { info: { name: entry.name, bundleId: entry.id, path: entry.executable, running: false }, entry };
}

function answersTo(record: AppRecord, wanted: string): boolean {
  const names = [record.info.name, record.info.bundleId, ...(record.process ? aliasesOf(record.process) : [])];
  return names.some((n) => n !== undefined && n.toLowerCase() === wanted);
}

/** Process names, plus the script an interpreter runs. */
function aliasesOf(proc: ProcessInfo): string[] {
  const names = processNames(proc);
  const script = proc.argv[1];
  if (proc.exe && INTERPRETERS.test(basename(proc.exe)) && script && !script.startsWith("-")) names.push(basename(script));
  return [...new Set(names)];
}

/** The desktop entry a process was started from, judged by the program it runs. */
function matchEntry(proc: ProcessInfo, entries: readonly DesktopEntry[]): DesktopEntry | undefined {
  const names = new Set(aliasesOf(proc).map((n) => n.toLowerCase()));
  const candidates = entries.filter((e) => e.executable === proc.exe || names.has(programName(e).toLowerCase()) || names.has(e.id.toLowerCase()));
  return bestEntry(candidates, proc.comm.toLowerCase());
}

/** Among entries running the same program, the app's own: id named after the program, Exec without extra arguments. */
function bestEntry(entries: readonly DesktopEntry[], program: string): DesktopEntry | undefined {
  let best: DesktopEntry | undefined;
  let bestScore = -1;
  for (const entry of entries) {
    const id = entry.id.toLowerCase();
    const prog = programName(entry).toLowerCase();
    const named = id === prog || id.endsWith(`.${prog}`) || id === program ? 2 : 0;
    const score = named + (entry.argv.length === 1 ? 1 : 0);
    if (score > bestScore) [best, bestScore] = [entry, score];
  }
  return best;
}

/** The helper's own process, or another Linux helper: never a target. */
function isHelperProcess(proc: ProcessInfo): boolean {
  if (proc.pid === process.pid) return true;
  return /^node/.test(basename(proc.exe)) && proc.argv.some((arg) => HELPER_ENTRY.test(arg));
}

function realPath(path: string): string {
  try {
    return existsSync(path) ? realpathSync(path) : path;
  } catch {
    return path;
  }
}

function notFound(message: string): never {
  throw new DeskError("not_found", message);
}
