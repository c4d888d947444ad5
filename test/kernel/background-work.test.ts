import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText, startKernel, type RunningKernel } from "../support/kernel-process.js";

// A cell may start host work and end before it settles; the code waiting on it runs when it
// settles, without another cell, whatever kind of host work it waits on.

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

  it("runs what waits on thread-pool work that outlives the cell", async () => {
    // pbkdf2 runs on libuv's thread pool, which no list of a process's handles shows; a
    // million rounds outlast the cell by most of a second.
    const cell = [
      "require('node:util').promisify(require('node:crypto').pbkdf2)('pw', 'salt', 1e6, 32, 'sha256')",
      "  .then((key) => console.log('derived', key.length));",
      "'started'",
    ].join("\n");
    const { reply, iopub } = await kernel.client.execute(cell);
    expect(reply.content.status).toBe("ok");
    expect(resultText(iopub)).toBe("'started'");
    await kernel.client.waitForIopub(streamed("derived 32", reply.parent_header.msg_id), 10_000);
  });

  it("runs what a signal listener starts after the cell ended", async () => {
    const cell = [
      "process.once('SIGUSR2', () => require('node:fs/promises').readFile('/proc/self/comm', 'utf8')",
      "  .then((text) => console.log('signalled', text.trim().length > 0)));",
      "process.pid",
    ].join("\n");
    const { reply, iopub } = await kernel.client.execute(cell);
    expect(reply.content.status).toBe("ok");
    const pid = Number(resultText(iopub));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    process.kill(pid, "SIGUSR2");
    await kernel.client.waitForIopub(streamed("signalled true", reply.parent_header.msg_id), 10_000);
  });
});
