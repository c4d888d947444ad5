/**
 * The recipes agents know from other computer-use tools, run as written with only the app
 * names and labels adapted (galculator for Calculator, mousepad for TextEdit): one real
 * kernel that starts its own virtual desktop, each recipe one or two cells, the way an agent
 * pastes them into consecutive calls. The regex-over-the-tree recipes depend on getAXState
 * behaving as its text.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText, startKernel, streams, type RunningKernel } from "../support/kernel-process.js";
import { desktopHome, missingDesktopTools, type DesktopHome } from "../support/desktop-home.js";
import type { JupyterMessage } from "../../src/jupyter/message.js";

const missing = missingDesktopTools();
if (missing.length > 0) console.warn(`test/linux/agent-recipes.test.ts skipped: ${missing.join(", ")} not installed`);

const displayId = (m: JupyterMessage): unknown => (m.content as { transient?: { display_id?: unknown } }).transient?.display_id;

/** The text of every AX read a cell showed: not the progress line of a step that took a while, which is updated. */
const reads = (iopub: JupyterMessage[]): string[] => {
  const updated = new Set(iopub.filter((m) => m.header.msg_type === "update_display_data").map(displayId));
  return iopub
    .filter((m) => m.header.msg_type === "display_data" && !updated.has(displayId(m)))
    .map((m) => (m.content.data as Record<string, string>)["text/plain"] ?? "");
};

