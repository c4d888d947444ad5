import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export type ApprovalMode = "ask" | "allowlist" | "allow-all";
export type InputMode = "background" | "foreground";
export type ScreenshotFormat = "png" | "jpeg";
/** What the helper lets a cell do to an app: read it, act on it, or also script it and force it to quit. */
export type GrantTier = "read-only" | "act" | "full";
/** `ask`: a press on an element labelled like pay/buy/send/delete/transfer waits for `deskbook confirm`. */
export type ConfirmMode = "ask" | "off";

/** One entry of `apps`: what applies to that app instead of the top-level `grant` and `confirm`. */
export interface AppRule {
  grant?: GrantTier;
  confirm?: ConfirmMode;
}
/** "shared": every kernel of a DESKBOOK_HOME drives one desktop; "per-kernel": each kernel gets its own. */
export type DesktopMode = "shared" | "per-kernel";

export interface ScreenshotConfig {
  maxLongSide: number;
  maxPixels: number;
  format: ScreenshotFormat;
  quality: number;
}

export interface AxConfig {
  maxNodes: number;
  maxDepth: number;
  maxTextLength: number;
}

export interface LogConfig {
  enabled: boolean;
  text: boolean;
}

/** The clipboard is its own grant: reading it can leak what the user copied elsewhere. */
export interface ClipboardConfig {
  read: boolean;
  write: boolean;
}

export interface McpConfig {
  /** Largest image `deskbook mcp` hands a model, in encoded bytes (before base64). */
  maxImageBytes: number;
  /** How long attach mode waits for the Jupyter server's kernel (REST answer and websocket open) before a call fails. */
  attachTimeoutMs: number;
  /** How long attach mode's probe of the kernel (a kernel_info on control) may go unanswered before the websocket counts as lost. */
  attachProbeTimeoutMs: number;
}

export interface DeskbookConfig {
  approval: ApprovalMode;
  allow: string[];
  deny: string[];
  grant: GrantTier;
  confirm: ConfirmMode;
  /** Per-app rules, keyed by a name the app answers to (matched like `allow`). */
  apps: Record<string, AppRule>;
  input: InputMode;
  foregroundApps: string[];
  cursor: boolean;
  screenshot: ScreenshotConfig;
  ax: AxConfig;
  log: LogConfig;
  clipboard: ClipboardConfig;
  mcp: McpConfig;
  timeoutMs: number;
  settleMs: number;
  /** desk.getApp starts apps with a fresh profile unless told otherwise (Linux). */
  freshApps: boolean;
  /** Which virtual desktop a kernel drives when there is no DISPLAY (or always, for "per-kernel"). */
  desktop: DesktopMode;
}

export interface LoadedConfig {
  config: DeskbookConfig;
  /** Non-fatal findings (unknown keys), one human-readable line each. */
  warnings: string[];
}

export class ConfigError extends Error {
  readonly code = "bad_config" as const;
  override readonly name = "ConfigError";

  constructor(
    message: string,
    /** The config file (or other source label) at fault. */
    readonly source: string,
    /** Dotted key path, when a single key is at fault. */
    readonly key?: string,
  ) {
    super(message);
  }
}

export const CONFIG_FILE = "config.json";

export const DEFAULT_CONFIG: Readonly<DeskbookConfig> = deepFreeze<DeskbookConfig>({
  approval: "ask",
  allow: [],
  deny: [],
  grant: "full",
  confirm: "off",
  apps: {},
  input: "background",
  foregroundApps: [],
  cursor: true,
  screenshot: { maxLongSide: 1568, maxPixels: 1_150_000, format: "png", quality: 80 },
  ax: { maxNodes: 800, maxDepth: 40, maxTextLength: 160 },
  log: { enabled: true, text: false },
  clipboard: { read: false, write: true },
  // 768 KiB: about 1 MiB once base64-encoded, which common MCP clients accept per image.
  // 30 s: a slow proxy or a busy server answers well within it, and an MCP client's own
  // limit on a call (often 60 s) is not hit first.
  mcp: { maxImageBytes: 786_432, attachTimeoutMs: 30_000, attachProbeTimeoutMs: 5_000 },
  timeoutMs: 120_000,
  settleMs: 80,
  freshApps: false,
  desktop: "shared",
});

/** Reads DESKBOOK_HOME/config.json; a missing file means all defaults. */
export function loadConfigWithWarnings(home: string): LoadedConfig {
  const path = join(home, CONFIG_FILE);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if (isErrnoCode(err, "ENOENT")) return { config: cloneDefaults(), warnings: [] };
    const reason = err instanceof Error ? err.message : String(err);
    throw new ConfigError(`${path}: cannot read the config file (${reason}).`, path);
  }
  return parseConfig(text, path);
}

