// A small typed facade over the untyped `x11` package: only the requests the Linux helper
// uses, as promises. One shared connection per process (sharedX11) serves windows, input,
// screenshots and the Escape watcher; X requests are answered in order, so sharing is cheap.
//
// X matches replies to requests by counting them. When a library call throws while building a
// request (the package's XTEST and XInput requests count the request before they pack it), the
// package's count can be one ahead of the server's, and from then on every reply goes to the
// wrong callback: the connection answers nothing. So a call that throws abandons its connection,
// and the next use opens a new one (the protocol's range checks keep such values from getting
// this far; this is the net under them).

import x11 from "x11";
import { DeskError } from "../../src/helper/desk-error.js";
import type { XCookie } from "../../src/desktop/xauthority.js";
import { ShmScreenReader, withSpareByte, type ShmImage } from "./x11-shm.js";
import type {
  Client,
  Display,
  RawEvent,
  RawGeometry,
  RawImage,
  RawPointer,
  RawProperty,
  RawTranslate,
  RawWindowAttributes,
  XIDevice,
  ResExt,
  XInputExt,
  XTestExt,
} from "x11";

/** X-Resource's client id mask for "the pid of a local client". */
const LOCAL_CLIENT_PID = 2;

export interface Property {
  /** Atom of the property's type (0 when absent). */
  type: number;
  /** 8, 16 or 32 bits per item. */
  format: number;
  data: Buffer;
}

export interface Geometry {
  x: number;
  y: number;
  width: number;
  height: number;
  depth: number;
}

export interface Pointer {
  x: number;
  y: number;
  /** Core modifier/button state (ShiftMask = 1, LockMask = 2, ControlMask = 4 …). */
  mask: number;
}

/** The core keyboard mapping: rows[k - minKeycode] are keycode k's keysyms. */
export interface KeyboardMapping {
  minKeycode: number;
  keysymsPerKeycode: number;
  rows: number[][];
}

export interface ImageData {
  depth: number;
  bitsPerPixel: number;
  /** 0 = LSBFirst (BGRX for 24-bit depth on little-endian servers). */
  byteOrder: number;
  /** The pixels: the caller may change them in place, and must not keep them past its `use`. */
  data: Buffer;
  /**
   * `data` and one writable byte after it, in the same memory: the screenshot turns BGRX into
   * RGBX in place by reading from an offset of one, which needs a byte past the last pixel.
   */
  padded: Buffer;
}

/** The events the helper listens for, reduced to the fields it reads. */
export interface X11Event {
  name: string;
  /** XI2 event type (13 = RawKeyPress) when the event came from XInput2. */
  xiType?: number;
  deviceId?: number;
  sourceId?: number;
  /** Keycode or button. */
  detail?: number;
  /** Server time in ms. */
  time?: number;
  /** XI2 event flags (XIKeyRepeat = 1 << 16). */
  flags?: number;
  /** Core events: the window the event is about. */
  window?: number;
  /** PropertyNotify: the property's atom. */
  atom?: number;
  /** ClientMessage: its type's atom and its data (five 32-bit items in format 32). */
  messageType?: number;
  data?: number[];
}

export interface XIDeviceInfo {
  id: number;
  name: string;
  /** 1 master pointer, 2 master keyboard, 3 slave pointer, 4 slave keyboard, 5 floating. */
  use: number;
}

export type FakeEvent = "keyPress" | "keyRelease" | "buttonPress" | "buttonRelease" | "motion";

type NodeCallback<T> = (err: Error | null | undefined, result: T) => boolean;

const ANY_PROPERTY_TYPE = 0;
/** X's predefined atoms, PRIMARY (1) to WM_TRANSIENT_FOR (68), have these ids on every server. */
const LAST_PREDEFINED_ATOM = 68;
const Z_PIXMAP = 2;
const VIEWABLE = 2;
/** CreateWindow's class InputOutput. */
const INPUT_OUTPUT = 1;

export class X11Client {
  readonly root: number;
  readonly screenWidth: number;
  readonly screenHeight: number;
  readonly minKeycode: number;
  readonly maxKeycode: number;
  private readonly pending = new Set<(err: Error) => void>();
  private readonly closeListeners = new Set<() => void>();
  private readonly abandonListeners = new Set<() => void>();
  private closed = false;
  /** Atoms of this connection's server, both ways (ids are per server, so per connection). */
  private readonly atomIds = new Map<string, number>();
  private readonly atomNames = new Map<number, string>();
  private xtest: Promise<XTestExt> | null = null;
  private xinput: Promise<XInputExt> | null = null;
  /** X-Resource; resolves null where the server lacks it. */
  private res: Promise<ResExt | null> | null = null;
  /** Screen reads through shared memory; null once known not to work here. */
  private shm: Promise<ShmScreenReader | null> | null = null;

