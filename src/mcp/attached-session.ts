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

export class AttachedSession implements JsSession {
  private connection: Promise<{ manager: KernelManager; kernel: Kernel.IKernelConnection }> | undefined;
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

  async close(): Promise<void> {
    const connection = await this.connection?.catch(() => undefined);
    this.connection = undefined;
    // Only our connection goes: the kernel is the person's and keeps running.
    connection?.kernel.dispose();
    connection?.manager.dispose();
  }

  private ensureConnection(): Promise<{ manager: KernelManager; kernel: Kernel.IKernelConnection }> {
    this.connection ??= this.connect().catch((error: unknown) => {
      this.connection = undefined;
      throw error;
    });
    return this.connection;
  }

  private async connect(): Promise<{ manager: KernelManager; kernel: Kernel.IKernelConnection }> {
    const url = new URL(`api/kernels/${encodeURIComponent(this.options.kernel)}`, this.settings.baseUrl);
    const response = await fetch(url, { headers: { Authorization: `token ${this.options.token}` } }).catch((error: unknown) => {
      throw new Error(`cannot reach the Jupyter server at ${this.settings.baseUrl}: ${error instanceof Error ? error.message : String(error)}`);
    });
    if (response.status === 403 || response.status === 401) throw new Error(`the Jupyter server at ${this.settings.baseUrl} refused the token (HTTP ${response.status})`);
    if (response.status === 404) throw new Error(`the Jupyter server at ${this.settings.baseUrl} has no kernel ${this.options.kernel}: copy the id from JupyterLab's kernel list (/api/kernels)`);
    if (!response.ok) throw new Error(`the Jupyter server answered HTTP ${response.status} for kernel ${this.options.kernel}`);
    const model = (await response.json()) as Kernel.IModel;
    const manager = new KernelManager({ serverSettings: this.settings });
    await manager.ready;
    const kernel = manager.connectTo({ model, username: this.options.clientName() });
    const info = await kernel.info;
    if (info.implementation !== "deskbook") {
      kernel.dispose();
      manager.dispose();
      throw new Error(`kernel ${model.id} is "${model.name}" (${info.implementation}), not Deskbook: attach to a Deskbook (JavaScript) kernel`);
    }
    return { manager, kernel };
  }
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
