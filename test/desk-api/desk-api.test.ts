import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import sharp from "sharp";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startKernel, resultText, type RunningKernel } from "../support/kernel-process.js";
import { startScriptedHelper, SCRIPTED_HELPER_JS, type ScriptedHelper } from "../fixtures/start-scripted-helper.js";
import { RawHelperConnection } from "../fixtures/raw-helper-connection.js";
import { ERROR_CODES } from "../../src/helper/protocol.js";
import type { JupyterMessage } from "../../src/jupyter/message.js";

let helper: ScriptedHelper;
let kernel: RunningKernel;
let control: RawHelperConnection;

const shown = (iopub: JupyterMessage[]) => iopub.filter((m) => m.header.msg_type === "display_data").map((m) => m.content.data as Record<string, string>);

async function run(code: string): Promise<{ reply: JupyterMessage; iopub: JupyterMessage[] }> {
  return kernel.client.execute(code, { timeoutMs: 20_000 });
}

async function ok(code: string): Promise<JupyterMessage[]> {
  const { reply, iopub } = await run(code);
  expect(reply.content, `${JSON.stringify(reply.content)}\nkernel log:\n${kernel.stderr().slice(-2000)}`).toMatchObject({ status: "ok" });
  return iopub;
}

beforeAll(async () => {
  helper = await startScriptedHelper();
  kernel = await startKernel({ env: { DESKBOOK_SOCKET: helper.socketPath, DESKBOOK_HELPER: SCRIPTED_HELPER_JS } });
  control = await RawHelperConnection.open(helper.socketPath, false);
  await ok("const calc = await desk.getApp('Calculator')");
});

afterAll(async () => {
  control?.close();
  await kernel?.stop();
  await helper?.stop();
  // A helper the executor relaunched after the crash test is not the harness's child.
  spawnSync("pkill", ["-f", `${SCRIPTED_HELPER_JS} --socket ${helper.socketPath}`]);
});

