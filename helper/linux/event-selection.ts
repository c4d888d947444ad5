// Which core events this process's X connection has selected on each window. X keeps one event
// mask per connection and window, so two users of the shared connection (a window watch, the
// window-pid cache) must not each set their own mask: the last one to set it would drop the
// other's events. Each holds the bits it wants; the mask selected is the union of what is held.
import type { X11Client } from "./x11-client.js";

/** Per connection, per window: how many holders hold each mask. */
const held = new WeakMap<X11Client, Map<number, Map<number, number>>>();

function holdersOf(x: X11Client, window: number): Map<number, number> {
  let windows = held.get(x);
  if (!windows) held.set(x, (windows = new Map()));
  let masks = windows.get(window);
  if (!masks) windows.set(window, (masks = new Map()));
  return masks;
}

function union(masks: Map<number, number>): number {
  let mask = 0;
  for (const bits of masks.keys()) mask |= bits;
  return mask;
}

/**
 * Adds `mask` to what is selected on `window`. Counted before the request goes out, so a
 * release meanwhile does not deselect it; a selection that failed takes its count back.
 */
export async function holdEvents(x: X11Client, window: number, mask: number): Promise<void> {
  const masks = holdersOf(x, window);
  masks.set(mask, (masks.get(mask) ?? 0) + 1);
  try {
    await x.selectInput(window, union(masks));
  } catch (error) {
    take(x, window, mask);
    throw error;
  }
}

/** Gives back one hold of `mask`; the window keeps what other holders still want. */
export async function releaseEvents(x: X11Client, window: number, mask: number): Promise<void> {
  const masks = take(x, window, mask);
  await x.selectInput(window, masks ? union(masks) : 0);
}

/** A destroyed window's selections went with it: nothing is left to release. */
export function forgetWindow(x: X11Client, window: number): void {
  held.get(x)?.delete(window);
}

function take(x: X11Client, window: number, mask: number): Map<number, number> | undefined {
  const windows = held.get(x);
  const masks = windows?.get(window);
  if (!masks) return undefined;
  const left = (masks.get(mask) ?? 1) - 1;
  if (left > 0) masks.set(mask, left);
  else masks.delete(mask);
  if (masks.size > 0) return masks;
  windows!.delete(window);
  return undefined;
}