export function loadConfig(home: string): DeskbookConfig {
  return loadConfigWithWarnings(home).config;
}

/** The last config read from each file, with the file's stamp then. */
const lastRead = new Map<string, { stamp: string; config: Readonly<DeskbookConfig> }>();

/**
 * config.json as it is now, for a caller that reads it very often (the kernel, before every
 * cell): read and checked again only when the file's stamp (device, inode, size, change and
 * modification times) differs from the last read, so an edit still takes effect at the next
 * call. Reading and checking cost ~80 µs a cell, a stat a few. Shared between callers, hence
 * frozen. A file that fails to read or check throws each time, as loadConfig does.
 */
export function currentConfig(home: string): Readonly<DeskbookConfig> {
  const path = join(home, CONFIG_FILE);
  const stamp = fileStamp(path);
  const last = lastRead.get(path);
  if (stamp !== undefined && last?.stamp === stamp) return last.config;
  const config = deepFreeze(loadConfig(home));
  if (stamp !== undefined) lastRead.set(path, { stamp, config });
  else lastRead.delete(path);
  return config;
}

/**
 * Linux stamps files from a coarse clock (a few ms a tick), so two same-size writes within
 * one tick can leave the same stamp. A file changed less than this long ago is read every
 * time (git's "racily clean" rule): a later write then always lands on a later tick.
 */
const SETTLED_MS = 1_000;

/** What changes whenever the file's content can have; undefined when it cannot be told, or changed too recently. */
function fileStamp(path: string): string | undefined {
  try {
    const info = statSync(path, { bigint: true, throwIfNoEntry: false });
    if (!info) return "none";
    // A write of content moves mtime; the racy case is two such writes within one tick.
    if (Date.now() - Number(info.mtimeNs / 1_000_000n) < SETTLED_MS) return undefined;
    return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
  } catch {
    return undefined;
  }
}

/** Pure: config text in, validated config out. `source` labels messages. */
export function parseConfig(text: string, source: string): LoadedConfig {
  const root = parseJson(text, source);
  if (!isPlainObject(root)) {
    throw new ConfigError(
      `${source}: the config must be a JSON object like {"approval": "ask"}, found ${describe(root)}.`,
      source,
    );
  }
  const ctx: Ctx = { source, warnings: [] };
  return { config: readTop(root, ctx), warnings: ctx.warnings };
}

// ---------------------------------------------------------------------------
// Validation

type JsonObject = Record<string, unknown>;

interface Ctx {
  source: string;
  warnings: string[];
}

/** A runtime check paired with the wording used when it fails. */
interface Check<T> {
  expected: string;
  test(value: unknown): value is T;
}

// setTimeout fires immediately for delays above 2^31-1 ms, so larger values are bugs.
const MAX_TIMER_MS = 2 ** 31 - 1;

const bool: Check<boolean> = {
  expected: "a boolean (true or false)",
  test: (v): v is boolean => typeof v === "boolean",
};

const stringList: Check<string[]> = {
  expected: "an array of strings",
  test: (v): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string"),
};

const positiveInt: Check<number> = {
  expected: "a positive integer",
  test: (v): v is number => Number.isSafeInteger(v) && (v as number) > 0,
};

const timeoutMs: Check<number> = {
  expected: `a positive number of milliseconds (at most ${MAX_TIMER_MS})`,
  test: (v): v is number => typeof v === "number" && v > 0 && v <= MAX_TIMER_MS,
};

const settleMs: Check<number> = {
  expected: `a number of milliseconds from 0 to ${MAX_TIMER_MS}`,
  test: (v): v is number => typeof v === "number" && v >= 0 && v <= MAX_TIMER_MS,
};

const quality: Check<number> = {
  expected: "an integer from 1 to 100",
  test: (v): v is number => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 100,
};

function oneOf<T extends string>(...values: readonly T[]): Check<T> {
  return {
    expected: `one of ${values.map((s) => JSON.stringify(s)).join(", ")}`,
    test: (v): v is T => typeof v === "string" && (values as readonly string[]).includes(v),
  };
}

