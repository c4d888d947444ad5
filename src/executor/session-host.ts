import type { ExecuteOutcome, FromExecutor } from "./ipc-messages.js";
import type { OutputSink } from "./output-sink.js";

/** Hears each cell of the session go by (the recorder): its start, its messages, its end, and secrets typed. */
export interface SessionObserver {
  cellStarting(cellId: number, code: string, step: string | undefined): void;
  /** Every message the session sends to the kernel. */
  observe(message: FromExecutor): void;
  cellEnded(code: string, outcome: ExecuteOutcome): void;
  /** A value typed at a password prompt: never to be written anywhere. */
  secret(value: string): void;
}

/**
 * What the session offers the globals injected into it (the desk API, src/executor/desk-binding.ts):
 * facts about its cells, its one output sink, its stdin and its bindings. The session itself
 * knows nothing of the desktop.
 */
export interface SessionHost {
  readonly output: OutputSink;
  /** The running cell's id, or undefined between cells. */
  runningCell(): number | undefined;
  /** The cell last stopped; its leftover code must not act. */
  stoppedCell(): number | undefined;
  /** The cell output goes to: the running one, else the last one that ran. */
  lastCell(): number;
  /** The running cell's title (a front door's step, else its first comment line). */
  step(): string | undefined;
  /** The value of a top-level binding of the session (undefined when there is none). */
  binding(name: string): unknown;
  /** Whether the running cell may ask the frontend for input. */
  canAsk(): boolean;
  /** Asks the frontend for a line through the kernel (input_request); a password answer goes to observers as a secret. */
  ask(prompt: string, password: boolean): Promise<string>;
  /** Sends a message to the kernel that is not output (a stop request, a helper connection). */
  send(message: FromExecutor): void;
  observe(observer: SessionObserver): void;
}

/** What injected globals give the session: the values cells see, and what to close when the session ends. */
export interface InjectedGlobals {
  values: Record<string, unknown>;
  close?: () => Promise<void>;
}
