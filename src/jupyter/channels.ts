import * as zmq from "zeromq";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { endpoint, type ConnectionInfo } from "./connection.js";
import { decode, encode, type OutgoingFrame } from "./framing.js";
import { PortInUseError } from "./port-in-use.js";
import { newHeader, type Channel, type JupyterMessage } from "./message.js";
import { Signer } from "./signing.js";
import { IopubSubscriptions } from "./iopub-subscriptions.js";

export interface KernelChannelsOptions {
  /** Receives one line per noteworthy wire event (refused messages, socket errors). */
  log: (line: string) => void;
  /** Largest accepted incoming message, all frames together. Default 256 MiB. */
  maxMessageBytes?: number;
  /** Session id for headers this layer creates (iopub_welcome). Default: a fresh uuid. */
  session?: string;
  /** Username for headers this layer creates. Default "kernel". */
  username?: string;
}

export type MessageHandler = (channel: Channel, msg: JupyterMessage) => void | Promise<void>;

const DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024 * 1024;
// XPUB drops silently at the high water mark; at ZeroMQ's default of 1000 queued
// messages a slow frontend would lose output, even `status: idle`, and hang.
const IOPUB_HIGH_WATER_MARK = 100_000;

interface Writable {
  send(frames: OutgoingFrame[]): Promise<void>;
}

/**
 * Serialises sends on one socket: zeromq.js rejects a send while another is still
 * pending ("Socket is busy writing"), and callers need call order preserved.
 */
export class SendQueue {
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly socket: Writable) {}

  push(frames: OutgoingFrame[]): Promise<void> {
    const next = this.tail.then(() => this.socket.send(frames));
    // A failed send must not block the ones queued after it.
    this.tail = next.catch(() => undefined);
    return next;
  }

  /** Resolves once everything queued so far has been handed to ZeroMQ. */
  drained(): Promise<void> {
    return this.tail;
  }
}

interface Sockets {
  shell: zmq.Router;
  control: zmq.Router;
  stdin: zmq.Router;
  iopub: zmq.XPublisher;
  heartbeat: zmq.Reply;
}

/** The kernel side of the five Jupyter sockets. Knows the wire format, never the language. */
export class KernelChannels {
  /** The connection info actually bound (port 0 entries replaced by the chosen ports). */
  readonly info: ConnectionInfo;
  readonly session: string;
  readonly username: string;
  /** Who listens on iopub: the kernel serves shell requests once someone does (src/kernel/iopub-listeners.ts). */
  readonly iopubSubscriptions = new IopubSubscriptions();
  private readonly signer: Signer;
  private readonly maxBytes: number;
  private readonly log: (line: string) => void;
  private readonly queues: Record<Channel | "iopub", SendQueue>;
  private readonly loops: Promise<void>[] = [];
  private handler: MessageHandler | null = null;
  private receiving = false;
  private closed = false;

  private constructor(
    private readonly sockets: Sockets,
    info: ConnectionInfo,
    signer: Signer,
    options: KernelChannelsOptions,
  ) {
    this.info = info;
    this.session = options.session ?? randomUUID();
    this.username = options.username ?? "kernel";
    this.signer = signer;
    this.maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.log = options.log;
    this.queues = {
      shell: new SendQueue(sockets.shell),
      control: new SendQueue(sockets.control),
      stdin: new SendQueue(sockets.stdin),
      iopub: new SendQueue(sockets.iopub),
    };
  }

  /** Binds all five sockets and starts the heartbeat and iopub subscription loops. */
  static async bind(info: ConnectionInfo, options: KernelChannelsOptions): Promise<KernelChannels> {
    // Fail on a bad scheme before any port is taken.
    const signer = new Signer(info.signature_scheme, info.key);
    const sockets = createSockets(options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES);
    try {
      const bound = await bindAll(sockets, info);
      const channels = new KernelChannels(sockets, bound, signer, options);
      channels.startBackgroundLoops();
      return channels;
    } catch (err) {
      await closeFreeingPorts(sockets);
      throw err;
    }
  }

  /**
   * Sets the handler for decoded shell/control/stdin messages and starts receiving.
   * Messages that arrive before this call wait in ZeroMQ's queues. The handler is
   * called without awaiting it, so one slow request never stalls a socket.
   */
  onMessage(handler: MessageHandler): void {
    this.handler = handler;
    if (this.receiving || this.closed) return;
    this.receiving = true;
    for (const channel of ["shell", "control", "stdin"] as const) {
      this.loops.push(this.receiveLoop(channel, this.sockets[channel]));
    }
  }

