// The kernel side of the helper socket (docs/backend-protocol.md): connect or launch the
// helper, say hello, match replies to requests by id, time out, and pass events on.
import { createConnection, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { DeskError } from "./desk-error.js";
import { encodeLine, LineSplitter, LineTooLongError } from "./json-lines.js";
import {
  GATED_METHODS,
  type ErrorCode,
  MAX_LINE_BYTES,
  PROTOCOL_VERSION,
  type HelloResult,
  type HelperEvent,
  type MethodName,
  type MethodParams,
  type MethodResult,
  type ReplyEnvelope,
} from "./protocol.js";
import { validateEnvelope, validateParams, validateResult } from "./schema.js";
import { MAX_SOCKET_PATH_BYTES } from "./socket-path.js";

export interface HelperClientOptions {
  socketPath: string;
  /** Sent in `hello`; the helper shows it in approval dialogs and actions.log. */
  clientName: string;
  /** Starts the helper when nothing listens on the socket. Called once per connection attempt. */
  launch?: () => Promise<void> | void;
  /** Default per-request timeout. Default 15000. */
  requestTimeoutMs?: number;
  /** How long to keep retrying the socket (after launching). Default 10000. */
  connectTimeoutMs?: number;
  /** The step a request belongs to when the call names none (the running cell's title). */
  step?: () => string | undefined;
}

export interface RequestOptions {
  /** Overrides the client's requestTimeoutMs for this call. */
  timeoutMs?: number;
  /** The notebook step's title, copied into actions.log by the helper. */
  step?: string;
}

export type HelperEventListener = (event: HelperEvent) => void;

export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;
/**
 * A gated call may wait on an approval dialog, which the helper gives 60 s before it counts
 * as Deny (docs/backend-protocol.md): such calls get at least this long.
 */
export const GATED_REQUEST_TIMEOUT_MS = 70_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/**
 * Errors meaning "no helper is listening (yet)": launch it, then retry. ECONNRESET is a connect
 * that reached the backlog of a helper dying at that moment (killed, say): its listener closed.
 */
const NOTHING_LISTENING: ReadonlySet<string> = new Set(["ENOENT", "ECONNREFUSED", "EAGAIN", "ECONNRESET"]);
const RETRY_MIN_MS = 20;
const RETRY_MAX_MS = 250;

interface Pending {
  method: string;
  resolve: (result: unknown) => void;
  reject: (error: DeskError) => void;
  timer: NodeJS.Timeout;
}

/** One socket's life. Pending calls belong to it and fail with it, never with a later socket. */
class Link {
  readonly pending = new Map<number, Pending>();
  readonly splitter = new LineSplitter(MAX_LINE_BYTES);
  closed = false;
  /** The helper hung up (as opposed to the client dropping the socket). */
  lostByPeer = false;
  constructor(readonly socket: Socket) {}
}

export class HelperClient {
  readonly socketPath: string;
  readonly clientName: string;
  readonly #launch: (() => Promise<void> | void) | undefined;
  readonly #requestTimeoutMs: number;
  readonly #connectTimeoutMs: number;
  readonly #step: (() => string | undefined) | undefined;
  readonly #listeners = new Set<HelperEventListener>();
  #link: Link | null = null;
  #opening: Promise<Link> | null = null;
  #info: HelloResult | null = null;
  #nextId = 1;
  #closed = false;

  private constructor(options: HelperClientOptions) {
    this.socketPath = options.socketPath;
    this.clientName = options.clientName;
    this.#launch = options.launch;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.#step = options.step;
  }

  /** Connects (launching the helper if nothing listens) and says hello. */
  static async connect(options: HelperClientOptions): Promise<HelperClient> {
    const client = new HelperClient(options);
    await client.#ensureLink();
    return client;
  }

  /** The helper's answer to the latest `hello` (it changes if the helper was relaunched). */
  get helper(): HelloResult {
    return this.#info!;
  }

  /** True while a socket to the helper is open. */
  get connected(): boolean {
    return this.#link !== null && !this.#link.closed;
  }

  /**
   * Calls one helper method. Rejects with a DeskError: `bad_request` for invalid params
   * (nothing is sent), the helper's own code for an error reply, `failed` for a timeout, a
   * malformed reply, or a helper that went away. After a lost helper the next call reconnects.
   */
  async request<M extends MethodName>(
    method: M,
    params: MethodParams<M>,
    options: RequestOptions = {},
  ): Promise<MethodResult<M>> {
    if (this.#closed) throw new DeskError("failed", "the helper client is closed", method);
    const valid = validateParams(method, params);
    if (!valid.ok) throw new DeskError("bad_request", valid.message, method);
    const link = await this.#ensureLink();
    return (await this.#call(link, method, params, options)) as MethodResult<M>;
  }

  /** Subscribes to helper events (escape). Survives reconnects. Returns the unsubscribe function. */
  onEvent(listener: HelperEventListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Closes the socket; pending calls fail, later calls are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#opening?.catch(() => null);
    const link = this.#link;
    this.#link = null;
    if (!link) return;
    this.#drop(link, (method) => `the helper client was closed during ${method}`);
    await destroySocket(link.socket);
  }

  // -------------------------------------------------------------------------
  // Connection

  #ensureLink(): Promise<Link> {
    if (this.#link && !this.#link.closed) return Promise.resolve(this.#link);
    this.#opening ??= this.#open().finally(() => {
      this.#opening = null;
    });
    return this.#opening;
  }

  async #open(): Promise<Link> {
    const deadline = Date.now() + this.#connectTimeoutMs;
    for (;;) {
      const socket = await connectSocket(this.socketPath, this.#launch, Math.max(0, deadline - Date.now()));
      const link = this.#attach(socket);
      try {
        return await this.#greet(link, deadline);
      } catch (error) {
        this.#drop(link, (method) => `the helper connection failed during ${method}`);
        socket.destroy();
        // A helper that is still exiting can accept a connection and then vanish: try again.
        if (!link.lostByPeer || Date.now() >= deadline || this.#closed) throw error;
      }
    }
  }

  async #greet(link: Link, deadline: number): Promise<Link> {
    const info = await this.#hello(link, deadline);
    if (this.#closed) throw new DeskError("failed", "the helper client is closed", "hello");
    this.#info = info;
    this.#link = link;
    return link;
  }

  // The handshake is part of connecting: it gets what is left of the connect budget (at least
  // the request timeout), so a short per-request timeout never fails a slow helper's hello.
  async #hello(link: Link, deadline: number): Promise<HelloResult> {
    const params = { client: this.clientName, protocol: PROTOCOL_VERSION };
    const timeoutMs = Math.max(this.#requestTimeoutMs, deadline - Date.now());
    const info = (await this.#call(link, "hello", params, { timeoutMs })) as HelloResult;
    // A helper should refuse a mismatch itself; this catches one that does not.
    if (info.protocol !== PROTOCOL_VERSION) {
      const message = `the helper speaks protocol ${info.protocol}, this client speaks protocol ${PROTOCOL_VERSION}`;
      throw new DeskError("bad_request", message, "hello");
    }
    return info;
  }

  #attach(socket: Socket): Link {
    const link = new Link(socket);
    socket.on("data", (chunk: Buffer) => this.#onData(link, chunk));
    // "close" always follows "error" and does the cleanup; this only keeps the error handled.
    socket.on("error", () => undefined);
    socket.on("close", () => {
      if (!link.closed) link.lostByPeer = true;
      this.#drop(link, (method) => `the helper closed the connection during ${method}`);
    });
    return link;
  }

  /** Fails every call pending on `link` at once; the next request opens a new link. */
  #drop(link: Link, message: (method: string) => string, code: ErrorCode = "failed"): void {
    if (link.closed) return;
    link.closed = true;
    if (this.#link === link) this.#link = null;
    for (const pending of link.pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(new DeskError(code, message(pending.method), pending.method));
    }
    link.pending.clear();
  }

  /** The helper broke framing: nothing later on this socket can be trusted. */
  #breakLink(link: Link, what: string): void {
    this.#drop(link, (method) => `the helper ${what} during ${method}`);
    link.socket.destroy();
  }

  // -------------------------------------------------------------------------
  // Calls and replies

  #call(link: Link, method: string, params: unknown, options: RequestOptions): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (link.closed) {
        reject(new DeskError("failed", `the helper closed the connection during ${method}`, method));
        return;
      }
      const id = this.#nextId++;
      const step = options.step ?? this.#step?.();
      const line = encodeLine({ id, method, params, ...(step !== undefined && { step }) });
      if (Buffer.byteLength(line) - 1 > MAX_LINE_BYTES) {
        reject(new DeskError("bad_request", `the request is over the ${MAX_LINE_BYTES}-byte line limit`, method));
        return;
      }
      const timeoutMs = options.timeoutMs ?? this.#defaultTimeout(method);
      const timer = setTimeout(() => {
        link.pending.delete(id);
        reject(new DeskError("failed", `the helper did not answer ${method} within ${timeoutMs} ms`, method));
      }, timeoutMs);
      link.pending.set(id, { method, resolve, reject, timer });
      link.socket.write(line);
    });
  }

  #defaultTimeout(method: string): number {
    const gated = (GATED_METHODS as readonly string[]).includes(method);
    return gated ? Math.max(this.#requestTimeoutMs, GATED_REQUEST_TIMEOUT_MS) : this.#requestTimeoutMs;
  }

  #onData(link: Link, chunk: Buffer): void {
    let lines: string[];
    try {
      lines = link.splitter.push(chunk);
    } catch (error) {
      if (!(error instanceof LineTooLongError)) throw error;
      this.#breakLink(link, `sent a line over the ${MAX_LINE_BYTES}-byte limit`);
      return;
    }
    for (const line of lines) {
      if (link.closed) return;
      this.#onLine(link, line);
    }
  }

  #onLine(link: Link, line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.#breakLink(link, "sent a line that is not JSON");
      return;
    }
    if (isEventLine(message)) this.#emit(message);
    else this.#onReply(link, message);
  }

  #onReply(link: Link, message: unknown): void {
    const id = (message as { id?: unknown } | null)?.id;
    // The helper turned the connection away (another user's process): every call gets its reason.
    const refusal = id === null ? (message as { error?: { code?: unknown; message?: unknown } }).error : undefined;
    if (refusal?.code === "permission" && typeof refusal.message === "string") {
      const reason = refusal.message;
      this.#drop(link, () => reason, "permission");
      link.socket.destroy();
      return;
    }
    const pending = typeof id === "number" ? link.pending.get(id) : undefined;
    // Late (timed out), foreign, or id null (the helper could not read one of our lines): nobody waits.
    if (!pending || typeof id !== "number") return;
    link.pending.delete(id);
    clearTimeout(pending.timer);
    settle(pending, message);
  }

  #emit(message: object): void {
    // Unknown events are a newer helper talking; skip them.
    if (!validateEnvelope("Event", message).ok) return;
    for (const listener of [...this.#listeners]) {
      try {
        listener(message as HelperEvent);
      } catch (error) {
        process.stderr.write(`[deskbook] a helper event listener threw: ${String(error)}\n`);
      }
    }
  }
}

