// The AT-SPI service against real GTK 3 apps (galculator, mousepad) on a virtual desktop of
// its own (a private DESKBOOK_HOME, so a user's desktop is never touched or stopped).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDesktop, stopDesktop, type DesktopEnv } from "../../src/desktop/virtual-desktop.js";
import type { AXNode } from "../../src/helper/protocol.js";
import { Atspi, type TreeResult } from "../../helper/linux/atspi.js";

const missing = ["Xvfb", "galculator", "mousepad"].filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0);
if (missing.length > 0) console.warn(`test/linux/atspi.test.ts skipped: ${missing.join(", ")} not installed`);

describe.skipIf(missing.length > 0)("AT-SPI service (galculator, mousepad)", () => {
  let home: string;
  let env: DesktopEnv;
  let atspi: Atspi;
  const apps = new Map<string, ChildProcess>();

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "deskbook-atspi-test-"));
    env = await ensureDesktop({ home });
    atspi = await Atspi.connect({ a11yBusAddress: env.AT_SPI_BUS_ADDRESS, sessionBusAddress: env.DBUS_SESSION_BUS_ADDRESS });
    apps.set("galculator", launch("galculator", env, home));
    apps.set("mousepad", launch("mousepad", env, home));
    await Promise.all([waitForTree(atspi, pidOf("galculator"), "7"), waitForTree(atspi, pidOf("mousepad"))]);
  });

  afterAll(async () => {
    for (const app of apps.values()) app.kill("SIGKILL");
    atspi?.close();
    if (home) {
      await stopDesktop({ home });
      await rm(home, { recursive: true, force: true });
    }
  });

  const pidOf = (name: string): number => apps.get(name)?.pid ?? -1;

  it("lists both apps with their pids", async () => {
    const listed = await atspi.listApplications();
    expect(listed.find((app) => app.pid === pidOf("galculator"))).toMatchObject({ name: "galculator", path: "/org/a11y/atspi/accessible/root" });
    expect(listed.find((app) => app.pid === pidOf("mousepad"))?.busName).toMatch(/^:/);
  });

  it("reads galculator's tree in bulk, with the digit buttons", async () => {
    const tree = await atspi.tree(pidOf("galculator"));
    expect(tree.source).toBe("cache");
    expect(tree.nodes[0]).toMatchObject({ d: 0, role: "AXWindow", subrole: "AXStandardWindow", title: "galculator" });
    expect(tree.windowAccessible).toMatchObject({ i: tree.nodes[0]?.i, index: 0, title: "galculator" });
    for (const digit of "0123456789") {
      expect(button(tree, digit)).toMatchObject({ role: "AXButton", subrole: "AXToggle" });
      expect(button(tree, digit).frame).toHaveLength(4);
    }
    expect(display(tree).value).toBeDefined();
    console.info(`galculator tree(): ${tree.nodes.length} nodes, median ${await medianTreeMs(atspi, pidOf("galculator"))} ms`);
  });

  it("falls back to a per-object walk that yields the same tree", async () => {
    const walker = await Atspi.connect({ a11yBusAddress: env.AT_SPI_BUS_ADDRESS, cache: false });
    try {
      const viaCache = await atspi.tree(pidOf("galculator"));
      const started = performance.now();
      const viaWalk = await walker.tree(pidOf("galculator"));
      const walkMs = (performance.now() - started).toFixed(1);
      expect(viaWalk.source).toBe("walk");
      const shape = (tree: TreeResult): Array<Omit<AXNode, "i">> => tree.nodes.map(({ i: _i, ...rest }) => rest);
      expect(shape(viaWalk)).toEqual(shape(viaCache));
      console.info(`galculator tree() without the cache: ${walkMs} ms`);
    } finally {
      walker.close();
    }
  });

  it("leaves the menu bar out unless asked, then lists closed menus' items without frames", async () => {
    const plain = await atspi.tree(pidOf("galculator"));
    expect(plain.nodes.some((n) => n.role === "AXMenuBar")).toBe(false);
    const withMenus = await atspi.tree(pidOf("galculator"), { menus: true });
    expect(withMenus.nodes.find((n) => n.role === "AXMenuBar")).toBeDefined();
    expect(withMenus.nodes.find((n) => n.title === "File")).toMatchObject({ role: "AXMenuBarItem" });
    const quit = withMenus.nodes.find((n) => n.title === "Quit");
    expect(quit).toMatchObject({ role: "AXMenuItem" });
    expect(quit?.frame).toBeUndefined();
  });

  it("bounds the tree by maxNodes and maxDepth", async () => {
    const few = await atspi.tree(pidOf("galculator"), { maxNodes: 5 });
    expect(few.nodes).toHaveLength(5);
    expect(few.truncated).toBe(true);
    const shallow = await atspi.tree(pidOf("galculator"), { maxDepth: 2 });
    expect(Math.max(...shallow.nodes.map((n) => n.d))).toBe(2);
    expect(shallow.truncated).toBe(true);
    expect((await atspi.tree(pidOf("galculator"))).truncated).toBe(false);
  });

  it("presses 6 × 7 = by element index and reads 42 from the display", async () => {
    const tree = await atspi.tree(pidOf("galculator"));
    const times = tree.nodes.find((n) => n.title === "×" || n.title === "*");
    expect(times).toBeDefined();
    for (const node of [button(tree, "AC"), button(tree, "6"), times as AXNode, button(tree, "7"), button(tree, "=")]) {
      await atspi.performAction(node.i, "AXPress");
    }
    expect((await atspi.textOf(display(tree).i)).trim()).toBe("42");
    const after = await atspi.tree(pidOf("galculator"));
    expect(display(after).value?.trim()).toBe("42");
  });

  it("keeps indices stable across two reads", async () => {
    const first = await atspi.tree(pidOf("galculator"));
    const second = await atspi.tree(pidOf("galculator"));
    expect(second.nodes.map((n) => n.i)).toEqual(first.nodes.map((n) => n.i));
    expect(button(second, "7").i).toBe(button(first, "7").i);
  });

  it("hit-tests a button's frame centre to that button", async () => {
    const tree = await atspi.tree(pidOf("galculator"));
    for (const digit of ["7", "="]) {
      const [x, y, width, height] = button(tree, digit).frame ?? [0, 0, 0, 0];
      const hit = await atspi.hitTest(pidOf("galculator"), x + width / 2, y + height / 2);
      expect(hit).toMatchObject({ index: button(tree, digit).i, role: "AXButton", actions: ["AXPress"] });
      expect(hit?.frame).toEqual(button(tree, digit).frame);
      expect(hit?.node).toEqual(button(tree, digit));
    }
    expect(await atspi.hitTest(pidOf("galculator"), 1, 1)).toBeNull();
  });

  it("reports coded errors", async () => {
    const tree = await atspi.tree(pidOf("galculator"));
    await expect(atspi.performAction(button(tree, "7").i, "frobnicate")).rejects.toMatchObject({ code: "action_failed" });
    await expect(atspi.setValue(button(tree, "7").i, "1")).rejects.toMatchObject({ code: "action_failed" });
    await expect(atspi.elementFrame(1_000_000)).rejects.toMatchObject({ code: "stale_index" });
    await expect(atspi.tree(pidOf("galculator"), { window: "no such window" })).rejects.toMatchObject({ code: "no_window" });
    await expect(atspi.tree(2 ** 22 + 1)).rejects.toMatchObject({ code: "not_running" });
    expect(await atspi.elementFrame(button(tree, "7").i)).toEqual(button(tree, "7").frame);
  });

  it("sets mousepad's text and reads it back", async () => {
    const editor = await mousepadEditor(atspi, pidOf("mousepad"));
    await atspi.setValue(editor.i, "hello world\nsecond line");
    expect(await atspi.textOf(editor.i)).toBe("hello world\nsecond line");
    const tree = await atspi.tree(pidOf("mousepad"));
    expect(tree.nodes.find((n) => n.i === editor.i)?.value).toBe("hello world\nsecond line");
  });

  it("cuts long text to maxText, ending in …", async () => {
    const editor = await mousepadEditor(atspi, pidOf("mousepad"));
    await atspi.setValue(editor.i, "x".repeat(500));
    const tree = await atspi.tree(pidOf("mousepad"), { maxText: 20 });
    expect(tree.nodes.find((n) => n.i === editor.i)?.value).toBe(`${"x".repeat(19)}…`);
    expect(await atspi.textOf(editor.i)).toHaveLength(500);
  });

  it("selects text in mousepad, in UTF-16 offsets", async () => {
    const editor = await mousepadEditor(atspi, pidOf("mousepad"));
    await atspi.setValue(editor.i, "hello world");
    await atspi.selectText(editor.i, 6, 5);
    expect(await atspi.selection(editor.i)).toEqual({ start: 6, length: 5 });
    await atspi.selectText(editor.i, 2, 0);
    expect(await atspi.selection(editor.i)).toBeNull();
    // "😀" is two UTF-16 units but one AT-SPI character.
    const text = "a😀b world";
    await atspi.setValue(editor.i, text);
    await atspi.selectText(editor.i, text.indexOf("world"), 5);
    expect(await atspi.selection(editor.i)).toEqual({ start: text.indexOf("world"), length: 5 });
  });

  it("forgets an app's elements on request", async () => {
    const before = button(await atspi.tree(pidOf("galculator")), "7");
    atspi.forget(pidOf("galculator"));
    await expect(atspi.elementFrame(before.i)).rejects.toMatchObject({ code: "stale_index" });
    const after = button(await atspi.tree(pidOf("galculator")), "7");
    expect(after.i).not.toBe(before.i);
    expect(await atspi.elementFrame(after.i)).toEqual(before.frame);
  });

  it("answers stale_index once the app is killed", async () => {
    const editor = await mousepadEditor(atspi, pidOf("mousepad"));
    const app = apps.get("mousepad") as ChildProcess;
    const exited = new Promise((resolve) => app.once("exit", resolve));
    app.kill("SIGKILL");
    await exited;
    await expect(atspi.textOf(editor.i)).rejects.toMatchObject({ code: "stale_index" });
    await expect(atspi.performAction(editor.i, "AXPress")).rejects.toMatchObject({ code: "stale_index" });
    apps.delete("mousepad");
  });
});

