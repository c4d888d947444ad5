// Which top-level accessible is the window a caller means. The protocol names windows by their
// index in the helper's `windows` list, which comes from X11 (front to back), not from AT-SPI;
// the helper passes that window's title and frame, and the closest accessible wins.
import type { Frame } from "../../src/helper/protocol.js";
import { AtspiError } from "./atspi-error.js";
import type { AccessibleRecord } from "./atspi-records.js";
import { State } from "./atspi-states.js";

export interface WindowMatch {
  title?: string;
  frame?: Frame;
  /** X11 lists this as the app's only window: a lone accessible window is it, whatever its title. */
  alone?: boolean;
  /** The titles of the app's other X11 windows: an accessible named exactly so is theirs, not this one. */
  others?: readonly string[];
}

/** A number indexes the app's accessible windows; a string matches titles; a WindowMatch scores both. */
export type WindowChoice = number | string | WindowMatch;

export function pickWindow(
  windows: readonly AccessibleRecord[],
  frames: ReadonlyMap<AccessibleRecord, Frame>,
  wanted: WindowChoice | undefined,
  pid: number,
): AccessibleRecord {
  const found = findWindow(windows, frames, wanted);
  if (found) return found;
  const which = wanted === undefined ? "any window" : `window ${JSON.stringify(wanted)}`;
  const titles = windows.map((w) => JSON.stringify(w.name)).join(", ");
  throw new AtspiError("no_window", `pid ${pid} has no ${which}${titles ? ` (windows: ${titles})` : ""}`);
}

function findWindow(
  windows: readonly AccessibleRecord[],
  frames: ReadonlyMap<AccessibleRecord, Frame>,
  wanted: WindowChoice | undefined,
): AccessibleRecord | undefined {
  if (typeof wanted === "number") return windows[wanted];
  if (typeof wanted === "string") return byTitle(windows, wanted);
  if (wanted) return bestMatch(windows, frames, wanted);
  // The protocol's default: the focused window, else a showing one, else the first.
  return windows.find((w) => w.states.has(State.ACTIVE)) ?? windows.find((w) => w.states.has(State.SHOWING)) ?? windows[0];
}

function byTitle(windows: readonly AccessibleRecord[], title: string): AccessibleRecord | undefined {
  const lower = title.toLowerCase();
  return windows.find((w) => w.name === title) ?? windows.find((w) => w.name.toLowerCase().includes(lower));
}

function bestMatch(
  windows: readonly AccessibleRecord[],
  frames: ReadonlyMap<AccessibleRecord, Frame>,
  wanted: WindowMatch,
): AccessibleRecord | undefined {
  if (wanted.alone && windows.length === 1) return windows[0];
  let best: AccessibleRecord | undefined;
  let bestScore = 0;
  for (const window of windows) {
    // An accessible that another X11 window's title names exactly is that window, however much
    // its frame overlaps: X11 lists a new window before the app's accessible tree has it, often
    // right over the old one. (Titles alone cannot decide: a dialog's accessible name may be
    // quite unlike its X11 title.)
    if (window.name !== wanted.title && wanted.others?.includes(window.name)) continue;
    const score = titleScore(window.name, wanted.title) + frameScore(frames.get(window), wanted.frame);
    if (score > bestScore) [best, bestScore] = [window, score];
  }
  return best;
}

function titleScore(name: string, title: string | undefined): number {
  if (title === undefined) return 0;
  if (name === title) return 2;
  return title && name.toLowerCase().includes(title.toLowerCase()) ? 1 : 0;
}

/** Overlap over union, 0..1: X11 frames include the WM border where AT-SPI's may not. */
function frameScore(a: Frame | undefined, b: Frame | undefined): number {
  if (!a || !b) return 0;
  const width = Math.min(a[0] + a[2], b[0] + b[2]) - Math.max(a[0], b[0]);
  const height = Math.min(a[1] + a[3], b[1] + b[3]) - Math.max(a[1], b[1]);
  if (width <= 0 || height <= 0) return 0;
  const overlap = width * height;
  return overlap / (a[2] * a[3] + b[2] * b[3] - overlap);
}