/** Resolves or rejects one call from its reply line. */
function settle(pending: Pending, message: unknown): void {
  const method = pending.method;
  const envelope = validateEnvelope("Reply", message);
  if (!envelope.ok) {
    pending.reject(new DeskError("failed", `the helper's reply to ${method} breaks the protocol: ${envelope.message}`, method));
    return;
  }
  const reply = message as ReplyEnvelope;
  if ("error" in reply) {
    pending.reject(new DeskError(reply.error.code, reply.error.message, method));
    return;
  }
  const valid = validateResult(method, reply.result);
  if (!valid.ok) {
    pending.reject(new DeskError("failed", `the helper's reply to ${method} breaks the protocol: ${valid.message}`, method));
    return;
  }
  pending.resolve(reply.result);
}

function isEventLine(message: unknown): message is object {
  return typeof message === "object" && message !== null && "event" in message && !("id" in message);
}

// ---------------------------------------------------------------------------
// Socket

/** Connects, launching the helper once if nothing listens, retrying until the deadline. */
async function connectSocket(
  path: string,
  launch: (() => Promise<void> | void) | undefined,
  timeoutMs: number,
): Promise<Socket> {
  checkPathLength(path);
  const deadline = Date.now() + timeoutMs;
  let launched = false;
  let delay = RETRY_MIN_MS;
  for (;;) {
    const outcome = await tryConnect(path);
    if (!(outcome instanceof Error)) return outcome;
    if (!NOTHING_LISTENING.has(outcome.code ?? "")) {
      throw new DeskError("failed", `cannot connect to the helper at ${path}: ${outcome.message}`, undefined, { cause: outcome });
    }
    if (launch && !launched) {
      launched = true;
      await runLaunch(launch);
    }
    const left = deadline - Date.now();
    if (left <= 0) throw notListening(path, timeoutMs, launched, outcome);
    await sleep(Math.min(delay, left));
    delay = Math.min(delay * 2, RETRY_MAX_MS);
  }
}

