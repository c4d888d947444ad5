/**
 * A cell that may ask for input is sent only once the client's stdin socket has finished the
 * ZMTP handshake: the kernel's stdin ROUTER silently drops an input_request for a peer it does
 * not know yet, and the cell then waits for an answer forever. Here a relay holds the stdin connection's first bytes for
 * a second, as a loaded machine can delay that socket behind the others.
 */
import { afterEach, describe, expect, it } from "vitest";
import { KernelClient } from "../../src/client/kernel-client.js";
import { resultText, startKernel, type RunningKernel } from "../support/kernel-process.js";
import { SlowRelay } from "../support/slow-relay.js";

const HOLD_MS = 1000;

let kernel: RunningKernel | undefined;
let relay: SlowRelay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
  await kernel?.stop();
  kernel = undefined;
});

describe("KernelClient.execute with input", () => {
  it("waits for the stdin channel, so a cell's first input() right after connecting is answered", async () => {
    kernel = await startKernel();
    relay = await SlowRelay.start(kernel.info.ip, kernel.info.stdin_port, HOLD_MS);
    const client = await KernelClient.connect({ ...kernel.info, stdin_port: relay.port });
    try {
      const { reply, iopub } = await client.execute(`await input("Name: ")`, { onInput: () => "Ada", timeoutMs: 10_000 });
      expect(reply.content.status).toBe("ok");
      expect(resultText(iopub)).toBe("'Ada'");
    } finally {
      await client.close();
    }
  }, 30_000);
});