describe("the desk API against the scripted helper", () => {
  beforeEach(async () => {
    if (control.closed) control = await RawHelperConnection.open(helper.socketPath, false);
  });

  it("binds an app in one cell and reads it in the next, as text and html, shown once", async () => {
    await ok("await calc.click({ find: { role: 'button', label: 'C' } })");
    const iopub = await ok("await calc.getAXState({ disableDiffing: true })");
    const [bundle] = shown(iopub);
    expect(bundle!["text/plain"]).toMatch(/^app "Calculator", window "Calculator", image 600×400/);
    expect(bundle!["text/plain"]).toMatch(/\n\s+\d+ button "7" #key-7/);
    expect(bundle!["text/html"]).toContain("button");
    expect(iopub.some((m) => m.header.msg_type === "execute_result")).toBe(false);
  });

  it("presses buttons by element index and shows only what changed on the next read", async () => {
    await ok("await calc.getAXState()");
    await ok("for (const key of ['6', '×', '7', '=']) await calc.click((await calc.find({ role: 'button', label: key, exact: true })).i)");
    const [bundle] = shown(await ok("await calc.getAXState()"));
    expect(bundle!["text/plain"]).toMatch(/\n~ +1 text .*"42".*#display/);
    expect(bundle!["text/plain"]).not.toMatch(/button "7"/);
    const iopub = await ok("(await calc.find('display')).value");
    expect(resultText(iopub)).toBe("'42'");
  });

  it("clicks an image point through the input route and reports it", async () => {
    const frame = "(await calc.find({ label: '9', exact: true })).frame";
    await ok(`await calc.click({ find: 'C' }); const f = ${frame}`);
    const iopub = await ok("await calc.click([f[0] + f[2] / 2, f[1] + f[3] / 2]); await calc.click([f[0] + f[2] / 2, f[1] + f[3] / 2]); calc.lastRoute");
    expect(resultText(iopub)).toMatch(/background|foreground/);
    expect(resultText(await ok("(await calc.find('display')).value"))).toBe("'99'");
  });

  it("refuses a point outside the window image before sending anything", async () => {
    const { reply } = await run("await calc.click([5000, 10])");
    expect(reply.content).toMatchObject({ status: "error", ename: "RangeError" });
    expect(String(reply.content.evalue)).toContain("outside the window image (600×400)");
  });

  it("takes a screenshot of exactly the image size, and draws set-of-marks from the last read", async () => {
    await ok("await calc.getAXState({ disableDiffing: true, emit: false })");
    const [plain] = shown(await ok("await calc.getScreenshot()"));
    expect(plain!["text/plain"]).toMatch(/600×400 image pixels/);
    const png = Buffer.from(plain!["image/png"]!, "base64");
    expect(await sharp(png).metadata()).toMatchObject({ width: 600, height: 400, format: "png" });
    const [marked] = shown(await ok("await calc.getScreenshot({ marks: true })"));
    const markedPng = Buffer.from(marked!["image/png"]!, "base64");
    expect(await sharp(markedPng).metadata()).toMatchObject({ width: 600, height: 400 });
    expect(markedPng.equals(png)).toBe(false);
  });

  it("says so when an action changed nothing twice in a row", async () => {
    await ok("await calc.getAXState({ emit: false })");
    // Clearing a cleared calculator changes nothing.
    const iopub = await ok("const texts = []; for (let n = 0; n < 3; n++) { await calc.click({ find: { label: 'C', exact: true } }); texts.push((await calc.getAXState({ emit: false })).text) }; texts.join('\\n')");
    expect(resultText(iopub)).toMatch(/nothing changed after click \d+ \(twice\)/);
  });

  it("surfaces every helper error code with its code", async () => {
    for (const code of ERROR_CODES) {
      await control.script({ op: "fail", method: "windows", code, message: `scripted ${code}` });
      const { reply } = await run("await calc.windows()");
      expect(reply.content).toMatchObject({ status: "error", ename: "DeskError", evalue: `${code}: scripted ${code}` });
    }
    expect(resultText(await ok("(await calc.windows()).length"))).toBe("1");
  });

  it("refuses a blocked app with the helper's code", async () => {
    const { reply } = await run("const term = await desk.getApp('Terminal'); await term.getAXState()");
    expect(reply.content).toMatchObject({ status: "error", ename: "DeskError" });
    expect(String(reply.content.evalue)).toMatch(/^blocked: /);
  });

  it("stops a cell waiting on an await when the user presses Escape", async () => {
    const running = run("await new Promise(r => setTimeout(r, 20000))");
    await new Promise((r) => setTimeout(r, 300));
    const pressed = Date.now();
    await control.script({ op: "escape" });
    const { reply } = await running;
    expect(reply.content.evalue).toBe("Stopped: the user pressed Escape.");
    expect(Date.now() - pressed).toBeLessThan(2000);
  });

  it("stops a spinning cell when the user presses Escape, keeping the bindings", async () => {
    const running = run("while (true) {}");
    await new Promise((r) => setTimeout(r, 300));
    await control.script({ op: "escape" });
    expect((await running).reply.content.evalue).toBe("Stopped: the user pressed Escape.");
    expect(resultText(await ok("calc.name"))).toBe("'Calculator'");
  });

  it("stops a cell when the helper sends stop, with the helper's reason", async () => {
    const running = run("await new Promise(r => setTimeout(r, 20000))");
    await new Promise((r) => setTimeout(r, 300));
    await control.script({ op: "stop", reason: "Stop Running Scripts was chosen in the Deskbook Helper menu." });
    expect((await running).reply.content.evalue).toBe("Stopped: Stop Running Scripts was chosen in the Deskbook Helper menu.");
    expect(resultText(await ok("calc.name"))).toBe("'Calculator'");
  });

  it("stops a foreground cell when the user switches to another app", async () => {
    await control.script({ op: "background", pid: 4242, answer: "unavailable" });
    await ok("await calc.pressKey('C')");
    const running = run("await calc.pressKey('6'); await new Promise(r => setTimeout(r, 800)); await calc.pressKey('7'); 'not reached'");
    await new Promise((r) => setTimeout(r, 300));
    await control.script({ op: "frontmost", pid: 5151 });
    const { reply } = await running;
    expect(reply.content.evalue).toBe("Stopped: the user switched to Editor.");
    await control.script({ op: "background", pid: 4242, answer: "available" });
  });

  it("fails later input with no_window, not as a user switch, when the app has no window left", async () => {
    // Foreground input, as on Linux (no window lookup for a background route before it).
    await writeFile(join(kernel.home, "config.json"), JSON.stringify({ input: "foreground" }));
    try {
      // The first input brings the calculator forward; then its last window goes (the desktop
      // is made frontmost-less and its window list empty, as after a closed last window).
      const running = run("await calc.pressKey('6'); await new Promise(r => setTimeout(r, 800)); await calc.pressKey('7'); 'not reached'");
      await new Promise((r) => setTimeout(r, 300));
      await control.script({ op: "frontmost", pid: null });
      await control.script({ op: "reply", method: "windows", line: '{"id":$ID,"result":[]}' });
      const { reply } = await running;
      expect(reply.content, String(reply.content.evalue)).toMatchObject({ ename: "DeskError" });
      expect(reply.content.evalue).toBe("no_window: Calculator has no window left to send input to; open one (or relaunch the app) first");
      expect(resultText(await ok("calc.name"))).toBe("'Calculator'");
    } finally {
      await writeFile(join(kernel.home, "config.json"), "{}");
    }
  });

  it("fails a call at once when the helper dies, and relaunches it on the next call", async () => {
    await control.script({ op: "exit", method: "windows" });
    const { reply } = await run("await calc.windows()");
    expect(reply.content, `kernel log:\n${kernel.stderr().slice(-3000)}`).toMatchObject({ status: "error", ename: "DeskError" });
    expect(String(reply.content.evalue)).toMatch(/^failed: the helper closed the connection during windows/);
    expect(resultText(await ok("(await calc.windows())[0].title"))).toBe("'Calculator'");
  });

  it("pauses settleMs after each action, re-reading config.json", async () => {
    await writeFile(join(kernel.home, "config.json"), JSON.stringify({ settleMs: 400 }));
    try {
      const iopub = await ok("const t0 = Date.now(); await calc.performAction(0, 'AXRaise').catch(() => {}); await calc.click({ find: 'C' }); Date.now() - t0");
      expect(Number(resultText(iopub))).toBeGreaterThanOrEqual(400);
    } finally {
      await writeFile(join(kernel.home, "config.json"), "{}");
    }
  });

  it("prints the reference with help()", async () => {
    const iopub = await ok("help()");
    const text = iopub.filter((m) => m.header.msg_type === "stream").map((m) => m.content.text).join("");
    expect(text).toContain("getAXState");
    const one = await ok("help('click')");
    expect(one.filter((m) => m.header.msg_type === "stream").map((m) => m.content.text).join("")).toMatch(/click\(target/);
  });
});
