/**
 * What a client can ask of one cell through execute_request metadata (`deskbook.step`,
 * `deskbook.timeLimitMs`), and the client options front doors rely on: outputs streamed as
 * they arrive, and no history kept when asked.
 */
import { writeFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKernel, resultText, type RunningKernel } from "../support/kernel-process.js";
import { KernelClient } from "../../src/client/kernel-client.js";
import { startScriptedHelper, SCRIPTED_HELPER_JS, type ScriptedHelper } from "../fixtures/start-scripted-helper.js";
import type { JupyterMessage } from "../../src/jupyter/message.js";

let helper: ScriptedHelper;
let kernel: RunningKernel;
let actionsLog: string;
let logDir: string;

beforeAll(async () => {
  logDir = await mkdtemp(join(tmpdir(), "deskbook-step-"));
  actionsLog = join(logDir, "actions.log");
  helper = await startScriptedHelper({ args: ["--actions-log", actionsLog] });
  kernel = await startKernel({ env: { DESKBOOK_SOCKET: helper.socketPath, DESKBOOK_HELPER: SCRIPTED_HELPER_JS, DESKBOOK_CLIENT: "test-agent" } });
});

afterAll(async () => {
  await kernel?.stop();
  await helper?.stop();
  await rm(logDir, { recursive: true, force: true });
});

const deskbook = (own: unknown) => ({ metadata: { deskbook: own } });

describe("execute_request metadata.deskbook", () => {
  it("timeLimitMs limits this cell only", async () => {
    const stopped = await kernel.client.execute("await new Promise((r) => setTimeout(r, 10_000))", deskbook({ timeLimitMs: 300 }));
    expect(stopped.reply.content).toMatchObject({ status: "error", ename: "Stopped", evalue: "Stopped: the cell ran longer than 300 ms." });
    const next = await kernel.client.execute("await new Promise((r) => setTimeout(r, 600)); 'slept'");
    expect(resultText(next.iopub), JSON.stringify(next.reply.content)).toBe("'slept'");
  });

  it("refuses malformed metadata with a clear error and runs nothing", async () => {
    for (const [own, text] of [
      [{ timeLimitMs: -5 }, "timeLimitMs must be a whole number"],
      [{ timeLimitMs: "1s" }, "timeLimitMs must be a whole number"],
      [{ step: 7 }, "step must be a string"],
      [{ step: "tidy up\nawait desk.getApp('x')" }, "step must be one line without control characters"],
      [{ step: "tab\there" }, "step must be one line without control characters"],
      [{ stepp: "typo" }, "unknown keys: stepp"],
      ["fast", "must be an object"],
    ] as const) {
      const { reply } = await kernel.client.execute("globalThis.ran = true", deskbook(own));
      expect(reply.content, JSON.stringify(own)).toMatchObject({ status: "error", ename: "BadRequest" });
      expect(String(reply.content.evalue)).toContain(text);
    }
    const { iopub } = await kernel.client.execute("typeof globalThis.ran");
    expect(resultText(iopub)).toBe("'undefined'");
  });

  it("step names the cell's helper requests in actions.log, with the client's name", async () => {
    const { reply } = await kernel.client.execute(
      "const calc = await desk.getApp('Calculator'); await calc.click({ find: { role: 'button', label: '7', exact: true } })",
      deskbook({ step: "press seven" }),
    );
    expect(reply.content.status, JSON.stringify(reply.content)).toBe("ok");
    await kernel.client.execute("await calc.click({ find: { role: 'button', label: '8', exact: true } })");
    const lines = (await readFile(actionsLog, "utf8")).trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    // The scripted helper writes the Linux helper's line: the method, and the AX action as axAction.
    const presses = lines.filter((l) => l.action === "performAction" && l.axAction === "AXPress");
    expect(presses).toHaveLength(2);
    expect(presses[0]).toMatchObject({ client: "test-agent", step: "press seven" });
    expect(presses[1]!.step).toBeUndefined();
  });
});

describe("KernelClient options for front doors", () => {
  it("streams an execution's iopub messages as they arrive, before the call resolves", async () => {
    // The cell waits until the test has seen its first line: it can only end "released" if
    // that line was delivered while the cell still ran, not with the reply.
    const released = join(logDir, "released");
    const seen: string[] = [];
    const run = kernel.client.execute(
      `const fs = require("node:fs"); console.log("early"); const t0 = Date.now();
       while (!fs.existsSync(${JSON.stringify(released)}) && Date.now() - t0 < 10000) await new Promise((r) => setTimeout(r, 10));
       console.log(fs.existsSync(${JSON.stringify(released)}) ? "released" : "not released")`,
      {
        onIopub: (msg: JupyterMessage) => {
          seen.push(msg.header.msg_type);
          if (msg.header.msg_type === "stream" && (msg.content as { text: string }).text === "early\n") writeFileSync(released, "");
        },
      },
    );
    const { iopub } = await run;
    expect(seen).toEqual(iopub.map((m) => m.header.msg_type));
    expect(iopub.filter((m) => m.header.msg_type === "stream").map((m) => (m.content as { text: string }).text).join("")).toBe("early\nreleased\n");
  });

  it("keeps no history when asked, so a long-lived client does not grow", async () => {
    const lean = await KernelClient.connect(kernel.info, { keepHistory: false });
    try {
      for (let i = 0; i < 20; i++) {
        const { iopub } = await lean.execute(`${i} * 2`);
        expect(resultText(iopub)).toBe(String(i * 2));
      }
      expect(lean.iopubLog).toHaveLength(0);
      expect(lean.iopubFor("anything")).toEqual([]);
    } finally {
      await lean.close();
    }
  });
});
