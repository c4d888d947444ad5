// Connections on the helper socket: JSON lines in, replies and events out. Every line stands
// alone and runs concurrently with the others (replies are matched by id), a bad line gets a
// bad_request reply and never costs the connection, and no error ends the process.
import { createServer, type Server, type Socket } from "node:net";
import { pickDesktopEnv } from "../../src/desktop/desktop-env.js";
import { DeskError } from "../../src/helper/desk-error.js";
import { encodeLine } from "../../src/helper/json-lines.js";
import {
  MAX_LINE_BYTES,
  PROTOCOL_VERSION,
  type HelloResult,
  type RequestId,
} from "../../src/helper/protocol.js";
import { isKnownMethod, validateParams } from "../../src/helper/schema.js";
import { errorReply, parseRequestLine, type ErrorReply, type IncomingRequest } from "../../src/helper/request-line.js";
import type { CallRequest, Dispatcher } from "./dispatch.js";
import type { ServedMethod } from "./method-types.js";
import { releaseHeldKeys } from "./input.js";
import { LineReader } from "./line-reader.js";
import type { PeerVerdict } from "./peer-credentials.js";
import { Session } from "./session.js";
import { HELPER_VERSION } from "./status-methods.js";


class Connection {
  readonly reader = new LineReader(MAX_LINE_BYTES);
  readonly session = new Session();
  constructor(readonly socket: Socket) {
    this.session.notify = (event) => this.send(event);
  }

  send(message: unknown): void {
    if (!this.socket.destroyed && this.socket.writable) this.socket.write(encodeLine(message));
  }
}

/** Decides whether the process on the other end may talk to the helper (peer-credentials.ts). */
export type PeerCheck = (socket: Socket) => Promise<PeerVerdict>;

export class HelperServer {
  readonly #server: Server;
  readonly #connections = new Set<Connection>();

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly checkPeer: PeerCheck | null = null,
  ) {
    this.#server = createServer((socket) => void this.#admit(socket));
  }

  listen(path: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(path, () => {
        this.#server.off("error", reject);
        resolve();
      });
    });
  }

  /** `{"event": "escape"}` to every connection that has said hello. */
  broadcastEscape(): void {
    for (const conn of this.#connections) if (conn.session.client !== null) conn.send({ event: "escape" });
  }

  /** Stops listening and drops every connection. */
  async close(): Promise<void> {
    for (const conn of this.#connections) conn.socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** Reads nothing from a connection before its peer passed the check; a refused one gets one line and is closed. */
  async #admit(socket: Socket): Promise<void> {
    socket.on("error", () => undefined);
    if (!this.checkPeer) return this.#accept(socket);
    socket.pause();
    const verdict = await this.checkPeer(socket).catch((error: unknown): PeerVerdict => ({
      ok: false,
      reason: `the connecting process could not be identified (${error instanceof Error ? error.message : String(error)})`,
    }));
    if (verdict.ok) {
      this.#accept(socket);
      socket.resume();
      return;
    }
    process.stderr.write(`deskbook helper: refused a connection: ${verdict.reason}\n`);
    if (!socket.destroyed) socket.end(encodeLine(errorReply(null, new DeskError("permission", `this helper refuses the connection: ${verdict.reason}`))));
    setTimeout(() => socket.destroy(), 1_000).unref();
  }

  #accept(socket: Socket): void {
    const conn = new Connection(socket);
    this.#connections.add(conn);
    socket.on("data", (chunk: Buffer) => this.#onData(conn, chunk));
    socket.on("close", () => {
      this.#connections.delete(conn);
      conn.session.closed.abort();
      // A client that went away while holding keys (keyDown) must not leave them down.
      void releaseHeldKeys().catch(() => undefined);
    });
  }

  #onData(conn: Connection, chunk: Buffer): void {
    for (const item of conn.reader.push(chunk)) {
      if ("tooLong" in item) {
        conn.send(errorReply(null, new DeskError("bad_request", `a line is over the ${MAX_LINE_BYTES}-byte limit; it was skipped`)));
      } else {
        // Not awaited: a slow screenshot must not hold up the next line.
        void this.#handleLine(conn, item.line);
      }
    }
  }

  async #handleLine(conn: Connection, line: string): Promise<void> {
    const request = parseRequestLine(line);
    if ("error" in request) return conn.send(request);
    try {
      conn.send({ id: request.id, result: await this.#serve(conn, request) });
    } catch (error) {
      conn.send(errorReply(request.id, error));
    }
  }

  async #serve(conn: Connection, request: IncomingRequest): Promise<unknown> {
    const method = request.method;
    if (method === "hello") return hello(conn.session, request.params);
    if (conn.session.client === null) throw new DeskError("bad_request", `send hello before ${method}`);
    if (!isServedMethod(method)) throw new DeskError("bad_request", `unknown method "${method}"`);
    const call: CallRequest = { method, params: request.params };
    if (request.step !== undefined) call.step = request.step;
    return this.dispatcher.call(conn.session, call);
  }
}

function isServedMethod(name: string): name is ServedMethod {
  return name !== "hello" && isKnownMethod(name);
}

function hello(session: Session, params: unknown): HelloResult {
  const valid = validateParams("hello", params);
  if (!valid.ok) throw new DeskError("bad_request", valid.message);
  const { client, protocol } = params as { client: string; protocol: number };
  if (protocol !== PROTOCOL_VERSION) {
    throw new DeskError("bad_request", `this helper speaks protocol ${PROTOCOL_VERSION}; the client speaks protocol ${protocol}`);
  }
  session.client = client;
  return { version: HELPER_VERSION, protocol: PROTOCOL_VERSION, platform: "linux", pid: process.pid, env: pickDesktopEnv(process.env) };
}



