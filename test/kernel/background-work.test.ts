import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText, startKernel, type RunningKernel } from "../support/kernel-process.js";

// A cell may start host work and end before it settles; the code waiting on it runs when it
// settles, without another cell, however long after the executor's pump went quiet.

let kernel: RunningKernel;
beforeAll(async () => {
  kernel = await startKernel();
});
afterAll(async () => {
  await kernel?.stop();
});

const streamed = (text: string, parent: string) => (m: { header: { msg_type: string }; parent_header: unknown; content: unknown }) =>
  m.header.msg_type === "stream" && (m.parent_header as { msg_id?: string }).msg_id === parent && (m.content as { text: string }).text.includes(text);

describe("work a cell left running", () => {
  it("runs a continuation of a host promise that settles after the cell ended", async () => {
    const { reply, iopub } = await kernel.client.execute("require('node:timers/promises').setTimeout(700).then(() => console.log('late timer')); 'started'");
    expect(reply.content.status).toBe("ok");
    expect(resultText(iopub)).toBe("'started'");
    await kernel.client.waitForIopub(streamed("late timer", reply.parent_header.msg_id), 10_000);
  });

  it("runs what waits on a child process that outlives the cell", async () => {
    const cell = [
      "const child = require('node:child_process').spawn('sleep', ['0.8']);",
      "new Promise((resolve) => child.on('exit', resolve)).then(async (code) => {",
      "  const text = await require('node:fs/promises').readFile('/proc/self/comm', 'utf8');",
      "  console.log('child exited', code, text.trim().length > 0);",
      "});",
      "'started'",
    ].join("\n");
    const { reply, iopub } = await kernel.client.execute(cell);
    expect(reply.content.status).toBe("ok");
    expect(resultText(iopub)).toBe("'started'");
    await kernel.client.waitForIopub(streamed("child exited 0 true", reply.parent_header.msg_id), 10_000);
  });

  it("runs a continuation after a while with nothing in flight, once a timer of the session fires", async () => {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const { reply, iopub } = await kernel.client.execute("setTimeout(() => Promise.resolve('after a quiet while').then((t) => console.log(t)), 600); 'started'");
    expect(reply.content.status).toBe("ok");
    expect(resultText(iopub)).toBe("'started'");
    await kernel.client.waitForIopub(streamed("after a quiet while", reply.parent_header.msg_id), 10_000);
  });
});
