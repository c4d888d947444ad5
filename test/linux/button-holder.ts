// A second X client on the test desktop that holds clicks the way openbox does: a passive grab of
// a button on the root window in synchronous pointer mode freezes the pointer at the press, so the
// server keeps the button down (and queues the release) until this client lets the events go.
// It also owns a plain top-level window that records the button events it is finally given.
import { INPUT_OUTPUT, openRawX11, type RawX11 } from "./raw-x11.js";

const GRAB_MODE_SYNC = 0;
const GRAB_MODE_ASYNC = 1;
const ANY_MODIFIER = 0x8000;
const BUTTON_PRESS_MASK = 0x4;
const BUTTON_RELEASE_MASK = 0x8;
const EXPOSURE_MASK = 0x8000;
/** AllowEvents mode: the frozen press is delivered as if it had never been grabbed. */
const REPLAY_POINTER = 2;

export interface ButtonEvent {
  name: "ButtonPress" | "ButtonRelease";
  button: number;
  /** The window the server gave the event to: the root while held, the test window once let go. */
  window: number;
}

export class ButtonHolder {
  /** Every button event this client was given, in order. */
  readonly events: ButtonEvent[] = [];
  private readonly listeners = new Set<() => void>();

  private constructor(
    private readonly raw: RawX11,
    readonly root: number,
    /** The test window, mapped (the window manager frames it). */
    readonly window: number,
  ) {
    raw.on("event", (ev) => {
      const { name, keycode, wid } = ev as unknown as { name: string; keycode: number; wid: number };
      if (name !== "ButtonPress" && name !== "ButtonRelease") return;
      this.events.push({ name, button: keycode, window: wid });
      this.listeners.forEach((listener) => listener());
    });
  }

  /** Connects to $DISPLAY and maps a test window at (x, y), size w × h. */
  static async open(x: number, y: number, w: number, h: number): Promise<ButtonHolder> {
    const raw = await openRawX11("button holder");
    const root = raw.display.screen[0].root;
    const window = raw.AllocID();
    raw.CreateWindow(window, root, x, y, w, h, 0, 0, INPUT_OUTPUT, 0, {
      backgroundPixel: 0xffffff,
      eventMask: BUTTON_PRESS_MASK | BUTTON_RELEASE_MASK | EXPOSURE_MASK,
    });
    raw.MapWindow(window);
    const holder = new ButtonHolder(raw, root, window);
    await holder.sync();
    return holder;
  }

  /** From now on, a press of `button` anywhere freezes the pointer until release() or stopHolding(). */
  async holdPresses(button: number): Promise<void> {
    this.raw.GrabButton(this.root, 0, BUTTON_PRESS_MASK | BUTTON_RELEASE_MASK, GRAB_MODE_SYNC, GRAB_MODE_ASYNC, 0, 0, button, ANY_MODIFIER);
    await this.sync();
  }

  /** Resolves once a press was held here (the grab activated: the pointer is frozen). */
  held(): Promise<ButtonEvent> {
    return this.next((e) => e.name === "ButtonPress" && e.window === this.root);
  }

  /** Lets the held press go on as if never grabbed, as a window manager does once it handled it. */
  async release(): Promise<void> {
    this.raw.AllowEvents(REPLAY_POINTER, 0);
    await this.sync();
  }

  /** Stops holding presses of `button`, letting a press still held go on first. */
  async stopHolding(button: number): Promise<void> {
    this.raw.AllowEvents(REPLAY_POINTER, 0);
    this.raw.UngrabButton(this.root, button, ANY_MODIFIER);
    await this.sync();
  }

  /** Resolves with the first event (already seen or still to come) that `match` accepts. */
  next(match: (event: ButtonEvent) => boolean): Promise<ButtonEvent> {
    return new Promise((resolve) => {
      const check = (): void => {
        const found = this.events.find(match);
        if (!found) return;
        this.listeners.delete(check);
        resolve(found);
      };
      this.listeners.add(check);
      check();
    });
  }

  /** The test window's parent: the root while unmanaged, the window manager's frame once managed. */
  parent(): Promise<number> {
    return new Promise((resolve, reject) => this.raw.QueryTree(this.window, (err, tree) => (err ? reject(err) : resolve(tree.parent))));
  }

  async close(): Promise<void> {
    this.raw.DestroyWindow(this.window);
    await this.sync().catch(() => undefined);
    this.raw.terminate();
  }

  private sync(): Promise<void> {
    return new Promise((resolve, reject) => this.raw.sync((err) => (err ? reject(err) : resolve())));
  }
}
