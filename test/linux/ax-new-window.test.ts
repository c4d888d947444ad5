// axTree of a window X11 lists before the app's accessibility tree has it: mousepad opens a
// second window and the tree is read by that window's index at once. The answer must be that
// window's own tree (the helper waits for it) or a coded no_window, never another window's tree
// under the new window's name.
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCESSIBLE_WAIT_MS } from "../../helper/linux/window-methods.js";
import type { RawHelperConnection } from "../fixtures/raw-helper-connection.js";
import { missingTools, startHelperDesktop, waitFor, type HelperDesktop } from "./helper-harness.js";

const missing = missingTools(["Xvfb", "openbox", "dbus-daemon", "mousepad", "xdotool", "xprop", "xmessage"]);
if (missing.length > 0) console.warn(`test/linux/ax-new-window.test.ts skipped: ${missing.join(", ")} missing`);

interface Window {
  index: number;
  title: string;
  frame: [number, number, number, number];
  windowId?: number;
}
interface Tree {
  window: Window;
  nodes: { i: number; role: string; title?: string }[];
}

describe.skipIf(missing.length > 0)("axTree of a window AT-SPI does not know yet (mousepad)", () => {
  let desk: HelperDesktop;
  let conn: RawHelperConnection;
  let pid: number;

  const windows = async (): Promise<Window[]> => (await conn.call("windows", { pid })).result as Window[];

  beforeAll(async () => {
    desk = await startHelperDesktop();
    desk.writeConfig({ approval: "allow-all" });
    const helper = await desk.startHelper();
    conn = await helper.connect();
    const launched = await conn.call("launch", { name: "mousepad", activate: true });
    pid = (launched.result as { pid: number }).pid;
    desk.trackPid(pid);
    await waitFor(async () => (await windows()).length === 1, "mousepad's window");
  }, 60_000);

  afterAll(async () => {
    conn?.close();
    await desk?.stop();
  });

  it("answers each window's own tree while a new window appears, read back to back by index and by default", async () => {
    for (let round = 0; round < 3; round++) {
      const before = await windows();
      expect((await conn.call("activate", { pid })).error).toBeUndefined();
      expect((await conn.call("keys", { pid, chords: [{ key: "n", mods: ["ctrl", "shift"] }] })).error).toBeUndefined();
      // Reads from the key press on, as fast as they go: some land between X11 listing the new
      // window (and focusing it) and the app's accessibility tree having it.
      const seen: string[] = [];
      const deadline = Date.now() + 15_000;
      for (let read = 0; ; read++) {
        const reply = await conn.call("axTree", read % 2 === 0 ? { pid, window: 0 } : { pid });
        if (reply.error) {
          expect(reply.error.code, reply.error.message).toBe("no_window");
          seen.push("no_window");
          continue;
        }
        const tree = reply.result as Tree;
        // The tree's root is the window itself: it must be the window the reply names.
        expect(tree.nodes[0]?.title, `read ${read}: ${JSON.stringify(tree.window)}`).toBe(tree.window.title);
        seen.push(tree.window.title);
        if (!before.some((b) => b.windowId === tree.window.windowId) && read % 2 === 1) break;
        if (Date.now() > deadline) throw new Error(`the new window never read as itself: ${seen.join(", ")}`);
      }
    }
    // Every window still reads as itself, by its index.
    for (const window of await windows()) {
      const tree = (await conn.call("axTree", { pid, window: window.index })).result as Tree;
      expect(tree.nodes[0]?.title).toBe(tree.window.title);
    }
  }, 90_000);

  it("waits, then answers no_window, for a window of the app that never joins its accessible tree", async () => {
    // A window X11 says is mousepad's, right over mousepad's own, that AT-SPI cannot know: an
    // xmessage (no accessibility at all) given mousepad's pid and a mousepad-like title. It stands
    // for the moment a new window is listed and not yet accessible, held open.
    const [own] = await windows();
    const title = "Untitled 99 - Mousepad";
    const stray = desk.spawnApp("xmessage", ["-title", title, "stray"]);
    const tool = (...args: string[]): string => {
      const run = spawnSync(args[0]!, args.slice(1), { env: desk.env, encoding: "utf8", timeout: 10_000 });
      if (run.status !== 0) throw new Error(`${args.join(" ")}: ${run.stderr}`);
      return run.stdout.trim();
    };
    try {
      const id = tool("xdotool", "search", "--sync", "--name", `^${title}$`).split("\n")[0]!;
      tool("xprop", "-id", id, "-f", "_NET_WM_PID", "32c", "-set", "_NET_WM_PID", String(pid));
      const [x, y, width, height] = own!.frame;
      tool("xdotool", "windowsize", "--sync", id, String(width), String(height));
      tool("xdotool", "windowmove", "--sync", id, String(x), String(y));
      const listed = await waitFor(async () => (await windows()).find((w) => w.windowId === Number(id)), "the stray window among mousepad's");
      const started = Date.now();
      const reply = await conn.call("axTree", { pid, window: listed.index });
      expect(reply.error?.code, JSON.stringify(reply.result ?? reply.error).slice(0, 300)).toBe("no_window");
      expect(reply.error?.message).toContain(title);
      expect(Date.now() - started).toBeGreaterThanOrEqual(ACCESSIBLE_WAIT_MS);
      // mousepad's own window still reads as itself.
      const mine = (await windows()).find((w) => w.windowId === own!.windowId)!;
      const tree = (await conn.call("axTree", { pid, window: mine.index })).result as Tree;
      expect(tree.nodes[0]?.title).toBe(own!.title);
    } finally {
      stray.kill("SIGKILL");
    }
  }, 60_000);
});
