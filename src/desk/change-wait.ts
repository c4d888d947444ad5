// How waitFor and expect wait between two reads of the tree: for the app's next accessibility
// event (the helper's waitChange) where the helper watches the app, else on a timer. With
// events, the tree is still read at least once a second, for changes no event announces.
import { setTimeout as sleep } from "node:timers/promises";
import { isDeskError } from "../helper/desk-error.js";
import type { WaitChangeResult } from "../helper/protocol.js";

/** The longest wait for an event before reading the tree anyway. */
export const EVENT_FALLBACK_MS = 1000;
/** The polling period where the helper sends no events (and with `events: false`). */
export const POLL_INTERVAL_MS = 250;
/** The shortest polling period a caller may ask for: less is a loop of tree reads. */
export const MIN_INTERVAL_MS = 10;

export interface WaitOptions {
  /** false: poll only, never wait for events. Default true. */
  events?: boolean;
  /** The polling period in ms when the app is not watched. Default 250. */
  interval?: number;
}

/** A wait's timeout and polling period, checked. */
export interface PollTimings {
  timeout: number;
  interval: number;
}

/** Checks a wait's `timeout` and `interval` once, before anything is read: TypeError or RangeError. */
export function pollTimings(verb: string, options: { timeout?: unknown; interval?: unknown }, defaultTimeout: number): PollTimings {
  return {
    timeout: milliseconds(verb, "timeout", options.timeout, defaultTimeout, 0),
    interval: milliseconds(verb, "interval", options.interval, POLL_INTERVAL_MS, MIN_INTERVAL_MS),
  };
}

function milliseconds(verb: string, name: string, value: unknown, fallback: number, least: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number") throw new TypeError(`${verb}'s ${name} is a number of milliseconds, not ${JSON.stringify(value)}`);
  if (!Number.isFinite(value) || value < least) throw new RangeError(`${verb}'s ${name} is milliseconds ≥ ${least}, not ${String(value)}`);
  return value;
}

export type AskChange = (after: number | undefined, timeoutMs: number) => Promise<WaitChangeResult>;

export class ChangeWait {
  #seq: number | undefined;
  #watching = false;

  /** `interval`: checked by pollTimings. */
  constructor(
    private readonly ask: AskChange,
    private readonly events: boolean,
    private readonly interval: number,
  ) {}

  /** Before the first read: the app's event count now, so no change after that read is missed. */
  async start(): Promise<void> {
    if (!this.events) return;
    try {
      this.note(await this.ask(undefined, 0));
    } catch (error) {
      // A helper that predates waitChange answers bad_request: poll, as before it.
      if (!isDeskError(error, "bad_request")) throw error;
    }
  }

  /** Returns when the app changed, at the fallback or polling period, or at the deadline. */
  async next(deadline: number): Promise<void> {
    const remaining = Math.max(0, deadline - Date.now());
    if (!this.#watching) return sleep(Math.min(this.interval, remaining));
    this.note(await this.ask(this.#seq, Math.min(EVENT_FALLBACK_MS, remaining)));
  }

  private note(result: WaitChangeResult): void {
    this.#seq = result.seq;
    this.#watching = result.watching;
  }
}

