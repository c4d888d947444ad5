// Connections on the helper socket: JSON lines in, replies and events out. Every line stands
// alone and runs concurrently with the others (replies are matched by id), a bad line gets a
// bad_request reply and never costs the connection, and no error ends the process. What a call
// does after hello is the CallHandler's: the Linux helper's Dispatcher, or the scripted test
// helper's fake desktop, so both share this line handling, hello and param checking.
import { createServer, type Server, type Socket } from "node:net";
import { pickDesktopEnv } from "../../src/desktop/desktop-env.js";
import { DeskError } from "../../src/helper/desk-error.js";
import { encodeLine } from "../../src/helper/json-lines.js";
import { MAX_LINE_BYTES, type HelloResult, type HelperEvent } from "../../src/helper/protocol.js";
import { isKnownMethod, validateParams } from "../../src/helper/schema.js";
import { errorReply, parseRequestLine, type IncomingRequest } from "../../src/helper/request-line.js";
import type { CallRequest } from "./dispatch.js";
import type { ServedMethod } from "./method-types.js";
import { LineReader } from "./line-reader.js";
import type { PeerVerdict } from "./peer-credentials.js";
import { Session } from "./session.js";

/** One client connection: its session, and the raw writes a test tap may make. */
export class Connection {
  readonly reader = new LineReader(MAX_LINE_BYTES);
  readonly session = new Session();
  constructor(readonly socket: Socket) {
    this.session.notify = (event) => this.send(event);
  }

  send(message: unknown): void {
    this.write(encodeLine(message));
  }

  write(bytes: string | Uint8Array): void {
    if (!this.socket.destroyed && this.socket.writable) this.socket.write(bytes);
  }
}

/** Decides whether the process on the other end may talk to the helper (peer-credentials.ts). */
export type PeerCheck = (socket: Socket) => Promise<PeerVerdict>;

/** What a call does once hello passed and its params are valid. */
export interface CallHandler {
  call(session: Session, request: CallRequest): Promise<unknown>;
  /** The connection closed (the Linux helper lets go of keys a client left down). */
  closed?(session: Session): void;
}

/** What hello says about this helper. */
export interface HelperIdentity {
  version: string;
  platform: string;
  /** The protocol spoken; only a test helper says other than PROTOCOL_VERSION (for mismatch tests). */
  protocol: number;
}

/**
 * A test helper's seam around each request (the scripted helper's `_script` hooks): `before`
 * may answer the request itself or fail it; `reply` may write the reply line its own way.
 */
export interface RequestTap {
  before(request: IncomingRequest, conn: Connection): Promise<{ result: unknown } | undefined>;
  /** True when it wrote the reply; false leaves the writing to the server. */
  reply(request: IncomingRequest, line: string, conn: Connection): Promise<boolean>;
}

export interface ServerOptions {
  identity: HelperIdentity;
  checkPeer?: PeerCheck | null;
  tap?: RequestTap;
}

export class HelperServer {
  readonly #server: Server;
  readonly #connections = new Set<Connection>();

  readonly #checkPeer: PeerCheck | null;

  constructor(
    private readonly handler: CallHandler,
    private readonly options: ServerOptions,
  ) {
    this.#checkPeer = options.checkPeer ?? null;
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

  /** An event to every connection that has said hello. */
  broadcast(event: HelperEvent): void {
    for (const conn of this.#connections) if (conn.session.client !== null) conn.send(event);
  }

  /** Stops listening and drops every connection. */
  async close(): Promise<void> {
    for (const conn of this.#connections) conn.socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** Reads nothing from a connection before its peer passed the check; a refused one gets one line and is closed. */
  async #admit(socket: Socket): Promise<void> {
    socket.on("error", () => undefined);
    if (!this.#checkPeer) return this.#accept(socket);
    socket.pause();
    const verdict = await this.#checkPeer(socket).catch((error: unknown): PeerVerdict => ({
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
      this.handler.closed?.(conn.session);
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
    let encoded: string;
    try {
      encoded = encodeResult(request, await this.#serve(conn, request));
    } catch (error) {
      encoded = encodeLine(errorReply(request.id, error));
    }
    if (!(await this.options.tap?.reply(request, encoded, conn))) conn.write(encoded);
  }

  async #serve(conn: Connection, request: IncomingRequest): Promise<unknown> {
    const tapped = await this.options.tap?.before(request, conn);
    if (tapped) return tapped.result;
    const method = request.method;
    if (method === "hello") return hello(conn.session, request.params, this.options.identity);
    if (conn.session.client === null) throw new DeskError("bad_request", `send hello before ${method}`);
    if (!isServedMethod(method)) throw new DeskError("bad_request", `unknown method "${method}"`);
    const valid = validateParams(method, request.params);
    if (!valid.ok) throw new DeskError("bad_request", valid.message);
    const call: CallRequest = { method, params: request.params };
    if (request.step !== undefined) call.step = request.step;
    return this.handler.call(conn.session, call);
  }
}

/** The reply line; a result JSON cannot carry (a BigInt, a cycle) is the call's failure, not the connection's. */
function encodeResult(request: IncomingRequest, result: unknown): string {
  try {
    return encodeLine({ id: request.id, result });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new DeskError("failed", `the result of ${request.method} could not be sent as JSON (${why})`);
  }
}

function isServedMethod(name: string): name is ServedMethod {
  return name !== "hello" && isKnownMethod(name);
}

function hello(session: Session, params: unknown, identity: HelperIdentity): HelloResult {
  const valid = validateParams("hello", params);
  if (!valid.ok) throw new DeskError("bad_request", valid.message);
  const { client, protocol } = params as { client: string; protocol: number };
  if (protocol !== identity.protocol) {
    throw new DeskError("bad_request", `this helper speaks protocol ${identity.protocol}; the client speaks protocol ${protocol}`);
  }
  session.client = client;
  return { version: identity.version, protocol: identity.protocol, platform: identity.platform, pid: process.pid, env: pickDesktopEnv(process.env) };
}
