// A wait that lasts shows itself in the cell. After SHOW_AFTER_MS one line says what is awaited
// (display_data with a display_id); it is rewritten in place (update_display_data) with the
// time so far, once a second at first and more rarely as the wait goes on, never once per poll;
// when the wait ends it is replaced by one sentence saying how it ended. A client that drops
// updates keeps the first line, which reads as a log line on its own; a client that applies
// them (JupyterLab, nbconvert, papermill, deskbook run, the MCP server) keeps the last. A wait
// that ends sooner shows nothing, so ordinary cells stay clean.
import type { LiveOutput } from "./desk-context.js";

/** How long a wait runs silently before its line appears. */
export const SHOW_AFTER_MS = 1000;

/**
 * What the line says: a wait (`waiting`: what follows "Waiting", `for {"label":"Save"} to
 * appear in Mousepad`) or an action that takes its time (`doing`: `typing 5000 characters
 * into Mousepad`).
 */
export type ProgressWait<T> = ({ waiting: string; doing?: undefined } | { doing: string; waiting?: undefined }) & {
  /** The wait's own deadline, when it has one. */
  limitMs?: number;
  /** The closing sentence of a wait that succeeded; `took` reads like "3.2 s". */
  done(result: T, took: string): string;
};

type Phrase = Pick<ProgressWait<unknown>, "waiting" | "doing" | "limitMs">;

/** Runs `work`, showing a progress line in the cell while it lasts longer than SHOW_AFTER_MS. */
export async function withProgressLine<T>(live: () => LiveOutput, wait: ProgressWait<T>, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  // Made now, shown later: the line belongs to the cell running as the wait starts.
  const made = live();
  let line: LiveOutput | undefined;
  let timer: NodeJS.Timeout | undefined;
  // When the next show is due, in ms since `started`. Node times a timer from the event loop's
  // cached clock, which lags Date.now() by whatever the loop's turn did before; so a timer can
  // fire early by that much, and a tick just short of its second would show, then tick again
  // at once. An early tick only waits out the rest.
  let due = SHOW_AFTER_MS;
  const arm = (inMs: number): void => {
    timer = setTimeout(tick, inMs);
    timer.unref();
  };
  const tick = (): void => {
    const elapsed = Date.now() - started;
    if (elapsed < due) return arm(due - elapsed);
    if (line) line.show(textBundle(`${waitingText(wait)}… ${wholeSeconds(elapsed)}`));
    else (line = made).show(textBundle(`${waitingText(wait)}…`));
    due = elapsed + nextTickIn(elapsed);
    arm(due - elapsed);
  };
  arm(SHOW_AFTER_MS);
  try {
    const result = await work();
    line?.show(textBundle(wait.done(result, took(Date.now() - started))));
    return result;
  } catch (error) {
    line?.show(textBundle(failedText(wait, error, Date.now() - started)));
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** The first line, which stays where updates are dropped: `Waiting up to 10 s for …`. */
export function waitingText(wait: Phrase): string {
  if (wait.doing !== undefined) return sentence(wait.doing);
  if (wait.limitMs === undefined) return `Waiting ${wait.waiting}`;
  // A limit is mostly whole seconds: "up to 5 s", not "up to 5.0 s".
  const limit = wait.limitMs < 10_000 && wait.limitMs % 1000 === 0 ? `${wait.limitMs / 1000} s` : took(wait.limitMs);
  return `Waiting up to ${limit} ${wait.waiting}`;
}

/** The closing line of a wait that failed: stopped, timed out or refused. */
export function failedText(wait: Phrase, error: unknown, elapsedMs: number): string {
  const name = error instanceof Error ? error.name : "Error";
  const what = wait.doing ?? `waiting ${wait.waiting}`;
  if (name === "Stopped") return `Stopped ${what} after ${took(elapsedMs)}.`;
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
  const short = message.length > 160 ? `${message.slice(0, 159)}…` : message;
  const why = `${name}${typeof code === "string" && !short.startsWith(code) ? ` (${code})` : ""}: ${short}`;
  return wait.doing === undefined ? `Gave up ${what} after ${took(elapsedMs)}: ${why}` : `${sentence(what)} failed after ${took(elapsedMs)}: ${why}`;
}

/** "0.4 s", "3.2 s" under ten seconds; "42 s"; "2 min 5 s". */
export function took(ms: number): string {
  if (ms < 10_000) return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min${seconds % 60 ? ` ${seconds % 60} s` : ""}`;
}

/** The time so far in a ticking line, at the granularity the line is rewritten with. */
function wholeSeconds(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return seconds < 120 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** Once a second for the first ten, then every 5 s, then every 15 s after a minute. */
export function nextTickIn(elapsedMs: number): number {
  const step = elapsedMs < 10_000 ? 1000 : elapsedMs < 60_000 ? 5000 : 15_000;
  return step - (elapsedMs % step) || step;
}

/** Capitalizes the first letter: a closing line is a sentence of its own. */
export function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function textBundle(text: string): { "text/plain": string } {
  return { "text/plain": text };
}
