/** How long a stopped cell may take to stop before its executor is killed. */
export const KILL_GRACE_MS = 5_000;

/** What the stopper needs from the executor: a polite stop, and a hard replacement. */
export interface Stoppable {
  interrupt(cellId: number): void;
  restart(): Promise<void>;
}

/** Why and how a cell ended early; `bindingsLost` when the executor had to be killed. */
export interface StopRecord {
  reason: string;
  bindingsLost: boolean;
}

/**
 * The one stop path. Every cause — a Jupyter interrupt, SIGINT to the kernel, the time
 * limit, and later Escape and app switches — calls `stop(reason)`. The first reason
 * wins; the executor is asked to stop the cell at once (see ExecutorHost.interrupt), and is killed and replaced if the cell is
 * still running KILL_GRACE_MS later.
 */
export class CellStopper {
  private cell: { id: number; startedAt: number; limitTimer?: NodeJS.Timeout; graceTimer?: NodeJS.Timeout; record?: StopRecord } | undefined;

  constructor(
    private readonly executor: Stoppable,
    private readonly log: (line: string) => void,
    private readonly graceMs: number = KILL_GRACE_MS,
  ) {}

  /** Cell `id` starts running with the given time limit. */
  begin(id: number, limitMs: number): void {
    this.end();
    this.cell = { id, startedAt: Date.now() };
    this.setLimit(limitMs);
  }

  /** Changes the running cell's limit, counted from the cell's start. */
  setLimit(limitMs: number): void {
    const cell = this.cell;
    if (!cell || cell.record) return;
    clearTimeout(cell.limitTimer);
    const remaining = Math.max(0, cell.startedAt + limitMs - Date.now());
    cell.limitTimer = setTimeout(() => this.stop(`the cell ran longer than ${limitMs} ms`), remaining);
  }

  /** Stops the running cell, if any. Returns false when there was nothing to stop. */
  stop(reason: string): boolean {
    const cell = this.cell;
    if (!cell) return false;
    if (cell.record) return true;
    clearTimeout(cell.limitTimer);
    cell.record = { reason, bindingsLost: false };
    this.log(`stopping the cell: ${reason}`);
    this.executor.interrupt(cell.id);
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

  private kill(record: StopRecord): void {
    this.log(`the cell did not stop within ${this.graceMs} ms; replacing the executor`);
    record.bindingsLost = true;
    this.executor.restart().catch((error: unknown) => this.log(`executor restart failed: ${String(error)}`));
  }
}
