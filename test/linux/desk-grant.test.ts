// Safety tiers on the virtual desktop: `grant: "read-only"` (top level and per app) lets reads
// through and refuses every action with not_granted, logged as refused; `confirm: "ask"` refuses
// a press on a zenity button labelled Send with a one-time token until `deskbook confirm TOKEN`,
// whichever way the button is pressed (accessibility or a click on its point).
import { spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/desk/app.js";
import { startDeskOnHelper, type DeskOnHelper } from "./desk-harness.js";
import { missingTools, waitFor } from "./helper-harness.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));
const missing = missingTools(["Xvfb", "openbox", "dbus-daemon", "galculator", "zenity", "mousepad"]);
if (missing.length > 0) console.warn(`test/linux/desk-grant.test.ts skipped: ${missing.join(", ")} missing`);

describe.skipIf(missing.length > 0)("safety tiers", () => {
  let run: DeskOnHelper;
  let calc: App;

  beforeAll(async () => {
    run = await startDeskOnHelper({ approval: "allow-all" });
    calc = await run.desk.getApp("galculator");
    run.machine.trackPid(calc.pid);
  });
  afterAll(async () => run?.stop());

  const logLines = (): Record<string, unknown>[] =>
    readFileSync(join(run.machine.home, "actions.log"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
  const key = async (label: string): Promise<number> => (await calc.find({ role: "button", label, exact: true }))!.i;

  it("reads but never acts under a read-only grant", async () => {
    run.machine.writeConfig({ approval: "allow-all", grant: "read-only" });
    const seven = await key("7");
    expect((await calc.getScreenshot({ emit: false })).width).toBeGreaterThan(0);
    await expect(calc.click(seven)).rejects.toMatchObject({ code: "not_granted", message: expect.stringContaining('"read-only"') });
    await expect(calc.pressKey("7")).rejects.toMatchObject({ code: "not_granted" });
    await expect(run.desk.clipboard.write("x")).rejects.toMatchObject({ code: "not_granted" });
    expect(logLines()).toContainEqual(expect.objectContaining({ action: "performAction", app: "Galculator", refused: "not_granted" }));
    expect(logLines()).toContainEqual(expect.objectContaining({ action: "clipboardWrite", refused: "not_granted" }));
  });

  it("applies a per-app grant over the top level", async () => {
    run.machine.writeConfig({ approval: "allow-all", grant: "read-only", apps: { galculator: { grant: "act" } } });
    await calc.click(await key("C"));
    await calc.click(await key("7"));
    await waitFor(async () => (await calc.find({ role: "text area" }))?.value?.trim() === "7", "7 on the display");
    // act withholds a forced quit; the app stays.
    await expect(calc.quit({ force: true })).rejects.toMatchObject({ code: "not_granted", message: expect.stringContaining('"full"') });
    run.machine.writeConfig({ approval: "allow-all", apps: { Galculator: { grant: "read-only" } } });
    await expect(calc.click(await key("8"))).rejects.toMatchObject({ code: "not_granted" });
  });

  it("answers calls that need no config while config.json is invalid, and runScript with unsupported under any grant", async () => {
    run.machine.writeConfig({ approval: "allow-all", grant: "read-only" });
    await expect(run.client.request("runScript", { language: "applescript", source: "1" })).rejects.toMatchObject({ code: "unsupported" });
    expect(logLines().filter((l) => l.action === "runScript")).toEqual([]);
    writeFileSync(join(run.machine.home, "config.json"), "{ not json", { mode: 0o600 });
    try {
      await expect(run.client.request("ping", {})).resolves.toMatchObject({ platform: "linux" });
      await expect(run.client.request("listApps", {})).resolves.toEqual(expect.arrayContaining([expect.objectContaining({ pid: calc.pid })]));
      await expect(run.client.request("resolveApp", { query: "galculator" })).resolves.toMatchObject({ pid: calc.pid });
      await expect(run.client.request("cursor", {})).resolves.toHaveProperty("enabled");
      // A call the gate decides still fails: the gate never guesses.
      await expect(run.client.request("click", { pid: calc.pid, x: 1, y: 1 })).rejects.toMatchObject({ code: "failed", message: expect.stringContaining("config.json") });
    } finally {
      run.machine.writeConfig({ approval: "allow-all" });
    }
  });

  describe("confirm: ask", () => {
    let zenity: ChildProcess;
    let dialog: App;
    let exited: Promise<number | null>;

    beforeAll(async () => {
      run.machine.writeConfig({ approval: "allow-all", confirm: "ask" });
      zenity = run.machine.spawnApp("zenity", ["--question", "--title=Outbox", "--text=Send the report?", "--ok-label=Send", "--cancel-label=Keep"]);
      exited = new Promise((resolve) => zenity.once("exit", (code) => resolve(code)));
      dialog = await run.desk.getApp(`pid:${zenity.pid}`);
      await waitFor(async () => dialog.find({ role: "button", label: "Send", exact: true }), "zenity's Send button");
    });

    // As the person types it: at a terminal (util-linux script gives it a pty; both streams land on stdout).
    const confirm = (token: string): ReturnType<typeof spawnSync> =>
      spawnSync("script", ["-qec", `${process.execPath} ${CLI} confirm ${token}`, "/dev/null"], {
        env: { ...process.env, DESKBOOK_HOME: run.machine.home },
        encoding: "utf8",
        timeout: 20_000,
      });

    it("refuses the press with a token, by index and by point alike, until the person confirms it once", async () => {
      const send = (await dialog.find({ role: "button", label: "Send", exact: true }))!;
      const first = await dialog.click(send.i).catch((error: unknown) => error);
      expect(first).toMatchObject({ code: "confirmation_required", message: expect.stringContaining('"Send" in zenity') });
      const token = /deskbook confirm ([A-Z0-9]{4}-[A-Z0-9]{4})/.exec(String((first as Error).message))![1]!;
      // The same press by its point is the same element: the same token, still waiting.
      const [x, y, w, h] = send.frame!;
      await expect(dialog.click([x + w / 2, y + h / 2])).rejects.toMatchObject({ message: expect.stringContaining(token) });
      expect(zenity.exitCode).toBeNull();

      expect(confirm("ZZZZ-ZZZZ")).toMatchObject({ status: 1, stdout: expect.stringContaining("not waiting") });
      const approved = confirm(token.toLowerCase());
      expect(approved).toMatchObject({ status: 0, stdout: expect.stringContaining('"Send" in zenity, once') });
      await dialog.click(send.i);
      expect(await exited).toBe(0);
      // Used up: the token approves nothing more.
      expect(confirm(token)).toMatchObject({ status: 1 });
      expect(logLines()).toContainEqual(expect.objectContaining({ action: "performAction", app: "zenity", refused: "confirmation_required" }));
      const pressed = logLines().filter((l) => l.action === "performAction" && l.app === "zenity" && l.refused === undefined);
      expect(pressed).toEqual([expect.objectContaining({ axAction: "AXPress", index: send.i })]);
    });

    it("asks for a drag that presses and releases inside the button, and keeps an approval a press that was not sent", async () => {
      const other = run.machine.spawnApp("zenity", ["--question", "--title=Outbox 2", "--text=Send it?", "--ok-label=Send", "--cancel-label=Keep"]);
      const done = new Promise((resolve) => other.once("exit", (code) => resolve(code)));
      const app = await run.desk.getApp(`pid:${other.pid}`);
      const send = await waitFor(async () => app.find({ role: "button", label: "Send", exact: true }), "the second Send button");
      const [x, y, w, h] = send.frame!;
      const inside: [number, number][] = [[x + w / 2 - 2, y + h / 2], [x + w / 2 + 2, y + h / 2]];
      const first = await app.drag(inside).catch((error: unknown) => error);
      expect(first).toMatchObject({ code: "confirmation_required", message: expect.stringContaining("a cell or agent cannot") });
      const token = /deskbook confirm ([A-Z0-9]{4}-[A-Z0-9]{4})/.exec(String((first as Error).message))![1]!;
      expect(confirm(token)).toMatchObject({ status: 0 });
      // Refused before anything is sent (Linux has no background input): the approval stays.
      await expect(run.client.request("drag", { pid: other.pid!, path: inside, mode: "background", windowId: 1 })).rejects.toMatchObject({ code: "background_unavailable" });
      expect(other.exitCode).toBeNull();
      await app.drag(inside);
      expect(await done).toBe(0);
    });

    it("checks the menu item the path resolves to, however the path spells it", async () => {
      const editor = await run.desk.getApp("mousepad");
      run.machine.trackPid(editor.pid);
      const area = await waitFor(async () => editor.find({ role: "AXTextArea" }), "mousepad's text area");
      await editor.setValue(area.i, "gone");
      await editor.selectText(area.i, 0, 4);
      const spelled = await editor.menu(["Edit", "De_lete Selection"]).catch((error: unknown) => error);
      expect(spelled).toMatchObject({ code: "confirmation_required" });
      expect((spelled as Error).message).toContain('pressing "Delete Selection');
      const token = /deskbook confirm ([A-Z0-9]{4}-[A-Z0-9]{4})/.exec(String((spelled as Error).message))![1]!;
      // Another spelling of the same item is the same press: the same token.
      await expect(editor.menu(["Ｅｄｉｔ", "Ｄｅｌｅｔｅ Ｓｅｌｅｃｔｉｏｎ"])).rejects.toMatchObject({ message: expect.stringContaining(token) });
      expect((await editor.find({ role: "AXTextArea" }))?.value).toBe("gone");
      expect(confirm(token)).toMatchObject({ status: 0 });
      expect(await editor.menu(["edit", "delete selection"])).toEqual(["Edit", "Delete Selection"]);
      await waitFor(async () => (await editor.find({ role: "AXTextArea" }))?.value === "", "the selection deleted");
    });

    it("lets an ordinary press through without asking", async () => {
      const other = run.machine.spawnApp("zenity", ["--question", "--text=Go on?", "--ok-label=Continue", "--cancel-label=Stop"]);
      const done = new Promise((resolve) => other.once("exit", (code) => resolve(code)));
      const app = await run.desk.getApp(`pid:${other.pid}`);
      const button = await waitFor(async () => app.find({ role: "button", label: "Continue", exact: true }), "the Continue button");
      await app.click(button.i);
      expect(await done).toBe(0);
    });
  });
});
