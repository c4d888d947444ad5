/**
 * Deskbook's own ZeroMQ Jupyter client, the one front door for everything that
 * drives a kernel without a Jupyter frontend: the headless runner, the MCP
 * server and the tests. It speaks the same wire format as jupyter_client:
 * DEALER sockets for shell/control/stdin sharing one routing id (so the kernel
 * can route input_request to us), SUB on iopub, REQ for heartbeat. Signing and
 * framing reuse src/jupyter, so the kernel and its clients cannot disagree on
 * the wire.
 *
 * Typical use:
 *   const client = await KernelClient.connect(info);   // waits until iopub is live
 *   const { reply, iopub } = await client.execute("1 + 1");
 *   await client.close();
 */
import * as zmq from "zeromq";
import { randomUUID } from "node:crypto";
import { endpoint, type ConnectionInfo } from "../jupyter/connection.js";
import { decode, encode, type OutgoingFrame } from "../jupyter/framing.js";
import { newHeader, replyTo, type Channel, type JupyterMessage } from "../jupyter/message.js";
import { Signer } from "../jupyter/signing.js";
import { SendQueue } from "../jupyter/channels.js";

export interface ExecuteRequestContent {
  code: string;
  silent: boolean;
  store_history: boolean;
  user_expressions: Record<string, unknown>;
  allow_stdin: boolean;
  stop_on_error: boolean;
}

export interface ExecuteOptions extends Partial<ExecuteRequestContent> {
  /** Overall deadline for reply + idle. Default 20 s. */
  timeoutMs?: number;
  /**
   * Answers each input_request for this execution; the returned string is sent as
   * input_reply. Returning undefined sends nothing (e.g. to test interrupting input).
   * Providing it makes allow_stdin default to true.
   */
  onInput?: (req: JupyterMessage) => string | undefined;
  /** Called with each iopub message of this execution as it arrives (busy … idle), for callers that stream. */
  onIopub?: (msg: JupyterMessage) => void;
  /** The execute_request's metadata (Deskbook reads `deskbook.step` and `deskbook.timeLimitMs`: docs/kernel.md). */
  metadata?: Record<string, unknown>;
}

export interface ExecuteResult {
  reply: JupyterMessage;
  /** Every iopub message whose parent is the request, in arrival order (busy … idle). */
  iopub: JupyterMessage[];
}

export interface ConnectOptions {
  /** How long to wait for iopub to deliver its first message. Default 10 s. */
  readyTimeoutMs?: number;
  /** The header's username: who is driving the kernel. Default "deskbook". */
  username?: string;
  /**
   * Keep every message in iopubLog/stdinLog and per request. Default true (tests read them);
   * a long-lived front door passes false so memory stays flat: an execution's messages are
   * then only in its ExecuteResult.
   */
  keepHistory?: boolean;
  /** Gives up waiting for iopub at once when aborted (the launcher's kernel exited), with the signal's reason. */
  signal?: AbortSignal;
}

export interface RequestOptions {
  /** Default 10 s. */
  timeoutMs?: number;
  metadata?: Record<string, unknown>;
}

/** Something awaited that can be abandoned without leaving a dangling listener. */
interface Waiter<T> {
  promise: Promise<T>;
  settled: () => boolean;
  cancel: () => void;
}

interface IopubWaiter {
  predicate: (msg: JupyterMessage) => boolean;
  resolve: (msg: JupyterMessage) => void;
}

interface PendingReply {
  resolve: (msg: JupyterMessage) => void;
  reject: (err: Error) => void;
}

type ClientChannel = Channel | "iopub";

const CLIENT_MAX_BYTES = 1024 * 1024 * 1024;
const READY_TIMEOUT_MS = 10_000;

export class KernelClient {
  readonly session = randomUUID();
  readonly username: string;
  readonly signer: Signer;
  /** Every decoded iopub message, in arrival order. */
  readonly iopubLog: JupyterMessage[] = [];
  /** Every stdin message received (input_request …). */
  readonly stdinLog: JupyterMessage[] = [];
  /** Shell/control replies nobody was waiting for (e.g. after a timeout). */
  readonly unmatchedReplies: JupyterMessage[] = [];
  /** Messages from the kernel this client refused (bad signature, bad framing …). */
  readonly wireErrors: string[] = [];

