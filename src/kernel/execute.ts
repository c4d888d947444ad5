import type { JupyterMessage } from "../jupyter/message.js";
import type { ExecuteReply, ExecuteRequest, InputReply } from "../jupyter/requests.js";
import type { ExecuteOutcome, ErrorContent } from "../executor/ipc-messages.js";
import { currentConfig } from "../config/config.js";
import type { ExecutorChannels, ExecutorHost } from "./executor-host.js";
import { ExecutorLostError } from "./executor-host.js";
import type { CellStopper, StopRecord } from "./cell-stopper.js";
import type { HistoryStore } from "./history.js";
import { toWireBundle } from "./wire-bundle.js";
import { BAD_REQUEST } from "./request-content.js";

/** What execution needs from the kernel around it. */
export interface ExecuteDeps {
  executor: ExecutorHost;
  stopper: CellStopper;
  history: HistoryStore;
  home: string;
  publish: (msgType: string, content: object, parent: JupyterMessage<unknown> | undefined, metadata?: object) => void;
  /** Builds an input_request for the cell of `parent`; nothing is sent until its send() is called. */
  inputRequest: (parent: JupyterMessage<unknown>, content: { prompt: string; password: boolean }) => InputRequest;
  /** A cell failed with stop_on_error: the execute requests waiting behind it are answered "aborted". */
  abortWaitingExecutes: () => void;
}

/** An input_request built and not sent yet: its id is known before the first attempt. */
export interface InputRequest {
  msgId: string;
  /** Sends it, retrying while the frontend's stdin is not connected and while stillWanted() holds; rejects when it could not be sent. */
  send: (stillWanted: () => boolean) => Promise<void>;
}

/** The error a stopped cell ends with; the value always starts "Stopped:". */
export function stopError(stop: StopRecord): ErrorContent {
  const lost = stop.bindingsLost
    ? ` The cell did not stop within 5 s, so its executor was restarted: the session's bindings were lost.`
    : "";
  const evalue = `Stopped: ${stop.reason}.${lost}`;
  return { ename: "Stopped", evalue, traceback: [evalue] };
}

/**
 * execute_request from start to reply: execute_input, the cell's output and input requests
 * (the executor's output and input channels) sent with it as parent, and so is later output
 * from its timers; the time limit it starts, history, and the reply.
 */
export class ExecuteHandler {
  private executionCount = 0;
  private nextCellId = 1;
  /** Output of a cell id goes to that request; ids are kept for cells that finished too. */
  private readonly parents = new Map<number, { parent: JupyterMessage<unknown>; silent: boolean }>();
  private lastCellId = 0;
  /** The input request the running cell waits on; msgId is the input_request's, which a reply names as its parent. */
  private pendingInput: { reqId: string; msgId: string } | undefined;
  /** Things the user must hear about (history off disk, a replaced executor), shown in the next cell. */
  private readonly notices: string[] = [];

  constructor(private readonly deps: ExecuteDeps) {}

  /** Tells the user, on the stderr of the next cell that starts (or this one, if one is starting). */
  notify(text: string): void {
    this.notices.push(text);
  }

  async handle(msg: JupyterMessage<ExecuteRequest>): Promise<ExecuteReply> {
    // Before execute_input: a frontend may stop the cell as soon as it sees it started.
    const listening = this.deps.stopper.listening();
    if (listening) await listening;
    const content = msg.content;
    const code = content.code;
    const silent = content.silent === true;
    const storeHistory = !silent && content.store_history !== false;
    if (storeHistory) this.executionCount++;
    const count = this.executionCount;
    const cellId = this.nextCellId++;
    this.remember(cellId, msg, silent);
    const request = cellRequest(msg.metadata);
    // The cell goes to the executor first (run() posts it before its first await), and the
    // kernel's own work for it happens while the executor runs it. The executor's output can
    // only reach this process in a later task, so execute_input still precedes it on iopub.
    const running = "error" in request ? Promise.resolve(badRequest(request.error)) : this.run(code, cellId, count, content, request);
    if (!silent) this.deps.publish("execute_input", { code, execution_count: count }, msg);
    if (storeHistory) this.deps.history.record(count, code);
    this.showNotices(msg, silent);
    const outcome = await running;
    // As ipykernel does: only a cell the user sees fail stops the ones queued behind it, and a
    // request refused as malformed is not a failed cell.
    if (outcome.status === "error" && outcome.ename !== BAD_REQUEST && !silent && content.stop_on_error !== false) this.deps.abortWaitingExecutes();
    return this.finish(msg, outcome, count, silent, storeHistory);
  }

