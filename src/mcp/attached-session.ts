// Attach mode: the agent's calls run in a Deskbook kernel a person already has open in
// JupyterLab, reached through the Jupyter Server's REST API and kernel websocket with
// @jupyterlab/services (JupyterLab's own client library). Person and agent share bindings.
import WebSocket from "ws";
import { KernelManager, ServerConnection, type Kernel, type KernelMessage } from "@jupyterlab/services";
import { DEFAULT_CONFIG } from "../config/config.js";
import { callMetadata, isOutput, type JsSession, type RunOptions, type RunResult } from "./js-session.js";
import { findCell, probeKernel, type CellInHistory } from "./kernel-probe.js";
import { lostDuringCall, restartedBeforeCall, restartedBeforeItRan, restartedDuringCall } from "./restart-report.js";
import { duration, RestartWatch, watchdog } from "./restart-watch.js";

export interface AttachOptions {
  server: string;
  token: string;
  kernel: string;
  /** The agent's name: attached, the kernel's helper connection is the person's, so steps carry it. */
  clientName: () => string;
  /**
   * How long opening the connection may take (the REST answer and the websocket's opening),
   * read at each attempt; mcp.attachTimeoutMs in config.json (default DEFAULT_CONFIG's).
   */
  timeoutMs?: () => number;
  /**
   * How long a probe of the kernel (kernel_info on control) may go unanswered before the
   * websocket counts as lost, read at each probe; mcp.attachProbeTimeoutMs in config.json.
   */
  probeTimeoutMs?: () => number;
  /** A run probes first when the kernel has said nothing for this long. Default 1 s. */
  idleProbeMs?: number;
  /** How often a running call probes the kernel. Default 2 s. */
  probeEveryMs?: number;
}

interface Connection {
  manager: KernelManager;
  kernel: Kernel.IKernelConnection;
  /** The kernel process the websocket reached when it opened (its messages' header.session). */
  session: string;
  watch: RestartWatch;
}

/** Why the connection could not be opened, as the server answered: its code leads the message. */
export class AttachError extends Error {
  override readonly name = "AttachError";
  constructor(
    readonly code: "unreachable" | "unauthorized" | "kernel_not_found" | "server_error" | "not_deskbook",
    detail: string,
  ) {
    super(`${code}: ${detail}`);
  }
}

/** What a run waiting for the connection gets when close() comes first. */
export class SessionClosedError extends Error {
  override readonly name = "SessionClosedError";
}

/**
 * What a run gets when the connection did not open within the deadline. Nothing of the attempt
 * is left (its websocket is closed, its timers cleared); the next run tries again.
 */
export class AttachTimeoutError extends Error {
  override readonly name = "AttachTimeoutError";
  readonly code = "attach_timeout" as const;
  constructor(detail: string) {
    super(`attach_timeout: ${detail}`);
  }
}

/**
 * What a run gets when its call was cancelled (options.signal) while it waited for the
 * connection: nothing ran in the kernel. The opening goes on for the next run.
 */
export class AttachCancelledError extends Error {
  override readonly name = "AttachCancelledError";
  readonly code = "cancelled" as const;
  constructor(server: string) {
    super(`cancelled: the call was cancelled while the connection to the Jupyter server at ${server} was still opening; nothing ran in the kernel`);
  }
}

/**
 * What a run gets when the connection was lost while it ran and a new one could not be opened
 * (the server is gone, the kernel was shut down, the deadline passed): the cause's message says which.
 */