  private readonly routingId = `client-${randomUUID()}`;
  /** Settles once the stdin DEALER has finished its ZMTP handshake with the kernel. */
  private stdinReady!: Waiter<void>;
  private readonly dealers: Record<Channel, zmq.Dealer>;
  private readonly queues: Record<Channel, SendQueue>;
  private readonly iopub: zmq.Subscriber;
  private hb: zmq.Request;
  private hbChain: Promise<unknown> = Promise.resolve();
  private readonly pending = new Map<string, PendingReply>();
  private readonly iopubWaiters = new Set<IopubWaiter>();
  private readonly iopubByParent = new Map<string, JupyterMessage[]>();
  private readonly inputHandlers = new Map<string, (req: JupyterMessage) => string | undefined>();
  private readonly iopubListeners = new Map<string, (msg: JupyterMessage) => void>();
  private readonly keepHistory: boolean;
  /** Executions waiting for their reply and idle. */
  private readonly executing = new Set<string>();
  private readonly loops: Promise<void>[] = [];
  private closed = false;

  private constructor(private readonly info: ConnectionInfo, username: string, keepHistory: boolean) {
    this.username = username;
    this.keepHistory = keepHistory;
    this.signer = new Signer(info.signature_scheme, info.key);
    this.dealers = {
      shell: this.dealer(info.shell_port),
      control: this.dealer(info.control_port),
      stdin: this.dealer(info.stdin_port, (socket) => {
        this.stdinReady = handshakeWaiter(socket);
      }),
    };
    this.queues = {
      shell: new SendQueue(this.dealers.shell),
      control: new SendQueue(this.dealers.control),
      stdin: new SendQueue(this.dealers.stdin),
    };
    this.iopub = new zmq.Subscriber({ linger: 0 });
    this.iopub.subscribe("");
    this.iopub.connect(endpoint(info, info.iopub_port));
    this.hb = this.newHeartbeatSocket();
  }

  /** Connects all sockets and resolves once iopub is delivering messages (max ~10 s). */
  static async connect(info: ConnectionInfo, opts: ConnectOptions = {}): Promise<KernelClient> {
    const client = new KernelClient(info, opts.username ?? "deskbook", opts.keepHistory ?? true);
    client.startLoops();
    try {
      await client.waitUntilIopubLive(opts.readyTimeoutMs ?? READY_TIMEOUT_MS, opts.signal);
    } catch (err) {
      await client.close();
      throw err;
    }
    return client;
  }

  /** A signed-ready request message from this client's session (not sent). */
  newRequest(msgType: string, content: object, metadata: Record<string, unknown> = {}): JupyterMessage {
    return {
      identities: [],
      header: newHeader(msgType, this.session, this.username),
      parent_header: {},
      metadata,
      content: content as Record<string, unknown>,
      buffers: [],
    };
  }

  /** Sends a message as-is (signed with the connection key). */
  send(channel: Channel, msg: JupyterMessage<unknown>): Promise<void> {
    return this.queues[channel].push(encode(msg, this.signer));
  }

  /** Sends frames untouched, for malformed-input tests: `[<IDS|MSG>, sig, header, parent, metadata, content]`. */
  sendRaw(channel: Channel, frames: OutgoingFrame[]): Promise<void> {
    return this.queues[channel].push(frames);
  }

  /** Sends a request and resolves with the reply whose parent is that request. */
  async request(
    channel: "shell" | "control",
    msgType: string,
    content: object,
    opts: RequestOptions = {},
  ): Promise<JupyterMessage> {
    const msg = this.newRequest(msgType, content, opts.metadata);
    const reply = this.expectReply(msg.header.msg_id);
    const timeoutMs = opts.timeoutMs ?? 10_000;
    await this.send(channel, msg).catch((err: unknown) => { reply.cancel(); throw err; });
    return deadline([reply], timeoutMs, () => `${channel} ${msgType} (${msg.header.msg_id}): no reply`).then(
      ([r]) => r,
    );
  }

