import type { ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import type { Duplex, Writable } from "node:stream";
import { randomUUID } from "node:crypto";
import type { ExecuteOutcome, ExecuteRequest, FromExecutor, ToExecutor } from "../executor/ipc-messages.js";
import { breakCell, recordStop, type StopTarget } from "./stop-signal.js";
import { forkExecutor, killChild, LIFE_FD, STOP_FD, takeEarlyExecutor } from "./executor-fork.js";

const RESPAWN_DELAY_MS = 1_000;

/**
 * What the kernel hears from the executor besides replies, by channel: each part of the kernel
 * registers the one listener for the channel it owns (the shape of xeus's listener per channel),
 * so no part relays another's events.
 */
export interface ExecutorChannels {
  /** A cell's output, for the execute handler, which knows the request it belongs to. */
  output: Extract<FromExecutor, { type: "stream" | "display" | "clear_output" }>;
  /** A cell asks the user for a line (input, desk.secret), also the execute handler's. */
  input: Extract<FromExecutor, { type: "input_request" }>;
  /** A stop or a new time limit, for the cell stopper. */
  stop: Extract<FromExecutor, { type: "stop_request" | "set_time_limit" }>;
  /** The desk API reached a helper, for the stop listener, which listens there for Escape. */
  helper: Extract<FromExecutor, { type: "helper_connected" }>;
  /** What the child wrote to its own stdout/stderr (native modules, libraries). */
  stdio: { name: "stdout" | "stderr"; text: string };
  /** The child died while no request waited on it, after cells were sent to it: nobody else will tell the user the bindings are gone. */
  lost: { exitDescription: string };
}

export type ExecutorChannel = keyof ExecutorChannels;
/** One listener per channel, every channel listened to: a new channel does not compile until someone owns it. */
export type ExecutorListeners = { [C in ExecutorChannel]: (event: ExecutorChannels[C]) => void };

/** The executor went away before it answered (killed after a stop, or crashed). */
export class ExecutorLostError extends Error {
  /** `startup`: the child died before it was ready, so nothing of the session existed yet. */
  constructor(
    readonly exitDescription: string,
    readonly startup = false,
  ) {
    super(`the executor process ${startup ? "failed to start" : "ended"} (${exitDescription})`);
    this.name = "ExecutorLostError";
  }
}

type CompleteDone = Extract<FromExecutor, { type: "complete_done" }>;
type InspectDone = Extract<FromExecutor, { type: "inspect_done" }>;
/** How long a closing session may spend closing its apps: each takes at most ~8 s (close request, SIGTERM, SIGKILL). */
const SHUTDOWN_GRACE_MS = 15_000;

type Reply = Extract<FromExecutor, { type: "execute_done" | "complete_done" | "inspect_done" | "shutdown_done" }>;
type ReadySettlers = { resolve: (ready: void | Promise<void>) => void; reject: (error: Error) => void };
/** `cell`: an execute, whose failure the user sees; a completion or inspection fails unseen. */
type Pending = { resolve: (reply: Reply) => void; reject: (error: Error) => void; cell: boolean };

export interface ExecutorHostOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}

/**
 * The kernel's side of the executor child process: requests by id, events, stdio, and
 * replacement. The child is replaced only by `restart` (after a stop that did not take)
 * or when it died; then every request sent to it fails with ExecutorLostError, except
 * when no cell had been sent to it: nothing of the session was in it, and the requests
 * waiting for it to be ready wait for its replacement instead (replaceQuietly).
 * Events go to the listener of their channel (`listen`).
 */
