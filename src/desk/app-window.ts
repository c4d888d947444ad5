import type { Frame, WindowActionName, WindowActionParams, WindowActionResult, WindowInfo } from "../helper/protocol.js";

/** Sends one windowAction for this window's app; the App supplies pid and the stop check. */
export type WindowActionSender = (params: Omit<WindowActionParams, "pid">) => Promise<WindowActionResult>;

/**
 * One of an app's windows as `app.windows()` returns it: the helper's WindowInfo, plus actions
 * that update these fields with what the window manager and the app actually did.
 */
export class AppWindow implements WindowInfo {
  index!: number;
  title!: string;
  /** [x, y, width, height] in screen points: the window's content, without the frame decorations. */
  frame!: Frame;
  scale!: number;
  focused!: boolean;
  main!: boolean;
  minimized!: boolean;
  subrole?: string;
  windowId?: number;
  /** False once close() saw the window go. */
  open = true;

  constructor(info: WindowInfo, private readonly send: WindowActionSender) {
    this.assign(info);
    // Not an own enumerable field: printing a window shows its data only.
    Object.defineProperty(this, "send", { enumerable: false });
  }

  /** Raises and focuses the window (un-minimizing it). */
  async focus(): Promise<this> {
    return this.act("focus");
  }

  /** Moves the window's top-left to (x, y) in screen points. */
  async move(x: number, y: number): Promise<this> {
    return this.act("move", { x: finite(x, "x"), y: finite(y, "y") });
  }

  /** Resizes the window's content to width × height screen points. */
  async resize(width: number, height: number): Promise<this> {
    return this.act("resize", { width: positive(width, "width"), height: positive(height, "height") });
  }

  async minimize(): Promise<this> {
    return this.act("minimize");
  }

  /** Asks the window to close, as its close button does; the app may ask to save first, and then `open` stays true. */
  async close(): Promise<this> {
    return this.act("close");
  }

  private async act(action: WindowActionName, extra: Partial<WindowActionParams> = {}): Promise<this> {
    if (this.windowId === undefined) throw new TypeError(`window "${this.title}" has no id, so it cannot be acted on`);
    const result = await this.send({ ...extra, windowId: this.windowId, action });
    if (result.window) this.assign(result.window);
    else this.open = false;
    return this;
  }

  private assign(info: WindowInfo): void {
    const { index, title, frame, scale, focused, main, minimized, subrole, windowId } = info;
    Object.assign(this, { index, title, frame, scale, focused, main, minimized, windowId });
    if (subrole !== undefined) this.subrole = subrole;
  }
}

function finite(value: unknown, name: string): number {
  if (typeof value !== "number" || !Number.isFinite(value)) throw new TypeError(`${name} must be a number of screen points, not ${JSON.stringify(value)}`);
  return value;
}

function positive(value: unknown, name: string): number {
  const n = finite(value, name);
  if (n < 1) throw new TypeError(`${name} must be at least 1 screen point, not ${n}`);
  return n;
}