  /**
   * Runs code and resolves once BOTH the execute_reply and the iopub `status: idle`
   * for it have arrived; input_request messages are answered through opts.onInput.
   */
  async execute(code: string, opts: ExecuteOptions = {}): Promise<ExecuteResult> {
    const { timeoutMs = 20_000, onInput, onIopub, metadata, ...overrides } = opts;
    const content: ExecuteRequestContent = {
      silent: false,
      store_history: true,
      user_expressions: {},
      allow_stdin: onInput !== undefined,
      stop_on_error: true,
      ...overrides,
      code,
    };
    if (content.allow_stdin) await this.waitUntilStdinConnected(timeoutMs);
    const msg = this.newRequest("execute_request", content, metadata);
    const id = msg.header.msg_id;
    if (onInput) this.inputHandlers.set(id, onInput);
    if (onIopub) this.iopubListeners.set(id, onIopub);
    this.executing.add(id);
    const reply = this.expectReply(id);
    const idle = this.iopubWaiter((m) => isStatus(m, id, "idle"));
    try {
      await this.send("shell", msg).catch((err: unknown) => { reply.cancel(); idle.cancel(); throw err; });
      const [r] = await deadline([reply, idle], timeoutMs, () => this.describeExecution(id, reply, idle));
      return { reply: r, iopub: this.iopubFor(id) };
    } finally {
      this.inputHandlers.delete(id);
      this.iopubListeners.delete(id);
      this.executing.delete(id);
      if (!this.keepHistory) this.iopubByParent.delete(id);
    }
  }

  /** Iopub messages received so far whose parent msg_id is `msgId`, in arrival order. */
  iopubFor(msgId: string): JupyterMessage[] {
    return [...(this.iopubByParent.get(msgId) ?? [])];
  }

  /** First iopub message (already received or future) matching `predicate`. */
  async waitForIopub(predicate: (msg: JupyterMessage) => boolean, timeoutMs = 10_000): Promise<JupyterMessage> {
    const [msg] = await deadline([this.iopubWaiter(predicate)], timeoutMs, () => "no matching iopub message");
    return msg;
  }

