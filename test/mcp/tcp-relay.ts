// A loopback TCP relay in front of a Jupyter server, for attach mode's tests: it passes
// everything, and mute() makes every websocket open now drop what the server sends from then
// on (requests still pass), as a websocket kept across a kernel restart lost every reply
// through Enterprise Gateway. Websockets opened later, and plain HTTP, pass both ways.
// holdProbes() drops only the kernel's kernel_info traffic on the websockets open now (a
// probe's reply and its status messages, which name the request), as a websocket backed up
// behind other output delays it: everything else still passes. holdUpgrades(true) leaves the
// websocket upgrades that arrive from then on unanswered (read, never passed on), as a proxy
// that does not pass websockets does; plain HTTP still passes.
import { once } from "node:events";
import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net";

export interface TcpRelay {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  /** From now on, the websockets open now get nothing more from the server. */
  mute(): void;
  /** From now on, the websockets open now get no frame from the server that mentions kernel_info. */
  holdProbes(): void;
  /** How many frames holdProbes() has dropped so far. */
  held(): number;
  /** While on, websocket upgrades that arrive are read and never answered nor passed on. */
  holdUpgrades(on: boolean): void;
  /** One per upgrade held so far, resolved when its client hangs up. */
  hungUp(): Promise<void>[];
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  server: Socket;
  websocket: boolean;
  muted: boolean;
  holding: boolean;
  /** The server's bytes not yet passed on: its HTTP response head, then whole websocket frames. */
  pending: Buffer;
  upgraded: boolean;
}

/** The length of the whole websocket frame at the start of `buf`, or undefined while it is incomplete (RFC 6455 §5.2). */
function frameLength(buf: Buffer): { head: number; total: number } | undefined {
  if (buf.length < 2) return undefined;
  let head = 2;
  let length = buf[1]! & 0x7f;
  if (length === 126) {
    if (buf.length < 4) return undefined;
    length = buf.readUInt16BE(2);
    head = 4;
  } else if (length === 127) {
    if (buf.length < 10) return undefined;
    length = Number(buf.readBigUInt64BE(2));
    head = 10;
  }
  if (buf[1]! & 0x80) head += 4;
  return buf.length >= head + length ? { head, total: head + length } : undefined;
}

export async function tcpRelay(upstream: URL): Promise<TcpRelay> {
  const pairs = new Set<Pair>();
  let held = 0;
  /** Passes the server's bytes on: HTTP as it comes, a websocket frame by frame, so that frames can be held. */
  const forward = (pair: Pair, chunk: Buffer): void => {
    if (pair.muted) return;
    if (!pair.websocket) return void pair.client.write(chunk);
    pair.pending = Buffer.concat([pair.pending, chunk]);
    if (!pair.upgraded) {
      const end = pair.pending.indexOf("\r\n\r\n");
      if (end < 0) return;
      pair.client.write(pair.pending.subarray(0, end + 4));
      pair.pending = pair.pending.subarray(end + 4);
      pair.upgraded = true;
    }
    for (let frame = frameLength(pair.pending); frame; frame = frameLength(pair.pending)) {
      const bytes = pair.pending.subarray(0, frame.total);
      pair.pending = pair.pending.subarray(frame.total);
      if (pair.holding && bytes.subarray(frame.head).includes("kernel_info")) held++;
      else pair.client.write(bytes);
    }
  };
  const heldUpgrades = new Set<Socket>();
  const hungUp: Promise<void>[] = [];
  let holdingUpgrades = false;
  const hold = (client: Socket): void => {
    heldUpgrades.add(client);
    // A reset is a hang-up too.
    hungUp.push(once(client, "end").then(() => undefined, () => undefined));
    client.once("close", () => heldUpgrades.delete(client));
    client.resume();
  };
  const pass = (client: Socket, first: Buffer, websocket: boolean): void => {
    const server = connect(Number(upstream.port), upstream.hostname);
    const pair: Pair = { client, server, websocket, muted: false, holding: false, pending: Buffer.alloc(0), upgraded: false };
    pairs.add(pair);
    // Written now, not on connect: it is queued ahead of anything the pipe passes on later.
    server.write(first);
    client.pipe(server);
    // Read on and drop when muted: a paused socket would stop the server's side too.
    server.on("data", (chunk: Buffer) => forward(pair, chunk));
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      server.destroy();
    };
    for (const socket of [client, server]) socket.once("close", end).on("error", end);
  };
  const relay: Server = createServer((client: Socket) => {
    client.on("error", () => client.destroy());
    // Its first bytes say whether it is a websocket (a kept-alive HTTP connection must not go quiet).
    // The pipe is set up in the same tick, so no later chunk is missed.
    client.once("data", (first: Buffer) => {
      const websocket = /^upgrade:\s*websocket/im.test(first.toString("latin1"));
      if (websocket && holdingUpgrades) hold(client);
      else pass(client, first, websocket);
    });
  });
  relay.listen(0, "127.0.0.1");
  await once(relay, "listening");
  const websockets = (): Pair[] => [...pairs].filter((pair) => pair.websocket);
  return {
    url: `http://127.0.0.1:${(relay.address() as AddressInfo).port}/`,
    mute: () => websockets().forEach((pair) => (pair.muted = true)),
    holdProbes: () => websockets().forEach((pair) => (pair.holding = true)),
    held: () => held,
    holdUpgrades: (on) => void (holdingUpgrades = on),
    hungUp: () => [...hungUp],
    close: async () => {
      const closed = once(relay, "close");
      relay.close();
      for (const { client, server } of pairs) {
        client.destroy();
        server.destroy();
      }
      for (const client of heldUpgrades) client.destroy();
      await closed;
    },
  };
}
