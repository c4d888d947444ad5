/**
 * getAXState's value behaves as its text wherever a string is expected, and keeps the read's
 * details as properties; its outputs say the text came from the app. Real kernel, scripted
 * helper.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKernel, resultText, streams, type RunningKernel } from "../support/kernel-process.js";
import { startScriptedHelper, SCRIPTED_HELPER_JS, type ScriptedHelper } from "../fixtures/start-scripted-helper.js";
import type { JupyterMessage } from "../../src/jupyter/message.js";

let helper: ScriptedHelper;
let kernel: RunningKernel;

async function ok(code: string): Promise<JupyterMessage[]> {
  const { reply, iopub } = await kernel.client.execute(code);
  expect(reply.content, JSON.stringify(reply.content)).toMatchObject({ status: "ok" });
  return iopub;
}

const result = async (code: string) => resultText(await ok(code));

beforeAll(async () => {
  helper = await startScriptedHelper();
  kernel = await startKernel({ env: { DESKBOOK_SOCKET: helper.socketPath, DESKBOOK_HELPER: SCRIPTED_HELPER_JS } });
  await ok("const calc = await desk.getApp('Calculator'); const tree = await calc.getAXState({ emit: false, disableDiffing: true })");
});

afterAll(async () => {
  await kernel?.stop();
  await helper?.stop();
});

describe("getAXState as text", () => {
  it("answers string methods with the text", async () => {
    expect(await result("tree.match(/^\\s*(\\d+) button \"7\"/m) !== null")).toBe("true");
    expect(await result("tree.includes('button \"7\"')")).toBe("true");
    expect(await result("tree.split('\\n')[0]")).toMatch(/^'app "Calculator", window "Calculator", image 600×400, \d+ elements'$/);
    expect(await result("tree.startsWith('app ') && /button/.test(tree)")).toBe("true");
    expect(await result("tree.length === tree.text.length && tree.text.length > 50")).toBe("true");
  });

  it("becomes its text in template literals, +, String() and JSON.stringify", async () => {
    expect(await result("`${tree}` === tree.text && tree + '' === tree.text && String(tree) === tree.text")).toBe("true");
    expect(await result("JSON.stringify(tree) === JSON.stringify(tree.text)")).toBe("true");
    expect(await result("JSON.parse(JSON.stringify({ tree })).tree === tree.text")).toBe("true");
    expect(await result("tree == tree.text && typeof tree")).toBe("'object'");
  });

  it("still carries nodes, window, image, truncated and diff", async () => {
    expect(await result("[Array.isArray(tree.nodes), tree.nodes.length > 5, tree.window.title, tree.image.width, tree.truncated, tree.diff, tree.app].join()")).toBe(
      "'true,true,Calculator,600,false,false,Calculator'",
    );
    const seven = await result("tree.nodes.find((n) => n.title === '7').i === Number(tree.match(/^\\s*(\\d+) button \"7\"/m)[1])");
    expect(seven).toBe("true");
  });

  it("prints and shows as the text, not as a String box", async () => {
    const printed = streams(await ok("console.log(tree)"));
    expect(printed).toMatch(/^app "Calculator"/);
    expect(printed).not.toContain("[String");
    const shown = await ok("tree");
    const execResult = shown.find((m) => m.header.msg_type === "execute_result")!;
    expect((execResult.content.data as Record<string, string>)["text/plain"]).toMatch(/^app "Calculator"/);
    expect((execResult.content.data as Record<string, string>)["text/html"]).toContain("deskbook-ax");
    expect(execResult.content.metadata).toEqual({ deskbook: { untrusted: "Calculator" } });
  });

  it("marks shown reads and screenshots as the app's text, and nothing else", async () => {
    const read = (await ok("await calc.getAXState()")).find((m) => m.header.msg_type === "display_data")!;
    expect(read.content.metadata).toEqual({ deskbook: { untrusted: "Calculator" } });
    const shot = (await ok("await calc.getScreenshot()")).find((m) => m.header.msg_type === "display_data")!;
    expect(shot.content.metadata).toEqual({ deskbook: { untrusted: "Calculator" } });
    const own = (await ok("display('mine'); 'also mine'")).filter((m) => ["display_data", "execute_result"].includes(m.header.msg_type));
    expect(own.map((m) => m.content.metadata)).toEqual([{}, {}]);
  });
});