function tryConnect(path: string): Promise<Socket | NodeJS.ErrnoException> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    const onError = (error: NodeJS.ErrnoException): void => {
      socket.destroy();
      resolve(error);
    };
    socket.once("error", onError);
    socket.once("connect", () => {
      socket.off("error", onError);
      resolve(socket);
    });
  });
}

async function runLaunch(launch: () => Promise<void> | void): Promise<void> {
  try {
    await launch();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new DeskError("failed", `could not launch the helper: ${reason}`, undefined, { cause: error });
  }
}

function notListening(path: string, timeoutMs: number, launched: boolean, last: NodeJS.ErrnoException): DeskError {
  const how = launched ? "after launching it" : "and no launch function was given";
  return new DeskError(
    "failed",
    `no helper answered at ${path} within ${timeoutMs} ms ${how} (${last.code})`,
    undefined,
    { cause: last },
  );
}

/** A too-long path fails deep in libuv with a vague EINVAL; say what to do instead. */
function checkPathLength(path: string): void {
  const bytes = Buffer.byteLength(path);
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    throw new DeskError(
      "failed",
      `the helper socket path is ${bytes} bytes, over the ${MAX_SOCKET_PATH_BYTES} a Unix socket allows: set DESKBOOK_SOCKET to a shorter path (${path})`,
    );
  }
}

function destroySocket(socket: Socket): Promise<void> {
  if (socket.closed) return Promise.resolve();
  return new Promise((resolve) => {
    socket.once("close", () => resolve());
    socket.destroy();
  });
}