function readTop(obj: JsonObject, ctx: Ctx): DeskbookConfig {
  const d = DEFAULT_CONFIG;
  warnUnknown(obj, d, "", ctx);
  return {
    approval: pick(obj, "approval", oneOf("ask", "allowlist", "allow-all"), "", ctx) ?? d.approval,
    allow: pick(obj, "allow", stringList, "", ctx) ?? [...d.allow],
    deny: pick(obj, "deny", stringList, "", ctx) ?? [...d.deny],
    grant: pick(obj, "grant", GRANT, "", ctx) ?? d.grant,
    confirm: pick(obj, "confirm", CONFIRM, "", ctx) ?? d.confirm,
    apps: readApps(section(obj, "apps", ctx), ctx),
    input: pick(obj, "input", oneOf("background", "foreground"), "", ctx) ?? d.input,
    foregroundApps: pick(obj, "foregroundApps", stringList, "", ctx) ?? [...d.foregroundApps],
    cursor: pick(obj, "cursor", bool, "", ctx) ?? d.cursor,
    screenshot: readScreenshot(section(obj, "screenshot", ctx), ctx),
    ax: readAx(section(obj, "ax", ctx), ctx),
    log: readLog(section(obj, "log", ctx), ctx),
    clipboard: readClipboard(section(obj, "clipboard", ctx), ctx),
    mcp: readMcp(section(obj, "mcp", ctx), ctx),
    timeoutMs: pick(obj, "timeoutMs", timeoutMs, "", ctx) ?? d.timeoutMs,
    settleMs: pick(obj, "settleMs", settleMs, "", ctx) ?? d.settleMs,
    freshApps: pick(obj, "freshApps", bool, "", ctx) ?? d.freshApps,
    desktop: pick(obj, "desktop", oneOf("shared", "per-kernel"), "", ctx) ?? d.desktop,
  };
}

/** The keys of one entry of `apps`. */
export const APP_RULE_KEYS = ["grant", "confirm"] as const satisfies readonly (keyof AppRule)[];

const GRANT = oneOf<GrantTier>("read-only", "act", "full");
const CONFIRM = oneOf<ConfirmMode>("ask", "off");

/** `apps`: {"<app name>": {"grant"?, "confirm"?}}; every key is a name, every value an object. */
function readApps(obj: JsonObject, ctx: Ctx): Record<string, AppRule> {
  const apps: Record<string, AppRule> = {};
  for (const name of Object.keys(obj)) {
    const at = `apps.${name}.`;
    const entry = obj[name];
    if (!isPlainObject(entry)) throw keyError(`apps.${name}`, 'an object like {"grant": "read-only"}', entry, ctx);
    warnUnknown(entry, Object.fromEntries(APP_RULE_KEYS.map((key) => [key, 0])), at, ctx);
    const rule: AppRule = {};
    const grant = pick(entry, "grant", GRANT, at, ctx);
    const confirm = pick(entry, "confirm", CONFIRM, at, ctx);
    if (grant !== undefined) rule.grant = grant;
    if (confirm !== undefined) rule.confirm = confirm;
    apps[name] = rule;
  }
  return apps;
}

function readScreenshot(obj: JsonObject, ctx: Ctx): ScreenshotConfig {
  const d = DEFAULT_CONFIG.screenshot;
  const at = "screenshot.";
  warnUnknown(obj, d, at, ctx);
  return {
    maxLongSide: pick(obj, "maxLongSide", positiveInt, at, ctx) ?? d.maxLongSide,
    maxPixels: pick(obj, "maxPixels", positiveInt, at, ctx) ?? d.maxPixels,
    format: pick(obj, "format", oneOf("png", "jpeg"), at, ctx) ?? d.format,
    quality: pick(obj, "quality", quality, at, ctx) ?? d.quality,
  };
}

function readAx(obj: JsonObject, ctx: Ctx): AxConfig {
  const d = DEFAULT_CONFIG.ax;
  const at = "ax.";
  warnUnknown(obj, d, at, ctx);
  return {
    maxNodes: pick(obj, "maxNodes", positiveInt, at, ctx) ?? d.maxNodes,
    maxDepth: pick(obj, "maxDepth", positiveInt, at, ctx) ?? d.maxDepth,
    maxTextLength: pick(obj, "maxTextLength", positiveInt, at, ctx) ?? d.maxTextLength,
  };
}

function readLog(obj: JsonObject, ctx: Ctx): LogConfig {
  const d = DEFAULT_CONFIG.log;
  const at = "log.";
  warnUnknown(obj, d, at, ctx);
  return {
    enabled: pick(obj, "enabled", bool, at, ctx) ?? d.enabled,
    text: pick(obj, "text", bool, at, ctx) ?? d.text,
  };
}

