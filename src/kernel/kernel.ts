import os from "node:os";
import { randomUUID } from "node:crypto";
import type { ConnectionInfo } from "../jupyter/connection.js";
import { KernelChannels, type KernelChannelsOptions } from "../jupyter/channels.js";
import { PortInUseError } from "../jupyter/port-in-use.js";
import { newHeader, replyTo, type Channel, type JupyterMessage } from "../jupyter/message.js";
import { ExecutorHost } from "./executor-host.js";
import { CellStopper } from "./cell-stopper.js";
import { HistoryStore, historyWarning } from "./history.js";
import { ExecuteHandler, type InputRequest } from "./execute.js";
import { ShellQueue } from "./shell-queue.js";
import { IopubListeners } from "./iopub-listeners.js";
import { sendWhenConnected, STDIN_WAIT_MS } from "./send-when-connected.js";
import { kernelInfoContent } from "./kernel-info.js";
import { HelperStopListener } from "./helper-stop-listener.js";
import { BAD_REQUEST, checkContent, isKnownMessage } from "./request-content.js";
import {
  replyType,
  type CommOpen,
  type CompleteReply,
  type CompleteRequest,
  type ErrorReply,
  type HistoryRequest,
  type InspectReply,
  type InspectRequest,
  type RequestType,
  type Requests,
} from "../jupyter/requests.js";

export interface KernelOptions {
  connection: ConnectionInfo;
  home: string;
  log: (line: string) => void;
  /** The session's cell time limit from the start (`deskbook run --timeout`); default config.json's timeoutMs. */
  timeLimitMs?: number;
  /** The largest incoming message accepted, all frames together (the wire's default when absent). */
  maxMessageBytes?: number;
  /** The executor's environment (default this process's): a per-kernel desktop's points at that desktop. */
  executorEnv?: NodeJS.ProcessEnv;
  /** Runs last in shutdown(): ends what belongs to this kernel alone (its own desktop). */
  onShutdown?: () => Promise<void>;
  /** An executor already started, with `cwd`, `executorEnv` and `log` as above (serveKernel forks it first, so it starts while the wire code loads). */
  executor?: ExecutorHost;
  /**
   * A launcher's new pick of ports when one of the connection's was taken before the kernel bound
   * it: the connection to bind instead, or undefined to give up (start then throws the
   * PortInUseError). Only the bind is tried again; the executor and the history stay as they are.
   */
  rebind?: (error: PortInUseError) => Promise<ConnectionInfo | undefined>;
}

/** One handler per request type, typed from the request map; comm messages have no reply. */
type Handlers = { [T in RequestType]: (msg: JupyterMessage<Requests[T]["content"]>) => Promise<Requests[T]["reply"]> };
type AnyReply = Requests[RequestType]["reply"];

/**
 * The kernel process: a table from message type to handler, with every reply and every
 * busy/idle pair built here. Shell requests run one at a time; control requests
 * (interrupt, shutdown) are answered at once, even while a cell runs.
 */
export class Kernel {
  private readonly queue = new ShellQueue((msg, aborted) => this.serveShell(msg, aborted));
  private readonly iopubListeners: IopubListeners;
  private readonly handlers: Handlers;
  private readonly executor: ExecutorHost;
  private readonly stopper: CellStopper;
  private readonly execution: ExecuteHandler;
  private readonly helperStops: HelperStopListener;
  /** The shutdown under way: a second caller (SIGTERM after a shutdown_request) waits for it. */
  private shuttingDown: Promise<void> | undefined;
  /** A well-formed shutdown_request was answered: the kernel exits once the reply is out. */
  private shutdownAccepted = false;

