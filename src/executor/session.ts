import vm from "node:vm";
import { randomUUID, webcrypto } from "node:crypto";
import type { CompleteRequest, ExecuteOutcome, ExecuteRequest, FromExecutor, InspectRequest, UserExpressionResult } from "./protocol.js";
import { ContextRunner, InterruptedError } from "./context-runner.js";
import { StopGate } from "./stop-gate.js";
import { CellTimers } from "./timers.js";
import { createConsole } from "./console-capture.js";
import { createDisplay } from "./display.js";
import { createInput } from "./input.js";
import { createModuleLoader } from "./module-loader.js";
import { registerCell, toErrorContent } from "./errors.js";
import { toMimeBundle } from "./mime-bundle.js";
import { rewriteCell } from "./rewrite.js";
import { complete } from "./complete.js";
import { inspect } from "./inspect.js";
import { documented } from "../doc.js";
import { DESKBOOK_VERSION } from "../version.js";
import { createDeskGlobals } from "./desk-binding.js";
import { cellTitle } from "../cell-title.js";
import { TextRead } from "../desk/text-read.js";
import { Recorder } from "./recorder.js";

type Send = (message: FromExecutor) => void;

interface RunningCell {
  cellId: number;
  stop: () => void;
}

/** The persistent JavaScript session: one vm context for the life of the executor. */
export class Session {
  private readonly runner: ContextRunner;
  private readonly timers: CellTimers;
  private readonly pendingInput = new Map<string, (value: string) => void>();
  /** The cell output is attributed to: the running one, else the last one that ran. */
  private lastCell = 0;
  private running: RunningCell | undefined;
  private allowStdin = false;
  private timeLimitMs = 0;
  private closeLaunchedApps: (() => Promise<void>) | undefined;
  /** The running cell's title, sent as `step` with its helper calls. */
  private step: string | undefined;
  private stoppedCell: number | undefined;
  /** Values a read already showed in their cell: not shown again as the cell's result. */
  private readonly shown = new WeakSet<object>();
  private readonly recorder: Recorder;
  /** Every message to the kernel; the recorder sees the recorded cell's outputs on the way. */
  private readonly send: Send;

  /** `gate`: where stop requests arrive; by default one without a kernel's pipe. */
  constructor(
    send: Send,
    baseDir: string = process.cwd(),
    private readonly gate: StopGate = new StopGate(() => undefined),
  ) {
    this.recorder = new Recorder(baseDir, (text) => send({ type: "stream", cell: this.lastCell, name: "stderr", text }));
    this.send = (message) => {
      this.recorder.observe(message);
      send(message);
    };
    this.runner = new ContextRunner(() => this.stopRunningCell(), gate);
    this.timers = new CellTimers(this.runner, () => this.lastCell, (error) => this.reportBackgroundError(error));
    const loader = createModuleLoader(baseDir);
    this.runner.extendHidden({ import: (specifier: string) => loader.import(specifier) });
    this.runner.defineGlobals({ ...this.hostGlobals(), ...this.timers.globals(), require: loader.require });
    this.runner.defineLazyHostGlobals(LAZY_NODE_GLOBALS);
    this.runner.defineGlobals({ queueMicrotask: vm.runInContext("(fn) => { Promise.resolve().then(() => fn()); }", this.runner.context) });
  }

