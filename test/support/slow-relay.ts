/**
 * A TCP relay that passes nothing either way for a while after each connection: how a loaded
 * machine can delay one of a client's ZeroMQ sockets behind the others (its ZMTP handshake,
 * and with it the peer's routing id or its iopub subscription, reaches the kernel late).
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export class SlowRelay {
  private constructor(
    private readonly server: Server,
    private readonly sockets: Socket[],
    /** The loopback port a client connects to instead of the real one. */
    readonly port: number,
  ) {}

  /** Relays to `host:port`, holding each connection's bytes for `holdMs` first. */
  static async start(host: string, port: number, holdMs: number): Promise<SlowRelay> {
    const sockets: Socket[] = [];
    const server = createServer((client) => {
      const upstream = connect(port, host);
      sockets.push(client, upstream);
      client.pause();
      client.on("error", () => upstream.destroy());
      upstream.on("error", () => client.destroy());
      setTimeout(() => {
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      }, holdMs);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return new SlowRelay(server, sockets, (server.address() as { port: number }).port);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets.splice(0)) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
