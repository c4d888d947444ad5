// Input: keys, type, click, scroll, drag (XTEST, foreground only) and move.
//
// There is no background route on X11: XSendEvent input is marked synthetic and GTK (and most
// toolkits) drop it, and XTEST input goes to whatever has focus. `mode: "background"` is
// answered with background_unavailable, on which the client activates the app and resends.
// Foreground input must reach the app the gate admitted, so it is refused unless that app
// owns the active window.
import { DeskError } from "../../src/helper/desk-error.js";
import type { InputOptions, InputResult } from "../../src/helper/protocol.js";
import * as input from "./input.js";
import { keysymOf } from "./keysyms.js";
import type { HandlerTable } from "./method-types.js";
import { pidOfActiveWindow } from "./windows.js";

type InputMethods = Pick<HandlerTable, "keys" | "type" | "click" | "scroll" | "drag" | "move">;

export const inputMethods: InputMethods = {
  keys: async (p) => {
    // Names first, so a bad one is bad_key wherever the focus is, and nothing is sent.
    for (const chord of p.chords) keysymOf(chord.key);
    await foreground(p.pid, p);
    return input.keys(p.chords);
  },
  type: async (p) => {
    await foreground(p.pid, p);
    return p.text === "" ? FOREGROUND : input.type(p.text);
  },
  click: async (p) => {
    await foreground(p.pid, p);
    const options: input.ClickOptions = { button: p.button ?? "left", count: p.count ?? 1 };
    if (p.mods) options.mods = p.mods;
    return input.click(p.x, p.y, options);
  },
  scroll: async (p) => {
    await foreground(p.pid, p);
    return input.scroll(p.x, p.y, { dy: p.dy ?? 0, dx: p.dx ?? 0 });
  },
  drag: async (p) => {
    await foreground(p.pid, p);
    return input.drag(p.path, { button: p.button ?? "left" });
  },
  // Moving the pointer changes no app's state, so it needs no focus check.
  move: async ({ x, y }) => {
    await input.move(x, y);
    return {};
  },
};

const FOREGROUND: InputResult = { route: "foreground", focusRestored: false };

async function foreground(pid: number, options: InputOptions): Promise<void> {
  if (options.mode === "background") {
    throw new DeskError(
      "background_unavailable",
      "the Linux helper has no background input (X11 apps ignore synthetic events); activate the app and send it in the foreground",
    );
  }
  const active = await pidOfActiveWindow();
  if (active !== pid) {
    const who = active === null ? "no window is active" : `the active window belongs to pid ${active}`;
    throw new DeskError("failed", `pid ${pid} is not the active app (${who}); activate it first`);
  }
}
