// desk.clipboard and app.paste on the virtual desktop's real CLIPBOARD selection: the grant in
// config.json (reading off by default), what another X client sees, mousepad receiving a paste,
// the clipboard given back afterwards, and the action log holding lengths only.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/desk/app.js";
import { startDeskOnHelper, type DeskOnHelper } from "./desk-harness.js";
import { missingTools, waitFor } from "./helper-harness.js";

const missing = missingTools([...["Xvfb", "openbox", "dbus-daemon", "mousepad"], "xclip"]);
if (missing.length > 0) console.warn(`test/linux/desk-clipboard.test.ts skipped: ${missing.join(", ")} missing`);

describe.skipIf(missing.length > 0)("the clipboard", () => {
  let run: DeskOnHelper;
  let editor: App;

  beforeAll(async () => {
    run = await startDeskOnHelper();
    editor = await run.desk.getApp("mousepad");
    run.machine.trackPid(editor.pid);
  });
  afterAll(async () => run?.stop());

  /** What another X client reads from CLIPBOARD; "" when it has no owner. */
  const outside = (): string => {
    const result = spawnSync("xclip", ["-o", "-selection", "clipboard"], { env: run.machine.env, encoding: "utf8", timeout: 5000 });
    return result.status === 0 ? result.stdout : "";
  };
  /** Another X client copying `text`: an xclip of ours in the foreground, ended by its pid. */
  const copyElsewhere = async (text: string): Promise<ChildProcess> => {
    const child = spawn("xclip", ["-i", "-selection", "clipboard", "-quiet"], { env: run.machine.env, stdio: ["pipe", "ignore", "ignore"] });
    child.stdin.end(text);
    await waitFor(async () => outside() === text, "the other client's copy");
    return child;
  };
  const allowReading = (read: boolean): void => run.machine.writeConfig({ approval: "allow-all", clipboard: { read } });

  it("refuses reading by default with not_granted, and writes where other apps see it", async () => {
    await expect(run.desk.clipboard.read()).rejects.toMatchObject({ code: "not_granted", message: expect.stringContaining('"clipboard": {"read": true}') });
    await run.desk.clipboard.write("from deskbook ✓");
    expect(outside()).toBe("from deskbook ✓");
  });

  it("reads once clipboard.read is on, and refuses writing once clipboard.write is off", async () => {
    allowReading(true);
    const other = await copyElsewhere("copied elsewhere");
    expect(await run.desk.clipboard.read()).toBe("copied elsewhere");
    other.kill();
    run.machine.writeConfig({ approval: "allow-all", clipboard: { read: true, write: false } });
    await expect(run.desk.clipboard.write("x")).rejects.toMatchObject({ code: "not_granted" });
    await expect(editor.paste("x")).rejects.toMatchObject({ code: "not_granted" });
    allowReading(true);
  });

  it("pastes into mousepad and gives the clipboard back", async () => {
    await run.desk.clipboard.write("what the user had");
    const area = (await editor.find({ role: "AXTextArea" }))!;
    await editor.setValue(area.i, "");
    await editor.focus(area.i);
    await editor.paste("pasted → text\nsecond line");
    await waitFor(async () => (await editor.find({ role: "AXTextArea" }))?.value === "pasted → text\nsecond line", "the pasted text");
    expect(await run.desk.clipboard.read()).toBe("what the user had");
    expect(outside()).toBe("what the user had");
  });

  it("leaves an empty clipboard empty after a paste", async () => {
    // Another client takes the clipboard and goes away: nobody owns it any more.
    (await copyElsewhere("gone soon")).kill();
    await waitFor(async () => (await run.desk.clipboard.read()) === "", "an empty clipboard");
    await editor.paste("!");
    expect(await run.desk.clipboard.read()).toBe("");
  });

  it("logs lengths, never the text", () => {
    const lines = readFileSync(join(run.machine.home, "actions.log"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toContainEqual(expect.objectContaining({ action: "clipboardWrite", length: 15 }));
    expect(lines).toContainEqual(expect.objectContaining({ action: "clipboardRead", length: 16 }));
    expect(lines).toContainEqual(expect.objectContaining({ action: "paste", app: "Mousepad", length: 25 }));
    expect(JSON.stringify(lines)).not.toMatch(/what the user had|pasted|from deskbook|copied elsewhere/);
  });
});