export class ConnectionLostError extends Error {
  override readonly name = "ConnectionLostError";
  readonly code = "connection_lost" as const;
  constructor(sign: string, started: boolean, cause: unknown) {
    const what = started ? "the kernel had started it, so it may have acted on the desktop" : "there was no sign that the kernel had started it";
    super(`connection_lost: the connection to the kernel was lost while this call ran (${sign}; ${what}), and a new one failed: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/** How a run's wait for its reply ended. */
type Waited = { reply: KernelMessage.IExecuteReplyMsg } | { lost: string };

const IDLE_PROBE_MS = 1000;
const PROBE_EVERY_MS = 2000;

/** The step of opening a connection that is under way, for the deadline's message. */
type Step = "kernel model" | "websocket";

export class AttachedSession implements JsSession {
  private connection: Promise<Connection> | undefined;
  /** Aborts the connection being opened: close() must not wait for a websocket that may never open. */
  private opening: AbortController | undefined;
  private readonly settings: ServerConnection.ISettings;
  /** The kernel process that holds the bindings the agent knows of; a run that reaches another says so. */
  private kernelSession: string | undefined;
  /** The highest execution count a reply showed in that process: history lines above it are new. */
  private lastCount = 0;
  /** Set by close(): a run that was recovering from a lost connection must not open another. */
  private closed = false;

  constructor(private readonly options: AttachOptions) {
    const baseUrl = options.server.endsWith("/") ? options.server : `${options.server}/`;
    this.settings = ServerConnection.makeSettings({
      baseUrl,
      wsUrl: baseUrl.replace(/^http/, "ws"),
      token: options.token,
      // Node 20 has no global WebSocket; ws speaks the same API.
      WebSocket: withToken(options.token) as unknown as typeof globalThis.WebSocket,
    });
  }

  async run(code: string, options: RunOptions): Promise<RunResult> {
    const server = this.settings.baseUrl;
    const cancelled = options.signal ?? new AbortController().signal;
    // Checked first: a call cancelled before it began starts no connection.
    if (cancelled.aborted) throw new AttachCancelledError(server);
    const { connection, restart } = await unlessAborted(this.checkedConnection(), cancelled, () => new AttachCancelledError(server));
    if (restart !== undefined) return { outputs: [], status: "not_run", notice: restartedBeforeCall(restart) };
    if (cancelled.aborted) throw new AttachCancelledError(server);
    return this.execute(connection, code, options);
  }

  private async execute(connection: Connection, code: string, options: RunOptions): Promise<RunResult> {
    const { kernel, session, watch } = connection;
    const title = options.title !== undefined ? `${this.options.clientName()}: ${options.title}` : this.options.clientName();
    const future = kernel.requestExecute({ code, allow_stdin: false, stop_on_error: false }, true, callMetadata({ ...options, title }) as KernelMessage.IExecuteRequestMsg["metadata"]);
    const outputs: RunResult["outputs"] = [];
    let started = false;
    future.onIOPub = (msg: KernelMessage.IIOPubMessage) => {
      const type = msg.header.msg_type;
      if (type === "execute_input" || type === "status") started = true;
      if (!isOutput(type)) return;
      const output = { type, content: msg.content as unknown as Record<string, unknown> };
      outputs.push(output);
      options.onOutput?.(output);
    };
    const onAbort = () => void kernel.interrupt().catch(() => undefined);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const dog = watchdog(kernel, watch, session, this.options.probeEveryMs ?? PROBE_EVERY_MS, this.probeTimeoutMs());
    let offSign: () => void = () => undefined;
    try {
      const waited = await Promise.race<Waited>([
        // The library cancels every request when it sees the server's "restarting".
        future.done.then(
          (reply) => ({ reply }),
          () => ({ lost: watch.sign ?? "the Jupyter client library cancelled the request" }),
        ),
        new Promise<Waited>((resolve) => (offSign = watch.onSign((sign) => resolve({ lost: sign })))),
        dog.lost.then((lost) => ({ lost })),
      ]);
      if ("reply" in waited) return this.replied(connection, waited.reply, outputs);
      watch.mark(waited.lost);
      return await this.recover(connection, code, { sign: waited.lost, started }, outputs);
    } finally {
      dog.stop();
      offSign();
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  /** The reply came: from the process the agent knows, or (restarted meanwhile) from a new one. */
  private replied(connection: Connection, reply: KernelMessage.IExecuteReplyMsg, outputs: RunResult["outputs"]): RunResult {
    const status = String(reply.content.status);
    const count = (reply.content as { execution_count?: unknown }).execution_count;
    if (reply.header.session === this.kernelSession) {
      if (typeof count === "number") this.lastCount = Math.max(this.lastCount, count);
      return { outputs, status };
    }
    // A websocket kept across a restart: the next run opens a new one, as JupyterLab does.
    const sign = connection.watch.sign ?? "its reply came from another kernel process";
    void this.drop(connection);
    this.adopt(reply.header.session, typeof count === "number" ? count : 0);
    return { outputs, status, notice: restartedBeforeItRan(sign) };
  }

  /**
   * The reply will not come on this websocket: a new one finds out whether the kernel is the
   * same process and what its history has of the call. The call is not run again.
   */
  private async recover(lost: Connection, code: string, call: { sign: string; started: boolean }, outputs: RunResult["outputs"]): Promise<RunResult> {
    const knownSession = this.kernelSession;
    const knownCount = this.lastCount;
    await this.drop(lost);
    let fresh: Connection;
    try {
      fresh = await this.ensureConnection();
    } catch (error) {
      throw new ConnectionLostError(call.sign, call.started, error);
    }
    const restarted = fresh.session !== knownSession;
    const inHistory: CellInHistory = await findCell(fresh.kernel, code, restarted ? 0 : knownCount, this.probeTimeoutMs());
    if (restarted) this.adopt(fresh.session, 0);
    const facts = { ...call, inHistory };
    return { outputs, status: "error", notice: restarted ? restartedDuringCall(facts) : lostDuringCall(facts) };
  }

  /**
   * The connection a run may use, opened if need be. A connection that showed a sign of a
   * restart, or whose kernel has been quiet, is asked which process it reaches first; one that
   * does not answer in time, or answers as another process, is replaced by a new one, as
   * JupyterLab does after a restart (the server checks the kernel's ports and nudges its
   * iopub only when a websocket opens). `restart` says why, when the kernel is a new process.
   */
  private async checkedConnection(): Promise<{ connection: Connection; restart?: string }> {
    let connection = await this.ensureConnection();
    if (connection.session === this.kernelSession && connection.watch.needsProbe(this.options.idleProbeMs ?? IDLE_PROBE_MS)) {
      let sign = connection.watch.sign;
      if (sign === undefined) {
        const timeoutMs = this.probeTimeoutMs();
        const answer = await probeKernel(connection.kernel, timeoutMs);
        if (answer === connection.session) return { connection };
        sign = answer === undefined ? `the kernel did not answer a probe on its websocket within ${duration(timeoutMs)}` : "the kernel answered a probe as another process";
      }
      await this.drop(connection);
      connection = await this.ensureConnection();
      if (connection.session === this.kernelSession) return { connection };
      this.adopt(connection.session, 0);
      return { connection, restart: `${sign}; a new websocket reached a new kernel process` };
    }
    // A new connection (the first, or one opened after a failure) that reached another process.
    if (this.kernelSession !== undefined && connection.session !== this.kernelSession) {
      this.adopt(connection.session, 0);
      return { connection, restart: "a new websocket reached a new kernel process" };
    }
    if (this.kernelSession === undefined) this.adopt(connection.session, 0);
    return { connection };
  }

  /** From now on the agent knows `session` as the kernel, which has run `count` cells the agent saw. */
  private adopt(session: string, count: number): void {
    this.kernelSession = session;
    this.lastCount = count;
  }

  private probeTimeoutMs(): number {
    return this.options.probeTimeoutMs?.() ?? DEFAULT_CONFIG.mcp.attachProbeTimeoutMs;
  }

  /** Ends a connection that is no longer to be used; the next ensureConnection() opens another. */
  private async drop(connection: Connection): Promise<void> {
    const current = this.connection;
    if (current && (await current.catch(() => undefined)) === connection) this.connection = undefined;
    connection.watch.dispose();
    connection.kernel.dispose();
    connection.manager.dispose();
  }

  async reset(): Promise<string> {
    return "Not reset: this session is a kernel a person has open in JupyterLab, and resetting it would drop their bindings too. Ask them to restart the kernel from JupyterLab if that is what they want.";
  }

  /** Ends our connection, also one still opening (a run waiting for it fails with SessionClosedError). */
  async close(): Promise<void> {
    this.closed = true;
    const pending = this.connection;
    this.connection = undefined;
    this.opening?.abort();
    this.opening = undefined;
    // Settles at once now: every wait in connect() gives up when opening is aborted.
    const connection = await pending?.catch(() => undefined);
    // Only our connection goes: the kernel is the person's and keeps running.
    connection?.watch.dispose();
    connection?.kernel.dispose();
    connection?.manager.dispose();
  }

  private ensureConnection(): Promise<Connection> {
    if (this.connection) return this.connection;
    if (this.closed) return Promise.reject(closedError(this.settings.baseUrl));
    const opening = new AbortController();
    this.opening = opening;
    const progress: { step: Step } = { step: "kernel model" };
    const timeoutMs = this.options.timeoutMs?.() ?? DEFAULT_CONFIG.mcp.attachTimeoutMs;
    // Aborting with the error as the reason ends every wait of connect() with it, as close() does.
    const deadline = setTimeout(() => opening.abort(this.timeoutError(progress.step, timeoutMs)), timeoutMs);
    const connection = this.connect(opening.signal, progress)
      .catch((error: unknown) => {
        if (this.connection === connection) this.connection = undefined;
        throw error;
      })
      .finally(() => {
        clearTimeout(deadline);
        if (this.opening === opening) this.opening = undefined;
      });
    this.connection = connection;
    return connection;
  }

  private timeoutError(step: Step, timeoutMs: number): AttachTimeoutError {
    const within = duration(timeoutMs);
    const setting = "(mcp.attachTimeoutMs in config.json sets this deadline)";
    if (step === "kernel model") {
      return new AttachTimeoutError(`the Jupyter server at ${this.settings.baseUrl} did not answer for kernel ${this.options.kernel} within ${within}: check that the server is running and reachable at that URL ${setting}`);
    }
    // The URL without its token: this message goes to the agent.
    const ws = `${this.settings.wsUrl}api/kernels/${encodeURIComponent(this.options.kernel)}/channels`;
    return new AttachTimeoutError(`the kernel's websocket at ${ws} did not open within ${within}: check that kernel ${this.options.kernel} is still running and that the server, and any proxy in front of it, passes websocket upgrades ${setting}`);
  }

  private async connect(signal: AbortSignal, progress: { step: Step }): Promise<Connection> {
    const model = await this.kernelModel(signal);
    const manager = new KernelManager({ serverSettings: this.settings });
    let kernel: Kernel.IKernelConnection | undefined;
    try {
      await unlessClosed(manager.ready, signal, this.settings.baseUrl);
      progress.step = "websocket";
      kernel = manager.connectTo({ model, username: this.options.clientName() });
      // Resolves once the kernel's websocket is open and the kernel answered: never, if it does not open.
      const info = await unlessClosed(kernel.info, signal, this.settings.baseUrl);
      if (info.implementation !== "deskbook") {
        throw new AttachError("not_deskbook", `kernel ${model.id} is "${model.name}" (${info.implementation}), not Deskbook: attach to a Deskbook (JavaScript) kernel`);
      }
      const session = await unlessClosed(kernelSession(kernel), signal, this.settings.baseUrl);
      return { manager, kernel, session, watch: new RestartWatch(kernel, session) };
    } catch (error) {
      kernel?.dispose();
      manager.dispose();
      throw error;
    }
  }

  private async kernelModel(signal: AbortSignal): Promise<Kernel.IModel> {
    const url = new URL(`api/kernels/${encodeURIComponent(this.options.kernel)}`, this.settings.baseUrl);
    const response = await fetch(url, { headers: { Authorization: `token ${this.options.token}` }, signal }).catch((error: unknown) => {
      if (signal.aborted) throw abortError(signal, this.settings.baseUrl);
      throw new AttachError("unreachable", `cannot reach the Jupyter server at ${this.settings.baseUrl}: ${error instanceof Error ? error.message : String(error)}`);
    });
    if (response.status === 403 || response.status === 401) throw new AttachError("unauthorized", `the Jupyter server at ${this.settings.baseUrl} refused the token (HTTP ${response.status})`);
    if (response.status === 404) throw new AttachError("kernel_not_found", `the Jupyter server at ${this.settings.baseUrl} has no kernel ${this.options.kernel} (shut down, or never there): copy the id from JupyterLab's kernel list (/api/kernels)`);
    if (!response.ok) throw new AttachError("server_error", `the Jupyter server answered HTTP ${response.status} for kernel ${this.options.kernel}`);
    return (await unlessClosed(response.json(), signal, this.settings.baseUrl)) as Kernel.IModel;
  }
}

/** Which process the kernel is, asked until it answers: the opening's deadline bounds this. */
async function kernelSession(kernel: Kernel.IKernelConnection): Promise<string> {
  for (;;) {
    const session = await probeKernel(kernel, 1000);
    if (session !== undefined) return session;
    // Only close() or the deadline dispose it, and their error is the one the opening reports.
    if (kernel.isDisposed) throw new Error("the kernel connection was closed while it opened");
  }
}

function closedError(server: string): SessionClosedError {
  return new SessionClosedError(`the session was closed before its connection to the Jupyter server at ${server} opened`);
}

/** Why the opening was aborted: the deadline's error, or else close(). */
function abortError(signal: AbortSignal, server: string): Error {
  return signal.reason instanceof AttachTimeoutError ? signal.reason : closedError(server);
}

/** `promise`, or the abort's error (AttachTimeoutError, SessionClosedError) as soon as the opening's `signal` aborts. */
function unlessClosed<T>(promise: Promise<T>, signal: AbortSignal, server: string): Promise<T> {
  return unlessAborted(promise, signal, () => abortError(signal, server));
}

/** `promise`, or `error()` as soon as `signal` aborts (the promise's own outcome is then ignored). */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal, error: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(error());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(error());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * ws, sending the token in the Authorization header as well as in the URL: a JupyterHub
 * single-user server takes a URL token only from what a browser marks as a websocket
 * (Sec-Fetch-Mode), which ws does not send, and refused the connection.
 *
 * It asks for no subprotocol, so the kernel messages go as JSON (the protocol every Jupyter
 * server speaks). A browser takes a server that picks none of the subprotocols it offered;
 * ws fails that handshake, and a server that uses a gateway (`--gateway-url`) picks none: the
 * connection failed, the client reconnected at once, and Enterprise Gateway, still starting the
 * kernel for the first one, left the second hanging.
 */
function withToken(token: string): new (url: string | URL, protocols?: string | string[]) => WebSocket {
  return class extends WebSocket {
    constructor(url: string | URL) {
      super(url, [], { headers: { Authorization: `token ${token}` } });
    }
  };
}