  async execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
    this.recorder.cellStarting(request.cellId, request.code, request.step);
    const outcome = await this.run(request);
    this.recorder.cellEnded(request.code, outcome);
    return outcome;
  }

  private async run(request: ExecuteRequest): Promise<ExecuteOutcome> {
    this.lastCell = request.cellId;
    if (!this.gate.cellStarting(request.cellId)) {
      // The kernel stopped this cell before it reached us: it never runs.
      this.gate.cellEnded(request.cellId);
      return { status: "stopped" };
    }
    this.allowStdin = request.allowStdin;
    this.timeLimitMs = request.timeLimitMs;
    // A front door's title for the call (execute_request metadata) wins over the cell's own.
    this.step = request.step ?? cellTitle(request.code);
    let stop!: () => void;
    const stopped = new Promise<"stopped">((resolve) => (stop = () => resolve("stopped")));
    this.running = { cellId: request.cellId, stop };
    this.runner.setBusy(true);
    try {
      const cellPromise = this.startCell(request);
      cellPromise.catch(() => undefined); // a stopped cell may still settle later
      const value = await Promise.race([cellPromise, stopped]);
      if (this.running === undefined || value === "stopped") return { status: "stopped" };
      return this.success(value, request.userExpressions);
    } catch (error) {
      if (error instanceof InterruptedError || this.running === undefined) return { status: "stopped" };
      return { status: "error", ...toErrorContent(error) };
    } finally {
      this.running = undefined;
      this.gate.cellEnded(request.cellId);
      this.runner.setBusy(false);
    }
  }

  complete(request: CompleteRequest): FromExecutor {
    const result = complete(request.code, request.cursorPos, this.runner.global);
    return {
      type: "complete_done",
      reqId: request.reqId,
      matches: result.matches,
      cursorStart: result.cursor_start,
      cursorEnd: result.cursor_end,
      metadata: result.metadata,
    };
  }

  inspect(request: InspectRequest): FromExecutor {
    const result = inspect(request.code, request.cursorPos, request.detailLevel, this.runner.global);
    return { type: "inspect_done", reqId: request.reqId, ...result };
  }

  /** The session ends: the apps its cells started are closed gracefully. */
  async shutdown(): Promise<void> {
    await this.closeLaunchedApps?.();
  }

  /** The kernel answered an input_request. */
  answerInput(reqId: string, value: string): void {
    const resolve = this.pendingInput.get(reqId);
    this.pendingInput.delete(reqId);
    resolve?.(value);
    setImmediate(() => this.runner.drain());
  }

  /** The kernel stops `cellId`; a stop for a cell that already ended is ignored. */
  stopCell(cellId: number): void {
    if (this.running?.cellId === cellId) this.stopRunningCell();
  }

  /** SIGINT broke user code: end the running cell (one path for every stop cause). */
  stopRunningCell(): void {
    const running = this.running;
    if (!running) return;
    this.running = undefined;
    this.gate.cellEnded(running.cellId);
    this.stoppedCell = running.cellId;
    this.timers.cancelCell(running.cellId);
    this.pendingInput.clear(); // the stopped cell's input() will never be answered
    running.stop();
  }

  /** An error from code running outside any cell's await chain (a timer, a stray rejection). */
  reportBackgroundError(error: unknown): void {
    const { ename, evalue, traceback } = toErrorContent(error);
    const text = traceback.length > 1 ? traceback.join("\n") : `${ename}: ${evalue}`;
    this.send({ type: "stream", cell: this.lastCell, name: "stderr", text: `Uncaught (in background) ${text}\n` });
  }

  private startCell(request: ExecuteRequest): Promise<unknown> {
    const { code, columnOffset } = rewriteCell(request.code);
    const filename = `cell-${request.executionCount}`;
    registerCell(filename, request.code);
    const script = new vm.Script(code, { filename, columnOffset });
    const cell = this.runner.runScript(script) as PromiseLike<unknown>;
    // `then` directly: awaiting a context promise from the host would wait for the next drain.
    return new Promise((resolve, reject) => cell.then(resolve, reject));
  }

  private success(value: unknown, expressions: Record<string, string>): ExecuteOutcome {
    const alreadyShown = typeof value === "object" && value !== null && this.shown.has(value);
    // A read returned as the result still says its text came from an app.
    const metadata = value instanceof TextRead ? value.metadata() : {};
    const result = value === undefined || alreadyShown ? undefined : { data: toMimeBundle(value), metadata };
    return { status: "ok", result, userExpressions: this.evaluateUserExpressions(expressions) };
  }

  private evaluateUserExpressions(expressions: Record<string, string>): Record<string, UserExpressionResult> {
    const results: Record<string, UserExpressionResult> = {};
    for (const [name, source] of Object.entries(expressions)) {
      try {
        const value = this.runner.runScript(new vm.Script(`(${source}\n)`, { filename: `user_expressions:${name}` }));
        results[name] = { status: "ok", data: toMimeBundle(value), metadata: {} };
      } catch (error) {
        results[name] = { status: "error", ...toErrorContent(error) };
      }
    }
    return results;
  }

  private hostGlobals(): Record<string, unknown> {
    const cellConsole = createConsole((name, text) => this.send({ type: "stream", cell: this.lastCell, name, text }));
    const { display, clearOutput } = createDisplay({
      display: (data, metadata, displayId, update) =>
        this.send({ type: "display", cell: this.lastCell, data, metadata, displayId, update }),
      clearOutput: (wait) => this.send({ type: "clear_output", cell: this.lastCell, wait }),
      // A handle is for updating what is already shown, not a result to show again.
      shown: (handle) => this.shown.add(handle),
    });
    const input = createInput({
      allowStdin: () => this.allowStdin && this.running !== undefined,
      request: (prompt, password) => this.requestInput(prompt, password),
    });
    const { globals: desk, closeLaunchedApps } = createDeskGlobals(
      this.send,
      { recorder: this.recorder, secret: (name, prompt) => this.secret(name, prompt) },
      { runningCell: () => this.running?.cellId, stoppedCell: () => this.stoppedCell, lastCell: () => this.lastCell, currentStep: () => this.step },
      (data, value, metadata = {}) => {
        this.shown.add(value);
        this.send({ type: "display", cell: this.lastCell, data, metadata, displayId: randomUUID(), update: false });
      },
      (text) => this.send({ type: "stream", cell: this.lastCell, name: "stdout", text }),
      (data, displayId, update) => this.send({ type: "display", cell: this.lastCell, data, metadata: {}, displayId, update }),
    );
    this.closeLaunchedApps = closeLaunchedApps;
    return {
      console: cellConsole,
      display,
      clearOutput,
      input,
      deskbook: this.deskbookGlobal(),
      ...desk,
      ...NODE_GLOBALS,
    };
  }

  private deskbookGlobal(): object {
    const session = this;
    return documented(
      {
        version: DESKBOOK_VERSION,
        get timeLimitMs(): number {
          return session.timeLimitMs;
        },
        set timeLimitMs(ms: number) {
          if (!Number.isInteger(ms) || ms <= 0) throw new RangeError(`deskbook.timeLimitMs must be a positive whole number of milliseconds, not ${String(ms)}`);
          session.timeLimitMs = ms;
          session.send({ type: "set_time_limit", ms });
        },
      },
      {
        signature: "deskbook.timeLimitMs = ms",
        summary: "The session's cell time limit in milliseconds; setting it applies to the running cell and every later one.",
      },
    );
  }

  /** desk.secret: a binding of that name (a parameter) when the session has one, else asked for. */
  private async secret(name: string, prompt: string): Promise<string> {
    const bound = (this.runner.global as Record<string, unknown>)[name];
    if (typeof bound === "string" || typeof bound === "number" || typeof bound === "bigint") {
      const value = String(bound);
      this.recorder.secret(value);
      return value;
    }
    if (!this.allowStdin || this.running === undefined) {
      throw new Error(`desk.secret("${name}") has no value: give it as a parameter (deskbook run -p ${name} VALUE), or run the cell in a frontend that can ask for it`);
    }
    return this.requestInput(prompt, true);
  }

  private requestInput(prompt: string, password: boolean): Promise<string> {
    const reqId = randomUUID();
    return new Promise<string>((resolve) => {
      this.pendingInput.set(reqId, (value) => {
        if (password) this.recorder.secret(value); // never written into a recording
        resolve(value);
      });
      this.send({ type: "input_request", cell: this.lastCell, reqId, prompt, password });
    });
  }
}

// Host features a cell expects to find, as in Node's REPL.
const NODE_GLOBALS: Record<string, unknown> = {
  process,
  Buffer,
  URL,
  URLSearchParams,
  TextEncoder,
  TextDecoder,
  AbortController,
  AbortSignal,
  EventTarget,
  Event,
  structuredClone,
  atob,
  btoa,
  Blob,
  performance,
  crypto: webcrypto,
};
/** Host globals that load a library when first read (undici): given to the context on first use. */
const LAZY_NODE_GLOBALS = ["fetch", "Headers", "Request", "Response", "FormData"] as const;
