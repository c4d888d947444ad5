// GTK 3 reads ask less than a walk does: no GetExtents for objects without SHOWING, and action
// names kept between reads (by object and states, dropped by the app's events). After each real
// change (text typed so Undo turns sensitive, a calculation), the tree
// a long-lived connection serves must equal one read object by object on a fresh connection
// (cache off: every frame and every action name asked). A frame or action the reuse got wrong
// shows up as a node that differs.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDesktop, stopDesktop, type DesktopEnv } from "../../src/desktop/virtual-desktop.js";
import type { AXNode } from "../../src/helper/protocol.js";
import { Atspi, type TreeOptions } from "../../helper/linux/atspi.js";
import { SETTLE_MS } from "../../helper/linux/record-mirror.js";
import { missingTools, sleep } from "./helper-harness.js";

const missing = missingTools(["Xvfb", "galculator", "mousepad"]);
if (missing.length > 0) console.warn(`test/linux/gtk-read-reuse.test.ts skipped: ${missing.join(", ")} not installed`);

const ALL: TreeOptions = { menus: true, includeHidden: true };

/**
 * The nodes without their index (each connection numbers its own), sorted: a walk takes
 * GetChildren's order and the cache its index in parent, which differ in galculator's Edit menu.
 */
function shape(nodes: readonly AXNode[]): string[] {
  return nodes.map(({ i: _i, ...rest }) => JSON.stringify(rest)).sort();
}

describe.skipIf(missing.length > 0)("GTK 3 reads with reuse against fresh walks (galculator, mousepad)", () => {
  let home: string;
  let env: DesktopEnv;
  let served: Atspi;
  const apps = new Map<string, ChildProcess>();
  const pidOf = (name: string): number => apps.get(name)?.pid ?? -1;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "deskbook-gtk-reuse-test-"));
    env = await ensureDesktop({ home });
    served = await Atspi.connect({ a11yBusAddress: env.AT_SPI_BUS_ADDRESS, sessionBusAddress: env.DBUS_SESSION_BUS_ADDRESS });
    for (const name of ["galculator", "mousepad"]) apps.set(name, launch(name, env, home));
    await Promise.all([until(() => treeHas(pidOf("galculator"), "7")), until(() => treeHas(pidOf("mousepad"), "File"))]);
    // From now on the served connection keeps action names: it has followed the events a while.
    await sleep(SETTLE_MS + 200);
    await served.tree(pidOf("galculator"), ALL);
    await served.tree(pidOf("mousepad"), ALL);
  }, 60_000);

  afterAll(async () => {
    for (const app of apps.values()) app.kill("SIGKILL");
    served?.close();
    if (home) {
      await stopDesktop({ home });
      await rm(home, { recursive: true, force: true });
    }
  });

  async function treeHas(pid: number, title: string): Promise<boolean> {
    const tree = await served.tree(pid, { menus: true }).catch(() => undefined);
    return tree?.nodes.some((n) => n.title === title) ?? false;
  }

  /** The served read equals a fresh walk, once the app has settled (two walks agree). */
  async function expectFresh(pid: number, options: TreeOptions = ALL): Promise<AXNode[]> {
    let walked: string[] | undefined;
    for (let attempt = 0; attempt < 20; attempt++) {
      const fresh = await Atspi.connect({ a11yBusAddress: env.AT_SPI_BUS_ADDRESS, cache: false });
      try {
        const now = shape((await fresh.tree(pid, options)).nodes);
        if (walked && JSON.stringify(walked) === JSON.stringify(now)) break;
        walked = now;
      } finally {
        fresh.close();
      }
      await sleep(150);
    }
    const tree = await served.tree(pid, options);
    expect(shape(tree.nodes)).toEqual(walked);
    return tree.nodes;
  }

  it("reads galculator and mousepad, hidden objects and menus included, as a walk does", async () => {
    const calc = await expectFresh(pidOf("galculator"));
    expect(calc.some((n) => !n.frame)).toBe(true); // hidden objects, asked for no frame
    const editor = await expectFresh(pidOf("mousepad"));
    expect(editor.filter((n) => n.role === "AXMenuItem").length).toBeGreaterThan(50);
    await expectFresh(pidOf("mousepad"), {});
  });

  it("shows Undo turning sensitive once text is typed", async () => {
    const pid = pidOf("mousepad");
    const undo = (nodes: readonly AXNode[]): AXNode | undefined => nodes.find((n) => n.role === "AXMenuItem" && n.title === "Undo");
    expect(undo(await expectFresh(pid))?.disabled).toBe(true);
    const tree = await served.tree(pid);
    const editor = tree.nodes.find((n) => n.role === "AXTextArea" && n.settable);
    if (!editor) throw new Error("no editable text area in mousepad");
    await served.focus(editor.i);
    await served.setValue(editor.i, "typed text");
    await until(async () => undo((await served.tree(pid, ALL)).nodes)?.disabled !== true);
    expect(undo(await expectFresh(pid))?.disabled).toBeUndefined();
  });

  it("shows galculator's display and buttons after a calculation", async () => {
    const pid = pidOf("galculator");
    const tree = await served.tree(pid);
    const press = async (title: string): Promise<void> => {
      const node = tree.nodes.find((n) => n.role === "AXButton" && n.title === title);
      if (!node) throw new Error(`no button ${title}`);
      await served.performAction(node.i, "AXPress");
    };
    for (const title of ["AC", "6", "+", "7", "="]) await press(title);
    const after = await expectFresh(pid);
    expect(after.some((n) => (n.value ?? n.title ?? "").trim() === "13")).toBe(true);
  });
});

function launch(command: string, env: DesktopEnv, home: string): ChildProcess {
  return spawn(command, [], {
    stdio: "ignore",
    env: { ...process.env, ...env, NO_AT_BRIDGE: "0", XDG_CONFIG_HOME: join(home, "config"), GSETTINGS_BACKEND: "memory" },
  });
}

async function until(probe: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`not so after ${timeoutMs} ms`);
    await sleep(100);
  }
}
