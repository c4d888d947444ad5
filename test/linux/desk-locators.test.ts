// Locators and expect on galculator over the real helper: every key has a locator that finds
// it again in a fresh read (and in a freshly started galculator), actions take locators where
// they take indices, and a failed expectation says what was wanted and what the tree holds.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/desk/app.js";
import type { Locator } from "../../src/desk/locator.js";
import { isDeskError } from "../../src/helper/desk-error.js";
import { startDeskOnHelper, type DeskOnHelper } from "./desk-harness.js";
import { missingTools } from "./helper-harness.js";

const missing = missingTools(["Xvfb", "openbox", "dbus-daemon", "galculator", "mousepad"]);
if (missing.length > 0) console.warn(`test/linux/desk-locators.test.ts skipped: ${missing.join(", ")} missing`);

const DISPLAY = { role: "text area" } as const;

describe.skipIf(missing.length > 0)("locators and expect on galculator and mousepad", () => {
  let run: DeskOnHelper;
  let calc: App;

  beforeAll(async () => {
    run = await startDeskOnHelper();
    calc = await run.desk.getApp("galculator");
    run.machine.trackPid(calc.pid);
  });
  afterAll(async () => run?.stop());

  const failure = async (promise: Promise<unknown>): Promise<Error> => {
    try {
      await promise;
    } catch (error) {
      return error as Error;
    }
    throw new Error("expected the call to fail");
  };

  it("gives every key and the display a locator that finds the same element again", async () => {
    const state = await calc.getAXState({ emit: false });
    const targets = state.nodes.filter((n) => n.subrole === "AXToggle" || n.role === "AXTextArea");
    expect(targets.length).toBeGreaterThan(20);
    for (const node of targets) {
      const locator = await calc.locatorOf(node.i);
      expect(locator.window).toBe("galculator");
      expect((await calc.locate(locator)).i).toBe(node.i);
    }
    expect(await calc.locatorOf(targets.find((n) => n.title === "7")!.i)).toEqual({ role: "toggle button", label: "7", window: "galculator" });
    expect(await calc.locatorOf(targets.find((n) => n.role === "AXTextArea")!.i)).toEqual({ role: "text area", window: "galculator" });
  });

  it("presses keys named by locators, and expect sees the display read 42", async () => {
    for (const label of ["AC", "6", "*", "7", "="]) await calc.click({ role: "toggle button", label, window: "galculator" });
    const display = await calc.expect({ ...DISPLAY, value: "42", exact: true }, { timeout: 3000 });
    expect(display?.value).toBe("42");
    await calc.performAction({ role: "toggle button", label: "AC" }, "AXPress");
    await calc.expect({ ...DISPLAY, value: "0", exact: true });
  });

  it("matches tolerantly when nothing matches exactly, and says which tier found it", async () => {
    expect((await calc.locate({ role: "toggle button", label: "SQRT" })).title).toBe("sqrt");
    // "Seven" is only part of the key's description ("Seven    7").
    expect((await calc.locate({ role: "toggle button", label: "seven" })).title).toBe("7");
    // An action takes a match that only contains the label when asked to, never silently.
    const clicked = await failure(calc.click({ role: "toggle button", label: "seven" }));
    expect(isDeskError(clicked, "not_found")).toBe(true);
    expect(clicked.message).toMatch(/matches \{ role: "toggle button", label: "seven" \} exactly or tolerantly; only containing it: \[\d+\] toggle button "7".*add match: "contains"/);
    await calc.click({ role: "toggle button", label: "AC" });
    await calc.click({ role: "toggle button", label: "seven", match: "contains" });
    await calc.expect({ ...DISPLAY, value: "7", exact: true });
    await calc.click({ role: "toggle button", label: "AC" });
  });

  it("refuses an ambiguous locator listing the matches, and nth picks one", async () => {
    const error = await failure(calc.locate({ role: "toggle button" }));
    expect(isDeskError(error, "ambiguous")).toBe(true);
    expect(error.message).toMatch(/elements in Galculator's window "galculator" match \{ role: "toggle button" \} \(exact\): nth 0: \[\d+\] toggle button "<-"/);
    expect(error.message).toMatch(/add within, window or nth/);
    const third = await calc.locate({ role: "toggle button", nth: 2 });
    expect(third.title).toBe("AC");
  });

  it("refuses a locator that matches nothing, naming the nearest elements", async () => {
    const error = await failure(calc.locate({ role: "toggle button", label: "77" }));
    expect(isDeskError(error, "not_found")).toBe(true);
    expect(error.message).toMatch(/nothing in Galculator's window "galculator" matches \{ role: "toggle button", label: "77" \}; nearest: \[\d+\] toggle button "7"/);
    const window = await failure(calc.click({ role: "toggle button", label: "7", window: "Preferences" }));
    expect(window.message).toMatch(/Galculator has no window titled "Preferences"; its windows: "galculator"/);
    const nth = await failure(calc.locate({ role: "toggle button", label: "7", nth: 1 }));
    expect(nth.message).toMatch(/asks for nth 1, but 1 match/);
  });

  it("refuses what is not a locator with a TypeError before reading anything", async () => {
    await expect(calc.click({ rol: "button" } as unknown as Locator)).rejects.toThrow(/unknown locator field "rol"/);
    await expect(calc.focus({ window: "galculator" })).rejects.toThrow(/at least one of role, label, id or value/);
    await expect(calc.locate({ role: "button", within: ["dialog"] } as unknown as Locator)).rejects.toThrow(/within\[0\] is an object/);
    await expect(calc.locate({ role: "button", nth: -1 })).rejects.toThrow(/nth is a whole number/);
  });

  it("fails an expectation with what was expected and what the tree holds", async () => {
    const error = await failure(calc.expect({ ...DISPLAY, value: "41", exact: true }, { timeout: 300 }));
    expect(error).toMatchObject({ name: "ExpectationFailed", code: "expectation_failed" });
    expect(error.message).toMatch(/^expected \{"role":"text area","value":"41","exact":true\} in Galculator within 300 ms; nothing matches\./);
    expect(error.message).toMatch(/Elements with that role: \[\d+\] text area = "0"/);
    expect(error.message).toMatch(/The tree holds:\napp "Galculator", window "galculator"/);
    expect(error.message).toMatch(/toggle button "7"/);
    const gone = await failure(calc.expect({ role: "toggle button", label: "7", exact: true }, { gone: true, timeout: 0 }));
    expect(gone.message).toMatch(/expected nothing in Galculator to match .* within 0 ms; still there: \[\d+\] toggle button "7"/);
    await expect(calc.expect(DISPLAY, { timeout: -1 })).rejects.toThrow(RangeError);
  });

  it("finds a key again by its locator in a galculator started afresh", async () => {
    const seven = (await calc.find({ role: "toggle button", label: "7", exact: true }))!;
    const locator = await calc.locatorOf(seven.i);
    const oldPid = calc.pid;
    await calc.quit();
    calc = await run.desk.getApp("galculator");
    run.machine.trackPid(calc.pid);
    expect(calc.pid).not.toBe(oldPid);
    const again = await calc.locate(locator);
    expect(again.title).toBe("7");
    expect(again.i).not.toBe(seven.i);
    await expect(calc.actions(seven.i)).rejects.toThrow(/stale_index|not_found/);
  });

  it("describes a menu item and a button of a dialog window, and finds them again", async () => {
    const editor = await run.desk.getApp("mousepad");
    run.machine.trackPid(editor.pid);
    const tree = await editor.getAXState({ menus: true, emit: false, disableDiffing: true });
    const saveAs = tree.nodes.find((n) => n.role === "AXMenuItem" && /^Save As/.test(n.title ?? ""))!;
    expect(saveAs, String(tree)).toBeDefined();
    const locator = await editor.locatorOf(saveAs.i);
    expect(locator).toMatchObject({ role: "menu item", label: saveAs.title });
    // Not in a read without menus: found in the read with them.
    expect((await editor.locate(locator)).i).toBe(saveAs.i);
    // ctrl+s, as the mousepad recipe does: a dialog opened by an accessibility press runs its own
    // loop inside that press, and the app answers no tree read until it closes.
    await editor.pressKey("ctrl+s");
    const cancel = await waitForValue(() => editor.locate({ role: "button", label: "Cancel", window: "Save As" }).catch(() => undefined), "the Save As dialog's Cancel");
    expect(await editor.locatorOf(cancel.i)).toMatchObject({ role: "button", label: "Cancel", window: "Save As" });
    await editor.click({ role: "button", label: "Cancel", window: "Save As" });
    await editor.expect({ role: "button", label: "Cancel", exact: true }, { gone: true });
    await editor.quit({ force: true });
  });
});

async function waitForValue<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
