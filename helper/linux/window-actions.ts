// windowAction on X11: focus, move, resize, minimize and close a top-level window through the
// window manager (EWMH client messages), then read the window back. The WM and the app have
// the last word (size hints, screen edges, a "save changes?" prompt), so the caller gets what
// happened, not what it asked for.
import { DeskError } from "../../src/helper/desk-error.js";
import type { Frame, WindowActionParams, WindowActionResult, WindowInfo } from "../../src/helper/protocol.js";
import { activate, windowsOfPid } from "./windows.js";
import { watchWindow } from "./window-watch.js";
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
/**
 * How long the window manager (and, for a close, the app) gets to answer before the window is
 * read back as it is: a loaded openbox takes seconds (see activate in windows.ts). An answer
 * ends the wait at once, so this is only reached when nothing answers.
 */
const ANSWER_TIMEOUT_MS = 5_000;

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

/**
 * Sends the request with a watch open, then waits for `answer`, which is told whether the WM has
 * handled the request when `barrier` (see window-watch.ts); `fallback` reads the window once
 * nothing answered within ANSWER_TIMEOUT_MS.
 */
async function whenAnswered(
  windowId: number,
  send: () => Promise<void>,
  answer: (handled: boolean) => Promise<WindowActionResult | undefined>,
  fallback: () => Promise<WindowActionResult>,
  barrier = false,
): Promise<WindowActionResult> {
  const watch = await watchWindow(windowId);
  try {
    await send();
    if (barrier) await watch.barrier();
    // handled is read before the state, so a state read after the WM's answer is the answer.
    const answered = await watch.until(() => answer(watch.answered()), ANSWER_TIMEOUT_MS);
    return answered ?? (await fallback());
  } finally {
    await watch.close();
  }
}

async function moveResize(pid: number, window: WindowInfo, fields: number, values: Frame): Promise<WindowActionResult> {
  const id = window.windowId!;
  const wanted = values.map(Math.round) as Frame;
  const target: Frame = [...window.frame];
  for (let k = 0; k < 4; k++) if (fields & (SET_X << k)) target[k] = wanted[k]!;
  const x = await sharedX11();
  return whenAnswered(
    id,
    () => x.rootClientMessage(id, "_NET_MOVERESIZE_WINDOW", [STATIC_GRAVITY | fields | SOURCE_PAGER, ...wanted]),
    async (handled) => {
      const now = await readBack(pid, id);
      const frame = now.window?.frame;
      // Where it was asked to be, gone, or as the WM left it (clamped to the app's limits or the screen).
      return !frame || sameFrame(frame, target) || handled ? now : undefined;
    },
    () => readBack(pid, id),
    true,
  );
}

async function minimize(pid: number, windowId: number): Promise<WindowActionResult> {
  const x = await sharedX11();
  return whenAnswered(
    windowId,
    () => x.rootClientMessage(windowId, "WM_CHANGE_STATE", [ICONIC_STATE, 0, 0, 0, 0]),
    async () => {
      const now = await readBack(pid, windowId);
      // The WM marks the window hidden first and moves the focus off it a moment later: the
      // action is over when both have happened (a minimized window cannot keep the focus).
      return !now.window || (now.window.minimized && !now.window.focused) ? now : undefined;
    },
    () => readBack(pid, windowId),
  );
}

/** Asks the window manager to close the window, as its close button does (the app may refuse or prompt). */
export async function requestClose(windowId: number): Promise<void> {
  const x = await sharedX11();
  await x.rootClientMessage(windowId, "_NET_CLOSE_WINDOW", [0, SOURCE_PAGER >> 12, 0, 0, 0]);
}

async function close(pid: number, windowId: number): Promise<WindowActionResult> {
  const earlier = new Set((await windowsOfPid(pid)).map((w) => w.windowId));
  const read = async (): Promise<{ result: WindowActionResult; prompted: boolean }> => {
    const windows = await windowsOfPid(pid).catch(() => []);
    const window = windows.find((w) => w.windowId === windowId);
    return { result: window ? { window } : {}, prompted: windows.some((w) => !earlier.has(w.windowId)) };
  };
  return whenAnswered(
    windowId,
    () => requestClose(windowId),
    async () => {
      const { result, prompted } = await read();
      // Gone, or the app answered with a window of its own (a "save changes?" prompt): the rest is up to the person.
      return !result.window || prompted ? result : undefined;
    },
    async () => (await read()).result,
  );
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
