// Attach mode: the agent's calls run in a Deskbook kernel a person already has open in
// JupyterLab, reached through the Jupyter Server's REST API and kernel websocket with
// @jupyterlab/services (JupyterLab's own client library). Person and agent share bindings.
import WebSocket from "ws";
import { KernelManager, ServerConnection, type Kernel, type KernelMessage } from "@jupyterlab/services";
import { DEFAULT_CONFIG } from "../config/config.js";
import { callMetadata, isOutput, type JsSession, type RunOptions, type RunResult } from "./js-session.js";

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
}

interface Connection {
  manager: KernelManager;
  kernel: Kernel.IKernelConnection;
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

/** The step of opening a connection that is under way, for the deadline's message. */
type Step = "kernel model" | "websocket";

export class AttachedSession implements JsSession {
  private connection: Promise<Connection> | undefined;
  /** Aborts the connection being opened: close() must not wait for a websocket that may never open. */
  private opening: AbortController | undefined;
  private readonly settings: ServerConnection.ISettings;

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
    const { kernel } = await unlessAborted(this.ensureConnection(), cancelled, () => new AttachCancelledError(server));
    if (cancelled.aborted) throw new AttachCancelledError(server);
    const title = options.title !== undefined ? `${this.options.clientName()}: ${options.title}` : this.options.clientName();
    const future = kernel.requestExecute({ code, allow_stdin: false, stop_on_error: false }, true, callMetadata({ ...options, title }) as KernelMessage.IExecuteRequestMsg["metadata"]);
    const outputs: RunResult["outputs"] = [];
    future.onIOPub = (msg: KernelMessage.IIOPubMessage) => {
      const type = msg.header.msg_type;
      if (!isOutput(type)) return;
      const output = { type, content: msg.content as unknown as Record<string, unknown> };
      outputs.push(output);
      options.onOutput?.(output);
    };
    const onAbort = () => void kernel.interrupt().catch(() => undefined);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const reply = await future.done;
      return { outputs, status: String(reply.content.status) };
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  async reset(): Promise<string> {
    return "Not reset: this session is a kernel a person has open in JupyterLab, and resetting it would drop their bindings too. Ask them to restart the kernel from JupyterLab if that is what they want.";
  }

  /** Ends our connection, also one still opening (a run waiting for it fails with SessionClosedError). */
  async close(): Promise<void> {
    const pending = this.connection;
    this.connection = undefined;
    this.opening?.abort();
    this.opening = undefined;
    // Settles at once now: every wait in connect() gives up when opening is aborted.
    const connection = await pending?.catch(() => undefined);
    // Only our connection goes: the kernel is the person's and keeps running.
    connection?.kernel.dispose();
    connection?.manager.dispose();
  }

  private ensureConnection(): Promise<Connection> {
    if (this.connection) return this.connection;
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
    const within = timeoutMs % 1000 === 0 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`;
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
        throw new Error(`kernel ${model.id} is "${model.name}" (${info.implementation}), not Deskbook: attach to a Deskbook (JavaScript) kernel`);
      }
      return { manager, kernel };
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
      throw new Error(`cannot reach the Jupyter server at ${this.settings.baseUrl}: ${error instanceof Error ? error.message : String(error)}`);
    });
    if (response.status === 403 || response.status === 401) throw new Error(`the Jupyter server at ${this.settings.baseUrl} refused the token (HTTP ${response.status})`);
    if (response.status === 404) throw new Error(`the Jupyter server at ${this.settings.baseUrl} has no kernel ${this.options.kernel}: copy the id from JupyterLab's kernel list (/api/kernels)`);
    if (!response.ok) throw new Error(`the Jupyter server answered HTTP ${response.status} for kernel ${this.options.kernel}`);
    return (await unlessClosed(response.json(), signal, this.settings.baseUrl)) as Kernel.IModel;
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
