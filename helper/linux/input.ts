// Keyboard and mouse input through XTEST, in global screen (root) coordinates. Events go to
// whatever has focus or is under the pointer, exactly as a real device's would.
//
// Characters (and keys) missing from the keymap are typed the way xdotool does it: bind the
// keysym to a spare (empty) keycode with ChangeKeyboardMapping, press it, restore the keycode.
// Unlike xdotool, which restores right after the press and so loses characters when the app
// is slow to read the changed mapping, the keycodes stay bound until typing pauses
// (RESTORE_AFTER_IDLE_MS) and are reused meanwhile.

import { DeskError } from "../../src/helper/desk-error.js";
import type { InputResult, KeyChord, Modifier, MouseButton } from "../../src/helper/protocol.js";
import { keysymOf, keysymsOfChar, modifierKeysym, XK } from "./keysyms.js";
import { sharedX11, type KeyboardMapping, type X11Client } from "./x11-client.js";

export interface ClickOptions {
  button?: MouseButton;
  /** 2 for a double click … */
  count?: number;
  mods?: Modifier[];
}

export interface ScrollOptions {
  /** Wheel clicks; positive scrolls down (content moves up). */
  dy?: number;
  /** Wheel clicks; positive scrolls right. */
  dx?: number;
}

export interface DragOptions {
  button?: MouseButton;
  mods?: Modifier[];
}

export type Point = [number, number];

/** Button1…Button5 in the X pointer state mask. */
const BUTTON_MASKS = 0x1f00;
/**
 * How long a window manager may hold a click before the call fails (see untilButtonsUp): a
 * loaded openbox was seen holding a session's first click 3.7 s, and over 5 s in a full
 * parallel test run. Well inside a gated call's client timeout (70 s).
 */
const BUTTONS_UP_TIMEOUT_MS = 10_000;
const BUTTONS_UP_POLL_MS = 5;
const BUTTONS: ReadonlyMap<string, number> = new Map<MouseButton, number>([
  ["left", 1],
  ["middle", 2],
  ["right", 3],
]);
const WHEEL = { up: 4, down: 5, left: 6, right: 7 } as const;
/** Well under GTK's and Qt's double-click time (250–400 ms), long enough to be separate clicks. */
const CLICK_GAP_MS = 40;
/** GTK's and Qt's default double-click time (400 ms) plus room for an app a little behind. */
const MULTI_CLICK_MS = 600;
/** Larger than the toolkits' double-click distance (GTK 5 px, Qt's drag distance 10 px). */
const MULTI_CLICK_DISTANCE_PX = 16;
const WHEEL_GAP_MS = 8;
/** Largest pointer jump while dragging, so apps see a continuous motion. */
const DRAG_STEP_PX = 8;
const DRAG_STEP_MS = 6;
/** Steps per drag at most (about 12 s): a long path takes longer strides instead of longer. */
const MAX_DRAG_STEPS = 2_000;
/**
 * Borrowed keycodes are given back after this much keyboard idleness. Apps read a changed
 * mapping lazily, when they translate the next key event: given back too early, an app
 * still behind on its input sees the empty keycode and drops the character.
 */
const RESTORE_AFTER_IDLE_MS = 1500;
/** A borrowed keycode is rebound to another keysym no sooner than this after its last press. */
const REBIND_SETTLE_MS = 500;
const FOREGROUND: InputResult = { route: "foreground", focusRestored: false };

/**
 * Escape presses this process sent, so the Escape watcher can tell them from the user's.
 *
 * XInput2 raw events name the source device, but every XTEST client (this helper, and
 * `xdotool key Escape` run by someone else) shares the one "Virtual core XTEST keyboard",
 * so the device alone cannot tell whose Escape it was. Instead each helper press is noted
 * (keycode and time) and the watcher claims one note per XTEST Escape it sees within
 * RECENT_MS. A foreign XTEST Escape sent in the same instant as a helper one can be
 * mistaken for it; an Escape from a real keyboard never is.
 */
export class SyntheticEscapes {
  static readonly RECENT_MS = 2000;
  private notes: Array<{ keycode: number; at: number }> = [];

  note(keycode: number, now: number = Date.now()): void {
    this.prune(now);
    this.notes.push({ keycode, at: now });
  }

  /** True, forgetting the note, when the helper recently pressed Escape on this keycode. */
  claim(keycode: number, now: number = Date.now()): boolean {
    this.prune(now);
    const i = this.notes.findIndex((n) => n.keycode === keycode);
    if (i < 0) return false;
    this.notes.splice(i, 1);
    return true;
  }