function launch(command: string, env: DesktopEnv, home: string): ChildProcess {
  return spawn(command, [], {
    stdio: "ignore",
    env: {
      ...process.env,
      ...env,
      // GTK 3 loads its AT-SPI bridge by itself; only NO_AT_BRIDGE=1 would turn it off.
      NO_AT_BRIDGE: "0",
      // Fresh settings: no saved galculator mode, no writes to the user's dconf.
      XDG_CONFIG_HOME: join(home, "config"),
      GSETTINGS_BACKEND: "memory",
    },
  });
}

/** Polls until the app's tree is readable (and holds a node titled `title`, when given). */
async function waitForTree(atspi: Atspi, pid: number, title?: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const tree = await atspi.tree(pid);
      if (!title || tree.nodes.some((n) => n.title === title && n.frame)) return;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`pid ${pid} never showed its tree: ${String(last)}`);
}

function button(tree: TreeResult, title: string): AXNode {
  const found = tree.nodes.find((n) => n.role === "AXButton" && n.title === title);
  if (!found) throw new Error(`no button ${title}`);
  return found;
}

function display(tree: TreeResult): AXNode {
  const found = tree.nodes.find((n) => n.role === "AXTextArea" || n.role === "AXTextField");
  if (!found) throw new Error("no display");
  return found;
}

async function mousepadEditor(atspi: Atspi, pid: number): Promise<AXNode> {
  const tree = await atspi.tree(pid);
  const editor = tree.nodes.find((n) => n.role === "AXTextArea" && n.settable);
  if (!editor) throw new Error("no editable text area in mousepad");
  return editor;
}

async function medianTreeMs(atspi: Atspi, pid: number): Promise<string> {
  const times: number[] = [];
  for (let k = 0; k < 11; k++) {
    const started = performance.now();
    await atspi.tree(pid);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return (times[5] ?? 0).toFixed(1);
}
