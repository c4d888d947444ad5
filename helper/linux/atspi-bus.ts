// The connection to the accessibility bus: plain method calls (no proxy objects, which would
// introspect every object first), each with a timeout so a hung app cannot hang the helper.
// A connection that failed on this side (its stream ended or errored, the library could not
// read a message, or a call threw before its message was written) is marked broken, and
// Services opens a new one for the next call.
import dbus from "dbus-next";
import { Writable } from "node:stream";
import { AtspiError, errorMessage } from "./atspi-error.js";
import { DBusDecodeError, decodeBody } from "./dbus-body-decoder.js";
import { isReadCall } from "./atspi-read-calls.js";
import { encodeMethodCall, forgetCallsTo } from "./dbus-call-encoder.js";
import type { RawMessage } from "./dbus-message-reader.js";
import { DirectConnection, DirectLost, peerSocketPath, processUid } from "./direct-connection.js";

/** An accessible object: the app's unique bus name and the object's path. */
export interface AccessibleRef {
  bus: string;
  path: string;
}

export const REGISTRY: AccessibleRef = { bus: "org.a11y.atspi.Registry", path: "/org/a11y/atspi/accessible/root" };
export const NULL_PATH = "/org/a11y/atspi/null";

export const Iface = {
  accessible: "org.a11y.atspi.Accessible",
  action: "org.a11y.atspi.Action",
  application: "org.a11y.atspi.Application",
  cache: "org.a11y.atspi.Cache",
  component: "org.a11y.atspi.Component",
  editableText: "org.a11y.atspi.EditableText",
  text: "org.a11y.atspi.Text",
  value: "org.a11y.atspi.Value",
  properties: "org.freedesktop.DBus.Properties",
} as const;

/** How callDecoding reads a reply: by hand from the bytes for one signature, else from its values. */
export interface ReplyDecoder<T> {
  signature: string;
  /** Throws DBusDecodeError when the bytes do not hold the signature. */
  fromBytes: (body: Buffer, little: boolean) => T;
  /** Must not throw: the values come from a decoder that already checked them. */
  fromValues: (values: unknown[]) => T;
}

/** `detail`: an AT-SPI event's first argument (the state of a StateChanged, "add" of a ChildrenChanged), when a string. */
export type SignalListener = (sender: string, iface: string, member: string, path: string, detail?: string) => void;

export const DEFAULT_CALL_TIMEOUT_MS = 2_000;
const CONNECT_TIMEOUT_MS = 5_000;
// Registering any event listener makes at-spi2-atk (GTK 3) finish its lazy start: until an
// assistive technology listens, it does not even export /org/a11y/atspi/cache. This event is
// rare, so apps send almost nothing for it.
const ACTIVATION_EVENT = "window:activate";

export interface AtspiBusOptions {
  /** The a11y bus itself; defaults to $AT_SPI_BUS_ADDRESS, then org.a11y.Bus.GetAddress. */
  a11yBusAddress?: string;
  /** Where org.a11y.Bus lives; defaults to $DBUS_SESSION_BUS_ADDRESS. */
  sessionBusAddress?: string;
  callTimeoutMs?: number;
}

export class AtspiBus {
  private readonly lostListeners: Array<(bus: string) => void> = [];
  private readonly signalListeners: Array<SignalListener> = [];
  #broken: string | null = null;
  readonly #stream: Writable | undefined;
  readonly #internals: ReplyTable | undefined;
  /** The library's fd-passing socket takes { data, fds } chunks. */
  readonly #fdStream: boolean;
  #corked = false;
  /** Unique bus name → its app's direct connection, being opened, open, or null (none to be had). */
  readonly #direct = new Map<string, Promise<DirectConnection | null>>();
  readonly #directOpen = new Map<string, DirectConnection>();

  private constructor(
    private readonly bus: dbus.MessageBus,
    readonly callTimeoutMs: number,
  ) {
    this.#stream = socketOf(bus);
    this.#internals = replyTable(bus);
    this.#fdStream = (this.#stream as { supportsUnixFd?: boolean } | undefined)?.supportsUnixFd === true;
    bus.on("message", (message: dbus.Message) => this.onMessage(message));
    bus.on("error", (error: unknown) => this.markBroken(`the bus connection failed: ${errorMessage(error)}`));
  }

