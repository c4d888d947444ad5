// The contract's text and input methods, on the editor: type, setValue, selectText, keys, click,
// drag, scroll, background input, and what happens to elements once their window or app is gone.
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { BACKGROUND_FALLBACK_CODES, type AXNode, type Frame, type KeyChord } from "../../src/helper/protocol.js";
import {
  announceSkip,
  centre,
  killApp,
  outcome,
  profile,
  refusedWith,
  sleep,
  useHelper,
  visibleFrame,
  waitFor,
  within,
  type RunningApp,
} from "./harness.js";

const skip = announceSkip("test/contract/editor.test.ts");
const { editor, calculator } = profile;
const ROUTES = ["foreground", "background", "background-accessibility", "background-skylight"];
/** Fractions of pixels that differ: below SAME is one view (a blinking caret is a few pixels), above MOVED another. */
const SAME = 0.002;
const MOVED = 0.01;

/** Short numbered lines, so a marker typed at a click shows which line the click hit. */
const numbered = (count: number, prefix: string): string[] =>
  Array.from({ length: count }, (_, k) => `${prefix}${String(k).padStart(String(count - 1).length, "0")}`);

describe.skipIf(skip)("helper contract: the editor", () => {
  const session = useHelper();
  let edit: RunningApp;
  /** The text element as first read; its index must stay valid for the helper's life. */
  let area: AXNode;

  beforeAll(async () => {
    edit = await session.launch(editor);
    const nodes = await session.treeWhen(edit.pid, (n) => editor.textArea(n) !== undefined, "the editor's text area");
    area = editor.textArea(nodes)!;
  }, 60_000);

  const readTree = async (): Promise<AXNode[]> => (await session.call("axTree", { pid: edit.pid, maxText: 100_000 })).nodes;
  const text = async (): Promise<string> => (await readTree()).find((n) => n.i === area.i)?.value ?? "";
  /** Where the text area shows on screen, read fresh (the window may have moved). */
  const visible = async (): Promise<Frame> => {
    const nodes = await readTree();
    return visibleFrame(nodes, nodes.find((n) => n.i === area.i) ?? area);
  };

  /** Waits until the text passes `test`; the timeout names the last text seen. */
  const textWhen = async (test: (text: string) => boolean, what: string): Promise<string> => {
    let last = "";
    try {
      // Boxed: an empty text is a value too.
      const [found] = await waitFor(async () => {
        last = await text();
        return test(last) && [last];
      }, what);
      return found;
    } catch {
      throw new Error(`the editor's text never became ${what}; last read: ${JSON.stringify(last)}`);
    }
  };
  const textIs = (expected: string): Promise<string> => textWhen((t) => t === expected, JSON.stringify(expected));

  const setText = async (value: string): Promise<void> => {
    expect(await session.call("setValue", { pid: edit.pid, index: area.i, value })).toEqual({});
    await textIs(value);
  };
  /** The foreground route's precondition: the client has brought the app forward. Then the caret goes to the text. */
  const focusEditor = async (): Promise<void> => {
    await session.call("activate", { pid: edit.pid });
    await waitFor(async () => (await session.call("isActive", { pid: edit.pid })).active, "the editor to be active");
    await session.call("focusElement", { pid: edit.pid, index: area.i });
  };
  const keys = async (...chords: KeyChord[]): Promise<void> => {
    expect(await session.call("keys", { pid: edit.pid, chords })).toMatchObject({ route: "foreground" });
  };
  const type = async (value: string): Promise<void> => {
    expect(await session.call("type", { pid: edit.pid, text: value })).toMatchObject({ route: "foreground" });
  };
  const click = async (x: number, y: number): Promise<void> => {
    expect(await session.call("click", { pid: edit.pid, x, y })).toMatchObject({ route: "foreground" });
  };
  /** The editor's window, 1:1, as raw RGB. */
  const shot = async (): Promise<Raw> => {
    const [, , width, height] = edit.window.frame;
    const { data } = await session.call("screenshot", { pid: edit.pid, windowId: edit.window.windowId!, width, height });
    return rawPixels(Buffer.from(data, "base64"));
  };
  /** Lines of the text once a typed marker shows up in it. */
  const linesWith = async (marker: string): Promise<string[]> => (await textWhen((t) => t.includes(marker), `to hold "${marker}"`)).split("\n");

  it("types text, Unicode included, into the focused editor", async () => {
    await setText("");
    await focusEditor();
    const typed = "Grüße, ħ ✓ — 😀 ok\nzweite Zeile\tTab";
    await type(typed);
    expect(await textIs(typed)).toBe(typed);
  });

  it("writes text with setValue and reads it back from the tree", async () => {
    const value = "alpha\nbeta ✓\n\ngamma 😀";
    await setText(value);
    expect(await text()).toBe(value);
  });

  it("cuts long values to maxText, ending in …", async () => {
    await setText("x".repeat(500));
    const { nodes } = await session.call("axTree", { pid: edit.pid, maxText: 20 });
    expect(nodes.find((n) => n.i === area.i)?.value).toBe(`${"x".repeat(19)}…`);
  });

  it("selects text by UTF-16 offsets with selectText; typing replaces the selection", async () => {
    // "😀" is two UTF-16 code units but one character: a helper counting characters starts one later, at "orld".
    const value = "a😀b hello world";
    await setText(value);
    await focusEditor();
    expect(await session.call("selectText", { pid: edit.pid, index: area.i, start: value.indexOf("world"), length: 5 })).toEqual({});
    await type("there");
    await textIs("a😀b hello there");
  });

  it("presses chords with keys: select-all, then typing replaces everything", async () => {
    await setText("one two three");
    await focusEditor();
    await keys(editor.selectAll);
    await type("replaced");
    await textIs("replaced");
  });

  it("answers bad_key for a key it cannot map, sending none of the chords", async () => {
    await setText("unchanged");
    await focusEditor();
    const chords = [
      { key: "x", mods: [] },
      { key: "NoSuchKeyName", mods: [] },
    ];
    await expect(session.call("keys", { pid: edit.pid, chords })).rejects.toMatchObject({ code: "bad_key" });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await text()).toBe("unchanged");
  });

  it("places the caret with a click: a line's start at its left edge, its end far right, lower lines lower", async () => {
    const lines = numbered(40, "l");
    await setText(lines.join("\n"));
    await focusEditor();
    await keys(editor.documentStart);
    const [x, y, width, height] = await visible();
    const upper = y + height * 0.15;
    const lower = y + height * 0.6;

    await click(x + 3, upper);
    await type("X");
    let now = await linesWith("X");
    const first = now.findIndex((line) => line.includes("X"));
    expect(now[first], "X typed after a click at a line's left edge").toBe(`X${lines[first]}`);

    await click(x + width * 0.8, upper);
    await type("Z");
    now = await linesWith("Z");
    expect(now[first], "Z typed after a click right of the same line's end").toBe(`X${lines[first]}Z`);

    await click(x + 3, lower);
    await type("Y");
    now = await linesWith("Y");
    const second = now.findIndex((line) => line.includes("Y"));
    expect(now[second], "Y typed after a click at a lower line's left edge").toBe(`Y${lines[second]}`);
    expect(second).toBeGreaterThan(first);
  });

  it("selects with a drag; typing replaces the lines it crossed", async () => {
    const lines = numbered(40, "d");
    await setText(lines.join("\n"));
    await focusEditor();
    await keys(editor.documentStart);
    const [x, y, width, height] = await visible();
    // From a line's start to past another line's end, further down.
    const from: [number, number] = [x + 3, y + height * 0.3];
    const to: [number, number] = [x + width * 0.8, y + height * 0.7];
    const path: [number, number][] = [from, [(from[0] + to[0]) / 2, (from[1] + to[1]) / 2], to];
    expect(await session.call("drag", { pid: edit.pid, path })).toMatchObject({ route: "foreground" });
    await type("Q");
    const now = await linesWith("Q");
    const at = now.indexOf("Q");
    expect(at, `a line that is only "Q" in ${JSON.stringify(now)}`).toBeGreaterThanOrEqual(0);
    const replaced = lines.length - now.length + 1;
    expect(replaced, "lines the drag selected").toBeGreaterThanOrEqual(2);
    expect(now).toEqual([...lines.slice(0, at), "Q", ...lines.slice(at + replaced)]);
  });

  it("scrolls toward the end for positive dy and back for negative dy", async () => {
    // Long lines: plenty of ink, so a moved view changes many pixels.
    await setText(numbered(200, "s").map((line) => `${line} ${"wheel ".repeat(10)}`).join("\n"));
    await focusEditor();
    await keys(editor.documentStart);
    const [cx, cy] = centre(await visible());
    const scroll = async (dy: number): Promise<void> => {
      expect(await session.call("scroll", { pid: edit.pid, x: cx, y: cy, dy })).toMatchObject({ route: "foreground" });
    };
    // Judged from screenshots, not from clicks, so that only scroll is under test.
    const top = await shot();
    await scroll(-5);
    await sleep(300);
    expect(changed(top, await shot()), "scrolling up at the top of the document moved the view").toBeLessThan(SAME);
    await scroll(10);
    await waitFor(async () => changed(top, await shot()) > MOVED, "the view to move down after scrolling dy 10");
    await scroll(-10);
    await waitFor(async () => changed(top, await shot()) < SAME, "the view to come back to the top after scrolling dy -10");
  });

  describe("background input", () => {
    let calc: RunningApp;
    /** The user's app: frontmost while the editor gets input in the background. */
    const userInCalculator = async (): Promise<void> => {
      await session.call("activate", { pid: calc.pid });
      await waitFor(async () => (await session.call("isActive", { pid: calc.pid })).active, "the calculator to be active");
    };
    const background = { mode: "background" as const };

    beforeAll(async () => {
      calc = await session.launch(calculator);
    }, 60_000);

    it("types in the background, or answers background_unavailable or background_unconfirmed", async () => {
      await setText("");
      await session.call("focusElement", { pid: edit.pid, index: area.i });
      await userInCalculator();
      const typed = "typed in the background";
      const { result, error } = await outcome(
        session.call("type", { pid: edit.pid, text: typed, ...background, windowId: edit.window.windowId! }),
      );
      console.info(`background type: ${error ? error.code : JSON.stringify(result)}`);
      if (error) {
        expect(BACKGROUND_FALLBACK_CODES as readonly string[], error.message).toContain(error.code);
        return;
      }
      expect(ROUTES).toContain(result.route);
      await textIs(typed);
      // The background route leaves the user's app in front (or gives it back: focusRestored).
      if (result.route !== "foreground") expect((await session.call("isActive", { pid: calc.pid })).active).toBe(true);
    });

    it("keys, click, scroll and drag in the background: each works or answers a fallback code", async () => {
      const [cx, cy] = centre(await visible());
      const windowId = edit.window.windowId!;
      const calls = {
        keys: () => session.call("keys", { pid: edit.pid, chords: [{ key: "End", mods: [] }], ...background, windowId }),
        click: () => session.call("click", { pid: edit.pid, x: cx, y: cy, ...background, windowId }),
        scroll: () => session.call("scroll", { pid: edit.pid, x: cx, y: cy, dy: 1, ...background, windowId }),
        drag: () => session.call("drag", { pid: edit.pid, path: [[cx - 20, cy], [cx + 20, cy]], ...background, windowId }),
      };
      for (const [method, call] of Object.entries(calls)) {
        await userInCalculator();
        const { result, error } = await outcome(call());
        console.info(`background ${method}: ${error ? error.code : JSON.stringify(result)}`);
        if (error) {
          expect(BACKGROUND_FALLBACK_CODES as readonly string[], `${method}: ${error.message}`).toContain(error.code);
          continue;
        }
        expect(ROUTES, method).toContain(result.route);
        if (result.route !== "foreground") {
          expect((await session.call("isActive", { pid: calc.pid })).active, `${method} left the user's app in front`).toBe(true);
        }
      }
    });

    it("refuses mode without a windowId with bad_request", async () => {
      // HelperClient checks params itself, so this goes over a bare connection.
      const raw = await session.raw();
      const reply = await within(5000, raw.call("type", { pid: edit.pid, text: "x", mode: "background" }), "type");
      expect(reply.error?.code).toBe("bad_request");
      expect(reply.error?.message).toContain("windowId");
    });
  });

  describe("when elements go away", () => {
    const windows = () => session.call("windows", { pid: edit.pid });

    it("answers stale_index for an element of a window that has closed, while the app runs on", async () => {
      await focusEditor();
      const before = await windows();
      await keys(editor.newWindow);
      const grown = await waitFor(async () => {
        const now = await windows();
        return now.length > before.length && now;
      }, "a second editor window");
      const fresh = grown.find((w) => !before.some((b) => b.windowId === w.windowId)) ?? grown[0]!;
      // X11 lists the window before the app's accessible tree has it: until then a read of it
      // can still show the first window's text area, so wait for the new window's own. A
      // window's index is its place front to back, which changes when the window manager
      // raises the new window after listing it, so the index is looked up afresh each time.
      let seen = "nothing read yet";
      const doomed = await waitFor(async () => {
        const now = (await windows()).find((w) => w.windowId === fresh.windowId);
        if (!now) return false;
        const tree = await session.call("axTree", { pid: edit.pid, window: now.index });
        const candidate = editor.textArea(tree.nodes);
        seen = `window ${now.index} (${fresh.index} when listed) read as ${JSON.stringify(tree.window.title)}, text area ${candidate?.i} (the first window's: ${area.i})`;
        return candidate !== undefined && candidate.i !== area.i && candidate;
      }, "the new window's own text area").catch((error: unknown) => {
        throw new Error(`${error instanceof Error ? error.message : String(error)}; last read: ${seen}`);
      });
      expect(doomed.i).not.toBe(area.i);
      expect((await session.call("elementFrame", { pid: edit.pid, index: doomed.i })).frame).toHaveLength(4);

      await keys(editor.closeWindow);
      await waitFor(async () => (await windows()).length === before.length, "the second window to close");
      // The app may tell the accessibility layer a moment after the window is gone.
      await refusedWith(() => session.call("elementFrame", { pid: edit.pid, index: doomed.i }), "stale_index");
      await expect(session.call("setValue", { pid: edit.pid, index: doomed.i, value: "gone" })).rejects.toMatchObject({
        code: "stale_index",
      });
      // The first window's element is untouched.
      expect((await session.call("elementFrame", { pid: edit.pid, index: area.i })).frame).toHaveLength(4);
    });

    it("answers not_running for calls on the app's pid once it is killed (the gate checks the pid before the index)", async () => {
      session.disown(edit.pid);
      await killApp(edit.pid);
      await refusedWith(() => session.call("setValue", { pid: edit.pid, index: area.i, value: "gone" }), "not_running");
      await expect(session.call("axTree", { pid: edit.pid })).rejects.toMatchObject({ code: "not_running" });
    });
  });
});

interface Raw {
  data: Buffer;
  channels: number;
}

async function rawPixels(image: Buffer): Promise<Raw> {
  const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
  return { data, channels: info.channels };
}

/** The fraction of pixels whose colour differs noticeably. */
function changed(a: Raw, b: Raw): number {
  if (a.data.length !== b.data.length) return 1;
  let differing = 0;
  for (let p = 0; p < a.data.length; p += a.channels) {
    for (let c = 0; c < a.channels; c++) {
      if (Math.abs((a.data[p + c] as number) - (b.data[p + c] as number)) > 24) {
        differing++;
        break;
      }
    }
  }
  return differing / (a.data.length / a.channels);
}
