import vm from "node:vm";
import { randomUUID, webcrypto } from "node:crypto";
import type { CompleteRequest, ExecuteOutcome, ExecuteRequest, FromExecutor, InspectRequest, UserExpressionResult } from "./ipc-messages.js";
import { ContextRunner, InterruptedError } from "./context-runner.js";
import { StopGate } from "./stop-gate.js";
import { CellTimers } from "./timers.js";
import { createConsole } from "./console-capture.js";
import { createDisplay } from "./display.js";
import { createInput } from "./input.js";
import { createModuleLoader } from "./module-loader.js";
import { registerCell, toErrorContent } from "./errors.js";
import { ownMetadata, toMimeBundle } from "./mime-bundle.js";
import { rewriteCell } from "./rewrite.js";
import { complete } from "./complete.js";
import { inspect } from "./inspect.js";
import { documented } from "../doc.js";
import { DESKBOOK_VERSION } from "../version.js";
import { cellTitle } from "../cell-title.js";
import type { OutputSink } from "./output-sink.js";
import type { InjectedGlobals, SessionHost, SessionObserver } from "./session-host.js";

type Send = (message: FromExecutor) => void;

interface RunningCell {
  cellId: number;
  stop: () => void;
}

export interface SessionOptions {
  /** Where `import` and `require` resolve from: the notebook's folder. */
  baseDir?: string;
  /** Where stop requests arrive; by default one without a kernel's pipe. */
  gate?: StopGate;
  /** Globals beyond JavaScript's and the session's own (main.ts: the desk API), built once the session can serve them. */
  globals?: (host: SessionHost) => InjectedGlobals;
}

/**
 * The persistent JavaScript session: one vm context for the life of the executor, the cells
 * run in it, and their output. It knows nothing of the desktop: the desk API comes in as
 * injected globals, through `SessionHost`.
 */
export class Session {
  private readonly runner: ContextRunner;
  private readonly timers: CellTimers;
  private readonly gate: StopGate;
  private readonly pendingInput = new Map<string, (answer: string | Error) => void>();
  private readonly observers: SessionObserver[] = [];
  /** The cell output is attributed to: the running one, else the last one that ran. */
  private lastCell = 0;
  private running: RunningCell | undefined;
  private allowStdin = false;
  private timeLimitMs = 0;
  /** The running cell's title, sent as `step` with its helper calls. */
  private step: string | undefined;
  private stoppedCell: number | undefined;
  /** Values already on screen in their cell (display handles, reads): not shown again as the cell's result. */
  private readonly shown = new WeakSet<object>();
  private readonly injected: InjectedGlobals | undefined;
  /** Every message to the kernel; observers see each on the way. */
  private readonly send: Send;
  readonly output: OutputSink;

  constructor(send: Send, options: SessionOptions = {}) {
    const baseDir = options.baseDir ?? process.cwd();
    this.gate = options.gate ?? new StopGate(() => undefined);
    this.send = (message) => {
      for (const observer of this.observers) observer.observe(message);
      send(message);
    };
    this.output = {
      stream: (name, text) => this.send({ type: "stream", cell: this.lastCell, name, text }),
      display: (data, metadata, displayId, update, cell = this.lastCell) => this.send({ type: "display", cell, data, metadata, displayId, update }),
      clearOutput: (wait) => this.send({ type: "clear_output", cell: this.lastCell, wait }),
      shown: (value) => this.shown.add(value),
    };
    this.runner = new ContextRunner(() => this.stopRunningCell(), this.gate);
    this.timers = new CellTimers(this.runner, () => this.lastCell, (error) => this.reportBackgroundError(error));
    const loader = createModuleLoader(baseDir);
    this.runner.extendHidden({ import: (specifier: string) => loader.import(specifier) });
    this.runner.defineGlobals({ ...this.ownGlobals(), ...this.timers.globals(), require: loader.require });
    this.runner.defineLazyHostGlobals(LAZY_NODE_GLOBALS);
    this.runner.defineGlobals({ queueMicrotask: vm.runInContext("(fn) => { Promise.resolve().then(() => fn()); }", this.runner.context) });
    this.injected = options.globals?.(this.host());
    if (this.injected) this.runner.defineGlobals(this.injected.values);
  }

  /** The context's own `globalThis`: the user's bindings, and what completion and inspection read. */
  get global(): Record<string, unknown> {
    return this.runner.global as Record<string, unknown>;
  }

  async execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
    for (const observer of this.observers) observer.cellStarting(request.cellId, request.code, request.step);
    const outcome = await this.run(request);
    for (const observer of this.observers) observer.cellEnded(request.code, outcome);
    return outcome;
  }

  /**
   * Rewrites and runs one cell's code as `cell-<executionCount>` and settles with its value
   * (a throw, a syntax error included, rejects with the error itself). `execute` adds the
   * cell's bookkeeping around it.
   */
  async evaluate(code: string, executionCount: number): Promise<unknown> {
    const rewritten = rewriteCell(code);
    const filename = `cell-${executionCount}`;
    registerCell(filename, code);
    const script = new vm.Script(rewritten.code, { filename, columnOffset: rewritten.columnOffset });
    const cell = this.runner.runScript(script) as PromiseLike<unknown>;
    // `then` directly: awaiting a context promise from the host would wait for the next drain.
    return new Promise((resolve, reject) => cell.then(resolve, reject));
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
      const cellPromise = this.evaluate(request.code, request.executionCount);
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

  /** The session ends: what the injected globals opened (the apps desk.getApp started) is closed. */
  async shutdown(): Promise<void> {
    await this.injected?.close?.();
  }

  /** The kernel answered an input_request: the frontend's line, or why nobody could be asked. */
  answerInput(reqId: string, answer: string | Error): void {
    const settle = this.pendingInput.get(reqId);
    this.pendingInput.delete(reqId);
    settle?.(answer);
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
    this.output.stream("stderr", `Uncaught (in background) ${text}\n`);
  }

  private success(value: unknown, expressions: Record<string, string>): ExecuteOutcome {
    const alreadyShown = typeof value === "object" && value !== null && this.shown.has(value);
    const result = value === undefined || alreadyShown ? undefined : { data: toMimeBundle(value), metadata: ownMetadata(value) };
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

  /** What the injected globals may use of the session. */
  private host(): SessionHost {
    return {
      output: this.output,
      runningCell: () => this.running?.cellId,
      stoppedCell: () => this.stoppedCell,
      lastCell: () => this.lastCell,
      step: () => this.step,
      binding: (name) => this.global[name],
      canAsk: () => this.canAsk(),
      ask: (prompt, password) => this.requestInput(prompt, password),
      send: this.send,
      observe: (observer) => void this.observers.push(observer),
    };
  }

  private canAsk(): boolean {
    return this.allowStdin && this.running !== undefined;
  }

  private ownGlobals(): Record<string, unknown> {
    const { display, clearOutput } = createDisplay(this.output);
    return {
      console: createConsole((name, text) => this.output.stream(name, text)),
      display,
      clearOutput,
      input: createInput({ allowStdin: () => this.canAsk(), request: (prompt, password) => this.requestInput(prompt, password) }),
      deskbook: this.deskbookGlobal(),
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

  private requestInput(prompt: string, password: boolean): Promise<string> {
    const reqId = randomUUID();
    return new Promise<string>((resolve, reject) => {
      this.pendingInput.set(reqId, (answer) => {
        if (answer instanceof Error) return reject(answer);
        if (password) for (const observer of this.observers) observer.secret(answer); // never written into a recording
        resolve(answer);
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