  /** Why this connection can no longer be used, or null while it can. */
  get broken(): string | null {
    return this.#broken;
  }

  static async connect(options: AtspiBusOptions = {}): Promise<AtspiBus> {
    const timeout = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    const bus = await openA11yBus(options);
    const atspi = new AtspiBus(bus, timeout);
    await atspi.callBus("AddMatch", "s", [
      "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged'",
    ]);
    await atspi.registerEvent(ACTIVATION_EVENT);
    return atspi;
  }

  /** Asks the registry to have apps emit `event` (an AT-SPI event name or prefix, `object:state-changed`). */
  async registerEvent(event: string): Promise<void> {
    const registry = { bus: "org.a11y.atspi.Registry", path: "/org/a11y/atspi/registry" };
    await this.call(registry, "org.a11y.atspi.Registry", "RegisterEvent", "sass", [event, [], ""]);
  }

  /** Has the bus deliver the signals a match rule describes to this connection. */
  async addMatch(rule: string): Promise<void> {
    await this.callBus("AddMatch", "s", [rule]);
  }

  /** Called for every signal from an app (its unique bus name, the interface, the member, the object's path and the event's detail). */
  onSignal(listener: SignalListener): void {
    this.signalListeners.push(listener);
  }

  /** One method call; resolves with the reply's body. Rejects with the DBusError or a timeout. */
  call(
    ref: AccessibleRef,
    iface: string,
    member: string,
    signature = "",
    body: unknown[] = [],
    timeoutMs = this.callTimeoutMs,
  ): Promise<unknown[]> {
    return this.request(ref, iface, member, signature, body, timeoutMs, valuesOf, (values) => values);
  }

  /**
   * A call without arguments whose reply, when it comes on a direct connection with the
   * signature `reply.signature`, is decoded by `reply.fromBytes` straight from its bytes; any
   * other reply's values go to `reply.fromValues`. A malformed reply rejects with a coded
   * AtspiError and leaves both connections as they were.
   */
  callDecoding<T>(ref: AccessibleRef, iface: string, member: string, reply: ReplyDecoder<T>, timeoutMs = this.callTimeoutMs): Promise<T> {
    const fromRaw = (message: RawMessage): T =>
      message.signature === reply.signature ? reply.fromBytes(message.body, message.little) : reply.fromValues(valuesOf(message));
    return this.request(ref, iface, member, "", [], timeoutMs, fromRaw, reply.fromValues);
  }