  private prune(now: number): void {
    this.notes = this.notes.filter((n) => now - n.at <= SyntheticEscapes.RECENT_MS);
  }
}

export const helperEscapes = new SyntheticEscapes();

/** Presses each chord in turn (modifiers down, key down/up, modifiers up). Checks every name first. */
export function keys(chords: KeyChord[], holdMs = 0): Promise<InputResult> {
  return exclusive(async (x) => {
    const planned = chords.map((c) => ({ keysym: keysymOf(c.key), mods: checkedMods(c.mods) }));
    await withKeysyms(x, planned.map((p) => p.keysym), async (find) => {
      for (const p of planned) await pressChord(x, find, p.keysym, p.mods, holdMs);
    });
    return FOREGROUND;
  });
}

/** Keycodes held down by keyDown, until keyUp or releaseHeldKeys. */
const heldKeys = new Set<number>();

/**
 * Presses a key and leaves it down (a modifier, a game key). Only keys on the keyboard map can
 * be held: a borrowed keycode would be given back while it is down.
 */
export function keyDown(key: string): Promise<InputResult> {
  return exclusive(async (x) => {
    const keycode = await heldKeycode(x, key);
    if (keysymOf(key) === XK.Escape) helperEscapes.note(keycode);
    await x.fakeInput("keyPress", keycode);
    await x.sync();
    heldKeys.add(keycode);
    return FOREGROUND;
  });
}

/** Releases a key keyDown pressed (releasing a key that is up changes nothing). */
export function keyUp(key: string): Promise<InputResult> {
  return exclusive(async (x) => {
    const keycode = await heldKeycode(x, key);
    await x.fakeInput("keyRelease", keycode);
    await x.sync();
    heldKeys.delete(keycode);
    return FOREGROUND;
  });
}

/** Releases every key keyDown left down: when its client goes away, and before the helper exits. */
export function releaseHeldKeys(): Promise<void> {
  if (heldKeys.size === 0) return Promise.resolve();
  return exclusive(async (x) => {
    for (const keycode of heldKeys) await x.fakeInput("keyRelease", keycode);
    heldKeys.clear();
    await x.sync();
  });
}

async function heldKeycode(x: X11Client, key: string): Promise<number> {
  const keysym = keysymOf(key);
  const place = findIn(await x.keyboardMapping(), keysym);
  if (!place || isBorrowed(await x.keyboardMapping(), keysym)) {
    throw new DeskError("bad_key", `${JSON.stringify(key)} is not on the keyboard map, so it cannot be held; hold a key the keyboard has`);
  }
  return place.keycode;
}

/** Types Unicode text; "\n" is Return and "\t" is Tab. */
export function type(text: string): Promise<InputResult> {
  return exclusive(async (x) => {
    const wanted = [...text].map((ch) => keysymsOfChar(ch));
    for (const run of await runsThatFit(x, wanted)) {
      await withKeysyms(x, run, async (find) => {
        for (const keysym of run) await pressChord(x, find, keysym, []);
      });
    }
    return FOREGROUND;
  });
}

/** Moves to (x, y) and clicks `count` times, holding `mods`. */
export function click(x: number, y: number, options: ClickOptions = {}): Promise<InputResult> {
  return exclusive(async (c) => {
    const button = buttonOf(options.button);
    const count = Math.max(1, Math.floor(options.count ?? 1));
    const mods = checkedMods(options.mods);
    const downBefore = await buttonsDown(c);
    await motion(c, x, y);
    await withModifiers(c, mods, async () => {
      await startNewClickSequence(x, y);
      for (let i = 0; i < count; i++) {
        if (i > 0) await sleep(CLICK_GAP_MS);
        await buttonClick(c, button);
      }
      lastPress = { x, y, at: Date.now() };
    });
    await untilButtonsUp(c, downBefore);
    return FOREGROUND;
  });
}

/** Moves to (x, y) and turns the wheel: one button 4/5 (vertical) or 6/7 (horizontal) click per unit. */
export function scroll(x: number, y: number, options: ScrollOptions = {}): Promise<InputResult> {
  return exclusive(async (c) => {
    const downBefore = await buttonsDown(c);
    await motion(c, x, y);
    const dy = Math.round(options.dy ?? 0);
    const dx = Math.round(options.dx ?? 0);
    await wheel(c, dy > 0 ? WHEEL.down : WHEEL.up, Math.abs(dy));
    await wheel(c, dx > 0 ? WHEEL.right : WHEEL.left, Math.abs(dx));
    await untilButtonsUp(c, downBefore);
    return FOREGROUND;
  });
}

