import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKernel, resultText, type RunningKernel } from "../support/kernel-process.js";

let kernel: RunningKernel;
beforeAll(async () => {
  kernel = await startKernel();
});
afterAll(async () => {
  await kernel?.stop();
});

const DELIM = Buffer.from("<IDS|MSG>");
const json = (v: unknown) => Buffer.from(JSON.stringify(v));

describe("bad input on the wire", () => {
  it("drops and logs a message with a bad signature, never acting on it", async () => {
    const msg = kernel.client.newRequest("execute_request", { code: "globalThis.forged = true", silent: false });
    const frames = [DELIM, Buffer.from("0".repeat(64)), json(msg.header), json({}), json({}), json(msg.content)];
    await kernel.client.sendRaw("shell", frames);
    await new Promise((r) => setTimeout(r, 300));
    expect(kernel.stderr()).toMatch(/signature/i);
    expect(resultText((await kernel.client.execute("typeof globalThis.forged")).iopub)).toBe("'undefined'");
  });

  it("survives malformed frames, invalid JSON and missing signatures", async () => {
    await kernel.client.sendRaw("shell", [Buffer.from("garbage")]);
    await kernel.client.sendRaw("shell", [DELIM]);
    await kernel.client.sendRaw("control", [DELIM, Buffer.from(""), Buffer.from("{"), Buffer.from("}"), Buffer.from("x"), Buffer.from("y")]);
    await new Promise((r) => setTimeout(r, 200));
    expect(await kernel.client.heartbeat(1000)).toBe(true);
    expect(resultText((await kernel.client.execute("'still fine'")).iopub)).toBe("'still fine'");
  });
});