  private constructor(
    private readonly raw: Client,
    private readonly display: Display,
    private readonly displayName: string,
  ) {
    const screen = display.screen[0];
    this.root = screen.root;
    this.screenWidth = screen.pixel_width;
    this.screenHeight = screen.pixel_height;
    this.minKeycode = display.min_keycode;
    this.maxKeycode = display.max_keycode;
    raw.on("end", () => this.markClosed());
    // Errors of requests sent without a callback (void requests) land here; they must not
    // crash the helper, and a later request reports a broken connection anyway.
    raw.on("error", (err: Error) => {
      if (!this.closed) process.stderr.write(`x11: ${err.message}\n`);
    });
  }

  /**
   * Connects to `display` (default $DISPLAY), with `cookie` when given (a desktop still starting,
   * whose cookie file this process's XAUTHORITY does not name), else the one XAUTHORITY names.
   */
  static connect(display: string | undefined = process.env.DISPLAY, cookie?: XCookie): Promise<X11Client> {
    if (!display) return Promise.reject(new DeskError("failed", "DISPLAY is not set: no X server to talk to"));
    const auth = cookie ? { name: cookie.name, data: cookie.data.toString("latin1") } : undefined;
    return new Promise((resolve, reject) => {
      // shm: false keeps a plain socket (input timing); screen reads have their own MIT-SHM connection.
      const raw = x11.createClient({ display, shm: false, ...(auth ? { auth } : {}) }, (err, dpy) => {
        if (err) return reject(err);
        ownAtomCache(raw); // the package sets its cache up with the connection: replace it before the first request
        resolve(new X11Client(raw, dpy, display));
      });
      raw.on("error", reject);
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Called once when the X server ends the connection (the display went away). */
  onClose(listener: () => void): void {
    this.closeListeners.add(listener);
  }

  /** Called once when this side gave the connection up after a library call threw. */
  onAbandon(listener: () => void): void {
    this.abandonListeners.add(listener);
  }

  atom(name: string): Promise<number> {
    const known = this.atomIds.get(name);
    if (known !== undefined) return Promise.resolve(known);
    return this.call<number>((cb) => this.raw.InternAtom(false, name, cb)).then((id) => {
      this.atomIds.set(name, id);
      return id;
    });
  }

  atomName(atom: number): Promise<string> {
    const known = this.atomNames.get(atom);
    if (known !== undefined) return Promise.resolve(known);
    return this.call<string>((cb) => this.raw.GetAtomName(atom, cb)).then((name) => {
      this.atomNames.set(atom, name);
      return name;
    });
  }

  /** A whole property (up to 1 MiB), or null when the window lacks it. */
  async property(window: number, name: string, type: number = ANY_PROPERTY_TYPE): Promise<Property | null> {
    // A known atom is looked up here, not through the package's cache, which answers on a
    // setImmediate: each property read then waited a turn of the event loop before its request went out.
    const atom = this.atomIds.get(name) ?? (await this.atom(name));
    const prop = await this.call<RawProperty>((cb) => this.raw.GetProperty(0, window, atom, type, 0, 262_144, cb));
    if (prop.type === 0) return null;
    return { type: prop.type, format: prop.format, data: prop.data };
  }

  /**
   * The pid of the client that created `window`, from X-Resource (local clients only), or null:
   * how a window without _NET_WM_PID (Xt apps such as xcalc) is tied to its process.
   */
  async clientPid(window: number): Promise<number | null> {
    const res = await this.resExt();
    if (!res) return null;
    const ids = await this.call<{ client: number; mask: number; value: number[] }[]>((cb) => res.QueryClientIds([{ client: window, mask: LOCAL_CLIENT_PID }], cb));
    const pid = ids.find((id) => id.mask === LOCAL_CLIENT_PID)?.value[0];
    return pid !== undefined && pid > 0 ? pid : null;
  }

  async geometry(window: number): Promise<Geometry> {
    const g = await this.call<RawGeometry>((cb) => this.raw.GetGeometry(window, cb));
    return { x: g.xPos, y: g.yPos, width: g.width, height: g.height, depth: g.depth };
  }

  /** Where `window`'s (x, y) lies in root coordinates. */
  async toRoot(window: number, x = 0, y = 0): Promise<{ x: number; y: number }> {
    const t = await this.call<RawTranslate>((cb) => this.raw.TranslateCoordinates(window, this.root, x, y, cb));
    return { x: t.destX, y: t.destY };
  }

  /** True when the window and all its ancestors are mapped. */
  async isViewable(window: number): Promise<boolean> {
    const attrs = await this.call<RawWindowAttributes>((cb) => this.raw.GetWindowAttributes(window, cb));
    return attrs.mapState === VIEWABLE;
  }

  /**
   * ZPixmap pixels of a root-window rectangle (what is on screen there), handed to `use`:
   * through shared memory where it works, read in place there, so the image is only valid
   * until `use` settles (and the next screen read waits for that).
   */
  async withRootImage<T>(x: number, y: number, width: number, height: number, use: (image: ImageData) => Promise<T>): Promise<T> {
    const shm = await this.shmReader();
    // A failed shared-memory read is retried as a core GetImage, whose errors (and connection
    // handling) are what callers know.
    const lease = shm?.usable && shm.fits(width, height) ? await shm.lease(x, y, width, height).catch(() => null) : null;
    if (lease) {
      try {
        return await use(this.imageData(lease));
      } finally {
        lease.release();
      }
    }
    const img = await this.call<RawImage>((cb) => this.raw.GetImage(Z_PIXMAP, this.root, x, y, width, height, 0xffffffff, cb));
    // The reply's pixels may be a view of the connection's read buffer: copied, with the spare byte.
    return use(this.imageData({ depth: img.depth, padded: withSpareByte(img.data) }));
  }

  private imageData(image: ShmImage): ImageData {
    return {
      depth: image.depth,
      bitsPerPixel: this.display.format[image.depth]?.bits_per_pixel ?? 0,
      byteOrder: this.display.image_byte_order,
      data: image.padded.subarray(0, image.padded.length - 1),
      padded: image.padded,
    };
  }

  /** Whether screen reads go through MIT-SHM here (else the core GetImage reply). */
  async usesSharedMemory(): Promise<boolean> {
    return (await this.shmReader())?.usable ?? false;
  }

  private shmReader(): Promise<ShmScreenReader | null> {
    if (this.closed) return Promise.resolve(null);
    this.shm ??= ShmScreenReader.open(this.displayName, this.screenWidth * this.screenHeight * 4).catch(() => null);
    return this.shm;
  }

  async pointer(): Promise<Pointer> {
    const p = await this.call<RawPointer>((cb) => this.raw.QueryPointer(this.root, cb));
    return { x: p.rootX, y: p.rootY, mask: p.keyMask };
  }

  async keyboardMapping(): Promise<KeyboardMapping> {
    const count = this.maxKeycode - this.minKeycode + 1;
    const rows = await this.call<number[][]>((cb) => this.raw.GetKeyboardMapping(this.minKeycode, count, cb));
    return { minKeycode: this.minKeycode, keysymsPerKeycode: rows[0]?.length ?? 0, rows };
  }

  /** Replaces the keysyms of `rows.length` keycodes from `first`; resolves once applied. */
  changeKeyboardMapping(first: number, rows: number[][]): Promise<void> {
    const per = rows[0]?.length ?? 0;
    return this.call<void>((cb) => this.raw.ChangeKeyboardMapping(first, per, rows.flat(), cb));
  }

  /** An EWMH client message about `window`, sent to the root (the window manager). */
  async rootClientMessage(window: number, type: string, data: number[]): Promise<void> {
    const atom = await this.atom(type);
    await this.call<void>((cb) => this.raw.SendClientMessage(this.root, window, atom, 32, data, cb));
  }

  /**
   * A client message about `window`, sent to its owner (event mask 0: delivered to the client
   * that made the window, whatever it selected), as WM_PROTOCOLS messages are.
   */
  async clientMessage(window: number, type: string, data: number[]): Promise<void> {
    const atom = await this.atom(type);
    await this.call<void>((cb) => this.raw.SendClientMessage(window, window, atom, 32, data, 0, cb));
  }

  /** One XTEST event; coordinates are root coordinates (motion only). */
  async fakeInput(event: FakeEvent, detail: number, x = 0, y = 0): Promise<void> {
    const xt = await this.xtestExt();
    const type = {
      keyPress: xt.KeyPress,
      keyRelease: xt.KeyRelease,
      buttonPress: xt.ButtonPress,
      buttonRelease: xt.ButtonRelease,
      motion: xt.MotionNotify,
    }[event];
    this.assertOpen();
    this.guarded("XTEST FakeInput", () => xt.FakeInput(type, detail, 0, event === "motion" ? this.root : 0, x, y));
  }

  async xiDevices(): Promise<XIDeviceInfo[]> {
    const xi = await this.xinputExt();
    const devices = await this.call<XIDevice[]>((cb) => xi.XIQueryDevice(xi.AllDevices, cb));
    return devices.map((d) => ({ id: d.deviceId, name: d.name, use: d.use }));
  }

  /** Selects XI2 events (by name, e.g. "RawKeyPress") on the root for all master devices; [] clears. */
  async xiSelectRoot(eventNames: string[]): Promise<void> {
    const xi = await this.xinputExt();
    const mask = eventNames.reduce((m, name) => m | (xi.EventMask[name] ?? 0), 0);
    this.assertOpen();
    this.guarded("XISelectEvents", () => xi.XISelectEvents(this.root, { deviceId: xi.AllMasterDevices, mask }));
    await this.sync();
  }

  /** Sets this connection's core event mask on `window` (0 selects nothing); resolves once applied. */
  selectInput(window: number, eventMask: number): Promise<void> {
    return this.call<void>((cb) => this.raw.ChangeWindowAttributes(window, { eventMask }, cb));
  }

  /** A 1×1 window of this connection that is never mapped (nobody sees it), selecting `eventMask`. */
  async createUnmappedWindow(eventMask: number): Promise<number> {
    this.assertOpen();
    const id = this.raw.AllocID();
    this.guarded("CreateWindow", () => this.raw.CreateWindow(id, this.root, 0, 0, 1, 1, 0, 0, INPUT_OUTPUT, 0, { eventMask }));
    await this.sync();
    return id;
  }

  async destroyWindow(window: number): Promise<void> {
    this.assertOpen();
    this.guarded("DestroyWindow", () => this.raw.DestroyWindow(window));
    await this.sync();
  }

  /** The event mask this connection has selected on `window`. */
  async eventMask(window: number): Promise<number> {
    const attrs = await this.call<RawWindowAttributes>((cb) => this.raw.GetWindowAttributes(window, cb));
    return attrs.myEventMasks;
  }

  /** How many onEvent subscriptions are open (a leak shows here). */
  get eventListeners(): number {
    return this.raw.listenerCount("event");
  }

  /** Subscribes to events; returns the unsubscribe function. */
  onEvent(listener: (event: X11Event) => void): () => void {
    const handler = (ev: RawEvent): void => listener(toEvent(ev));
    this.raw.on("event", handler);
    return () => this.raw.removeListener("event", handler);
  }

  /** Round trip: every request sent so far has been processed. */
  sync(): Promise<void> {
    return this.call<void>((cb) => this.raw.sync((err) => cb(err, undefined)));
  }

  /** Flushes and closes; gives up waiting after 1 s (a dead server never answers the flush). */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closeShm();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.raw.terminate();
        resolve();
      }, 1000);
      this.raw.close(() => {
        clearTimeout(timer);
        resolve();
      });
      this.closed = true;
    });
  }

  private xtestExt(): Promise<XTestExt> {
    this.xtest ??= this.call<XTestExt>((cb) => this.raw.require("xtest", (err, ext) => cb(err, ext)));
    return this.xtest;
  }

  private resExt(): Promise<ResExt | null> {
    this.res ??= this.call<ResExt>((cb) => this.raw.require("res", (err, ext) => cb(err, ext))).catch(() => null);
    return this.res;
  }

  private xinputExt(): Promise<XInputExt> {
    this.xinput ??= this.call<XInputExt>((cb) => this.raw.require("xinput", (err, ext) => cb(err, ext)));
    return this.xinput;
  }

  /** Wraps one callback request; rejects if the connection goes away first. */
  private call<T>(send: (cb: NodeCallback<T>) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.closed) return reject(connectionClosed());
      this.pending.add(reject);
      const done: NodeCallback<T> = (err, result) => {
        this.pending.delete(reject);
        if (err) reject(err);
        else resolve(result);
        return true; // handled: keeps the client from re-emitting it as 'error'
      };
      try {
        send(done);
      } catch (error) {
        this.pending.delete(reject);
        reject(this.thrown("request", error));
      }
    });
  }

  /** Runs a library call that writes a request; if it throws, the connection is abandoned (see the top). */
  private guarded(what: string, send: () => void): void {
    try {
      send();
    } catch (error) {
      throw this.thrown(what, error);
    }
  }

  /** Abandons the connection after `what` threw; the error to report. */
  private thrown(what: string, error: unknown): DeskError {
    const reason = error instanceof Error ? error.message : String(error);
    this.abandon(`${what} threw (${reason})`);
    return new DeskError("failed", `the X11 ${what} could not be sent (${reason}); the helper opens a new X connection`);
  }

  /** Drops the connection from this side without telling the close listeners: the display is still there. */
  private abandon(why: string): void {
    if (this.closed) return;
    process.stderr.write(`x11: ${why}; the connection is replaced\n`);
    this.closed = true;
    for (const reject of this.pending) reject(connectionClosed());
    this.pending.clear();
    this.raw.terminate();
    for (const listener of this.abandonListeners) listener();
  }

  private assertOpen(): void {
    if (this.closed) throw connectionClosed();
  }

  private closeShm(): void {
    void this.shm?.then((reader) => reader?.close());
    this.shm = null;
  }

  private markClosed(): void {
    this.closeShm();
    if (!this.closed) for (const listener of this.closeListeners) listener();
    this.closed = true;
    for (const reject of this.pending) reject(connectionClosed());
    this.pending.clear();
  }
}