  private async request<T>(
    ref: AccessibleRef,
    iface: string,
    member: string,
    signature: string,
    body: unknown[],
    timeoutMs: number,
    fromRaw: (message: RawMessage) => T,
    fromValues: (values: unknown[]) => T,
  ): Promise<T> {
    if (this.#broken) throw new AtspiError("failed", `the accessibility bus connection is broken (${this.#broken}); the next call opens a new one`);
    let sent: Promise<T>;
    try {
      const viaBus = (): Promise<T> => {
        this.batchWrites();
        const message = this.sendEncoded(ref, iface, member, signature, body) ?? this.bus.call(new dbus.Message({ destination: ref.bus, path: ref.path, interface: iface, member, signature, body }));
        return message.then((reply) => fromValues(reply?.body ?? []));
      };
      // A direct connection that closed under the call: the bus answers it (or says the app is gone).
      const direct = this.sendDirect(ref, iface, member, signature, body);
      sent = direct ? direct.then((message) => decodedOrMalformed(fromRaw, message), (error: unknown) => (error instanceof DirectLost ? viaBus() : Promise.reject(error))) : viaBus();
    } catch (error) {
      throw this.thrown(member, error);
    }
    return withTimeout(
      sent.catch((error: unknown) => {
        // A DBusError is the other side's answer, and so is a reply that is not D-Bus (the
        // connection it came on is still in step); anything else failed in this process.
        if (error instanceof dbus.DBusError) throw error;
        if (error instanceof DBusDecodeError) throw new AtspiError("failed", `the app's reply to ${member} is malformed: ${error.message}`);
        throw this.thrown(member, error);
      }),
      timeoutMs,
      `${iface.split(".").pop()}.${member}`,
    );
  }

  async getProperty(ref: AccessibleRef, iface: string, name: string): Promise<unknown> {
    const [variant] = await this.call(ref, Iface.properties, "Get", "ss", [iface, name]);
    return variant instanceof dbus.Variant ? variant.value : variant;
  }

  async setProperty(ref: AccessibleRef, iface: string, name: string, signature: string, value: unknown): Promise<void> {
    await this.call(ref, Iface.properties, "Set", "ssv", [iface, name, new dbus.Variant(signature, value)]);
  }

  async nameHasOwner(name: string): Promise<boolean> {
    const [owned] = await this.callBus("NameHasOwner", "s", [name]);
    return owned === true;
  }

  /** The pid behind a connection on the a11y bus (apps connect to it directly). */
  async connectionPid(name: string): Promise<number> {
    const [pid] = await this.callBus("GetConnectionUnixProcessID", "s", [name]);
    return typeof pid === "number" ? pid : 0;
  }

  /** The pids with a connection to the a11y bus (apps that have reached it, registered or not). */
  async connectedPids(): Promise<Set<number>> {
    const [names] = await this.callBus("ListNames", "", []);
    const unique = Array.isArray(names) ? names.filter((name): name is string => typeof name === "string" && name.startsWith(":")) : [];
    const pids = await Promise.all(unique.map((name) => this.connectionPid(name).catch(() => 0)));
    return new Set(pids.filter((pid) => pid > 0));
  }

  /** Called with a unique bus name when its connection closes (the app exited). */
  onNameLost(listener: (bus: string) => void): void {
    this.lostListeners.push(listener);
  }

  close(): void {
    this.#broken ??= "closed";
    for (const direct of this.#directOpen.values()) direct.close();
    this.#directOpen.clear();
    this.bus.disconnect();
  }

  /**
   * Opens (once per app connection) the app's direct connection, which reads then take; an app
   * that offers none, or one that cannot be used, is read through the bus as before.
   */
  openDirect(app: AccessibleRef, pid: number): Promise<void> {
    let opening = this.#direct.get(app.bus);
    if (!opening) {
      opening = this.connectDirect(app, pid);
      this.#direct.set(app.bus, opening);
    }
    return opening.then(() => undefined);
  }

  /** Whether reads of the app at `appBus` take its direct connection now. */
  hasDirect(appBus: string): boolean {
    return this.#directOpen.get(appBus)?.closed === null;
  }

  /**
   * Resolves once the app answered a Peer.Ping sent through the bus: by then every event it sent
   * before has been handled here. Replies on the direct connection can overtake events that
   * travel through the bus, so a read takes this before it trusts what the mirror kept.
   */
  async sync(appBus: string): Promise<void> {
    if (!this.hasDirect(appBus)) return;
    await this.call({ bus: appBus, path: "/" }, "org.freedesktop.DBus.Peer", "Ping").catch(() => undefined);
  }

  private async connectDirect(app: AccessibleRef, pid: number): Promise<DirectConnection | null> {
    try {
      const [address] = await this.call(app, Iface.application, "GetApplicationBusAddress");
      const uid = processUid(pid);
      const socket = typeof address === "string" && uid !== undefined ? peerSocketPath(address, uid) : undefined;
      if (!socket || this.#broken) return null;
      const direct = await DirectConnection.open(socket);
      if (this.#broken || !this.#direct.has(app.bus)) {
        direct.close(); // the app left (or this connection closed) while it opened
        return null;
      }
      this.#directOpen.set(app.bus, direct);
      return direct;
    } catch {
      return null; // no such method (Qt), no socket: the bus serves this app
    }
  }

  private dropDirect(appBus: string): void {
    this.#directOpen.get(appBus)?.close("gone from the bus");
    this.#directOpen.delete(appBus);
    this.#direct.delete(appBus);
  }

  /** A reading call on the app's direct connection, when it has one that is open. */
  private sendDirect(ref: AccessibleRef, iface: string, member: string, signature: string, body: unknown[]): Promise<RawMessage> | undefined {
    const direct = this.#directOpen.get(ref.bus);
    // Calls that change the app stay on the bus (see atspi-read-calls.ts).
    if (!direct || !isReadCall(iface, member)) return undefined;
    if (direct.closed) {
      this.#directOpen.delete(ref.bus);
      return undefined;
    }
    return direct.call(ref.bus, ref.path, iface, member, signature, body);
  }

  /**
   * Calls sent in one burst (a tree level, a node's details) leave in one write instead of a
   * write each: the socket is corked until the burst's synchronous code and promise jobs ran.
   */
  private batchWrites(): void {
    if (this.#corked || !this.#stream) return;
    this.#corked = true;
    this.#stream.cork();
    process.nextTick(() => {
      this.#corked = false;
      this.#stream?.uncork();
    });
  }

  /**
   * The call encoded here and written to the socket, its reply taken by the library's own reply
   * table (what its call() does after its slower marshalling); undefined when the call or this
   * version of the library does not allow it, and the library sends it.
   */
  private sendEncoded(ref: AccessibleRef, iface: string, member: string, signature: string, body: unknown[]): Promise<dbus.Message> | undefined {
    const internals = this.#internals;
    if (!internals || !this.#stream?.writable) return undefined;
    const serial = this.bus.newSerial();
    const data = encodeMethodCall({ serial, destination: ref.bus, path: ref.path, iface, member, signature, body });
    if (!data) return undefined;
    return new Promise((resolve, reject) => {
      internals.handlers[serial] = (reply: dbus.Message): void => {
        internals.owners[ref.bus] = reply.sender;
        if (reply.type === dbus.MessageType.ERROR) reject(new dbus.DBusError(reply.errorName ?? "", reply.body[0] as string, reply));
        else resolve(reply);
      };
      this.#stream?.write(this.#fdStream ? { data, fds: [] } : data);
    });
  }

  /** A call failed inside the library: the connection is given up (see the top). */
  private thrown(member: string, error: unknown): AtspiError {
    this.markBroken(`${member} failed in the D-Bus library: ${errorMessage(error)}`);
    return new AtspiError("failed", `${member} could not be sent (${errorMessage(error)}); the helper opens a new accessibility bus connection`);
  }

  private markBroken(why: string): void {
    if (this.#broken) return;
    this.#broken = why;
    process.stderr.write(`atspi: ${why}; the connection is replaced\n`);
    this.bus.disconnect();
  }

  private callBus(member: string, signature: string, body: unknown[]): Promise<unknown[]> {
    const daemon = { bus: "org.freedesktop.DBus", path: "/org/freedesktop/DBus" };
    return this.call(daemon, "org.freedesktop.DBus", member, signature, body);
  }

  private onMessage(message: dbus.Message): void {
    if (message.type === dbus.MessageType.SIGNAL && message.sender?.startsWith(":") && message.interface) {
      const first: unknown = Array.isArray(message.body) ? message.body[0] : undefined;
      const detail = typeof first === "string" ? first : undefined;
      for (const listener of this.signalListeners) listener(message.sender, message.interface, message.member ?? "", message.path ?? "", detail);
    }
    if (message.member !== "NameOwnerChanged" || message.interface !== "org.freedesktop.DBus") return;
    const [name, , newOwner] = message.body as unknown[];
    if (typeof name === "string" && name.startsWith(":") && newOwner === "") {
      this.dropDirect(name);
      forgetCallsTo(name);
      for (const listener of this.lostListeners) listener(name);
    }
  }
}

async function openA11yBus(options: AtspiBusOptions): Promise<dbus.MessageBus> {
  const direct = options.a11yBusAddress ?? process.env.AT_SPI_BUS_ADDRESS;
  if (direct) {
    try {
      return await openBus(direct);
    } catch {
      // A stale AT_SPI_BUS_ADDRESS (desktop restarted): ask org.a11y.Bus instead.
    }
  }
  return openBus(await lookupA11yAddress(options.sessionBusAddress ?? process.env.DBUS_SESSION_BUS_ADDRESS));
}

async function lookupA11yAddress(sessionAddress: string | undefined): Promise<string> {
  if (!sessionAddress) {
    throw new AtspiError("failed", "no accessibility bus: DBUS_SESSION_BUS_ADDRESS and AT_SPI_BUS_ADDRESS are unset");
  }
  const session = await openBus(sessionAddress);
  try {
    const message = new dbus.Message({
      destination: "org.a11y.Bus",
      path: "/org/a11y/bus",
      interface: "org.a11y.Bus",
      member: "GetAddress",
    });
    const reply = await withTimeout(session.call(message), CONNECT_TIMEOUT_MS, "org.a11y.Bus.GetAddress");
    const address = reply?.body[0];
    if (typeof address !== "string" || !address) throw new AtspiError("failed", "org.a11y.Bus returned no address");
    return address;
  } catch (error) {
    if (error instanceof AtspiError) throw error;
    throw new AtspiError("failed", `cannot find the accessibility bus (is at-spi2-core running?): ${errorMessage(error)}`);
  } finally {
    session.disconnect();
  }
}

/** Resolves once the bus answered Hello; a dbus-next bus reports failures only as events. */
function openBus(address: string): Promise<dbus.MessageBus> {
  const bus = dbus.sessionBus({ busAddress: address });
  return new Promise((resolve, reject) => {
    const fail = (error: unknown): void => {
      clearTimeout(timer);
      bus.disconnect();
      reject(new AtspiError("failed", `cannot connect to ${address}: ${errorMessage(error)}`));
    };
    const timer = setTimeout(() => fail("timed out"), CONNECT_TIMEOUT_MS);
    bus.once("error", fail);
    bus.once("connect", () => {
      clearTimeout(timer);
      bus.removeListener("error", fail);
      // A later socket error must not crash the helper; the next call reports it.
      bus.on("error", () => undefined);
      resolve(bus);
    });
  });
}

/** The library's socket, to cork; undefined if a later version keeps it elsewhere (then nothing is batched). */
function socketOf(bus: dbus.MessageBus): Writable | undefined {
  const stream: unknown = (bus as unknown as { _connection?: { stream?: unknown } })._connection?.stream;
  return stream instanceof Writable ? stream : undefined;
}

interface ReplyTable {
  handlers: Record<number, (reply: dbus.Message) => void>;
  owners: Record<string, string | undefined>;
}

/** The library's table of calls awaiting a reply, and its name owners; undefined if a later version keeps them elsewhere. */
function replyTable(bus: dbus.MessageBus): ReplyTable | undefined {
  const inside = bus as unknown as { _methodReturnHandlers?: unknown; _nameOwners?: unknown; newSerial?: unknown };
  const isTable = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;
  if (!isTable(inside._methodReturnHandlers) || !isTable(inside._nameOwners) || typeof inside.newSerial !== "function") return undefined;
  return { handlers: inside._methodReturnHandlers as ReplyTable["handlers"], owners: inside._nameOwners as ReplyTable["owners"] };
}

/** A direct reply's values, in the library's shapes; throws DBusDecodeError. */
function valuesOf(message: RawMessage): unknown[] {
  return decodeBody(message.signature, message.body, message.little);
}

/** The promise, or an AtspiError after `ms`; one timer and no extra promises (a read makes dozens of calls). */
function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new AtspiError("failed", `${what} got no answer within ${ms} ms (app hung?)`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * A direct reply's bytes are the app's, not this process's: whatever decoding them throws (a
 * stack overflow, a conversion tripping on an odd value) is a malformed reply, which fails that
 * one call with a coded error, and never counts as this connection breaking.
 */
function decodedOrMalformed<T>(fromRaw: (message: RawMessage) => T, message: RawMessage): T {
  try {
    return fromRaw(message);
  } catch (error) {
    throw error instanceof DBusDecodeError ? error : new DBusDecodeError(errorMessage(error));
  }
}
