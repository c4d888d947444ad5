// Which accessible window is the X11 window a caller means (pickWindow), without a desktop: the
// moment a new window is listed by X11, right over the old one, before the app's accessible
// tree has it.
import { describe, expect, it } from "vitest";
import { AtspiError } from "../../helper/linux/atspi-error.js";
import type { AccessibleRecord } from "../../helper/linux/atspi-records.js";
import { pickWindow } from "../../helper/linux/window-match.js";
import type { Frame } from "../../src/helper/protocol.js";

const PID = 4242;
const FRAME: Frame = [100, 80, 640, 480];

function accessible(name: string, path: string): AccessibleRecord {
  return { ref: { bus: ":1.7", path }, indexInParent: 0, childCount: 1, interfaces: new Set(), name, role: 0, description: "", states: new Set() };
}

const old = accessible("notes.txt - Mousepad", "/w/1");
const fresh = accessible("Untitled 2 - Mousepad", "/w/2");

describe("pickWindow", () => {
  it("never takes another X11 window's accessible for a new window it overlaps: no_window until the new one is accessible", () => {
    const frames = new Map([[old, FRAME]]);
    const wanted = { title: "Untitled 2 - Mousepad", frame: FRAME, alone: false, others: ["notes.txt - Mousepad"] };
    expect(() => pickWindow([old], frames, wanted, PID)).toThrow(AtspiError);
    // Without the other window's title, the overlap alone would pick the old window.
    expect(pickWindow([old], frames, { ...wanted, others: [] }, PID)).toBe(old);
    // Once the app's tree has the new window, it is the one chosen, whatever the overlap.
    expect(pickWindow([old, fresh], new Map([[old, FRAME], [fresh, FRAME]]), wanted, PID)).toBe(fresh);
  });

  it("still matches a window whose accessible name is unlike its X11 title, by frame", () => {
    const dialog = accessible("Save File", "/w/3");
    const frames = new Map<AccessibleRecord, Frame>([[old, FRAME], [dialog, [300, 200, 400, 300]]]);
    const wanted = { title: "Save As", frame: [300, 200, 400, 300] as Frame, alone: false, others: ["notes.txt - Mousepad"] };
    expect(pickWindow([old, dialog], frames, wanted, PID)).toBe(dialog);
  });

  it("lets a window X11 lists alone take a lone accessible window, whatever its name", () => {
    const wanted = { title: "Mousepad", frame: FRAME, alone: true, others: [] };
    expect(pickWindow([old], new Map(), wanted, PID)).toBe(old);
  });
});
