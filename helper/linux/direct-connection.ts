// A peer-to-peer D-Bus connection straight to one app's own socket (at-spi2's
// Application.GetApplicationBusAddress), as libatspi and Orca use it: a call and its reply skip
// the bus daemon, which on a 2-CPU machine costs about as much as the app's own answer (two
// routing hops a call, each parsed and checked). Only calls the encoder writes go this way; the
// peer sends no events here (they stay on the bus), see AtspiBus for what that means for order.
// The connection authenticates and frames messages itself (no library internals), and hands
// each reply's body over as bytes: Cache.GetItems is then decoded by hand (atspi-cache-decoder.ts),
// everything else by dbus-body-decoder.ts. Bytes that are not D-Bus close the connection; its
// waiting calls then fail with DirectLost and go through the bus.
import { lstatSync, statSync } from "node:fs";
import { createConnection, type Socket } from "node:net";
import dbus from "dbus-next";
import { errorMessage } from "./atspi-error.js";
import { decodeBody } from "./dbus-body-decoder.js";
import { encodeMethodCall } from "./dbus-call-encoder.js";
import { MessageReader, type RawMessage } from "./dbus-message-reader.js";

const CONNECT_TIMEOUT_MS = 1_000;
/** A server's line during authentication is short ("OK <32 hex digits>"). */
const MAX_AUTH_LINE = 1_024;
const METHOD_RETURN = 2;
const ERROR = 3;
/**
 * A call that was waiting when the connection closed. Not a D-Bus error: the app may live on
 * its bus (the caller sends the call there, whose answer says whether the app is gone).
 */
export class DirectLost extends Error {
  constructor(why: string) {
    super(`the direct connection to the app ${why}`);
    this.name = "DirectLost";
  }
}

/**
 * The socket path of an address the app gave, if it is a plain Unix socket owned by the app's
 * own user (a socket elsewhere is not talked to: the helper may run as another user).
 */
export function peerSocketPath(address: string, uid: number): string | undefined {
  const match = /^unix:path=([^,;]+)$/.exec(address.trim());
  if (!match) return undefined;
  const path = decodeURIComponent(match[1] as string);
  try {
    const stat = lstatSync(path);
    return stat.isSocket() && stat.uid === uid ? path : undefined;
  } catch {
    return undefined;
  }
}

/** The uid a process runs as, or undefined once it is gone. */
export function processUid(pid: number): number | undefined {
  try {
    return statSync(`/proc/${pid}`).uid;
  } catch {
    return undefined;
  }
}

export class DirectConnection {
  #serial = 1;
  #closed: string | null = null;
  #corked = false;
  readonly #reader = new MessageReader();
  readonly #pending = new Map<number, { resolve: (reply: RawMessage) => void; reject: (error: unknown) => void }>();

  private constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("error", (error) => this.close(`failed: ${errorMessage(error)}`));
    socket.on("end", () => this.close("closed by the app"));
    socket.on("close", () => this.close("closed by the app"));
  }

  /** Connects and authenticates (EXTERNAL); rejects when the socket does not answer like a D-Bus peer. */
  static open(socketPath: string): Promise<DirectConnection> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(socketPath);
      let line = "";
      const fail = (error: unknown): void => {
        clearTimeout(timer);
        socket.destroy();
        reject(error instanceof Error ? error : new Error(String(error)));
      };
      const timer = setTimeout(() => fail(new Error("timed out")), CONNECT_TIMEOUT_MS);
      const onData = (chunk: Buffer): void => {
        line += chunk.toString("latin1");
        const end = line.indexOf("\r\n");
        if (end < 0) {
          if (line.length > MAX_AUTH_LINE) fail(new Error("the peer's authentication line is too long"));
          return;
        }
        if (!line.startsWith("OK ")) return fail(new Error(`the peer refused authentication: ${JSON.stringify(line.slice(0, end))}`));
        if (line.length > end + 2) return fail(new Error("the peer sent data before BEGIN"));
        clearTimeout(timer);
        socket.off("data", onData);
        socket.off("error", fail);
        socket.off("end", onEnd);
        socket.write("BEGIN\r\n");
        resolve(new DirectConnection(socket));
      };
      const onEnd = (): void => fail(new Error("the peer closed the connection during authentication"));
      socket.on("data", onData);
      socket.once("error", fail);
      socket.once("end", onEnd);
      socket.once("connect", () => {
        socket.setNoDelay(true);
        const uid = String(process.getuid?.() ?? 0);
        socket.write(`\0AUTH EXTERNAL ${Buffer.from(uid, "ascii").toString("hex")}\r\n`);
      });
    });
  }

  /** Why it can no longer be used, or null. */
  get closed(): string | null {
    return this.#closed;
  }

  /**
   * The call sent, resolving with its reply (a DBusError for an error reply); undefined when it
   * cannot go this way (closed, or a signature the encoder leaves to the library).
   */
  call(destination: string, path: string, iface: string, member: string, signature: string, body: readonly unknown[]): Promise<RawMessage> | undefined {
    if (this.#closed || !this.socket.writable) return undefined;
    const serial = this.#serial++;
    const data = encodeMethodCall({ serial, destination, path, iface, member, signature, body });
    if (!data) return undefined;
    return new Promise((resolve, reject) => {
      this.#pending.set(serial, { resolve, reject });
      this.batchWrites();
      this.socket.write(data);
    });
  }

  /** A burst of calls (a tree level, the details of every node) leaves in one write. */
  private batchWrites(): void {
    if (this.#corked) return;
    this.#corked = true;
    this.socket.cork();
    process.nextTick(() => {
      this.#corked = false;
      this.socket.uncork();
    });
  }

  /** Ends the connection; calls still waiting fail with DirectLost. */
  close(why = "closed"): void {
    if (this.#closed) return;
    this.#closed = why;
    this.socket.destroy();
    const error = new DirectLost(why);
    for (const { reject } of this.#pending.values()) reject(error);
    this.#pending.clear();
  }

  private onData(chunk: Buffer): void {
    if (this.#closed) return;
    let messages: RawMessage[];
    try {
      messages = this.#reader.push(chunk);
    } catch (error) {
      this.close(`sent bytes that are not D-Bus (${errorMessage(error)})`);
      return;
    }
    for (const message of messages) this.onMessage(message);
  }

  private onMessage(message: RawMessage): void {
    if (message.type !== METHOD_RETURN && message.type !== ERROR) return;
    const waiting = message.replySerial === undefined ? undefined : this.#pending.get(message.replySerial);
    if (!waiting || message.replySerial === undefined) return;
    this.#pending.delete(message.replySerial);
    if (message.type === ERROR) waiting.reject(new dbus.DBusError(message.errorName ?? "", errorText(message)));
    else waiting.resolve(message);
  }
}

/** An error reply's message (its first argument, when that is a string). */
function errorText(message: RawMessage): string {
  if (!message.signature.startsWith("s")) return "";
  try {
    const [text] = decodeBody("s", message.body, message.little);
    return typeof text === "string" ? text : "";
  } catch {
    return "";
  }
}