export class ExecutorHost {
  private child!: ChildProcess;
  private listeners: ExecutorListeners | undefined;
  /** The current child's stop directory (src/executor/stop-marks.ts). */
  private stopDir!: string;
  /** Cells sent to the current child, or waiting for it to be ready, whose reply has not come yet. */
  private readonly runningCells = new Set<number>();
  /** Of runningCells, those asked to stop: a silent replacement records their stops anew in the new child's directory. */
  private readonly stoppedCells = new Set<number>();
  /** Children replaced in a row with no cell sent to them: after the first, each waits RESPAWN_DELAY_MS. */
  private quietReplacements = 0;
  private ready!: Promise<void>;
  /**
   * A cell was sent to the current child: from then on its death loses the session's bindings.
   * Before, nothing of the session was in it, and it is replaced without a word to the user.
   */
  private cellSent = false;
  /** The current child is the CLI's early fork, whose start began before this host existed. */
  private adoptedEarly = false;
  private readonly pending = new Map<string, Pending>();
  private closing = false;
  private isReady = false;
  /** The last stderr of a child that has not said it is ready: why it failed to start. */
  private startupStderr = "";

  constructor(private readonly options: ExecutorHostOptions) {
    this.spawn();
  }

  /** Registers the listener of each channel, once; an event that comes before is logged and dropped. */
  listen(listeners: ExecutorListeners): void {
    if (this.listeners) throw new Error("the executor's channels already have their listeners");
    this.listeners = listeners;
  }

  /**
   * Resolves when an executor is ready: the current child, or, when that one dies with no cell
   * sent to it, its replacement. Rejects when the child died before it was ready otherwise (a
   * failing start, a restart, the kernel closing).
   */
  whenReady(): Promise<void> {
    return this.ready;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  async execute(request: Omit<ExecuteRequest, "type" | "reqId">): Promise<ExecuteOutcome> {
    this.runningCells.add(request.cellId);
    try {
      const reply = await this.request({ type: "execute", reqId: randomUUID(), ...request });
      return (reply as Extract<FromExecutor, { type: "execute_done" }>).outcome;
    } finally {
      this.runningCells.delete(request.cellId);
      this.stoppedCells.delete(request.cellId);
    }
  }

  async complete(code: string, cursorPos: number): Promise<CompleteDone> {
    return (await this.request({ type: "complete", reqId: randomUUID(), code, cursorPos })) as CompleteDone;
  }

  async inspect(code: string, cursorPos: number, detailLevel: 0 | 1): Promise<InspectDone> {
    return (await this.request({ type: "inspect", reqId: randomUUID(), code, cursorPos, detailLevel })) as InspectDone;
  }

  answerInput(reqId: string, value: string): void {
    this.post({ type: "input_reply", reqId, value });
  }

  /** The cell's input() fails: nobody could be asked (`detail` says why). */
  failInput(reqId: string, detail: string): void {
    this.post({ type: "input_reply", reqId, error: detail });
  }

  /**
   * Asks cell `cellId` to stop. The stop is recorded in the child's stop directory first, so
   * a cell the child has not started yet never runs; the request then goes down the child's
   * stop pipe, which ends a waiting cell once the child reads it; and a spinning cell, which
   * reads nothing, is broken with SIGINT, sent only while the child is inside user code for
   * that cell (src/kernel/stop-signal.ts, src/executor/stop-gate.ts), so no signal can
   * outlive the cell, or the child, it was for.
   */
  stop(cellId: number): void {
    // Kept even when the child is gone: a cell waiting for the next executor must not run there.
    if (this.runningCells.has(cellId)) this.stoppedCells.add(cellId);
    const child = this.child;
    const pipe = child.stdio[STOP_FD] as Writable | null | undefined;
    if (!pipe || pipe.destroyed || child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const target: StopTarget = {
      dir: this.stopDir,
      pid: child.pid,
      stillRunning: () => this.child === child && child.exitCode === null && child.signalCode === null && this.runningCells.has(cellId),
    };
    recordStop(target, cellId);
    pipe.write(`${cellId}\n`);
    breakCell(target, cellId);
  }

  /** Kills the child (bindings are lost) and starts a fresh one. */
  async restart(): Promise<void> {
    const old = this.child;
    const oldStopDir = this.stopDir;
    this.failPending("killed after it did not stop");
    this.spawn();
    await killChild(old, oldStopDir);
    await this.ready;
  }

  /** Lets the executor close the apps its session started (bounded), then ends it. */
  async close(): Promise<void> {
    if (this.isReady && this.child.connected && !this.closing) {
      const done = this.request({ type: "shutdown", reqId: randomUUID() }).catch(() => undefined);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([done, new Promise((resolve) => (timer = setTimeout(resolve, SHUTDOWN_GRACE_MS)))]);
      clearTimeout(timer);
    }
    this.closing = true;
    await killChild(this.child, this.stopDir);
  }

  private async request(message: ToExecutor & { reqId: string }): Promise<Reply> {
    // Posted before this function's first await once the child is ready: the caller's work after the call overlaps the child's.
    if (!this.isReady) await this.ready;
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(message.reqId, { resolve, reject, cell: message.type === "execute" });
      this.post(message);
    });
  }