/** Presses at the first point, moves through the rest in small steps, releases at the last. */
export function drag(path: Point[], options: DragOptions = {}): Promise<InputResult> {
  return exclusive(async (c) => {
    if (path.length < 2) throw new DeskError("bad_request", "drag needs at least two points");
    const button = buttonOf(options.button);
    const mods = checkedMods(options.mods);
    const downBefore = await buttonsDown(c);
    await motion(c, ...path[0]);
    await withModifiers(c, mods, async () => {
      await startNewClickSequence(...path[0]);
      await c.fakeInput("buttonPress", button);
      await c.sync();
      lastPress = { x: path[0][0], y: path[0][1], at: Date.now() };
      const stride = dragStride(path);
      for (let i = 1; i < path.length; i++) await glide(c, path[i - 1], path[i], stride);
      await c.fakeInput("buttonRelease", button);
      await c.sync();
    });
    await untilButtonsUp(c, downBefore);
    return FOREGROUND;
  });
}

/** Moves the pointer to (x, y). */
export function move(x: number, y: number): Promise<InputResult> {
  return exclusive(async (c) => {
    await motion(c, x, y);
    return FOREGROUND;
  });
}

// ——— keyboard ———

interface KeyPlace {
  keycode: number;
  /** The keysym is on the shifted level. */
  shift: boolean;
}

type Finder = (keysym: number) => KeyPlace | null;

async function pressChord(x: X11Client, find: Finder, keysym: number, mods: Modifier[], holdMs = 0): Promise<void> {
  const place = find(keysym);
  if (!place) throw new DeskError("failed", `keysym 0x${keysym.toString(16)} is not on the keyboard`);
  const modKeys = modifierKeycodes(find, place.shift && !mods.includes("shift") ? [...mods, "shift"] : mods);
  for (const k of modKeys) await x.fakeInput("keyPress", k);
  if (keysym === XK.Escape) helperEscapes.note(place.keycode);
  await x.fakeInput("keyPress", place.keycode);
  if (holdMs > 0) {
    // Held for real: the server sees the press now, the release after holdMs (autorepeat may fire).
    await x.sync();
    await sleep(holdMs);
  }
  await x.fakeInput("keyRelease", place.keycode);
  for (const k of [...modKeys].reverse()) await x.fakeInput("keyRelease", k);
  await x.sync();
}

async function withModifiers(x: X11Client, mods: Modifier[], body: () => Promise<void>): Promise<void> {
  if (mods.length === 0) return body();
  const wanted = mods.map(modifierKeysym).filter((k): k is number => k !== null);
  await withKeysyms(x, wanted, async (find) => {
    const modKeys = modifierKeycodes(find, mods);
    for (const k of modKeys) await x.fakeInput("keyPress", k);
    try {
      await body();
    } finally {
      for (const k of [...modKeys].reverse()) await x.fakeInput("keyRelease", k);
      await x.sync();
    }
  });
}

/** Throws bad_request for a modifier outside the protocol's list, before anything is sent. */
function checkedMods(mods: Modifier[] = []): Modifier[] {
  for (const mod of mods) modifierKeysym(mod);
  return mods;
}

function modifierKeycodes(find: Finder, mods: Modifier[]): number[] {
  const keysyms = mods.map(modifierKeysym).filter((k): k is number => k !== null);
  return keysyms.map((k) => {
    const place = find(k);
    if (!place) throw new DeskError("failed", `modifier keysym 0x${k.toString(16)} is not on the keyboard`);
    return place.keycode;
  });
}

/** A spare keycode this process bound a keysym to. */
interface Borrowed {
  keysym: number;
  /** Date.now() of the last press. */
  lastUse: number;
}

/** Borrowed keycodes by keycode; given back after RESTORE_AFTER_IDLE_MS without use. */
const borrowed = new Map<number, Borrowed>();
let restoreTimer: NodeJS.Timeout | null = null;

/**
 * Runs `body` with a finder over the keymap; keysyms missing from it are first bound to
 * spare keycodes, which stay bound until the keyboard has been idle for a while.
 */
async function withKeysyms(x: X11Client, keysyms: number[], body: (find: Finder) => Promise<void>): Promise<void> {
  let map = await x.keyboardMapping();
  const missing = [...new Set(keysyms.filter((k) => findIn(map, k) === null))];
  if (missing.length > 0) map = await borrow(x, map, missing, new Set(keysyms));
  try {
    await body((k) => findIn(map, k));
  } finally {
    const now = Date.now();
    for (const b of borrowed.values()) if (keysyms.includes(b.keysym)) b.lastUse = now;
    scheduleRestore();
  }
}