  /** The kernel stops a cell only through the stopper; this is where time limits start. */
  private async run(code: string, cellId: number, count: number, content: ExecuteRequest, request: CellRequest): Promise<FinishedOutcome> {
    let limitMs: number;
    try {
      limitMs = request.timeLimitMs ?? this.deps.stopper.sessionLimitMs ?? currentConfig(this.deps.home).timeoutMs;
    } catch (error) {
      return { status: "error", ename: "ConfigError", evalue: (error as Error).message, traceback: [(error as Error).message] };
    }
    this.deps.stopper.begin(cellId, limitMs);
    let outcome: ExecuteOutcome;
    try {
      outcome = await this.deps.executor.execute({
        cellId,
        executionCount: count,
        code,
        userExpressions: content.user_expressions ?? {},
        allowStdin: content.allow_stdin === true,
        timeLimitMs: limitMs,
        ...(request.step !== undefined && { step: request.step }),
      });
    } catch (error) {
      if (!(error instanceof ExecutorLostError)) throw error;
      outcome = lostOutcome(error);
    }
    const stop = this.deps.stopper.end();
    this.pendingInput = undefined;
    if (stop) return { status: "error", ...stopError(stop) };
    if (outcome.status === "stopped") return { status: "error", ...stopError({ reason: "interrupted", bindingsLost: false }) };
    return outcome;
  }

  private finish(msg: JupyterMessage<unknown>, outcome: FinishedOutcome, count: number, silent: boolean, storeHistory: boolean): ExecuteReply {
    if (outcome.status === "ok") {
      if (outcome.result && !silent) {
        const data = toWireBundle(outcome.result.data);
        this.deps.publish("execute_result", { execution_count: count, data, metadata: outcome.result.metadata }, msg);
        if (storeHistory && typeof data["text/plain"] === "string") this.deps.history.recordOutput(count, data["text/plain"]);
      }
      const userExpressions = Object.fromEntries(
        Object.entries(outcome.userExpressions).map(([name, r]) => [name, r.status === "ok" ? { ...r, data: toWireBundle(r.data) } : r]),
      );
      return { status: "ok", execution_count: count, user_expressions: userExpressions, payload: [] };
    }
    const error = { ename: outcome.ename, evalue: outcome.evalue, traceback: outcome.traceback };
    if (!silent) this.deps.publish("error", error, msg);
    return { status: "error", execution_count: count, ...error };
  }

  private showNotices(msg: JupyterMessage<unknown>, silent: boolean): void {
    if (silent || this.notices.length === 0) return;
    const text = this.notices.splice(0).map((notice) => `Deskbook: ${notice}\n`).join("");
    this.deps.publish("stream", { name: "stderr", text }, msg);
  }

  /** The executor's output channel: what cells (and their timers, later) show. */
  onOutput(event: ExecutorChannels["output"]): void {
    switch (event.type) {
      case "stream":
        return this.publishFor(event.cell, "stream", { name: event.name, text: event.text });
      case "display": {
        const msgType = event.update ? "update_display_data" : "display_data";
        return this.publishFor(event.cell, msgType, { data: toWireBundle(event.data), metadata: event.metadata, transient: { display_id: event.displayId } });
      }
      case "clear_output":
        return this.publishFor(event.cell, "clear_output", { wait: event.wait });
    }
  }

  /** Text the executor process wrote to its own stdout/stderr: shown in the last cell. */
  onStdio(event: ExecutorChannels["stdio"]): void {
    this.publishFor(this.lastCellId, "stream", { name: event.name, text: event.text });
  }

