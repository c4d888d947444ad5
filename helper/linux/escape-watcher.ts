// Watches for the user pressing Escape, passively: XInput2 raw key events selected on the
// root window are copies of what every keyboard sends. Nothing is grabbed, so apps still
// get their Escape. Escapes this helper synthesised (input.ts notes them) are ignored.

import { helperEscapes } from "./input.js";
import { XK } from "./keysyms.js";
import { onSharedX11Replaced, sharedX11, type X11Client, type X11Event } from "./x11-client.js";

export interface EscapePress {
  /** Server time of the press, in ms. */
  time: number;
  /** XInput2 id of the physical (slave) device that sent it. */
  sourceId: number;
  /** It came through XTEST (another automation tool such as xdotool), not a real keyboard. */
  synthetic: boolean;
}

export type EscapeListener = (press: EscapePress) => void;

const XI_RAW_KEY_PRESS = 13;
/** XIKeyRepeat: an auto-repeat of a held key, not a new press. */
const XI_KEY_REPEAT = 1 << 16;
const SLAVE_KEYBOARD = 4;

const watchers = new Set<EscapeWatcher>();

// The selection and the event subscription belong to a connection: when a new shared one
// replaces an abandoned one (x11-client.ts), every watcher moves to it.
onSharedX11Replaced((x) => {
  if (watchers.size === 0) return;
  for (const watcher of watchers) watcher.moveTo(x);
  x.xiSelectRoot(["RawKeyPress"]).catch((error: unknown) => {
    process.stderr.write(`the Escape watcher could not follow the new X connection: ${error instanceof Error ? error.message : String(error)}\n`);
  });
});

export class EscapeWatcher {
  private readonly listeners = new Set<EscapeListener>();
  private unsubscribe: (() => void) | null = null;

  private constructor(
    private x: X11Client,
    private escapeKeycodes: Set<number>,
    private readonly xtestKeyboards: Set<number>,
  ) {}

  /** Starts watching; stop() ends it. */
  static async start(): Promise<EscapeWatcher> {
    const x = await sharedX11();
    const [keycodes, xtest] = await Promise.all([escapeKeycodesOf(x), xtestKeyboardsOf(x)]);
    const watcher = new EscapeWatcher(x, keycodes, xtest);
    watcher.unsubscribe = x.onEvent((ev) => watcher.handle(ev));
    if (watchers.size === 0) await x.xiSelectRoot(["RawKeyPress"]);
    watchers.add(watcher);
    return watcher;
  }

  /** Adds a listener; returns its remover. */
  onEscape(listener: EscapeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async stop(): Promise<void> {
    if (!watchers.delete(this)) return;
    this.unsubscribe?.();
    this.listeners.clear();
    // The selection is per connection, shared by every watcher: clear it with the last one.
    if (watchers.size === 0 && !this.x.isClosed) await this.x.xiSelectRoot([]);
  }

  /** Listens on `x` from now on (the shared connection was replaced). */
  moveTo(x: X11Client): void {
    this.unsubscribe?.();
    this.x = x;
    this.unsubscribe = x.onEvent((ev) => this.handle(ev));
    this.refreshKeycodes();
  }

  private handle(ev: X11Event): void {
    if (ev.name === "MappingNotify") return void this.refreshKeycodes();
    if (ev.xiType !== XI_RAW_KEY_PRESS || ev.detail === undefined) return;
    if (!this.escapeKeycodes.has(ev.detail) || ((ev.flags ?? 0) & XI_KEY_REPEAT) !== 0) return;
    const synthetic = this.xtestKeyboards.has(ev.sourceId ?? -1);
    // Only XTEST presses can be the helper's own; a real keyboard's Escape always counts.
    if ((synthetic || this.xtestKeyboards.size === 0) && helperEscapes.claim(ev.detail)) return;
    const press: EscapePress = { time: ev.time ?? 0, sourceId: ev.sourceId ?? 0, synthetic };
    for (const listener of this.listeners) notify(listener, press);
  }

  /** The keymap changed (setxkbmap, or input.ts binding a spare keycode): re-read Escape's keycodes. */
  private refreshKeycodes(): void {
    escapeKeycodesOf(this.x).then(
      (keycodes) => (this.escapeKeycodes = keycodes),
      () => undefined,
    );
  }
}

/** A throwing listener must not break the X connection's event dispatch (or the other listeners). */
function notify(listener: EscapeListener, press: EscapePress): void {
  try {
    listener(press);
  } catch (error) {
    process.stderr.write(`escape listener failed: ${error instanceof Error ? error.message : String(error)}\n`);
  }
}

async function escapeKeycodesOf(x: X11Client): Promise<Set<number>> {
  const map = await x.keyboardMapping();
  const keycodes = new Set<number>();
  map.rows.forEach((syms, i) => {
    if (syms.includes(XK.Escape)) keycodes.add(map.minKeycode + i);
  });
  return keycodes;
}

/** XTEST's slave keyboards ("Virtual core XTEST keyboard"), one per master keyboard. */
async function xtestKeyboardsOf(x: X11Client): Promise<Set<number>> {
  const devices = await x.xiDevices().catch(() => []);
  return new Set(devices.filter((d) => d.use === SLAVE_KEYBOARD && d.name.includes("XTEST")).map((d) => d.id));
}