/** Binds `missing` keysyms to free keycodes; returns the keymap as it now is. */
async function borrow(x: X11Client, map: KeyboardMapping, missing: number[], needed: Set<number>): Promise<KeyboardMapping> {
  const free = await freeKeycodes(map, needed);
  if (free.length < missing.length) throw new DeskError("failed", "not enough spare keycodes to bind the keys");
  const rows = map.rows.map((row) => [...row]);
  for (const [i, keysym] of missing.entries()) {
    const keycode = free[i];
    // Both levels, so the key gives the character whether or not Shift is held.
    rows[keycode - map.minKeycode] = padRow(map, [keysym, keysym]);
    await x.changeKeyboardMapping(keycode, [rows[keycode - map.minKeycode]]);
    borrowed.set(keycode, { keysym, lastUse: Date.now() });
  }
  return { ...map, rows };
}

/**
 * Empty keycodes, then borrowed ones this call does not need. A borrowed one is reused only
 * once REBIND_SETTLE_MS passed since its last press, so apps have read it by then.
 */
async function freeKeycodes(map: KeyboardMapping, needed: Set<number>): Promise<number[]> {
  const reusable = [...borrowed.entries()].filter(([, b]) => !needed.has(b.keysym));
  const newest = Math.max(0, ...reusable.map(([, b]) => b.lastUse));
  const wait = newest + REBIND_SETTLE_MS - Date.now();
  if (reusable.length > 0 && wait > 0 && spareKeycodes(map).length === 0) await sleep(wait);
  return [...spareKeycodes(map), ...reusable.map(([keycode]) => keycode)];
}

function scheduleRestore(): void {
  if (restoreTimer) clearTimeout(restoreTimer);
  restoreTimer = null;
  if (borrowed.size === 0) return;
  restoreTimer = setTimeout(() => void restoreKeymap().catch(() => undefined), RESTORE_AFTER_IDLE_MS);
  restoreTimer.unref(); // never keeps the process alive; call restoreKeymap() on shutdown
}

/**
 * Gives back every borrowed keycode (they are also given back after 1.5 s without typing),
 * no sooner than REBIND_SETTLE_MS after the last press. Call before the helper exits; a
 * keycode someone else rebound meanwhile is left alone.
 */
export function restoreKeymap(): Promise<void> {
  if (restoreTimer) clearTimeout(restoreTimer);
  restoreTimer = null;
  if (borrowed.size === 0) return Promise.resolve();
  return exclusive(async (x) => {
    const newest = Math.max(0, ...[...borrowed.values()].map((b) => b.lastUse));
    await sleep(newest + REBIND_SETTLE_MS - Date.now());
    const map = await x.keyboardMapping();
    for (const [keycode, b] of borrowed) {
      if (map.rows[keycode - map.minKeycode]?.[0] === b.keysym) await x.changeKeyboardMapping(keycode, [padRow(map, [])]);
    }
    borrowed.clear();
  });
}

/**
 * Chooses each character's keysym (one the keymap has, else the one to bind) and splits
 * the text into runs whose keysyms to bind fit the spare and borrowed keycodes.
 */
