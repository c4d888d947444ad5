import type { ExecutorChannels } from "./executor-host.js";

/** How long a stopped cell may take to stop before its executor is killed. */
export const KILL_GRACE_MS = 5_000;

/** What the stopper needs from the executor: a polite stop, and a hard replacement. */
export interface Stoppable {
  stop(cellId: number): void;
  restart(): Promise<void>;
}

/** A cause of stops that lives outside the executor (the helper's Escape). */
export interface StopSource {
  /**
   * A cell is about to start: (re)attach if needed. A promise when attaching is under way, which
   * settles once the source listens (or has given up); undefined when it listens already.
   */
  listening(): Promise<void> | undefined;
}

/** Why and how a cell ended early; `bindingsLost` when the executor had to be killed. */
export interface StopRecord {
  reason: string;
  bindingsLost: boolean;
}

export interface CellStopperOptions {
  log: (line: string) => void;
  /** The session's time limit from the start (`deskbook run --timeout`); else config.json decides per cell. */
  sessionLimitMs?: number;
  graceMs?: number;
}

/**
 * The one stop path, and the owner of the time limit. Every cause — a Jupyter interrupt,
 * SIGINT to the kernel, the time limit, Escape, an app switch — calls `stop(reason)`. The
 * first reason wins; the executor is asked to stop the cell at once (see ExecutorHost.stop),
 * and is killed and replaced if the cell is still running the grace period later.
 */
export class CellStopper {
  private cell: { id: number; startedAt: number; limitTimer?: NodeJS.Timeout; graceTimer?: NodeJS.Timeout; record?: StopRecord } | undefined;
  private readonly sources: StopSource[] = [];
  private readonly log: (line: string) => void;
  private readonly graceMs: number;
  /** Set from outside or by a cell (`deskbook.timeLimitMs = …`): every later cell's limit. */
  private limitMs: number | undefined;

  constructor(
    private readonly executor: Stoppable,
    options: CellStopperOptions,
  ) {
    this.log = options.log;
    this.graceMs = options.graceMs ?? KILL_GRACE_MS;
    this.limitMs = options.sessionLimitMs;
  }

  /** The session's time limit, when one was set; undefined leaves it to config.json. */
  get sessionLimitMs(): number | undefined {
    return this.limitMs;
  }

  /** `source` is told as each cell starts, before its time limit runs. */
  addSource(source: StopSource): void {
    this.sources.push(source);
  }

  /** The executor's stop channel: a stop the desk API asked for, or a new session time limit. */
  onExecutorEvent(event: ExecutorChannels["stop"]): void {
    if (event.type === "stop_request") this.stop(event.reason);
    else this.setSessionLimit(event.ms);
  }

  /**
   * Settles once every source listens, so a stop they report (Escape right after the first desk
   * call, or after the helper restarted) cannot be lost for a cell that has started; undefined,
   * with no wait, when they all listen already.
   */
  listening(): Promise<void> | undefined {
    const waits = this.sources.map((source) => source.listening()).filter((wait) => wait !== undefined);
    return waits.length === 0 ? undefined : Promise.all(waits).then(() => undefined);
  }

  /** Cell `id` starts running with the given time limit. */
  begin(id: number, limitMs: number): void {
    this.end();
    this.cell = { id, startedAt: Date.now() };
    this.setLimit(limitMs);
  }

  /** The limit of the running cell (counted from its start) and of every later one. */
  setSessionLimit(limitMs: number): void {
    this.limitMs = limitMs;
    this.setLimit(limitMs);
  }

  /** Stops the running cell, if any. Returns false when there was nothing to stop. */
  stop(reason: string): boolean {
    const cell = this.cell;
    if (!cell) return false;
    if (cell.record) return true;
    clearTimeout(cell.limitTimer);
    cell.record = { reason, bindingsLost: false };
    this.log(`stopping the cell: ${reason}`);
    this.executor.stop(cell.id);
    cell.graceTimer = setTimeout(() => this.kill(cell.record!), this.graceMs);
    return true;
  }

  /** The cell is over; returns how it was stopped, if it was. */
  end(): StopRecord | undefined {
    const cell = this.cell;
    this.cell = undefined;
    if (!cell) return undefined;
    clearTimeout(cell.limitTimer);
    clearTimeout(cell.graceTimer);
    return cell.record;
  }

  /** Changes the running cell's limit, counted from the cell's start. */
  private setLimit(limitMs: number): void {
    const cell = this.cell;
    if (!cell || cell.record) return;
    clearTimeout(cell.limitTimer);
    const remaining = Math.max(0, cell.startedAt + limitMs - Date.now());
    cell.limitTimer = setTimeout(() => this.stop(`the cell ran longer than ${limitMs} ms`), remaining);
  }

  private kill(record: StopRecord): void {
    this.log(`the cell did not stop within ${this.graceMs} ms; replacing the executor`);
    record.bindingsLost = true;
    this.executor.restart().catch((error: unknown) => this.log(`executor restart failed: ${String(error)}`));
  }
}
