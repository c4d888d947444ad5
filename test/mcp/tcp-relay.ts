// A loopback TCP relay in front of a Jupyter server, for attach mode's tests: it passes
// everything, and mute() makes every websocket open now drop what the server sends from then
// on (requests still pass), as a websocket kept across a kernel restart lost every reply
// through Enterprise Gateway. Websockets opened later, and plain HTTP, pass both ways.
import { once } from "node:events";
import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net";

export interface TcpRelay {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  /** From now on, the websockets open now get nothing more from the server. */
  mute(): void;
  close(): Promise<void>;
}

export async function tcpRelay(upstream: URL): Promise<TcpRelay> {
  const pairs = new Set<{ client: Socket; server: Socket; websocket: boolean }>();
  const relay: Server = createServer((client: Socket) => {
    const server = connect(Number(upstream.port), upstream.hostname);
    const pair = { client, server, websocket: false };
    pairs.add(pair);
    // Its first bytes say whether it is a websocket (a kept-alive HTTP connection must not go quiet).
    client.once("data", (first: Buffer) => (pair.websocket = /^upgrade:\s*websocket/im.test(first.toString("latin1"))));
    client.pipe(server);
    server.pipe(client);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      server.destroy();
    };
    for (const socket of [client, server]) socket.once("close", end).on("error", end);
  });
  relay.listen(0, "127.0.0.1");
  await once(relay, "listening");
  return {
    url: `http://127.0.0.1:${(relay.address() as AddressInfo).port}/`,
    mute: () => {
      for (const { client, server, websocket } of pairs) {
        if (!websocket) continue;
        server.unpipe(client);
        // Read on and drop: a paused socket would stop the server's side too.
        server.resume();
      }
    },
    close: async () => {
      const closed = once(relay, "close");
      relay.close();
      for (const { client, server } of pairs) {
        client.destroy();
        server.destroy();
      }
      await closed;
    },
  };
}
