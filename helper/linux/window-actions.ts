// windowAction on X11: focus, move, resize, minimize and close a top-level window through the
// window manager (EWMH client messages), then read the window back. The WM and the app have
// the last word (size hints, screen edges, a "save changes?" prompt), so the caller gets what
// happened, not what it asked for.
import { DeskError } from "../../src/helper/desk-error.js";
import type { Frame, WindowActionParams, WindowActionResult, WindowInfo } from "../../src/helper/protocol.js";
import { activate, windowsOfPid } from "./windows.js";
import { sharedX11 } from "./x11-client.js";

/** _NET_MOVERESIZE_WINDOW flags: StaticGravity (x, y are the client area's), which fields are set, source = pager. */
const STATIC_GRAVITY = 10;
const SET_X = 1 << 8;
const SET_Y = 1 << 9;
const SET_WIDTH = 1 << 10;
const SET_HEIGHT = 1 << 11;
const SOURCE_PAGER = 2 << 12;
/** ICCCM IconicState, for WM_CHANGE_STATE. */
const ICONIC_STATE = 3;
const POLL_MS = 20;
/** How long a window gets to reach the asked state before it is read back as it is. */
const SETTLE_TIMEOUT_MS = 1_000;
/** Unchanged this long after a change: the WM is done (it clamped the request). */
const QUIET_MS = 200;
const CLOSE_TIMEOUT_MS = 2_000;

export async function windowAction(params: WindowActionParams): Promise<WindowActionResult> {
  const { pid, windowId } = params;
  const before = await ownWindow(pid, windowId);
  switch (params.action) {
    case "focus":
      await activate(windowId);
      return readBack(pid, windowId);
    case "move":
      return moveResize(pid, before, SET_X | SET_Y, [need(params.x, "x"), need(params.y, "y"), 0, 0]);
    case "resize":
      return moveResize(pid, before, SET_WIDTH | SET_HEIGHT, [0, 0, need(params.width, "width"), need(params.height, "height")]);
    case "minimize":
      return minimize(pid, windowId);
    case "close":
      return close(pid, windowId);
  }
}

async function moveResize(pid: number, window: WindowInfo, fields: number, values: Frame): Promise<WindowActionResult> {
  const id = window.windowId!;
  const wanted = values.map(Math.round) as Frame;
  const x = await sharedX11();
  await x.rootClientMessage(id, "_NET_MOVERESIZE_WINDOW", [STATIC_GRAVITY | fields | SOURCE_PAGER, ...wanted]);
  const target: Frame = [...window.frame];
  for (let k = 0; k < 4; k++) if (fields & (SET_X << k)) target[k] = wanted[k]!;
  return settle(pid, id, window.frame, (frame) => sameFrame(frame, target));
}

async function minimize(pid: number, windowId: number): Promise<WindowActionResult> {
  const x = await sharedX11();
  await x.rootClientMessage(windowId, "WM_CHANGE_STATE", [ICONIC_STATE, 0, 0, 0, 0]);
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  for (;;) {
    const now = await readBack(pid, windowId);
    // The WM marks the window hidden first and moves the focus off it a moment later: the
    // action is over when both have happened (a minimized window cannot keep the focus).
    if ((now.window?.minimized && !now.window.focused) || Date.now() > deadline) return now;
    await sleep(POLL_MS);
  }
}

/** Asks the window manager to close the window, as its close button does (the app may refuse or prompt). */
export async function requestClose(windowId: number): Promise<void> {
  const x = await sharedX11();
  await x.rootClientMessage(windowId, "_NET_CLOSE_WINDOW", [0, SOURCE_PAGER >> 12, 0, 0, 0]);
}

async function close(pid: number, windowId: number): Promise<WindowActionResult> {
  await requestClose(windowId);
  const deadline = Date.now() + CLOSE_TIMEOUT_MS;
  for (;;) {
    const now = await readBack(pid, windowId).catch(() => ({}) as WindowActionResult);
    if (!now.window || Date.now() > deadline) return now;
    await sleep(POLL_MS);
  }
}

/** Polls the frame until `done`, or it stopped changing after a change, or the timeout. */
async function settle(pid: number, windowId: number, start: Frame, done: (frame: Frame) => boolean): Promise<WindowActionResult> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  let last = start;
  let changedAt = 0;
  for (;;) {
    const now = await readBack(pid, windowId);
    const frame = now.window?.frame;
    if (!frame || done(frame) || Date.now() > deadline) return now;
    if (!sameFrame(frame, last)) {
      last = frame;
      changedAt = Date.now();
    } else if (changedAt > 0 && Date.now() - changedAt > QUIET_MS) {
      return now;
    }
    await sleep(POLL_MS);
  }
}

async function readBack(pid: number, windowId: number): Promise<WindowActionResult> {
  const window = (await windowsOfPid(pid)).find((w) => w.windowId === windowId);
  return window ? { window } : {};
}

/** The gate admitted `pid`: a window of another app must not be reachable through it. */
export async function ownWindow(pid: number, windowId: number): Promise<WindowInfo> {
  const window = (await windowsOfPid(pid)).find((w) => w.windowId === windowId);
  if (!window) throw new DeskError("no_window", `window ${windowId} is not a window of pid ${pid}`);
  return window;
}

function need(value: number | undefined, name: string): number {
  if (value === undefined) throw new DeskError("bad_request", `windowAction params: this action needs \`${name}\``);
  return value;
}

function sameFrame(a: Frame, b: Frame): boolean {
  return a.every((v, k) => Math.abs(v - b[k]!) < 1);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