/**
 * The package starts every client's atom cache as one object shared by all the clients of the
 * process, and fills it with each InternAtom answer. A client of a second display then used the
 * first display's ids for every atom beyond the predefined ones (ids each server hands out in its
 * own order): a process that started two desktops read the wrong properties on the second.
 * So each client gets a cache of its own, seeded with the predefined atoms only.
 */
function ownAtomCache(raw: Client): void {
  const atoms = Object.fromEntries(Object.entries(raw.atoms).filter(([, id]) => id <= LAST_PREDEFINED_ATOM));
  raw.atoms = atoms;
  raw.atom_names = Object.fromEntries(Object.entries(atoms).map(([name, id]) => [id, name]));
}

function toEvent(ev: RawEvent): X11Event {
  return {
    name: ev.name ?? `Event${ev.type}`,
    xiType: ev.type === 35 ? ev.evtype : undefined,
    deviceId: ev.deviceId,
    sourceId: ev.sourceId,
    detail: ev.detail,
    time: ev.time,
    flags: ev.flags,
    window: ev.wid,
    atom: ev.atom,
    messageType: ev.message_type,
    data: ev.data,
  };
}

function connectionClosed(): DeskError {
  return new DeskError("failed", "the X server connection is closed");
}

/** One entry of X.Org's keysymdef.h. */
export interface KeysymEntry {
  /** The name without the XK_ prefix: "Return", "Page_Down", "udiaeresis". */
  name: string;
  keysym: number;
  /** The character the keysym stands for, when it is one. */
  char?: string;
}