async function runsThatFit(x: X11Client, chars: number[][]): Promise<number[][]> {
  const map = await x.keyboardMapping();
  const onMap = (k: number): boolean => findIn(map, k) !== null && !isBorrowed(map, k);
  const room = Math.max(1, spareKeycodes(map).length + borrowed.size);
  const runs: number[][] = [];
  let run: number[] = [];
  let toBind = new Set<number>();
  for (const candidates of chars) {
    const native = candidates.find(onMap);
    const keysym = native ?? candidates[candidates.length - 1];
    if (native === undefined && !toBind.has(keysym)) {
      if (toBind.size === room) {
        runs.push(run);
        run = [];
        toBind = new Set();
      }
      toBind.add(keysym);
    }
    run.push(keysym);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

function isBorrowed(map: KeyboardMapping, keysym: number): boolean {
  const place = findIn(map, keysym);
  return place !== null && borrowed.get(place.keycode)?.keysym === keysym;
}

/** A full keymap row: `syms` padded with NoSymbol to the map's width. */
function padRow(map: KeyboardMapping, syms: number[]): number[] {
  return Array.from({ length: map.keysymsPerKeycode }, (_, i) => syms[i] ?? 0);
}

/** Unshifted levels first, so "1" is the 1 key rather than a keypad or shifted one. */
function findIn(map: KeyboardMapping, keysym: number): KeyPlace | null {
  for (const level of [0, 1]) {
    const row = map.rows.findIndex((syms) => syms[level] === keysym);
    if (row >= 0) return { keycode: map.minKeycode + row, shift: level === 1 };
  }
  return null;
}

function spareKeycodes(map: KeyboardMapping): number[] {
  const spare: number[] = [];
  map.rows.forEach((syms, i) => {
    if (syms.every((s) => s === 0)) spare.push(map.minKeycode + i);
  });
  // From the top: high keycodes are the least likely to be claimed by a real device.
  return spare.reverse();
}

// ——— pointer ———

function buttonOf(name: MouseButton = "left"): number {
  const button = BUTTONS.get(name);
  if (button === undefined) throw new DeskError("bad_request", `unknown mouse button "${String(name)}"`);
  return button;
}

/** Where and when this process last pressed a button. */
let lastPress = { x: 0, y: 0, at: 0 };

/**
 * Toolkits count a press within the double-click time and distance of the previous one as
 * its continuation, so two click() calls in a row would make a double click. Waiting out
 * MULTI_CLICK_MS makes every call's clicks a sequence of their own; use count for more.
 */
async function startNewClickSequence(x: number, y: number): Promise<void> {
  const near = Math.hypot(x - lastPress.x, y - lastPress.y) <= MULTI_CLICK_DISTANCE_PX;
  const wait = lastPress.at + MULTI_CLICK_MS - Date.now();
  if (near && wait > 0) await sleep(wait);
}

/**
 * A window manager may hold a click on an app window until it has handled it (openbox
 * does: a synchronous button grab freezes the pointer), while key events pass straight
 * through: keys sent right after a click could reach the app before the click moved its
 * caret. The pointer's button state shows the button down until the held click is delivered,
 * so the call returns only once the buttons it pressed are up. A loaded WM can hold a click
 * for over a second (its first click in a session especially), so the wait is long; a click
 * still held after it is an error, never a silent success. Buttons already down before the
 * call (someone else's) are not waited for.
 */
async function untilButtonsUp(x: X11Client, downBefore: number): Promise<void> {
  const deadline = Date.now() + BUTTONS_UP_TIMEOUT_MS;
  for (;;) {
    const held = (await x.pointer()).mask & BUTTON_MASKS & ~downBefore;
    if (held === 0) return;
    if (Date.now() >= deadline) {
      throw new DeskError(
        "failed",
        `the pointer buttons were still held ${BUTTONS_UP_TIMEOUT_MS} ms after the click (mask 0x${held.toString(16)}): the window manager has not delivered it yet, so it may still land`,
      );
    }
    await sleep(BUTTONS_UP_POLL_MS);
  }
}

/** The buttons down now (Button1…Button5 bits), so a wait for this call's own can ignore them. */
async function buttonsDown(x: X11Client): Promise<number> {
  return (await x.pointer()).mask & BUTTON_MASKS;
}

async function motion(x: X11Client, px: number, py: number): Promise<void> {
  await x.fakeInput("motion", 0, Math.round(px), Math.round(py));
  await x.sync();
}

async function buttonClick(x: X11Client, button: number): Promise<void> {
  await x.fakeInput("buttonPress", button);
  await x.fakeInput("buttonRelease", button);
  await x.sync();
}

async function wheel(x: X11Client, button: number, clicks: number): Promise<void> {
  for (let i = 0; i < clicks; i++) {
    if (i > 0) await sleep(WHEEL_GAP_MS);
    await buttonClick(x, button);
  }
}

/** DRAG_STEP_PX, or longer when the whole path would take more than MAX_DRAG_STEPS steps. */
function dragStride(path: Point[]): number {
  let length = 0;
  for (let i = 1; i < path.length; i++) length += Math.hypot(path[i][0] - path[i - 1][0], path[i][1] - path[i - 1][1]);
  return Math.max(DRAG_STEP_PX, length / MAX_DRAG_STEPS);
}

/** Moves from `a` to `b` in steps of at most `stride` pixels. */
async function glide(x: X11Client, a: Point, b: Point, stride: number): Promise<void> {
  const steps = Math.max(1, Math.ceil(Math.hypot(b[0] - a[0], b[1] - a[1]) / stride));
  for (let s = 1; s <= steps; s++) {
    await motion(x, a[0] + ((b[0] - a[0]) * s) / steps, a[1] + ((b[1] - a[1]) * s) / steps);
    await sleep(DRAG_STEP_MS);
  }
}

// ——— plumbing ———

let tail: Promise<unknown> = Promise.resolve();

/** Runs input operations one at a time, so two requests never interleave their events. */
function exclusive<T>(op: (x: X11Client) => Promise<T>): Promise<T> {
  const run = tail.then(async () => op(await sharedX11()));
  tail = run.catch(() => undefined);
  return run;
}

function sleep(ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, ms));
}