describe.skipIf(missing.length > 0)("recipes an agent pastes, on galculator and mousepad", () => {
  let desk: DesktopHome;
  let kernel: RunningKernel;

  async function cell(code: string): Promise<JupyterMessage[]> {
    const { reply, iopub } = await kernel.client.execute(code, { timeoutMs: 60_000 });
    const why = `${JSON.stringify(reply.content)}\n${streams(iopub, "stderr")}\n--- kernel ---\n${kernel.stderr().slice(-3000)}`;
    expect(reply.content.status, why).toBe("ok");
    return iopub;
  }

  beforeAll(async () => {
    desk = await desktopHome({ allow: ["galculator", "mousepad"] });
    kernel = await startKernel({ home: desk.home, cwd: desk.dir, env: desk.env });
  }, 60_000);

  afterAll(async () => {
    await kernel?.stop();
    await desk?.cleanup();
  }, 60_000);

  it("1. Calculator: keys, typing, one read; then a click by the index from the tree", async () => {
    const iopub = await cell(`
      const calc = await desk.getApp("galculator");
      await calc.pressKey("Escape");
      await calc.typeText("6*7=");
      await calc.getAXState();`);
    const [shown] = reads(iopub);
    expect(shown).toMatch(/^app "Galculator"/);
    expect(shown).toMatch(/text area[^\n]*"42"/);
    // Find the index in the tree, as the recipe says, then click it in a later call.
    const index = resultText(await cell(`Number((await calc.getAXState({ emit: false, disableDiffing: true })).match(/^\\s*(\\d+) (?:toggle )?button "7"/m)[1])`));
    expect(Number(index)).toBeGreaterThan(0);
    const after = reads(await cell(`await calc.click(${index}); await calc.getAXState()`));
    // Only what changed: the display now ends in 7.
    expect(after[0]).toMatch(/text area[^\n]*"[^"]*7"/);
  });

  it("2. TextEdit → mousepad: the text area's box from the tree, a pixel click inside it, typing", async () => {
    const iopub = await cell(`
      const te = await desk.getApp("mousepad");
      const tree = await te.getAXState({ frames: true, disableDiffing: true, emit: false });
      const [, x, y] = tree.match(/text area[^\\n]*@(\\d+),(\\d+)/);
      await te.click([Number(x) + 8, Number(y) + 10]);   // inside the text area
      await te.typeText("Hello from glovebox\\n");
      await te.getAXState();`);
    expect(reads(iopub).join("\n")).toContain("Hello from glovebox");
    expect(resultText(await cell(`(await te.find({ role: "text area" })).value`))).toBe("'Hello from glovebox\\n'");
  });

  it("3. a menu item through the AX tree (menus: true)", async () => {
    const iopub = await cell(`
      const app = await desk.getApp("mousepad");
      const find = (tree, role, label) => {
        const m = tree.match(new RegExp(\`^\\\\s*(\\\\d+) \${role} "\${label}"\`, "m"));
        if (!m) throw new Error(\`No \${role} "\${label}" in the tree\`);
        return Number(m[1]);
      };
      const clickMenu = async (app, menu, item) => {
        let tree = await app.getAXState({ menus: true, disableDiffing: true, emit: false });
        await app.click(find(tree, "menu bar item", menu));
        tree = await app.getAXState({ menus: true, disableDiffing: true, emit: false });
        await app.click(find(tree, "menu item", item));
      };
      await clickMenu(app, "Edit", "Select All");
      await app.getAXState();`);
    expect(reads(iopub)).toHaveLength(1);
    // Select All selected the whole text: typing now replaces it.
    await cell(`await app.typeText("replaced")`);
    expect(resultText(await cell(`(await app.find({ role: "text area" })).value`))).toBe("'replaced'");
  });

  it("4. the pixel fallback: a screenshot, a point read off it, a click, typing", async () => {
    const iopub = await cell(`
      const shot = await calc.getScreenshot();
      console.log(shot.width, shot.height);
      const eight = await calc.find({ role: "AXButton", label: "8", exact: true });
      const [fx, fy, fw, fh] = eight.frame;                  // image pixels, as read off the image
      await calc.pressKey("Escape");
      await calc.click([Math.round(fx + fw / 2), Math.round(fy + fh / 2)]);
      await calc.typeText("+1=");
      await calc.getScreenshot();`);
    const [width, height] = streams(iopub).trim().split(" ").map(Number);
    expect(width).toBeGreaterThan(100);
    expect(height).toBeGreaterThan(100);
    expect(iopub.filter((m) => m.header.msg_type === "display_data" && "image/png" in (m.content.data as object))).toHaveLength(2);
    expect(resultText(await cell(`(await calc.find({ role: "text area" })).value.trim()`))).toBe("'9'");
  });

  it("5. a helper defined once and reused in later calls", async () => {
    await cell(`
      const clickLabel = async (app, label) => {
        const tree = await app.getAXState({ emit: false, disableDiffing: true });
        const m = tree.match(new RegExp(\`^\\\\s*(\\\\d+) (?:toggle )?button "\${label}"\`, "m"));
        if (!m) throw new Error(\`No button "\${label}"\`);
        await app.click(Number(m[1]));
      };`);
    const iopub = await cell(`
      await calc.pressKey("Escape");
      for (const label of ["7", "-", "1", "="]) await clickLabel(calc, label);
      await calc.getAXState();`);
    expect(reads(iopub)[0]).toMatch(/text area[^\n]*"6"/);
  });

  it("6. setValue on a settable field, read back", async () => {
    const iopub = await cell(`
      const tree = await app.getAXState({ disableDiffing: true });
      const field = Number(tree.match(/^\\s*(\\d+) text area[^\\n]*settable/m)[1]);
      await app.setValue(field, "Ada Lovelace");
      await app.getAXState();`);
    expect(reads(iopub)[0]).toMatch(/settable/);
    expect(resultText(await cell(`(await app.find({ role: "text area" })).value`))).toBe("'Ada Lovelace'");
  });

  it("7. a Stopped: result is never swallowed by the script's own catch", async () => {
    const { reply } = await kernel.client.execute(`
      deskbook.timeLimitMs = 1500;
      try {
        for (;;) for (const label of ["7", "-", "1", "="]) await clickLabel(calc, label);
      } catch (error) {
        if (error.name === "Stopped") throw error;   // let the result say Stopped:
        console.log(\`click failed: \${error.message}\`);
      }`, { timeoutMs: 30_000 });
    expect(reply.content).toMatchObject({ status: "error", ename: "Stopped", evalue: "Stopped: the cell ran longer than 1500 ms." });
    await cell("deskbook.timeLimitMs = 120000");
    // Start again with a fresh read.
    expect(reads(await cell("await calc.getAXState({ disableDiffing: true })"))[0]).toMatch(/^app "Galculator"/);
  });

  it("8. foreground input for an app that ignores background input", async () => {
    const iopub = await cell(`
      await app.click([120, 80], { foreground: true });
      await app.typeText("hello", { foreground: true });
      app.lastRoute;`);
    expect(resultText(iopub)).toBe("'foreground'");
    // [120, 80] is inside mousepad's text area (below the menu bar and toolbar).
    expect(resultText(await cell(`(await app.find({ role: "text area" })).value.includes("hello")`))).toBe("true");
  });
});