/** Every keysym name the package knows (keysymdef.h), in the header's order. */
export function keysymEntries(): KeysymEntry[] {
  const entries: KeysymEntry[] = [];
  for (const [key, value] of Object.entries(x11.keySyms)) {
    if (!key.startsWith("XK_") || typeof value === "number") continue;
    const char = value.description ? /^\((.)\) /u.exec(value.description)?.[1] : undefined;
    entries.push({ name: key.slice(3), keysym: value.code, ...(char ? { char } : {}) });
  }
  return entries;
}

let shared: X11Client | null = null;
let opening: Promise<X11Client> | null = null;
const displayLostListeners = new Set<() => void>();
const replacedListeners = new Set<(client: X11Client) => void>();

/** The process's X connection, opened on first use and reopened after it drops. */
export function sharedX11(): Promise<X11Client> {
  if (shared && !shared.isClosed) return Promise.resolve(shared);
  opening ??= openShared(shared !== null);
  return opening;
}

async function openShared(replacing: boolean): Promise<X11Client> {
  try {
    const client = await X11Client.connect();
    shared = client;
    client.onClose(() => displayLostListeners.forEach((listener) => listener()));
    // Reopen at once, so the Escape watcher is back before the next call needs X.
    client.onAbandon(() => void sharedX11().catch(() => undefined));
    if (replacing) replacedListeners.forEach((listener) => listener(client));
    return client;
  } finally {
    opening = null;
  }
}

/** Called when the X server ends the shared connection (the display went away). */
export function onDisplayLost(listener: () => void): () => void {
  displayLostListeners.add(listener);
  return () => displayLostListeners.delete(listener);
}

/** Called with the new shared connection each time one replaces an abandoned one. */
export function onSharedX11Replaced(listener: (client: X11Client) => void): () => void {
  replacedListeners.add(listener);
  return () => replacedListeners.delete(listener);
}

/** Closes the shared connection (tests, helper shutdown). */
export async function closeSharedX11(): Promise<void> {
  const client = shared ?? (await opening?.catch(() => null)) ?? null;
  shared = null;
  await client?.close();
}
