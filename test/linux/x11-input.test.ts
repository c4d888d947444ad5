// XTEST input against a real Xvfb + openbox: mousepad editing a file (saved with ctrl+s and
// read back, so what was typed is checked exactly) and galculator for focus and dragging.
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { click, drag, keys, move, restoreKeymap, scroll, type } from "../../helper/linux/input.js";
import { parseChord } from "../../helper/linux/keysyms.js";
import { captureWindow } from "../../helper/linux/screenshot.js";
import { activate, activeWindowId, windowFrame, windowsOfPid } from "../../helper/linux/windows.js";
import { sharedX11 } from "../../helper/linux/x11-client.js";
import type { Frame, WindowInfo } from "../../src/helper/protocol.js";
import { hasX11Tools, mainWindow, sleep, startTestDesktop, waitFor, type TestDesktop } from "./x-server.js";

describe.skipIf(!hasX11Tools())("X11 input (XTEST)", () => {
  let desktop: TestDesktop;
  let notePath: string;
  let editor: WindowInfo;
  let editorPid: number;
  let calc: WindowInfo;

  beforeAll(async () => {
    desktop = await startTestDesktop();
    notePath = join(desktop.dir, "note.txt");
    writeFileSync(notePath, "");
    const calcApp = desktop.launch("galculator");
    const editorApp = desktop.launch("mousepad", [notePath]);
    editorPid = editorApp.pid ?? 0;
    calc = await mainWindow(calcApp.pid ?? 0);
    editor = await mainWindow(editorPid);
  });

  afterAll(async () => {
    await desktop?.stop();
  });

  beforeEach(async () => {
    await activate(editor.windowId ?? 0);
  });

  /** Replaces the document with `text` and saves it. The "#" makes sure there is a change to save. */
  async function setDocument(text: string): Promise<void> {
    await keys([parseChord("ctrl+a")]);
    await type("#");
    await keys([parseChord("BackSpace")]);
    if (text) await type(text);
    await save(text);
  }

  /**
   * Saves with ctrl+s and reads the file back once mousepad wrote it: the file is newer,
   * the title has dropped its "*" and (when given) the text is `expected`. Typed keys are
   * queued ahead of ctrl+s, so the saved file holds everything typed before.
   */
  async function save(expected?: string): Promise<string> {
    const before = statSync(notePath).mtimeMs;
    await keys([parseChord("ctrl+s")]);
    const saved = await waitFor(async () => {
      if (statSync(notePath).mtimeMs === before) return null;
      const title = (await windowsOfPid(editorPid))[0]?.title ?? "*";
      const text = readFileSync(notePath, "utf8");
      return !title.startsWith("*") && (expected === undefined || text === expected) ? { text } : null;
    }, "mousepad to save the file");
    return saved.text;
  }

  it("types Unicode text, including characters not on the keymap", async () => {
    await setDocument("");
    await type("Hello, wörld ✓");
    await waitFor(async () => (await windowsOfPid(editorPid))[0]?.title.startsWith("*"), "the modified mark");
    expect(await save()).toBe("Hello, wörld ✓");
  });

  it("types newlines, tabs, shifted and Latin-1 characters", async () => {
    await setDocument("");
    const text = "Line 1: A+B=C;\n\tÆ ß € — “quoted” 😀 ~`|\\";
    await type(text);
    expect(await save()).toBe(text);
  });

  it("gives borrowed keycodes back once typing pauses, or on demand", async () => {
    const x = await sharedX11();
    await restoreKeymap(); // earlier tests' borrowings
    const before = await x.keyboardMapping();
    await setDocument("");
    await type("ħĸ");
    expect(await x.keyboardMapping()).not.toEqual(before);
    await sleep(1800);
    expect(await x.keyboardMapping()).toEqual(before);
    await type("ŋ");
    await restoreKeymap();
    expect(await x.keyboardMapping()).toEqual(before);
    expect(await save()).toBe("ħĸŋ");
  });

  it("presses chords: ctrl+a selects everything", async () => {
    await setDocument("first line\nsecond line");
    await keys([parseChord("ctrl+a")]);
    await type("replaced");
    expect(await save()).toBe("replaced");
  });

  it("presses a key on the shifted level without being told to hold shift", async () => {
    await setDocument("");
    await keys([{ key: "A", mods: [] }, { key: "exclam", mods: [] }, { key: "a", mods: [] }]);
    expect(await save()).toBe("A!a");
  });

  it("rejects an unknown key before pressing anything", async () => {
    await expect(keys([{ key: "NoSuchKey", mods: [] }])).rejects.toMatchObject({ code: "bad_key" });
  });

  it("double-clicks a word to select it (click count 2)", async () => {
    const box = await textBox("abcdefghijklmnopqrstuvwxyz tail");
    // The long first word spans the first 26 of 31 characters.
    await click(box[0] + box[2] * 0.4, box[1] + box[3] / 2, { count: 2 });
    await type("W");
    expect(await save()).toBe("W tail");
  });

  it("shift-clicks to extend a selection (click with mods)", async () => {
    const box = await textBox("0123456789ABCDEFGHIJ");
    await keys([parseChord("ctrl+End")]);
    await click(box[0] + 1, box[1] + box[3] / 2, { mods: ["shift"] });
    await type("x");
    expect(await save()).toBe("x");
  });

  it("drags to select text", async () => {
    const original = "0123456789ABCDEFGHIJ";
    const box = await textBox(original);
    const y = box[1] + box[3] / 2;
    await drag([
      [box[0] + 1, y],
      [box[0] + box[2] * 0.25, y],
      [box[0] + box[2] * 0.5, y],
    ]);
    await type("-");
    const text = await save();
    // About the first half was selected and replaced; where exactly depends on the glyphs.
    expect(text.startsWith("-")).toBe(true);
    const rest = text.slice(1);
    expect(original.endsWith(rest)).toBe(true);
    expect(rest.length).toBeGreaterThan(5);
    expect(rest.length).toBeLessThan(15);
  });

  it("drags a window by its title bar", async () => {
    const id = calc.windowId ?? 0;
    await activate(id);
    const [x, y, w] = await windowFrame(id);
    const grab: [number, number] = [x + w / 2, y - 8]; // openbox's title bar is above the client area
    await drag([grab, [grab[0] - 60, grab[1] + 30], [grab[0] - 120, grab[1] + 70]]);
    // openbox follows the pointer's motion events one by one; on a loaded machine the first
    // frame that differs can be a step on the way, so wait until the window stays put.
    let last: number[] = [x, y];
    const moved = await waitFor(async () => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      const f = await windowFrame(id);
      const settled = f[0] !== x && f[0] === last[0] && f[1] === last[1];
      last = f;
      return settled ? f : null;
    }, "the window to move and stop");
    expect(moved.slice(0, 2)).toEqual([x - 120, y + 70]);
  });

  it("clicks into another app, which takes the focus", async () => {
    const [x, y, w, h] = await windowFrame(calc.windowId ?? 0);
    await click(x + w / 2, y + h - 10);
    await waitFor(async () => (await activeWindowId()) === calc.windowId, "galculator to be active");
  });

  it("scrolls with the wheel: up moves the view, down brings it back", async () => {
    const lines = Array.from({ length: 80 }, (_, i) => `line ${i + 1}`).join("\n");
    await setDocument(lines);
    const frame = await windowFrame(editor.windowId ?? 0);
    const centre: [number, number] = [frame[0] + frame[2] / 2, frame[1] + frame[3] / 2];
    const atEnd = await stablePixels(frame);
    await scroll(...centre, { dy: -5 });
    const scrolledUp = await stablePixels(frame);
    expect(scrolledUp.equals(atEnd)).toBe(false);
    await scroll(...centre, { dy: 5 });
    const back = await stablePixels(frame);
    if (!back.equals(atEnd)) await savePng(back, frame, "scroll-back"), await savePng(atEnd, frame, "scroll-end");
    expect(back.equals(atEnd)).toBe(true);
  });

  it("moves the pointer to global screen coordinates", async () => {
    await move(123, 456);
    const x = await sharedX11();
    expect(await x.pointer()).toMatchObject({ x: 123, y: 456 });
  });

  it("runs input calls one at a time even when issued together", async () => {
    await setDocument("");
    await Promise.all([type("one "), type("two "), type("three")]);
    expect(await save()).toBe("one two three");
  });

  /** Writes `text` as the whole document and finds where it is drawn (by screenshot difference). */
  async function textBox(text: string): Promise<Frame> {
    await setDocument("");
    const frame = await windowFrame(editor.windowId ?? 0);
    const empty = await stablePixels(frame);
    await type(text);
    await save(text);
    const after = await stablePixels(frame);
    const box = differenceBox(empty, after, frame[2]);
    expect(box, "the typed text should change the screenshot").not.toBeNull();
    const [x, y, w, h] = box ?? [0, 0, 0, 0];
    return [frame[0] + x, frame[1] + y, w, h];
  }
});