  /** The executor's input channel: a cell asks the frontend for a line. */
  onInputRequest(event: ExecutorChannels["input"]): void {
    const entry = this.parents.get(event.cell);
    if (!entry) return;
    const request = this.deps.inputRequest(entry.parent, { prompt: event.prompt, password: event.password });
    const pending = { reqId: event.reqId, msgId: request.msgId };
    this.pendingInput = pending;
    const stillWanted = () => this.pendingInput === pending;
    request.send(stillWanted).catch((error: unknown) => {
      if (!stillWanted()) return;
      this.pendingInput = undefined;
      this.deps.executor.failInput(pending.reqId, error instanceof Error ? error.message : String(error));
    });
  }

  /**
   * The frontend answered an input_request on the stdin channel. A reply naming another
   * request as its parent (one for a cell that was stopped) is not this cell's answer;
   * jupyter_client's input() names no parent at all, so such a reply is taken.
   */
  onInputReply(reply: InputReply, parentMsgId: string | undefined): void {
    const pending = this.pendingInput;
    if (!pending) return;
    if (parentMsgId !== undefined && parentMsgId !== pending.msgId) return;
    this.pendingInput = undefined;
    this.deps.executor.answerInput(pending.reqId, reply.value);
  }

  private publishFor(cellId: number, msgType: string, content: object): void {
    const entry = this.parents.get(cellId) ?? this.parents.get(this.lastCellId);
    if (entry?.silent) return;
    this.deps.publish(msgType, content, entry?.parent);
  }

  private remember(cellId: number, parent: JupyterMessage<unknown>, silent: boolean): void {
    this.parents.set(cellId, { parent, silent });
    this.lastCellId = cellId;
    // Late output goes to the cell current when it fires, so only recent cells need keeping.
    for (const id of this.parents.keys()) {
      if (id > cellId - 64) break;
      this.parents.delete(id);
    }
  }
}

/** What a client may ask of one cell through execute_request metadata (docs/kernel.md). */
interface CellRequest {
  step?: string;
  timeLimitMs?: number;
}

const MAX_TIMER_MS = 2 ** 31 - 1;
const MAX_STEP_LENGTH = 500;

/** Reads `metadata.deskbook`; anything malformed is refused with the reason, never ignored. */
export function cellRequest(metadata: Record<string, unknown> | undefined): CellRequest | { error: string } {
  const own = metadata?.deskbook;
  if (own === undefined) return {};
  if (typeof own !== "object" || own === null || Array.isArray(own)) return { error: "metadata.deskbook must be an object like {\"step\": \"…\", \"timeLimitMs\": 30000}" };
  const { step, timeLimitMs, ...rest } = own as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) return { error: `metadata.deskbook has unknown keys: ${unknown.join(", ")} (known: step, timeLimitMs)` };
  if (step !== undefined && (typeof step !== "string" || step.length > MAX_STEP_LENGTH)) return { error: `metadata.deskbook.step must be a string of at most ${MAX_STEP_LENGTH} characters` };
  // A step is one line of logs and of recipes: a newline in it would start code there.
  if (typeof step === "string" && /[\p{Cc}\u2028\u2029]/u.test(step)) return { error: `metadata.deskbook.step must be one line without control characters, not ${JSON.stringify(step)}` };
  if (timeLimitMs !== undefined && !(Number.isInteger(timeLimitMs) && (timeLimitMs as number) > 0 && (timeLimitMs as number) <= MAX_TIMER_MS)) {
    return { error: `metadata.deskbook.timeLimitMs must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}, not ${JSON.stringify(timeLimitMs)}` };
  }
  return { ...(step !== undefined && { step: step as string }), ...(timeLimitMs !== undefined && { timeLimitMs: timeLimitMs as number }) };
}

/** The outcome of a cell once stops are turned into errors. */
type FinishedOutcome = Exclude<ExecuteOutcome, { status: "stopped" }>;

function badRequest(message: string): FinishedOutcome {
  return { status: "error", ename: BAD_REQUEST, evalue: message, traceback: [`BadRequest: ${message}`] };
}

function lostOutcome(error: ExecutorLostError): FinishedOutcome {
  const evalue = error.startup
    ? `The executor process failed to start (${error.exitDescription}); the kernel log says why, and it is retried.`
    : `The executor process ended while running this cell (${error.exitDescription}); a new one was started and the session's bindings were lost.`;
  return { status: "error", ename: "ExecutorLost", evalue, traceback: [evalue] };
}
