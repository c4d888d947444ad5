// app.menu on mousepad: GTK menus through AT-SPI, pressed without opening them; exact titles,
// the tolerant match ("Save As…" for "Save As..."), nested submenus, and wrong titles.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/desk/app.js";
import { startDeskOnHelper, type DeskOnHelper } from "./desk-harness.js";
import { missingTools, waitFor } from "./helper-harness.js";

const missing = missingTools();
if (missing.length > 0) console.warn(`test/linux/desk-menu.test.ts skipped: ${missing.join(", ")} missing`);

describe.skipIf(missing.length > 0)("app.menu on mousepad", () => {
  let run: DeskOnHelper;
  let editor: App;

  beforeAll(async () => {
    run = await startDeskOnHelper();
    editor = await run.desk.getApp("mousepad");
    run.machine.trackPid(editor.pid);
  });
  afterAll(async () => run?.stop());

  const text = async (): Promise<string> => (await editor.find({ role: "AXTextArea" }))?.value ?? "";

  it("presses a nested item by exact titles: Edit > Convert > To Uppercase", async () => {
    const area = (await editor.find({ role: "AXTextArea" }))!;
    await editor.setValue(area.i, "hello menus");
    await editor.selectText(area.i, 0, 5);
    expect(await editor.menu(["Edit", "Convert", "To Uppercase"])).toEqual(["Edit", "Convert", "To Uppercase"]);
    await waitFor(async () => (await text()) === "HELLO menus", "the selection in upper case");
  });

  it("matches tolerantly and answers the titles as the app shows them", async () => {
    expect(await editor.menu(["file", "save as…"])).toEqual(["File", "Save As..."]);
    const dialog = await waitFor(async () => (await editor.windows()).find((w) => w.title === "Save As"), "the Save As dialog");
    await dialog.close();
    expect(dialog.open).toBe(false);
  });

  it("fails with not_found naming the items there when a title is wrong, and presses nothing", async () => {
    const before = (await editor.windows()).length;
    const error = await editor.menu(["File", "Sav As"]).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "not_found" });
    expect(String((error as Error).message)).toMatch(/no menu item "Sav As" in "File"; it has: .*"Save As\.\.\."/);
    await expect(editor.menu(["Flie"])).rejects.toMatchObject({ code: "not_found", message: expect.stringMatching(/in the menu bar; it has: "File", "Edit"/) });
    expect((await editor.windows()).length).toBe(before);
  });

  it("refuses a path that is not a list of titles before asking the helper", async () => {
    await expect(editor.menu([] as string[])).rejects.toThrow(TypeError);
    await expect(editor.menu("File" as unknown as string[])).rejects.toThrow(TypeError);
  });
});