function readClipboard(obj: JsonObject, ctx: Ctx): ClipboardConfig {
  const d = DEFAULT_CONFIG.clipboard;
  const at = "clipboard.";
  warnUnknown(obj, d, at, ctx);
  return {
    read: pick(obj, "read", bool, at, ctx) ?? d.read,
    write: pick(obj, "write", bool, at, ctx) ?? d.write,
  };
}

function readMcp(obj: JsonObject, ctx: Ctx): McpConfig {
  const d = DEFAULT_CONFIG.mcp;
  const at = "mcp.";
  warnUnknown(obj, d, at, ctx);
  return {
    maxImageBytes: pick(obj, "maxImageBytes", positiveInt, at, ctx) ?? d.maxImageBytes,
    attachTimeoutMs: pick(obj, "attachTimeoutMs", timeoutMs, at, ctx) ?? d.attachTimeoutMs,
    attachProbeTimeoutMs: pick(obj, "attachProbeTimeoutMs", timeoutMs, at, ctx) ?? d.attachProbeTimeoutMs,
  };
}

/** A nested section; absent means "all defaults", so it merges key by key. */
function section(obj: JsonObject, key: string, ctx: Ctx): JsonObject {
  if (!Object.hasOwn(obj, key)) return {};
  const value = obj[key];
  if (isPlainObject(value)) return value;
  throw keyError(key, "an object", value, ctx);
}

/** The validated value, undefined when absent; a present but wrong value throws. */
function pick<T>(obj: JsonObject, key: string, check: Check<T>, at: string, ctx: Ctx): T | undefined {
  if (!Object.hasOwn(obj, key)) return undefined;
  const value = obj[key];
  if (check.test(value)) return Array.isArray(value) ? ([...value] as T) : value;
  throw keyError(at + key, check.expected, value, ctx);
}

function keyError(key: string, expected: string, found: unknown, ctx: Ctx): ConfigError {
  return new ConfigError(
    `${ctx.source}: "${key}" must be ${expected}, found ${describe(found)}. ` +
      `Fix the value or remove the key to use the default.`,
    ctx.source,
    key,
  );
}

function warnUnknown(obj: JsonObject, known: object, at: string, ctx: Ctx): void {
  const knownKeys = Object.keys(known);
  for (const key of Object.keys(obj)) {
    if (knownKeys.includes(key)) continue;
    const guess = closest(key, knownKeys);
    const hint = guess ? ` (did you mean "${at}${guess}"?)` : "";
    ctx.warnings.push(`${ctx.source}: unknown key "${at}${key}" ignored${hint}`);
  }
}

// ---------------------------------------------------------------------------
// JSON parsing and messages

function parseJson(text: string, source: string): unknown {
  // Editors on Windows like to prepend a BOM, which JSON.parse rejects.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(body);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new ConfigError(
      `${source}: not valid JSON: ${reason}${locate(reason, body)}. ` +
        `Fix the syntax (double-quoted keys and strings, no trailing commas, no comments) ` +
        `or delete the file to use the defaults.`,
      source,
    );
  }
}

/** Turns V8's "at position N" into a line:column a person can jump to. */
function locate(reason: string, text: string): string {
  if (/\(line \d+ column \d+\)/.test(reason)) return "";
  const match = /at position (\d+)/.exec(reason);
  const offset = match ? Number(match[1]) : /end of JSON input/.test(reason) ? text.length : -1;
  if (offset < 0) return "";
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - before.lastIndexOf("\n");
  return ` (line ${line}, column ${column})`;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array (${truncate(JSON.stringify(value))})`;
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return `the string ${truncate(JSON.stringify(value))}`;
  return `${typeof value} ${String(value)}`;
}

function truncate(s: string): string {
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** A likely intended key for a typo, if one is within two edits. */
function closest(key: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const c of candidates) {
    const d = editDistance(key.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost));
    }
    prev = row;
  }
  return prev[b.length]!;
}

// ---------------------------------------------------------------------------
// Small helpers

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isErrnoCode(err: unknown, code: string): boolean {
  return err instanceof Error && (err as NodeJS.ErrnoException).code === code;
}

function cloneDefaults(): DeskbookConfig {
  return structuredClone(DEFAULT_CONFIG) as DeskbookConfig;
}

function deepFreeze<T extends object>(obj: T): Readonly<T> {
  for (const value of Object.values(obj)) {
    if (typeof value === "object" && value !== null) deepFreeze(value as object);
  }
  return Object.freeze(obj);
}