/** Raw RGB pixels of a screen area at 1:1. */
async function pixels(frame: Frame): Promise<Buffer> {
  const shot = await captureWindow(frame, frame[2], frame[3], "png");
  return sharp(shot.data).raw().toBuffer();
}

/** Pixels once two captures 100 ms apart agree (redraws after input take a frame or two). */
async function stablePixels(frame: Frame): Promise<Buffer> {
  let last = await pixels(frame);
  return waitFor(async () => {
    await sleep(100);
    const now = await pixels(frame);
    const stable = now.equals(last);
    last = now;
    return stable ? now : null;
  }, "the screen to settle");
}

async function savePng(rgb: Buffer, frame: Frame, name: string): Promise<void> {
  const path = join(process.env.DESKBOOK_TEST_ARTIFACTS ?? "/tmp", `x11-input-${name}.png`);
  await sharp(rgb, { raw: { width: frame[2], height: frame[3], channels: 3 } }).png().toFile(path);
}

/** Bounding box [x, y, w, h] of the pixels that differ between two RGB images of width `width`. */
function differenceBox(a: Buffer, b: Buffer, width: number): Frame | null {
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -1, -1];
  for (let i = 0; i < a.length; i += 3) {
    if (a[i] === b[i] && a[i + 1] === b[i + 1] && a[i + 2] === b[i + 2]) continue;
    const p = i / 3;
    const [x, y] = [p % width, Math.floor(p / width)];
    [minX, minY, maxX, maxY] = [Math.min(minX, x), Math.min(minY, y), Math.max(maxX, x), Math.max(maxY, y)];
  }
  return maxX < 0 ? null : [minX, minY, maxX - minX + 1, maxY - minY + 1];
}