  private constructor(
    private readonly options: KernelOptions,
    private readonly history: HistoryStore,
    private readonly channels: KernelChannels,
    private readonly session: string,
    private readonly username: string,
  ) {
    this.iopubListeners = new IopubListeners(channels.iopubSubscriptions, options.log);
    this.executor = options.executor ?? new ExecutorHost({ cwd: process.cwd(), env: options.executorEnv ?? process.env, log: options.log });
    this.stopper = new CellStopper(this.executor, { log: options.log, sessionLimitMs: options.timeLimitMs });
    this.helperStops = new HelperStopListener(this.stopper, options.log);
    this.stopper.addSource(this.helperStops);
    this.execution = new ExecuteHandler({
      executor: this.executor,
      stopper: this.stopper,
      history,
      home: options.home,
      publish: (msgType, content, parent, metadata) => this.publish(msgType, content, parent, metadata),
      inputRequest: (parent, content) => this.inputRequest(parent, content),
      abortWaitingExecutes: () => this.queue.abortWaitingExecutes(),
    });
    this.listenToExecutor();
    this.handlers = this.handlerTable();
  }

  /** Each executor channel goes straight to the part that owns it; nothing relays another's events. */
  private listenToExecutor(): void {
    this.executor.listen({
      output: (event) => this.execution.onOutput(event),
      stdio: (event) => this.execution.onStdio(event),
      input: (event) => this.execution.onInputRequest(event),
      stop: (event) => this.stopper.onExecutorEvent(event),
      helper: (event) => this.helperStops.onExecutorEvent(event),
      lost: ({ exitDescription }) =>
        this.execution.notify(`the executor process ended while no cell ran (${exitDescription}); a new one was started and the session's bindings were lost.`),
    });
  }

  static async start(options: KernelOptions): Promise<Kernel> {
    // The warning is shown in the next cell; until the kernel exists it waits here.
    const early: string[] = [];
    let notify = (text: string): void => void early.push(text);
    const history = await HistoryStore.open(options.home, {
      onWriteError: (error) => {
        options.log(historyWarning(error));
        notify(historyWarning(error));
      },
    });
    const session = randomUUID();
    const username = os.userInfo().username;
    const channels = await bindChannels(options, { log: options.log, maxMessageBytes: options.maxMessageBytes, session, username });
    const kernel = new Kernel(options, history, channels, session, username);
    notify = (text) => kernel.execution.notify(text);
    for (const text of early) notify(text);
    kernel.channels.onMessage((channel, msg) => kernel.receive(channel, msg));
    kernel.publish("status", { execution_state: "starting" }, undefined);
    return kernel;
  }

  /** The connection as bound: where the file asked for port 0, the port the OS chose. */
  get connection(): ConnectionInfo {
    return this.channels.info;
  }

  /** SIGINT to the kernel process: the same stop as an interrupt_request. */
  stopRunningCell(): void {
    this.stopper.stop("interrupted");
  }

  /**
   * Ends the session. Every caller gets the one shutdown's promise: answering a second caller at
   * once would let it exit the process while the executor is still being ended, leaving what only
   * the kernel cleans up (the stop directory, the kernel's desktop) behind.
   */
  shutdown(): Promise<void> {
    this.shuttingDown ??= this.end();
    return this.shuttingDown;
  }

  private async end(): Promise<void> {
    this.stopper.end();
    await this.helperStops.close();
    await this.executor.close();
    await this.channels.close();
    this.history.close();
    await this.options.onShutdown?.().catch((error: unknown) => this.options.log(`ending the kernel's desktop failed: ${String(error)}`));
  }

  private receive(channel: Channel, msg: JupyterMessage): void {
    if (channel === "stdin") {
      if (msg.header.msg_type !== "input_reply") return;
      const checked = checkContent("input_reply", msg.content);
      if ("problem" in checked) this.options.log(`dropped stdin ${logName(msg.header.msg_type)}: ${checked.problem}`);
      else this.execution.onInputReply(checked.content, parentMsgId(msg));
      return;
    }
    if (channel === "shell") this.queue.push(msg);
    else void this.process(channel, msg, false);
  }

  /** Shell requests, one at a time, once someone listens on iopub (iopub-listeners.ts). */
  private async serveShell(msg: JupyterMessage, aborted: boolean): Promise<void> {
    const listening = this.iopubListeners.ready();
    if (listening) await listening;
    await this.process("shell", msg, aborted);
  }

