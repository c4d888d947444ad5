// Attach mode: the agent's calls run in a Deskbook kernel a person already has open in
// JupyterLab, reached through the Jupyter Server's REST API and kernel websocket with
// @jupyterlab/services (JupyterLab's own client library). Person and agent share bindings.
import WebSocket from "ws";
import { KernelManager, ServerConnection, type Kernel, type KernelMessage } from "@jupyterlab/services";
import { callMetadata, isOutput, type JsSession, type RunOptions, type RunResult } from "./js-session.js";

export interface AttachOptions {
  server: string;
  token: string;
  kernel: string;
  /** The agent's name: attached, the kernel's helper connection is the person's, so steps carry it. */
  clientName: () => string;
}

interface Connection {
  manager: KernelManager;
  kernel: Kernel.IKernelConnection;
}

/** What a run waiting for the connection gets when close() comes first. */
export class SessionClosedError extends Error {
  override readonly name = "SessionClosedError";
}

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
    const { kernel } = await this.ensureConnection();
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
    const connection = this.connect(opening.signal).catch((error: unknown) => {
      if (this.connection === connection) this.connection = undefined;
      throw error;
    });
    this.connection = connection;
    return connection;
  }

  private async connect(signal: AbortSignal): Promise<Connection> {
    const model = await this.kernelModel(signal);
    const manager = new KernelManager({ serverSettings: this.settings });
    let kernel: Kernel.IKernelConnection | undefined;
    try {
      await unlessClosed(manager.ready, signal, this.settings.baseUrl);
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
      if (signal.aborted) throw closedError(this.settings.baseUrl);
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

/** `promise`, or SessionClosedError as soon as `signal` aborts. */
function unlessClosed<T>(promise: Promise<T>, signal: AbortSignal, server: string): Promise<T> {
  if (signal.aborted) return Promise.reject(closedError(server));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(closedError(server));
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
