/**
 * A cell that may ask for input is sent only once the client's stdin socket has finished the
 * ZMTP handshake: the kernel's stdin ROUTER silently drops an input_request for a peer it does
 * not know yet, and the cell then waits for an answer forever. Here a relay holds the stdin connection's first bytes for
 * a second, as a loaded machine can delay that socket behind the others.
 */
import { connect, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { KernelClient } from "../../src/client/kernel-client.js";
import { resultText, startKernel, type RunningKernel } from "../support/kernel-process.js";

const HOLD_MS = 1000;

let kernel: RunningKernel | undefined;
let relay: Server | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await new Promise((resolve) => (relay ? relay.close(resolve) : resolve(undefined)));
  relay = undefined;
  await kernel?.stop();
  kernel = undefined;
});

/** A TCP relay to `port` that passes nothing either way for HOLD_MS after each connection. */
async function slowRelay(host: string, port: number): Promise<number> {
  relay = createServer((client) => {
    const upstream = connect(port, host);
    sockets.push(client, upstream);
    client.pause();
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    setTimeout(() => {
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    }, HOLD_MS);
  });
  await new Promise<void>((resolve) => relay!.listen(0, "127.0.0.1", resolve));
  return (relay.address() as { port: number }).port;
}

describe("KernelClient.execute with input", () => {
  it("waits for the stdin channel, so a cell's first input() right after connecting is answered", async () => {
    kernel = await startKernel();
    const stdinPort = await slowRelay(kernel.info.ip, kernel.info.stdin_port);
    const client = await KernelClient.connect({ ...kernel.info, stdin_port: stdinPort });
    try {
      const { reply, iopub } = await client.execute(`await input("Name: ")`, { onInput: () => "Ada", timeoutMs: 10_000 });
      expect(reply.content.status).toBe("ok");
      expect(resultText(iopub)).toBe("'Ada'");
    } finally {
      await client.close();
    }
  }, 30_000);
});
