// The toolkit matrix on the virtual desktop: each row drives a real app of one toolkit the way a
// cell would, and reads the result back (docs/linux.md, "Which apps work"). GTK 3 rows live in
// the galculator and mousepad tests.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/desk/app.js";
import { startDeskOnHelper, type DeskOnHelper } from "./desk-harness.js";
import { missingTools } from "./helper-harness.js";

const missing = missingTools(["Xvfb", "openbox", "dbus-daemon", "speedcrunch"]);
if (missing.length > 0) console.warn(`test/linux/toolkit-matrix.test.ts skipped: ${missing.join(", ")} missing`);

describe.skipIf(missing.length > 0)("toolkit matrix", () => {
  let run: DeskOnHelper;

  beforeAll(async () => {
    run = await startDeskOnHelper();
  });
  afterAll(async () => run?.stop());

  async function bound(query: string): Promise<App> {
    const app = await run.desk.getApp(query);
    run.machine.trackPid(app.pid);
    return app;
  }

  it("Qt 5 (speedcrunch): its tree is read without crashing it, and an expression set in its editor is computed and read back", async () => {
    const calc = await bound("speedcrunch");
    const text = String(await calc.getAXState());
    expect(text).toMatch(/window "SpeedCrunch"/);
    const editor = (await calc.findAll({ role: "text area" })).find((area) => area.settable);
    expect(editor).toBeDefined();
    await calc.setValue(editor!.i, "6*7");
    expect((await calc.find({ role: "text area", value: "6*7" }))?.i).toBe(editor!.i);
    await calc.pressKey("Return");
    const result = await calc.waitFor({ role: "text area", value: "= 42" }, { timeout: 5_000 });
    expect(result?.value).toMatch(/^6\*7\n= 42\b/);
    // Reading again (the app's tree changed under us) leaves the app running.
    expect(String(await calc.getAXState({ disableDiffing: true }))).toMatch(/text area = "6\*7\\n= 42/);
  });
});