  /** Sends on a router channel; `msg.identities` address the peer. Resolves once queued in ZeroMQ. */
  send(channel: Channel, msg: JupyterMessage<unknown>): Promise<void> {
    return this.enqueue(channel, msg);
  }

  /** Publishes on iopub. The topic replaces `msg.identities`, which on iopub are never routing ids. */
  publish(msg: JupyterMessage<unknown>): Promise<void> {
    return this.enqueue("iopub", msg, `kernel.${this.session}.${msg.header.msg_type}`);
  }

  /**
   * Stops all loops and closes the sockets (linger 0: unsent messages are dropped). Sends
   * already handed to send()/publish() are given up to one second to reach ZeroMQ first.
   * The ports are freed by libzmq's I/O thread soon after: a shutdown does not wait for it
   * (the process exits, and a kernel restart binds them in a new process).
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await withTimeout(Promise.all(Object.values(this.queues).map((q) => q.drained())), 1000);
    for (const socket of Object.values(this.sockets)) socket.close();
    await Promise.all(this.loops);
  }

  /** `topic`, on iopub, goes where the routing identities would. */
  private enqueue(target: Channel | "iopub", msg: JupyterMessage<unknown>, topic?: string): Promise<void> {
    if (this.closed) {
      // Shutdown races replies against close(); dropping with a log line beats an unhandled rejection.
      this.log(`wire: dropped outgoing ${target} ${msg.header.msg_type}: channels are closed`);
      return Promise.resolve();
    }
    let frames: OutgoingFrame[];
    try {
      frames = encode(msg, this.signer);
      if (topic !== undefined) frames.splice(0, msg.identities.length, topic);
    } catch (err) {
      return Promise.reject(new Error(`cannot encode ${msg.header.msg_type} for ${target}: ${errorText(err)}`));
    }
    return this.queues[target].push(frames);
  }

  private startBackgroundLoops(): void {
    this.loops.push(this.heartbeatLoop(), this.subscriptionLoop());
  }

  private async receiveLoop(channel: Channel, socket: zmq.Router): Promise<void> {
    await this.forEachMessage(channel, socket, (frames) => this.dispatch(channel, frames));
  }

  private dispatch(channel: Channel, frames: Buffer[]): void {
    const result = decode(frames, this.signer, this.maxBytes);
    if (!result.ok) {
      this.log(`wire: dropped ${channel} message: ${result.reason}`);
      return;
    }
    const handler = this.handler;
    if (!handler) return;
    const onError = (err: unknown): void =>
      this.log(`wire: ${channel} handler failed on ${result.message.header.msg_type}: ${errorText(err)}`);
    try {
      const pending = handler(channel, result.message);
      if (pending instanceof Promise) pending.catch(onError);
    } catch (err) {
      onError(err);
    }
  }

  // Echo every ping verbatim; runs on the event loop, which never runs user code.
  private async heartbeatLoop(): Promise<void> {
    const socket = this.sockets.heartbeat;
    await this.forEachMessage("heartbeat", socket, (frames) => socket.send(frames));
  }

  // XPUB hands us subscription frames: first byte 1 = subscribe, 0 = unsubscribe, rest = topic.
  private async subscriptionLoop(): Promise<void> {
    await this.forEachMessage("iopub", this.sockets.iopub, (frames) => {
      const subscribed = this.iopubSubscriptions.note(frames[0]);
      if (subscribed !== undefined) this.welcome(subscribed);
    });
  }

  /** Tells subscribers (JEP 65) that iopub is live, so they can stop guessing. */
  private welcome(subscription: string): void {
    const msg: JupyterMessage = {
      identities: [],
      header: newHeader("iopub_welcome", this.session, this.username),
      parent_header: {},
      metadata: {},
      content: { subscription },
      buffers: [],
    };
    this.publish(msg).catch((err: unknown) => this.log(`wire: iopub_welcome failed: ${errorText(err)}`));
  }

  /** Receives until the socket closes; a failing step is logged and the loop carries on. */
  private async forEachMessage(
    name: string,
    socket: zmq.Router | zmq.Reply | zmq.XPublisher,
    step: (frames: Buffer[]) => void | Promise<void>,
  ): Promise<void> {
    while (!this.closed) {
      let frames: Buffer[];
      try {
        frames = await socket.receive();
      } catch (err) {
        if (this.closed || socket.closed) return;
        this.log(`wire: ${name} receive failed: ${errorText(err)}`);
        await delay(10); // avoid a hot loop on a persistent error
        continue;
      }
      try {
        await step(frames);
      } catch (err) {
        if (this.closed) return;
        this.log(`wire: ${name} failed to process a message: ${errorText(err)}`);
      }
    }
  }
}

