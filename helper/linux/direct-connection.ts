// A peer-to-peer D-Bus connection straight to one app's own socket (at-spi2's
// Application.GetApplicationBusAddress), as libatspi and Orca use it: a call and its reply skip
// the bus daemon, which on a 2-CPU machine costs about as much as the app's own answer (two
// routing hops a call, each parsed and checked). Only calls the encoder writes go this way; the
// peer sends no events here (they stay on the bus), see AtspiBus for what that means for order.
import { createRequire } from "node:module";
import { lstatSync, statSync } from "node:fs";
import type { Writable } from "node:stream";
import dbus from "dbus-next";
import { encodeMethodCall } from "./dbus-call-encoder.js";
import { errorMessage } from "./atspi-error.js";

/** The library's connection object: auth and message parsing, without the bus's Hello. */
interface PeerConnection {
  stream: Writable;
  on(event: "message", listener: (message: dbus.Message) => void): void;
  on(event: "error" | "end", listener: (error?: unknown) => void): void;
  once(event: "connect", listener: () => void): void;
  once(event: "error", listener: (error: unknown) => void): void;
  removeListener(event: "error", listener: (error: unknown) => void): void;
  end(): void;
}

type ConnectionFactory = (options: { busAddress: string }) => PeerConnection;

const CONNECT_TIMEOUT_MS = 1_000;
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

/** dbus-next's own connection module (auth, parsing); undefined if a later version moved it. */
function connectionFactory(): ConnectionFactory | undefined {
  try {
    const factory: unknown = createRequire(import.meta.url)("dbus-next/lib/connection.js");
    return typeof factory === "function" ? (factory as ConnectionFactory) : undefined;
  } catch {
    return undefined;
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
  readonly #pending = new Map<number, { resolve: (reply: dbus.Message) => void; reject: (error: unknown) => void }>();

  private constructor(private readonly connection: PeerConnection) {
    connection.on("message", (message) => this.onMessage(message));
    connection.on("error", (error) => this.close(`failed: ${errorMessage(error)}`));
    connection.on("end", () => this.close("closed by the app"));
  }

  /** Connects and authenticates; rejects when the socket does not answer like a D-Bus peer. */
  static open(socketPath: string): Promise<DirectConnection> {
    const factory = connectionFactory();
    if (!factory) return Promise.reject(new Error("this dbus-next has no connection module"));
    const connection = factory({ busAddress: `unix:path=${socketPath}` });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error("timed out")), CONNECT_TIMEOUT_MS);
      const fail = (error: unknown): void => {
        clearTimeout(timer);
        connection.end();
        reject(error);
      };
      connection.once("error", fail);
      connection.once("connect", () => {
        clearTimeout(timer);
        connection.removeListener("error", fail);
        resolve(new DirectConnection(connection));
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
  call(destination: string, path: string, iface: string, member: string, signature: string, body: readonly unknown[]): Promise<dbus.Message> | undefined {
    if (this.#closed || !this.connection.stream.writable) return undefined;
    const serial = this.#serial++;
    const data = encodeMethodCall({ serial, destination, path, iface, member, signature, body });
    if (!data) return undefined;
    return new Promise((resolve, reject) => {
      this.#pending.set(serial, { resolve, reject });
      this.batchWrites();
      this.connection.stream.write(data);
    });
  }

  /** A burst of calls (a tree level, the details of every node) leaves in one write. */
  private batchWrites(): void {
    if (this.#corked) return;
    this.#corked = true;
    this.connection.stream.cork();
    process.nextTick(() => {
      this.#corked = false;
      this.connection.stream.uncork();
    });
  }

  /** Ends the connection; calls still waiting fail with DirectLost. */
  close(why = "closed"): void {
    if (this.#closed) return;
    this.#closed = why;
    this.connection.end();
    const error = new DirectLost(why);
    for (const { reject } of this.#pending.values()) reject(error);
    this.#pending.clear();
  }

  private onMessage(message: dbus.Message): void {
    if (message.type !== METHOD_RETURN && message.type !== ERROR) return;
    // The library's types call the serial a string; it parses it as a number.
    const serial = Number(message.replySerial);
    const waiting = this.#pending.get(serial);
    if (!waiting) return;
    this.#pending.delete(serial);
    if (message.type === ERROR) waiting.reject(new dbus.DBusError(message.errorName ?? "", String(message.body[0] ?? ""), message));
    else waiting.resolve(message);
  }
}