  private post(message: ToExecutor): void {
    if (message.type === "execute") {
      this.cellSent = true;
      this.quietReplacements = 0;
    }
    if (this.child.connected) this.child.send(message);
  }

  /** `keepWaiters`: the cells waiting for an executor go on waiting, for the new one (a silent replacement). */
  private spawn(keepWaiters = false): void {
    const early = takeEarlyExecutor(this.options, this.options.log);
    const { child, stopDir, held } = early ?? forkExecutor(this.options);
    this.child = child;
    this.stopDir = stopDir;
    this.adoptedEarly = early !== undefined;
    this.cellSent = false;
    if (!keepWaiters) {
      this.runningCells.clear();
      this.stoppedCells.clear();
    }
    // A child that died takes its pipes with it; the write error is not news.
    (child.stdio[STOP_FD] as Writable | null)?.on("error", () => undefined);
    const life = (child.stdio as ReadonlyArray<unknown>)[LIFE_FD] as Duplex | null | undefined;
    life?.on("error", () => undefined);
    child.once("exit", () => {
      // Its orphan watch holds the other end: closing ours lets the watch end too.
      life?.destroy();
      // After the exit, so no mark can be written meanwhile.
      rmSync(stopDir, { recursive: true, force: true });
    });
    this.isReady = false;
    this.startupStderr = "";
    let settleReady!: ReadySettlers;
    this.ready = new Promise<void>((resolve, reject) => (settleReady = { resolve, reject }));
    this.ready.catch(() => undefined);
    child.once("message", () => {
      if (this.child === child) this.isReady = true;
      settleReady.resolve();
    });
    child.on("message", (message: FromExecutor) => this.receive(message));
    child.stdout?.setEncoding("utf8").on("data", (text: string) => this.emit("stdio", { name: "stdout", text }));
    child.stderr?.setEncoding("utf8").on("data", (text: string) => {
      if (!this.isReady) this.startupStderr = (this.startupStderr + text).slice(-4000);
      this.emit("stdio", { name: "stderr", text });
    });
    child.once("exit", (code, signal) => this.onExit(child, describeExit(code, signal), settleReady));
    // What an early fork said before anyone listened (its "ready"), heard now as if it came now.
    for (const message of held) child.emit("message", message);
  }

  private receive(message: FromExecutor): void {
    if (message.type === "ready") return;
    if (message.type === "request_failed") {
      const pending = this.pending.get(message.reqId);
      this.pending.delete(message.reqId);
      pending?.reject(new Error(`the executor failed: ${message.message}`));
      return;
    }
    if (message.type === "execute_done" || message.type === "complete_done" || message.type === "inspect_done" || message.type === "shutdown_done") {
      const pending = this.pending.get(message.reqId);
      this.pending.delete(message.reqId);
      pending?.resolve(message);
      return;
    }
    this.route(message);
  }

