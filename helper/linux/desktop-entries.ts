// Installed apps: the .desktop files in the XDG data directories (Desktop Entry Specification).
// The desktop file id ("galculator", "org.xfce.mousepad") is what the protocol calls bundleId.
import { accessSync, constants, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, isAbsolute, join } from "node:path";

export interface DesktopEntry {
  /** Desktop file id without ".desktop": the path below applications/ with "/" turned into "-". */
  id: string;
  name: string;
  /** Exec split into arguments, field codes (%f, %U, …) removed. */
  argv: string[];
  /** The program Exec runs, as an absolute path when found on PATH (resolved through links). */
  executable: string;
  /** The .desktop file. */
  file: string;
  /** Working directory (the Path key), when set. */
  cwd?: string;
}

const CACHE_MS = 5_000;
let cached: { at: number; key: string; entries: DesktopEntry[] } | null = null;

/** Every launchable app, one per id; a user's entry hides a system one with the same id. */
export function desktopEntries(env: NodeJS.ProcessEnv = process.env): DesktopEntry[] {
  const dirs = applicationDirs(env);
  const key = `${dirs.join(":")}|${env.PATH ?? ""}`;
  if (cached && cached.key === key && Date.now() - cached.at < CACHE_MS) return cached.entries;
  const byId = new Map<string, DesktopEntry>();
  for (const dir of dirs) {
    for (const file of desktopFiles(dir)) {
      const id = file.slice(dir.length + 1, -".desktop".length).replaceAll("/", "-");
      if (byId.has(id)) continue;
      const entry = readEntry(file, id, env);
      if (entry) byId.set(id, entry);
    }
  }
  const entries = [...byId.values()];
  cached = { at: Date.now(), key, entries };
  return entries;
}

/** $XDG_DATA_HOME then $XDG_DATA_DIRS, each with applications/ (the spec's precedence order). */
export function applicationDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || homedir();
  const dataHome = env.XDG_DATA_HOME || join(home, ".local/share");
  const dataDirs = (env.XDG_DATA_DIRS || "/usr/local/share:/usr/share").split(":").filter((d) => isAbsolute(d));
  return [...new Set([dataHome, ...dataDirs].map((d) => join(d, "applications")))];
}

/** One .desktop file; null when it is not a visible, launchable application. */
export function readEntry(file: string, id: string, env: NodeJS.ProcessEnv = process.env): DesktopEntry | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return null;
  }
  const keys = mainGroup(text);
  if (keys.get("Type") !== "Application" || keys.get("Hidden") === "true" || keys.get("NoDisplay") === "true") return null;
  // A terminal app runs inside a terminal emulator, which is blocked: nothing to drive.
  if (keys.get("Terminal") === "true") return null;
  const argv = parseExec(keys.get("Exec") ?? "");
  const program = programOf(argv);
  if (!program) return null;
  const tryExec = keys.get("TryExec");
  if (tryExec && !findProgram(tryExec, env)) return null;
  const executable = findProgram(program, env);
  if (!executable) return null;
  const entry: DesktopEntry = { id, name: keys.get("Name") || id, argv, executable, file };
  const cwd = keys.get("Path");
  if (cwd) entry.cwd = cwd;
  return entry;
}

/** The [Desktop Entry] group's plain keys (localized ones like Name[de] are skipped). */
function mainGroup(text: string): Map<string, string> {
  const keys = new Map<string, string>();
  let inMain = false;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("[")) {
      inMain = line === "[Desktop Entry]";
      continue;
    }
    const eq = line.indexOf("=");
    if (!inMain || line.startsWith("#") || eq < 1) continue;
    const key = line.slice(0, eq).trim();
    if (!keys.has(key)) keys.set(key, unescapeValue(line.slice(eq + 1).trim()));
  }
  return keys;
}

function unescapeValue(value: string): string {
  return value.replace(/\\([sntr\\])/g, (_, c: string) => ({ s: " ", n: "\n", t: "\t", r: "\r", "\\": "\\" })[c] ?? c);
}

/**
 * Exec → argv: double-quoted arguments with \" \` \$ \\ escapes, field codes dropped (a
 * launcher with no files to open passes none), "%%" kept as "%".
 */
export function parseExec(exec: string): string[] {
  const args: string[] = [];
  let current = "";
  let started = false;
  let quoted = false;
  for (let i = 0; i < exec.length; i++) {
    const c = exec[i]!;
    if (quoted && c === "\\" && i + 1 < exec.length) {
      current += exec[++i];
    } else if (c === '"') {
      quoted = !quoted;
      started = true;
    } else if (!quoted && (c === " " || c === "\t")) {
      if (started) args.push(current);
      current = "";
      started = false;
    } else {
      current += c;
      started = true;
    }
  }
  if (started) args.push(current);
  return args.map(dropFieldCodes).filter((arg): arg is string => arg !== null);
}

/** An argument that is only a field code disappears; codes inside an argument are removed. */
function dropFieldCodes(arg: string): string | null {
  if (/^%[fFuUdDnNickvm]$/.test(arg)) return null;
  return arg.replace(/%([fFuUdDnNickvm%])/g, (_, c: string) => (c === "%" ? "%" : ""));
}

/** The program an Exec runs: its first word, or what `env VAR=x prog` runs. */
function programOf(argv: readonly string[]): string | undefined {
  let i = 0;
  if (argv[0] === "env" || argv[0] === "/usr/bin/env") {
    i = 1;
    while (argv[i] !== undefined && (argv[i]!.includes("=") || argv[i]!.startsWith("-"))) i++;
  }
  return argv[i];
}

/** An absolute, link-resolved path for a program name, or null when it is not on PATH. */
export function findProgram(program: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = program.includes("/") ? [program] : (env.PATH ?? "").split(":").filter(Boolean).map((d) => join(d, program));
  for (const candidate of candidates) {
    if (!isAbsolute(candidate) || !isExecutableFile(candidate)) continue;
    try {
      return realpathSync(candidate);
    } catch {
      return candidate;
    }
  }
  return null;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Every *.desktop below dir (ids of subdirectories get "-"), as paths starting with dir. */
function desktopFiles(dir: string, depth = 0): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const name of names.sort()) {
    const path = join(dir, name);
    if (name.endsWith(".desktop")) files.push(path);
    else if (depth < 3 && isDirectory(path)) files.push(...desktopFiles(path, depth + 1));
  }
  return files;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The basename of an entry's program ("galculator"), what a running process is matched by. */
export function programName(entry: DesktopEntry): string {
  return basename(entry.executable);
}
