/**
 * An input_request lives as long as the cell that asked: the kernel sends it again while the
 * frontend's stdin socket is not connected yet (send-when-connected.ts), but a cell stopped
 * meanwhile must not prompt the frontend once it connects (its answer would go to the next
 * cell's input()), and a stdin that never connects fails input() with a coded error instead
 * of leaving the cell waiting for ever. Both with a real kernel, its stdin reached through a
 * relay that holds (or never passes) the connection.
 */
import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { KernelClient } from "../../src/client/kernel-client.js";
import type { JupyterMessage } from "../../src/jupyter/message.js";
import { resultText, startKernel, type RunningKernel } from "../support/kernel-process.js";
import { SlowRelay } from "../support/slow-relay.js";

let kernel: RunningKernel | undefined;
let client: KernelClient | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await client?.close();
  client = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
  await kernel?.stop();
  kernel = undefined;
});

/** An execute_request sent as a frontend that does not wait for its stdin connection would. */
async function sendAsking(c: KernelClient, code: string): Promise<JupyterMessage> {
  const msg = c.newRequest("execute_request", { code, silent: false, store_history: true, user_expressions: {}, allow_stdin: true, stop_on_error: false });
  await c.send("shell", msg);
  return msg;
}

/** The execute_reply for `msg`: shell and iopub are separate sockets, so it may land after the idle. */
async function replyTo(c: KernelClient, msg: JupyterMessage, timeoutMs: number): Promise<JupyterMessage> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = c.unmatchedReplies.find((r) => r.parent_header.msg_id === msg.header.msg_id);
    if (reply) return reply;
    if (Date.now() > deadline) throw new Error(`no execute_reply for ${msg.header.msg_id} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("input_request lifetime", () => {
  it("does not prompt a late stdin for a cell that was interrupted while asking", async () => {
    kernel = await startKernel();
    const relay = await SlowRelay.start(kernel.info.ip, kernel.info.stdin_port, 1500);
    cleanups.push(() => relay.close());
    client = await KernelClient.connect({ ...kernel.info, stdin_port: relay.port });
    const first = await sendAsking(client, 'console.log("asking"); await input("first? ")');
    await client.waitForIopub((m) => m.parent_header.msg_id === first.header.msg_id && m.header.msg_type === "stream");
    // The input event follows the stream on the executor's pipe: give the kernel time to
    // start sending the request (retrying, as stdin is still held) before the interrupt.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await client.request("control", "interrupt_request", {});
    const stopped = await replyTo(client, first, 10_000);
    expect((stopped.content as { evalue?: string }).evalue).toBe("Stopped: interrupted.");

    // execute() waits for the stdin handshake, so a request still being retried would arrive first.
    const { reply, iopub } = await client.execute('await input("second? ")', { onInput: (req) => `typed for ${(req.content as { prompt: string }).prompt}`, timeoutMs: 15_000 });
    expect(reply.content.status).toBe("ok");
    expect(resultText(iopub)).toBe("'typed for second? '");
    expect(client.stdinLog.map((m) => (m.content as { prompt?: string }).prompt)).toEqual(["second? "]);
  }, 40_000);

  it("fails input() with StdinNotConnectedError when the frontend's stdin never connects, and the session goes on", async () => {
    kernel = await startKernel();
    // A stdin port that accepts the connection and never passes a byte: the handshake never ends.
    const held: Socket[] = [];
    const silent: Server = createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    cleanups.push(async () => {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    });
    client = await KernelClient.connect({ ...kernel.info, stdin_port: (silent.address() as { port: number }).port });
    expect(resultText((await client.execute("let kept = 7; kept")).iopub)).toBe("7");
    const asking = await sendAsking(client, 'await input("never? ")');
    const reply = await replyTo(client, asking, 20_000);
    expect(reply.content).toMatchObject({ status: "error", ename: "StdinNotConnectedError", evalue: "input() could not ask the frontend: the frontend's stdin socket did not connect within 10 s" });
    expect(resultText((await client.execute("kept * 6")).iopub)).toBe("42");
  }, 40_000);
});