  private route(event: Exclude<FromExecutor, Reply | { type: "ready" | "request_failed" }>): void {
    switch (event.type) {
      case "stream":
      case "display":
      case "clear_output":
        return this.emit("output", event);
      case "input_request":
        return this.emit("input", event);
      case "stop_request":
      case "set_time_limit":
        return this.emit("stop", event);
      case "helper_connected":
        return this.emit("helper", event);
    }
  }

  private emit<C extends ExecutorChannel>(channel: C, event: ExecutorChannels[C]): void {
    const listener: ((event: ExecutorChannels[C]) => void) | undefined = this.listeners?.[channel];
    if (listener) listener(event);
    else this.options.log(`dropped an executor ${channel} event: the kernel was not listening yet`);
  }

  /** `settleReady` settles the waits for `child` to be ready (this.ready when it was forked). */
  private onExit(child: ChildProcess, description: string, settleReady: ReadySettlers): void {
    const current = child === this.child;
    // Only a failing cell tells the user; a failed completion or inspection is dropped unseen.
    const unnoticed = ![...this.pending.values()].some((pending) => pending.cell);
    if (current) this.failPending(description);
    if (!current || this.closing) {
      settleReady.reject(new ExecutorLostError(description, true));
      return;
    }
    if (!this.cellSent && (this.isReady || this.adoptedEarly)) {
      // No cell was sent to it (an early fork killed before its exit was seen, an idle child
      // killed): nothing of the session is lost. Its start is not failing either: an early
      // fork's began before this host. Whoever waits for an executor waits for the new one.
      settleReady.resolve(this.replaceQuietly(child, description));
      return;
    }
    if (this.isReady) {
      this.options.log(`executor ${description}; starting a new one`);
      if (unnoticed) this.emit("lost", { exitDescription: description });
      this.spawn();
      return;
    }
    settleReady.reject(new ExecutorLostError(description, true));
    // It died before it was ready: respawning at once would spin; wait, and say why.
    this.options.log(`executor failed to start (${description}):\n${this.startupStderr.trim()}\nretrying in ${RESPAWN_DELAY_MS} ms`);
    setTimeout(() => this.closing || this.spawn(), RESPAWN_DELAY_MS);
  }

  /**
   * Forks the next executor for a child that died with no cell sent to it, and resolves once that
   * one is ready. The cells waiting go on waiting, their stops recorded in the new child's
   * directory so a stopped one never runs. The first replacement in a row is at once; later ones
   * (a child killed at each start, the OOM killer) wait RESPAWN_DELAY_MS, so they cannot spin.
   */
  private replaceQuietly(child: ChildProcess, description: string): Promise<void> {
    this.quietReplacements++;
    const spawnNext = (): Promise<void> => {
      // Closing, or restart already forked another meanwhile: that one is the next.
      if (this.closing) return Promise.reject(new ExecutorLostError(description, true));
      if (this.child !== child) return this.ready;
      this.spawn(true);
      // The old marks went with the old child's directory; the new child reads its own before a cell.
      const target: StopTarget = { dir: this.stopDir, pid: this.child.pid ?? 0, stillRunning: () => false };
      for (const cellId of this.stoppedCells) recordStop(target, cellId);
      return this.ready;
    };
    if (this.quietReplacements === 1) {
      this.options.log(`executor ${description} before any cell was sent to it; starting a new one`);
      return spawnNext();
    }
    this.options.log(
      `executor ${description} before any cell was sent to it, ${this.quietReplacements} times in a row; starting a new one in ${RESPAWN_DELAY_MS} ms`,
    );
    const next = new Promise<void>((resolve) => setTimeout(resolve, RESPAWN_DELAY_MS)).then(spawnNext);
    next.catch(() => undefined);
    // A request meanwhile waits for the next child, not posts to this dead one.
    this.isReady = false;
    this.ready = next;
    return next;
  }

  private failPending(description: string): void {
    for (const { reject } of this.pending.values()) reject(new ExecutorLostError(description));
    this.pending.clear();
  }
}

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `killed by ${signal}` : `exited with code ${code}`;
}