  private async process(channel: "shell" | "control", msg: JupyterMessage, aborted: boolean): Promise<void> {
    const msgType = msg.header.msg_type;
    this.publish("status", { execution_state: "busy" }, msg);
    try {
      const content = aborted ? { status: "aborted" } : await this.dispatch(msg);
      if (content) await this.sendOn(channel, msg, replyType(msgType), content);
    } catch (error) {
      this.options.log(`${msgType} failed: ${(error as Error).stack ?? String(error)}`);
      const evalue = (error as Error).message ?? String(error);
      if (msgType.endsWith("_request")) await this.sendOn(channel, msg, replyType(msgType), { status: "error", ename: "KernelError", evalue, traceback: [evalue] });
    } finally {
      this.publish("status", { execution_state: "idle" }, msg);
    }
    if (this.shutdownAccepted && !this.shuttingDown) await this.exit();
  }

  private async dispatch(msg: JupyterMessage): Promise<AnyReply | undefined> {
    const msgType = msg.header.msg_type;
    if (!isKnownMessage(msgType) || msgType === "input_reply") return this.unknown(msgType);
    const checked = checkContent(msgType, msg.content);
    if ("problem" in checked) {
      this.options.log(`refused ${logName(msgType)}: ${checked.problem}`);
      return msgType.endsWith("_request") ? { status: "error", ename: BAD_REQUEST, evalue: checked.problem, traceback: [checked.problem] } : undefined;
    }
    return this.handle(msgType, { ...msg, content: checked.content });
  }

  private handle<T extends RequestType>(msgType: T, msg: JupyterMessage<Requests[T]["content"]>): Promise<Requests[T]["reply"]> {
    const handler: Handlers[T] = this.handlers[msgType];
    return handler(msg);
  }

  private unknown(msgType: string): ErrorReply | undefined {
    this.options.log(`unknown message type ${logName(msgType)}`);
    if (!msgType.endsWith("_request")) return undefined;
    const evalue = `Deskbook does not handle ${logName(msgType)}`;
    return { status: "error", ename: "UnknownMessageType", evalue, traceback: [evalue] };
  }

  private handlerTable(): Handlers {
    return {
      kernel_info_request: async () => kernelInfoContent(),
      execute_request: (msg) => this.execution.handle(msg),
      complete_request: (msg) => this.complete(msg.content),
      inspect_request: (msg) => this.inspect(msg.content),
      // Loaded on the first request: acorn costs the kernel ~1.2 MB, and few frontends ask.
      is_complete_request: async (msg) => (await import("../executor/is-complete.js")).isComplete(msg.content.code),
      history_request: async (msg) => ({ status: "ok", history: this.historyFor(msg.content) }),
      comm_info_request: async () => ({ status: "ok", comms: {} }),
      comm_open: async (msg) => this.refuseComm(msg),
      // No comm targets exist, so no comm is open to take these.
      comm_msg: async () => undefined,
      comm_close: async () => undefined,
      interrupt_request: async () => {
        this.stopper.stop("interrupted");
        return { status: "ok" };
      },
      shutdown_request: async (msg) => {
        const content = { status: "ok" as const, restart: msg.content.restart === true };
        this.shutdownAccepted = true;
        this.publish("shutdown_reply", content, msg);
        return content;
      },
    };
  }

  private async complete(request: CompleteRequest): Promise<CompleteReply> {
    const done = await this.executor.complete(request.code, cursorIn(request.code, request.cursor_pos));
    return { status: "ok", matches: done.matches, cursor_start: done.cursorStart, cursor_end: done.cursorEnd, metadata: done.metadata };
  }

  private async inspect(request: InspectRequest): Promise<InspectReply> {
    const done = await this.executor.inspect(request.code, cursorIn(request.code, request.cursor_pos), request.detail_level ?? 0);
    return { status: "ok", found: done.found, data: done.data, metadata: done.metadata };
  }

