// actions.log: one JSON line per gated call that acts (or that the gate refused), so a user
// can see afterwards what was done to which app, by which client and notebook step. Typed text
// (and a script's source) is logged as its length unless config.json says `log.text: true`.
import { appendFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import type { LogConfig } from "../../src/config/config.js";
import type { InputResult, MethodName } from "../../src/helper/protocol.js";
import { makeDirsSync } from "../../src/make-dirs.js";

export const ACTIONS_LOG = "actions.log";

/** The methods that change something; reads are not logged. */
export const LOGGED_METHODS: ReadonlySet<MethodName> = new Set<MethodName>([
  "launch", "activate", "performAction", "setValue", "focusElement", "selectText",
  "keys", "type", "click", "scroll", "drag", "move", "makeKey", "menu", "windowAction", "quit", "hide", "paste", "keyDown", "keyUp", "clipboardRead", "clipboardWrite", "runScript",
]);

export interface ActionRecord {
  client: string;
  /** The per-kernel desktop the action ran on (its directory's name); absent on the shared one. */
  desktop?: string;
  step?: string;
  app: string;
  pid?: number;
  action: MethodName;
  /** The request's params as sent. */
  params: Record<string, unknown>;
  route?: InputResult["route"];
  /** The gate's code when it refused the call. */
  refused?: string;
}

/** The line as written: fixed fields first, then the params (pid left out, text as length). */
export function actionLine(record: ActionRecord, log: LogConfig, now: Date = new Date()): Record<string, unknown> {
  const line: Record<string, unknown> = { ts: now.toISOString(), client: record.client };
  if (record.desktop !== undefined) line.desktop = record.desktop;
  if (record.step !== undefined) line.step = record.step;
  line.app = record.app;
  if (record.pid !== undefined) line.pid = record.pid;
  line.action = record.action;
  Object.assign(line, loggedParams(record.params, log.text));
  if (record.route !== undefined) line.route = record.route;
  if (record.refused !== undefined) line.refused = record.refused;
  return line;
}

/** Appends the record to $home/actions.log (0600) unless logging is off. */
export function writeAction(home: string, log: LogConfig, record: ActionRecord): void {
  if (!log.enabled) return;
  const path = join(home, ACTIONS_LOG);
  makeDirsSync(home, 0o700);
  appendFileSync(path, `${JSON.stringify(actionLine(record, log))}\n`, { mode: 0o600 });
  // appendFile's mode only applies to a new file; an older, looser one is tightened.
  chmodSync(path, 0o600);
}

function loggedParams(params: Record<string, unknown>, withText: boolean): Record<string, unknown> {
  const { pid: _pid, action, ...rest } = params;
  // performAction's own `action` (AXPress …) would clobber the line's `action` (the method).
  if (action !== undefined) rest.axAction = action;
  // A script's source is text like any other: it may hold what it types into an app.
  for (const key of ["text", "value", "source"] as const) {
    const text = rest[key];
    if (typeof text === "string" && !withText) {
      delete rest[key];
      rest.length = text.length;
    }
  }
  return rest;
}

/**
 * The helper's writer: a log that cannot be written (a full disk, a removed directory) must not
 * undo or block an action, and must not print a line per action either. It warns once when
 * writing starts to fail and once when it works again.
 */
export class ActionLogWriter {
  #failing = false;

  constructor(private readonly warn: (text: string) => void = (text) => void process.stderr.write(`${text}\n`)) {}

  /** `log` is read inside: a config.json that stopped parsing is one more reason the log cannot be written. */
  write(home: string, log: () => LogConfig, record: ActionRecord): void {
    try {
      writeAction(home, log(), record);
    } catch (error) {
      if (this.#failing) return;
      this.#failing = true;
      const reason = error instanceof Error ? error.message : String(error);
      this.warn(`deskbook helper: actions.log cannot be written (${reason}); actions still run but are not logged until it can be written again`);
      return;
    }
    if (this.#failing) this.warn("deskbook helper: actions.log is written again");
    this.#failing = false;
  }
}
