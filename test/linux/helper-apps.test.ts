// The real Linux helper driving galculator and mousepad: every method once, through
// HelperClient (which rejects any reply the protocol schema does not accept), and the
// actions.log it writes. The full per-method contract lives in test/contract/.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markPixels } from "../../src/image/mark-pixels.js";
import { HelperClient } from "../../src/helper/client.js";
import type { AppInfo, AXNode, AXTreeResult, ImageMark, ScreenshotResult } from "../../src/helper/protocol.js";
import { missingTools, sleep, startHelperDesktop, waitFor, type HelperDesktop, type RunningHelper } from "./helper-harness.js";

const missing = missingTools();
if (missing.length > 0) console.warn(`test/linux/helper-apps.test.ts skipped: ${missing.join(", ")} missing`);

describe.skipIf(missing.length > 0)("Linux helper: apps, elements, input", () => {
  let desk: HelperDesktop;
  let helper: RunningHelper;
  let client: HelperClient;
  let calc: AppInfo & { pid: number };
  let editor: AppInfo & { pid: number };

  beforeAll(async () => {
    desk = await startHelperDesktop();
    desk.writeConfig({ approval: "allow-all" });
    helper = await desk.startHelper();
    client = await HelperClient.connect({ socketPath: helper.socket, clientName: "apps-test", requestTimeoutMs: 30_000 });
  });

  afterAll(async () => {
    await client?.close();
    await desk?.stop();
  });

  const tree = (pid: number): Promise<AXTreeResult> => client.request("axTree", { pid });
  const titled = (t: AXTreeResult, title: string): AXNode => {
    const node = t.nodes.find((n) => n.title === title);
    if (!node) throw new Error(`no node titled ${title}`);
    return node;
  };
  const centre = (node: AXNode): [number, number] => {
    const [x, y, w, h] = node.frame ?? [0, 0, 0, 0];
    return [x + w / 2, y + h / 2];
  };

  it("lists installed apps with desktop ids, and resolves by name, id and path", async () => {
    const apps = await client.request("listApps", {});
    expect(apps).toContainEqual(expect.objectContaining({ name: "Galculator", bundleId: "galculator", running: false }));
    expect(await client.request("resolveApp", { query: "GALCULATOR" })).toMatchObject({ bundleId: "galculator", running: false });
    expect(await client.request("resolveApp", { query: "org.xfce.mousepad" })).toMatchObject({ name: "Mousepad" });
    expect(await client.request("resolveApp", { query: "/usr/bin/galculator" })).toMatchObject({ bundleId: "galculator" });
    await expect(client.request("resolveApp", { query: "no-such-app" })).rejects.toMatchObject({ code: "not_found" });
  });

  it("launches galculator by name and answers once its window and tree are there", async () => {
    const info = await client.request("launch", { name: "galculator" }, { step: "open the calculator" });
    expect(info).toMatchObject({ name: "Galculator", bundleId: "galculator", running: true });
    calc = info as AppInfo & { pid: number };
    desk.trackPid(calc.pid);
    expect(titled(await tree(calc.pid), "7").role).toBe("AXButton");
    expect(await client.request("resolveApp", { query: "galculator" })).toMatchObject({ pid: calc.pid, running: true });
    expect(await client.request("resolveApp", { query: `pid:${calc.pid}` })).toMatchObject({ bundleId: "galculator" });
    // Already running: the same process, no second one.
    expect((await client.request("launch", { bundleId: "galculator" })).pid).toBe(calc.pid);
  });

  it("lists windows with X11 ids and reads the tree of one by index", async () => {
    const windows = await client.request("windows", { pid: calc.pid });
    expect(windows[0]).toMatchObject({ index: 0, title: "galculator", main: true, scale: 1, windowId: expect.any(Number) });
    const t = await client.request("axTree", { pid: calc.pid, window: 0, maxNodes: 10 });
    expect(t.window.windowId).toBe(windows[0]!.windowId);
    expect(t.nodes).toHaveLength(10);
    expect(t.truncated).toBe(true);
    await expect(client.request("axTree", { pid: calc.pid, window: 5 })).rejects.toMatchObject({ code: "no_window" });
  });

  it("answers element methods by index, and keeps them to the app that owns the index", async () => {
    const t = await tree(calc.pid);
    const seven = titled(t, "7");
    const [x, y] = centre(seven);
    expect(await client.request("hitTest", { pid: calc.pid, x, y })).toMatchObject({ index: seven.i, role: "AXButton" });
    expect(await client.request("elementFrame", { pid: calc.pid, index: seven.i })).toEqual({ frame: seven.frame });
    expect((await client.request("actionNames", { pid: calc.pid, index: seven.i })).actions).toContain("AXPress");
    for (const key of ["AC", "6", "7"]) await client.request("performAction", { pid: calc.pid, index: titled(t, key).i, action: "AXPress" });
    await expect(client.request("elementFrame", { pid: calc.pid, index: 999_999 })).rejects.toMatchObject({ code: "stale_index" });
  });

  it("sends foreground input to the active app and refuses background input", async () => {
    await client.request("activate", { pid: calc.pid });
    expect(await client.request("isActive", { pid: calc.pid })).toEqual({ active: true });
    const t = await tree(calc.pid);
    const windowId = t.window.windowId!;
    await expect(client.request("click", { pid: calc.pid, x: 1, y: 1, mode: "background", windowId })).rejects.toMatchObject({
      code: "background_unavailable",
    });
    expect(await client.request("keys", { pid: calc.pid, chords: [{ key: "Escape", mods: [] }] })).toEqual({ route: "foreground", focusRestored: false });
    await client.request("performAction", { pid: calc.pid, index: titled(t, "AC").i, action: "AXPress" });
    // Keys the earlier test did not press through accessibility: galculator leaves a toggle
    // button that an AT-SPI press activated "down", and then ignores that button's key.
    await client.request("type", { pid: calc.pid, text: "8*9=" }, { step: "compute 8 × 9" });
    // The app handles the keys after XTEST returns: poll its display.
    const displayOf = async (): Promise<string | undefined> =>
      (await tree(calc.pid)).nodes.find((n) => n.role === "AXTextArea" || n.role === "AXTextField")?.value?.trim();
    await waitFor(async () => (await displayOf()) === "72", "galculator to show 72", 5_000);
    const [x, y] = centre(titled(t, "1"));
    await client.request("click", { pid: calc.pid, x, y });
    await client.request("scroll", { pid: calc.pid, x, y, dy: 1 });
    await client.request("drag", { pid: calc.pid, path: [[x, y], [x + 3, y + 3]] });
    await client.request("move", { pid: calc.pid, x: 5, y: 5 });
    await expect(client.request("keys", { pid: calc.pid, chords: [{ key: "NoSuchKey", mods: [] }] })).rejects.toMatchObject({ code: "bad_key" });
  });

  it("captures a window at exactly the size asked for, and only the app's own windows", async () => {
    const windowId = (await client.request("windows", { pid: calc.pid }))[0]!.windowId!;
    const shot = await client.request("screenshot", { pid: calc.pid, windowId, width: 120, height: 90 });
    expect(shot).toMatchObject({ width: 120, height: 90, mimeType: "image/png" });
    const png = Buffer.from(shot.data, "base64");
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([120, 90]);
    const jpeg = await client.request("screenshot", { pid: calc.pid, windowId, width: 60, height: 40, format: "jpeg", quality: 50 });
    expect(jpeg.mimeType).toBe("image/jpeg");
    await expect(client.request("screenshot", { pid: calc.pid, windowId: 1, width: 10, height: 10 })).rejects.toMatchObject({ code: "no_window" });
    expect(await client.request("makeKey", { pid: calc.pid, windowId })).toEqual({ keyed: true });
    expect(await client.request("cursor", { enabled: true })).toEqual({ enabled: false });
  });

  /** A capture of a window that has stopped changing: the marked capture is compared with a
   *  plain one taken before it, and GTK fades a button's hover out over a few hundred ms after the
   *  pointer leaves it (the input test before this one leaves "1" fading). */
  const stillCapture = async (windowId: number, width: number, height: number): Promise<ScreenshotResult> => {
    const shoot = (): Promise<ScreenshotResult> => client.request("screenshot", { pid: calc.pid, windowId, width, height });
    let last = await shoot();
    await waitFor(async () => {
      await sleep(100); // longer than a frame: two captures this far apart match only if nothing moves
      const next = await shoot();
      const still = next.data === last.data;
      last = next;
      return still;
    }, "the window to stop changing", 5_000);
    return last;
  };

  it("paints set-of-marks into its capture before its one encode, pixel for pixel what a client paints on a plain capture", async () => {
    expect((await client.request("ping", {})).marks).toBe(true);
    const windowId = (await client.request("windows", { pid: calc.pid }))[0]!.windowId!;
    const frame = (await tree(calc.pid)).window.frame;
    const decode = async (data: string): Promise<Buffer> => sharp(Buffer.from(data, "base64")).raw().toBuffer();
    // At the window's own size (the shared segment's path) and scaled down (the resize path);
    // boxes at the edges, off the image, and one bearing text, whose label reads the ink.
    for (const [width, height] of [[frame[2], frame[3]], [Math.round(frame[2] * 0.75), Math.round(frame[3] * 0.75)]] as const) {
      const marks: ImageMark[] = [
        { index: 7, frame: [0, 0, width, height] },
        { index: 12, frame: [10, 40, 60, 30], text: true },
        { index: 345, frame: [width - 50, height - 20, 80, 40] },
        { index: 9, frame: [-200, -200, 50, 50] },
      ];
      const plain = await stillCapture(windowId, width, height);
      const marked = await client.request("screenshot", { pid: calc.pid, windowId, width, height, marks });
      const after = await client.request("screenshot", { pid: calc.pid, windowId, width, height });
      expect(after.data === plain.data, "the window changed while it was captured").toBe(true);
      expect(marked).toMatchObject({ width, height, mimeType: "image/png" });
      const expected = await decode(plain.data);
      markPixels({ data: expected, width, height, channels: 3 }, marks);
      const got = await decode(marked.data);
      expect(got.equals(expected), `${width}×${height}`).toBe(true);
      expect(got.equals(await decode(plain.data))).toBe(false);
    }
    const jpeg = await client.request("screenshot", { pid: calc.pid, windowId, width: 60, height: 40, format: "jpeg", marks: [{ index: 1, frame: [5, 5, 30, 20] }] });
    expect(jpeg.mimeType).toBe("image/jpeg");
  });

  it("launches mousepad, writes, focuses and selects text in it", async () => {
    const info = await client.request("launch", { name: "mousepad", activate: true });
    editor = info as AppInfo & { pid: number };
    desk.trackPid(editor.pid);
    expect(info).toMatchObject({ bundleId: "org.xfce.mousepad", running: true, active: true });
    const text = (await tree(editor.pid)).nodes.find((n) => n.role === "AXTextArea");
    if (!text) throw new Error("mousepad has no text area");
    await client.request("setValue", { pid: editor.pid, index: text.i, value: "secret words" });
    await client.request("focusElement", { pid: editor.pid, index: text.i });
    await client.request("selectText", { pid: editor.pid, index: text.i, start: 0, length: 6 });
    expect((await tree(editor.pid)).nodes.find((n) => n.i === text.i)?.value).toBe("secret words");
    // An index of mousepad's tree is no element of galculator's.
    await expect(client.request("elementFrame", { pid: calc.pid, index: text.i })).rejects.toMatchObject({ code: "stale_index" });
    // Galculator is no longer in front: foreground input for it is refused, not sent to mousepad.
    await expect(client.request("type", { pid: calc.pid, text: "x" })).rejects.toMatchObject({ code: "failed" });
    await client.request("forget", { pid: editor.pid });
    await expect(client.request("elementFrame", { pid: editor.pid, index: text.i })).rejects.toMatchObject({ code: "stale_index" });
  });

  it("reports running apps and the active one in listApps", async () => {
    const apps = await client.request("listApps", {});
    expect(apps).toContainEqual(expect.objectContaining({ pid: editor.pid, running: true, active: true }));
    expect(apps).toContainEqual(expect.objectContaining({ pid: calc.pid, running: true, active: false }));
    expect(apps.filter((a) => a.bundleId === "galculator")).toHaveLength(1);
  });

  it("logged every action, with the step, and typed text only as its length", () => {
    const path = join(desk.home, "actions.log");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const lines = readFileSync(path, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    const actions = lines.map((l) => l.action);
    for (const method of ["launch", "activate", "performAction", "setValue", "focusElement", "selectText", "keys", "type", "click", "scroll", "drag", "move", "makeKey"]) {
      expect(actions).toContain(method);
    }
    expect(actions).not.toContain("axTree");
    expect(actions).not.toContain("screenshot");
    expect(lines[0]).toMatchObject({ client: "apps-test", step: "open the calculator", app: "Galculator", pid: calc.pid, action: "launch", name: "galculator" });
    const typed = lines.find((l) => l.action === "type" && l.step === "compute 8 × 9");
    expect(typed).toMatchObject({ app: "Galculator", pid: calc.pid, length: 4, route: "foreground" });
    expect(typed).not.toHaveProperty("text");
    const written = lines.find((l) => l.action === "setValue");
    expect(written).toMatchObject({ app: "Mousepad", length: 12 });
    expect(JSON.stringify(lines)).not.toContain("secret words");
    expect(lines.find((l) => l.action === "performAction")).toMatchObject({ axAction: "AXPress" });
  });
});