  private historyFor(request: HistoryRequest): unknown[] {
    const output = request.output === true;
    switch (request.hist_access_type) {
      case "tail":
        return this.history.tail(request.n ?? 10, output);
      case "range":
        return this.history.range(request.session ?? 0, request.start ?? 1, request.stop ?? null, output);
      case "search":
        return this.history.search(request.pattern ?? "*", request.n ?? null, request.unique === true, output);
      default:
        return [];
    }
  }

  /** No comm targets exist yet: close the comm so the frontend does not wait on it. */
  private async refuseComm(msg: JupyterMessage<CommOpen>): Promise<undefined> {
    const { comm_id, target_name } = msg.content;
    this.options.log(`no comm target ${JSON.stringify(target_name)}; closing comm ${comm_id}`);
    this.publish("comm_close", { comm_id, data: {} }, msg);
    return undefined;
  }

  private publish(msgType: string, content: object, parent: JupyterMessage<unknown> | undefined, metadata: object = {}): void {
    const message: JupyterMessage<unknown> = {
      identities: [],
      header: newHeader(msgType, this.session, this.username),
      parent_header: parent ? parent.header : {},
      metadata: metadata as Record<string, unknown>,
      content,
      buffers: [],
    };
    this.channels.publish(message).catch((error: unknown) => this.options.log(`iopub send failed: ${String(error)}`));
  }

  /** Builds the input_request a cell asks for, id and all; its send() reaches a frontend whose stdin connects a little after its shell (send-when-connected.ts). */
  private inputRequest(parent: JupyterMessage<unknown>, content: object): InputRequest {
    const message = replyTo(parent, "input_request", content, this.session, this.username);
    const send = (stillWanted: () => boolean): Promise<void> =>
      sendWhenConnected(() => this.channels.send("stdin", message), stillWanted).catch((error: unknown) => {
        const unreached = (error as { code?: unknown }).code === "EHOSTUNREACH";
        this.options.log(`stdin send failed${unreached ? ` (the frontend's stdin did not connect within ${STDIN_WAIT_MS} ms)` : ""}: ${String(error)}`);
        throw new Error(unreached ? `the frontend's stdin socket did not connect within ${STDIN_WAIT_MS / 1000} s` : `the stdin send failed: ${String(error)}`);
      });
    return { msgId: message.header.msg_id, send };
  }

  private async sendOn(channel: Channel, parent: JupyterMessage<unknown>, msgType: string, content: object): Promise<void> {
    const message = replyTo(parent, msgType, content, this.session, this.username);
    await this.channels.send(channel, message).catch((error: unknown) => this.options.log(`${channel} send failed: ${String(error)}`));
  }

  private async exit(): Promise<void> {
    await this.shutdown();
    process.exit(0);
  }
}

/** The msg_id a reply names as its parent, if it names one. */
function parentMsgId(msg: JupyterMessage): string | undefined {
  const id = (msg.parent_header as { msg_id?: unknown }).msg_id;
  return typeof id === "string" && id !== "" ? id : undefined;
}

/** The request's cursor (code points), at the end when absent; a frontend counting UTF-16 units may pass the end. */
function cursorIn(code: string, cursorPos: number | undefined): number {
  const length = [...code].length;
  return Math.min(cursorPos ?? length, length);
}

/** A message type as it goes into the log and replies: quoted, and never a megabyte long. */
function logName(msgType: string): string {
  return JSON.stringify(msgType.length > 80 ? `${msgType.slice(0, 80)}…` : msgType);
}

/** Binds the connection's sockets, on the launcher's new pick (options.rebind) each time a port was taken first. */
async function bindChannels(options: KernelOptions, channelOptions: KernelChannelsOptions): Promise<KernelChannels> {
  for (let connection = options.connection; ; ) {
    try {
      return await KernelChannels.bind(connection, channelOptions);
    } catch (error) {
      if (!(error instanceof PortInUseError) || !options.rebind) throw error;
      const next = await options.rebind(error);
      if (!next) throw error;
      connection = next;
    }
  }
}