function createSockets(maxBytes: number): Sockets {
  // handover: a client reconnecting with the same routing id takes over the old route.
  // maxMessageSize (ZMQ_MAXMSGSIZE) is checked per frame as it arrives, so one huge
  // frame disconnects its sender before being buffered; decode() still checks the total.
  // sendTimeout 0 where a send can never wait (a ROUTER that is not mandatory and an XPUB drop
  // instead): zeromq.js then sends without first asking ZeroMQ whether it may (ZMQ_EVENTS, a
  // poll and a getpid each), one query less per message (issue 12).
  const router = (mandatory = false): zmq.Router =>
    new zmq.Router({ linger: 0, handover: true, maxMessageSize: maxBytes, mandatory, ...(!mandatory && { sendTimeout: 0 }) });
  const iopub = new zmq.XPublisher({ linger: 0, sendHighWaterMark: IOPUB_HIGH_WATER_MARK, sendTimeout: 0 });
  // Without this, a second subscriber to "" produces no subscription frame and no welcome.
  iopub.verbosity = "allSubs";
  return {
    shell: router(),
    control: router(),
    // Mandatory: a send to a frontend whose stdin has not connected yet fails (EHOSTUNREACH) instead of vanishing (src/kernel/send-when-connected.ts).
    stdin: router(true),
    iopub,
    heartbeat: new zmq.Reply({ linger: 0 }),
  };
}

const PORT_KEYS = {
  shell: "shell_port",
  control: "control_port",
  stdin: "stdin_port",
  iopub: "iopub_port",
  heartbeat: "hb_port",
} as const satisfies Record<keyof Sockets, keyof ConnectionInfo>;

async function bindAll(sockets: Sockets, info: ConnectionInfo): Promise<ConnectionInfo> {
  const bound: ConnectionInfo = { ...info };
  for (const name of Object.keys(PORT_KEYS) as (keyof Sockets)[]) {
    const key = PORT_KEYS[name];
    bound[key] = await bindOne(sockets[name], info, info[key], name);
  }
  return bound;
}

/**
 * Closes the sockets of a failed bind with their ports free when it resolves, so a retry on
 * the same ports can bind them. libzmq closes a listener in its I/O thread after close() or
 * unbind() returns; the monitor's "close" event is the listener actually gone.
 */
async function closeFreeingPorts(sockets: Sockets): Promise<void> {
  await Promise.all(Object.values(sockets).map(async (socket) => {
    const address = socket.lastEndpoint;
    if (address) {
      const closed = new Promise<void>((resolve) => socket.events.on("close", () => resolve()));
      await socket.unbind(address).then(() => withTimeout(closed, 1000), () => undefined);
    }
    socket.close();
  }));
}

/**
 * Binds one socket and returns the port actually used: for 0 over tcp the one the OS chose; for 0
 * over ipc the lowest number from 1 up whose path `${ip}-N` does not exist yet (ipykernel's rule;
 * the sockets bind one after another, so each sees the paths of those before it).
 */
async function bindOne(socket: zmq.Socket, info: ConnectionInfo, port: number, name: string): Promise<number> {
  const random = info.transport === "tcp" && port === 0;
  if (info.transport === "ipc" && port === 0) port = nextFreeIpcNumber(info.ip);
  const address = random ? `tcp://${info.ip}:*` : endpoint(info, port);
  try {
    await socket.bind(address);
  } catch (err) {
    if ((err as { code?: unknown }).code === "EADDRINUSE") throw new PortInUseError(name, address);
    throw new Error(`cannot bind ${name} socket to ${address}: ${errorText(err)}`, { cause: err });
  }
  if (!random) return port;
  const chosen = Number(/:(\d+)$/.exec(socket.lastEndpoint ?? "")?.[1]);
  if (!Number.isInteger(chosen)) throw new Error(`cannot tell which port ${name} bound to`);
  return chosen;
}

function nextFreeIpcNumber(path: string): number {
  let number = 1;
  while (existsSync(`${path}-${number}`)) number += 1;
  return number;
}

function withTimeout(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    promise.then(
      () => { clearTimeout(timer); resolve(); },
      () => { clearTimeout(timer); resolve(); },
    );
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
