import { appendFileSync, closeSync, constants, fstatSync, openSync, statSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { ensureHome } from "../config/home.js";

/** One `history` item of a Jupyter history_reply. */
export type HistoryReplyEntry =
  | [session: number, line: number, input: string]
  | [session: number, line: number, inputOutput: [input: string, output: string | null]];

export interface HistoryStoreOptions {
  /**
   * Called once, the first time the file cannot be read or appended to; entries are still
   * kept in memory. History is a convenience, so a full disk (or a history path that is a
   * directory, a device, unreadable) must never fail a cell or the kernel's start.
   * Default: one stderr line.
   */
  onWriteError?: (err: Error) => void;
}

export const HISTORY_FILE = "history.jsonl";

interface Entry {
  session: number;
  line: number;
  input: string;
  output: string | null;
}

/**
 * Jupyter history persisted across kernel restarts as append-only JSON lines.
 * A later line for the same (session, line) supersedes an earlier one, which is
 * how recordOutput adds the output without rewriting the file.
 */
export class HistoryStore {
  readonly session: number;
  readonly path: string;
  private readonly entries: Entry[];
  private readonly byKey: Map<string, Entry>;
  private readonly onWriteError: (err: Error) => void;
  /** The file ended mid-line (a crash during a write); start the next write on a fresh line. */
  private needsNewline: boolean;
  private readonly offDisk: boolean;
  /** Lines recordOutput left for the end of the turn. */
  private unwritten = "";
  private flushScheduled = false;
  /**
   * The file, open for appending from the first write until close() or a failed write: an
   * append is then one system call, where appending by path opened and closed the file each
   * time (issue 12). Each write first checks that the path still names it (see handle()).
   */
  private fd: number | undefined;
  /** Device and inode of the file fd refers to. */
  private opened: { dev: number; ino: number } | undefined;

  private constructor(path: string, loaded: LoadedHistory, options: HistoryStoreOptions) {
    this.path = path;
    this.entries = loaded.entries;
    this.byKey = new Map(loaded.entries.map((e) => [key(e.session, e.line), e]));
    this.session = loaded.maxSession + 1;
    this.needsNewline = loaded.needsNewline;
    this.onWriteError = once(options.onWriteError ?? warnOnStderr);
    this.offDisk = loaded.offDisk === true;
    if (loaded.problem) this.onWriteError(loaded.problem);
  }

  static async open(home: string, options: HistoryStoreOptions = {}): Promise<HistoryStore> {
    await ensureHome(home);
    const path = join(home, HISTORY_FILE);
    const read = await readHistoryFile(path);
    return new HistoryStore(path, { ...parseHistory(read.text), problem: read.problem, offDisk: read.offDisk === true }, options);
  }

  /** Records a cell's input; recording the same line again replaces it (and its output). */
  record(line: number, input: string): void {
    this.put({ session: this.session, line, input, output: null });
  }

  /**
   * Attaches the execute_result's text/plain to an already recorded line. History requests see
   * it at once; the file gets it at the end of this event-loop turn (or with the next line, if
   * that comes first), so the write does not delay the cell's reply, which is sent in this turn.
   */
  recordOutput(line: number, output: string): void {
    const entry = this.byKey.get(key(this.session, line));
    // Output without its input cannot be shown meaningfully; nothing to attach it to.
    if (!entry) return;
    const updated = { ...entry, output };
    this.remember(updated);
    this.unwritten += this.lineOf(updated);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Writes what recordOutput left for the end of the turn. */
  flush(): void {
    this.flushScheduled = false;
    if (this.unwritten === "") return;
    const text = this.unwritten;
    this.unwritten = "";
    this.write(text);
  }

  /** Writes what is left and lets go of the file (the kernel's shutdown); a later write opens it again. */
  close(): void {
    this.flush();
    this.release();
  }

  /** The last n entries over all sessions, oldest first. */
  tail(n: number, output: boolean): HistoryReplyEntry[] {
    if (n <= 0) return [];
    return this.entries.slice(-n).map((e) => toReply(e, output));
  }

  /**
   * Lines [start, stop) of a session; stop null means to the end.
   * Session 0 is this kernel's session, negative counts back from it (IPython's convention).
   */
  range(session: number, start: number, stop: number | null, output: boolean): HistoryReplyEntry[] {
    const wanted = session <= 0 ? this.session + session : session;
    return this.entries
      .filter((e) => e.session === wanted && e.line >= start && (stop === null || e.line < stop))
      .map((e) => toReply(e, output));
  }

  /**
   * Inputs matching a glob over the whole input, oldest first, limited to the n
   * most recent; unique keeps only the most recent occurrence of each input.
   */
  search(pattern: string, n: number | null, unique: boolean, output: boolean): HistoryReplyEntry[] {
    const re = globToRegExp(pattern);
    let hits = this.entries.filter((e) => re.test(e.input));
    if (unique) hits = latestPerInput(hits);
    if (n !== null) hits = n > 0 ? hits.slice(-n) : [];
    return hits.map((e) => toReply(e, output));
  }

  private put(entry: Entry): void {
    this.remember(entry);
    this.write(this.unwritten + this.lineOf(entry));
    this.unwritten = "";
  }

  private remember(entry: Entry): void {
    const k = key(entry.session, entry.line);
    const existing = this.byKey.get(k);
    this.byKey.set(k, entry);
    if (existing) {
      // New lines go last, so the one replaced is almost always near the end.
      this.entries[this.entries.lastIndexOf(existing)] = entry;
      return;
    }
    this.entries.splice(insertionIndex(this.entries, entry), 0, entry);
  }

  private lineOf(entry: Entry): string {
    const record: Record<string, string | number> = {
      session: entry.session,
      line: entry.line,
      input: entry.input,
    };
    if (entry.output !== null) record.output = entry.output;
    return JSON.stringify(record) + "\n";
  }

  /** Synchronous, so an input is in the file while its cell runs and stays there if the kernel dies. */
  private write(lines: string): void {
    if (this.offDisk || lines === "") return;
    try {
      const fd = this.handle();
      appendFileSync(fd, (this.needsNewline ? "\n" : "") + lines, "utf8");
      this.needsNewline = false;
    } catch (err) {
      // A write cut short (a full disk) may have left part of a line: start the next one on a
      // fresh line, or both would be lost on load; a blank line is skipped there.
      this.needsNewline = true;
      // Opened again on the next write: a disk that was full may have room by then.
      this.release();
      this.onWriteError(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /**
   * The file to append to, opened again when the path no longer names the one held: several
   * kernels share a home (docs/scale-out.md), and a history.jsonl removed or renamed while this
   * kernel runs would otherwise take every later line of the session with it, silently.
   */
  private handle(): number {
    if (this.fd !== undefined) {
      const now = statSync(this.path, { throwIfNoEntry: false });
      if (now && now.dev === this.opened?.dev && now.ino === this.opened.ino) return this.fd;
      this.release();
    }
    // Non-blocking: a FIFO put in the file's place fails the write instead of hanging the kernel.
    const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK;
    this.fd = openSync(this.path, flags, 0o600);
    const info = fstatSync(this.fd);
    this.opened = { dev: info.dev, ino: info.ino };
    // A new, empty file has no line to finish.
    if (info.isFile() && info.size === 0) this.needsNewline = false;
    return this.fd;
  }

  private release(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      closeSync(fd);
    } catch {
      // Nothing is left to write through it.
    }
  }
}

/**
 * A glob as SQLite's GLOB (which IPython uses) reads it: `*`, `?`, `[abc]`,
 * `[a-z]`, `[^abc]` (and `[!abc]`), case-sensitive, anchored at both ends.
 */
export function globToRegExp(glob: string): RegExp {
  const chars = [...glob];
  let source = "";
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const end = c === "[" ? classEnd(chars, i) : -1;
    if (c === "*") source += "[\\s\\S]*";
    else if (c === "?") source += "[\\s\\S]";
    else if (end > 0) {
      source += charClass(chars.slice(i + 1, end));
      i = end;
    } else source += escapeRegExp(c);
  }
  try {
    return new RegExp(`^${source}$`, "u");
  } catch {
    // Only a reversed range like [z-a] gets here; like SQLite, it matches nothing.
    return /(?!)/;
  }
}

// ---------------------------------------------------------------------------

interface LoadedHistory {
  entries: Entry[];
  maxSession: number;
  needsNewline: boolean;
  problem?: Error;
  /** Never write (the path is a FIFO, a socket or a directory). */
  offDisk?: boolean;
}

function parseHistory(text: string): LoadedHistory {
  const byKey = new Map<string, Entry>();
  for (const raw of text.split("\n")) {
    const entry = parseLine(raw);
    // Later lines supersede earlier ones; re-inserting keeps the final order sortable.
    if (entry) byKey.set(key(entry.session, entry.line), entry);
  }
  const entries = [...byKey.values()].sort(compareEntries);
  const maxSession = entries.reduce((max, e) => Math.max(max, e.session), 0);
  return { entries, maxSession, needsNewline: text.length > 0 && !text.endsWith("\n") };
}

/** One stored line, or null for blank, truncated or hand-mangled lines. */
function parseLine(raw: string): Entry | null {
  if (!raw.trim()) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const { session, line, input, output } = value as Record<string, unknown>;
  if (!Number.isSafeInteger(session) || (session as number) < 1) return null;
  if (!Number.isSafeInteger(line) || (line as number) < 0) return null;
  if (typeof input !== "string") return null;
  if (output !== undefined && typeof output !== "string") return null;
  return { session: session as number, line: line as number, input, output: output ?? null };
}

/** The file's text; "" and the reason when it is missing, not a regular file, or unreadable. */
async function readHistoryFile(path: string): Promise<{ text: string; problem?: Error; offDisk?: boolean }> {
  try {
    const info = await stat(path);
    // A device would never end (/dev/zero): read only files. Writing to a FIFO would block
    // until someone reads it, and to a directory fails: for those, stay off the disk.
    if (info.isFIFO() || info.isSocket() || info.isDirectory()) return { text: "", problem: new Error(`${path} is not a regular file`), offDisk: true };
    return { text: info.isFile() ? await readFile(path, "utf8") : "" };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { text: "" };
    return { text: "", problem: err instanceof Error ? err : new Error(String(err)) };
  }
}

function toReply(e: Entry, output: boolean): HistoryReplyEntry {
  return output ? [e.session, e.line, [e.input, e.output]] : [e.session, e.line, e.input];
}

function latestPerInput(entries: Entry[]): Entry[] {
  const seen = new Set<string>();
  const kept: Entry[] = [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (seen.has(e.input)) continue;
    seen.add(e.input);
    kept.push(e);
  }
  return kept.reverse();
}

function key(session: number, line: number): string {
  return `${session}:${line}`;
}

function compareEntries(a: Entry, b: Entry): number {
  return a.session - b.session || a.line - b.line;
}

/** Position keeping entries sorted; searched from the end since new lines almost always go last. */
function insertionIndex(entries: Entry[], entry: Entry): number {
  let i = entries.length;
  while (i > 0 && compareEntries(entries[i - 1]!, entry) > 0) i--;
  return i;
}

/** Index of the `]` closing the class opened at `open`, or -1 if there is none. */
function classEnd(chars: string[], open: number): number {
  let i = open + 1;
  if (chars[i] === "^" || chars[i] === "!") i++;
  if (chars[i] === "]") i++; // a leading ] is a literal member
  for (; i < chars.length; i++) if (chars[i] === "]") return i;
  return -1;
}

function charClass(body: string[]): string {
  const negate = body[0] === "^" || body[0] === "!";
  const members = (negate ? body.slice(1) : body)
    .map((c) => (c === "-" ? c : escapeClassChar(c)))
    .join("");
  return `[${negate ? "^" : ""}${members}]`;
}

function escapeClassChar(c: string): string {
  return /[\\\]\[^]/.test(c) ? `\\${c}` : c;
}

function escapeRegExp(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}

function once(report: (err: Error) => void): (err: Error) => void {
  let reported = false;
  return (err) => {
    if (reported) return;
    reported = true;
    report(err);
  };
}

function warnOnStderr(err: Error): void {
  process.stderr.write(`deskbook: ${historyWarning(err)}\n`);
}

/** What the user is told, once, when history cannot be kept on disk. */
export function historyWarning(err: Error): string {
  return `cannot keep the command history on disk (${err.message}); this session's history is kept in memory only`;
}