  /** Pings the heartbeat; true if echoed within timeoutMs. Calls are serialised. */
  heartbeat(timeoutMs = 1000): Promise<boolean> {
    const run = this.hbChain.then(() => this.pingOnce(timeoutMs));
    this.hbChain = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const entry of this.pending.values()) entry.reject(new Error("client closed"));
    this.pending.clear();
    for (const socket of [...Object.values(this.dealers), this.iopub, this.hb]) socket.close();
    await Promise.all(this.loops);
    await this.hbChain;
  }

  /** `beforeConnect` sees the socket first, so a monitor it starts misses no event. */
  private dealer(port: number, beforeConnect?: (socket: zmq.Dealer) => void): zmq.Dealer {
    const socket = new zmq.Dealer({ linger: 0, routingId: this.routingId });
    beforeConnect?.(socket);
    socket.connect(endpoint(this.info, port));
    return socket;
  }

  private newHeartbeatSocket(): zmq.Request {
    const socket = new zmq.Request({ linger: 0 });
    socket.connect(endpoint(this.info, this.info.hb_port));
    return socket;
  }

  // A REQ socket that missed its reply is stuck mid-exchange, so it is replaced on failure.
  private async pingOnce(timeoutMs: number): Promise<boolean> {
    if (this.closed) return false;
    const socket = this.hb;
    socket.sendTimeout = timeoutMs;
    socket.receiveTimeout = timeoutMs;
    const ping = Buffer.from(`ping-${randomUUID()}`, "utf8");
    try {
      await socket.send(ping);
      const [echo] = await socket.receive();
      return echo !== undefined && echo.equals(ping);
    } catch {
      socket.close();
      if (!this.closed) this.hb = this.newHeartbeatSocket();
      return false;
    }
  }

  private startLoops(): void {
    for (const channel of ["shell", "control", "stdin"] as const) {
      this.loops.push(this.receiveLoop(channel, this.dealers[channel]));
    }
    this.loops.push(this.receiveLoop("iopub", this.iopub));
  }

  private async receiveLoop(channel: ClientChannel, socket: zmq.Dealer | zmq.Subscriber): Promise<void> {
    while (!this.closed) {
      let frames: Buffer[];
      try {
        frames = await socket.receive();
      } catch (err) {
        if (this.closed) return;
        this.wireErrors.push(`${channel}: receive failed: ${err instanceof Error ? err.message : String(err)}`);
        return;
      }
      const result = decode(frames, this.signer, CLIENT_MAX_BYTES);
      if (result.ok) this.route(channel, result.message);
      else this.wireErrors.push(`${channel}: ${result.reason}`);
    }
  }

  private route(channel: ClientChannel, msg: JupyterMessage): void {
    if (channel === "iopub") this.onIopub(msg);
    else if (channel === "stdin") this.onStdin(msg);
    else this.onReply(msg);
  }

  private onReply(msg: JupyterMessage): void {
    const entry = this.pending.get(msg.parent_header.msg_id ?? "");
    if (!entry) {
      this.unmatchedReplies.push(msg);
      return;
    }
    this.pending.delete(msg.parent_header.msg_id);
    entry.resolve(msg);
  }

  private onIopub(msg: JupyterMessage): void {
    if (this.keepHistory) this.iopubLog.push(msg);
    const parent = msg.parent_header.msg_id;
    // Without history only executions still running keep their messages.
    if (parent && (this.keepHistory || this.executing.has(parent))) {
      const list = this.iopubByParent.get(parent) ?? [];
      list.push(msg);
      this.iopubByParent.set(parent, list);
    }
    const listener = parent ? this.iopubListeners.get(parent) : undefined;
    try {
      listener?.(msg);
    } catch (err) {
      this.wireErrors.push(`iopub listener failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    for (const waiter of this.iopubWaiters) {
      if (!waiter.predicate(msg)) continue;
      this.iopubWaiters.delete(waiter);
      waiter.resolve(msg);
    }
  }

  private onStdin(msg: JupyterMessage): void {
    if (this.keepHistory) this.stdinLog.push(msg);
    if (msg.header.msg_type !== "input_request") return;
    const answer = this.inputHandlers.get(msg.parent_header.msg_id ?? "")?.(msg);
    if (answer === undefined) return;
    const reply = replyTo(msg, "input_reply", { value: answer }, this.session, this.username);
    // Our DEALER adds the routing id itself; identities from the kernel side do not apply.
    reply.identities = [];
    this.send("stdin", reply).catch((err: unknown) => this.wireErrors.push(`stdin: input_reply failed: ${String(err)}`));
  }

  private expectReply(msgId: string): Waiter<JupyterMessage> {
    let done = false;
    const promise = new Promise<JupyterMessage>((resolve, reject) => {
      this.pending.set(msgId, {
        resolve: (m) => { done = true; resolve(m); },
        reject,
      });
    });
    // close() rejects every pending reply; a waiter nobody awaits must not become an unhandled rejection.
    promise.catch(() => undefined);
    return { promise, settled: () => done, cancel: () => void this.pending.delete(msgId) };
  }

  private iopubWaiter(predicate: (msg: JupyterMessage) => boolean): Waiter<JupyterMessage> {
    const earlier = this.iopubLog.find(predicate);
    if (earlier) return { promise: Promise.resolve(earlier), settled: () => true, cancel: () => undefined };
    let done = false;
    let waiter: IopubWaiter | undefined;
    const promise = new Promise<JupyterMessage>((resolve) => {
      waiter = { predicate, resolve: (m) => { done = true; resolve(m); } };
      this.iopubWaiters.add(waiter);
    });
    return { promise, settled: () => done, cancel: () => void this.iopubWaiters.delete(waiter!) };
  }

  /**
   * The kernel's stdin ROUTER drops an input_request addressed to a peer it has not yet
   * finished a handshake with, and the cell then waits for an answer forever. So a cell that
   * may ask for input is sent only once the stdin socket is connected, which can lag the
   * other sockets under load.
   */
  private async waitUntilStdinConnected(timeoutMs: number): Promise<void> {
    if (await settlesWithin(this.stdinReady, timeoutMs)) return;
    throw new Error(`the kernel's stdin channel (port ${this.info.stdin_port}) did not complete its handshake within ${timeoutMs} ms`);
  }

  /**
   * Waits for any iopub message: the kernel's iopub_welcome normally; for kernels
   * without it, kernel_info_request is resent until some iopub traffic (status) arrives.
   */
  private async waitUntilIopubLive(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    const stop = Date.now() + timeoutMs;
    const live = this.iopubWaiter(() => true);
    try {
      if (await settlesWithin(live, Math.min(1000, timeoutMs), signal)) return;
      while (Date.now() < stop) {
        signal?.throwIfAborted();
        const probe = this.newRequest("kernel_info_request", {});
        this.expectReply(probe.header.msg_id).promise.catch(() => undefined);
        this.send("shell", probe).catch(() => undefined);
        if (await settlesWithin(live, Math.min(500, Math.max(0, stop - Date.now())), signal)) return;
      }
      signal?.throwIfAborted();
      throw new Error(`iopub did not become live within ${timeoutMs} ms (no iopub_welcome or status)`);
    } finally {
      live.cancel();
    }
  }

  private describeExecution(id: string, reply: Waiter<JupyterMessage>, idle: Waiter<JupyterMessage>): string {
    const seen = this.iopubFor(id).map(summarize).join(", ") || "none";
    return `execute_request ${id}: reply ${reply.settled() ? "received" : "missing"}, ` +
      `status idle ${idle.settled() ? "received" : "missing"}; iopub so far: ${seen}; ` +
      `wire errors: ${this.wireErrors.join("; ") || "none"}`;
  }
}

function isStatus(msg: JupyterMessage, parentId: string, state: string): boolean {
  return msg.parent_header.msg_id === parentId && msg.header.msg_type === "status" &&
    msg.content.execution_state === state;
}

function summarize(msg: JupyterMessage): string {
  return msg.header.msg_type === "status" ? `status:${String(msg.content.execution_state)}` : msg.header.msg_type;
}

/** Resolves with all waiters' values, or rejects (and cancels them) after `ms`. */
async function deadline<T extends readonly Waiter<unknown>[]>(
  waiters: T,
  ms: number,
  describe: () => string,
): Promise<{ [K in keyof T]: T[K] extends Waiter<infer V> ? V : never }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${describe()}`)), ms);
  });
  try {
    const values = await Promise.race([Promise.all(waiters.map((w) => w.promise)), timeout]);
    return values as { [K in keyof T]: T[K] extends Waiter<infer V> ? V : never };
  } finally {
    clearTimeout(timer);
    for (const waiter of waiters) waiter.cancel();
  }
}

/** Settles on the socket's first completed ZMTP handshake (its monitor ends with the socket). */
function handshakeWaiter(socket: zmq.Dealer): Waiter<void> {
  let done = false;
  const promise = new Promise<void>((resolve) => {
    socket.events.on("handshake", () => {
      done = true;
      resolve();
    });
  });
  return { promise, settled: () => done, cancel: () => undefined };
}

/** True once the waiter settled within `ms`; false at the timeout or as soon as `signal` aborts. */
async function settlesWithin(waiter: Waiter<unknown>, ms: number, signal?: AbortSignal): Promise<boolean> {
  if (waiter.settled()) return true;
  if (signal?.aborted) return false;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    onAbort = () => resolve(false);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  const result = await Promise.race([waiter.promise.then(() => true), timedOut]);
  clearTimeout(timer);
  if (onAbort) signal?.removeEventListener("abort", onAbort);
  return result;
}
