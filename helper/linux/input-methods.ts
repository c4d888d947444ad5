// Input: keys, type, click, scroll, drag (XTEST, foreground only) and move; inputHandled, the
// proof that the app has handled them (input-barrier.ts).
//
// There is no background route on X11: XSendEvent input is marked synthetic and GTK (and most
// toolkits) drop it, and XTEST input goes to whatever has focus. `mode: "background"` is
// answered with background_unavailable, on which the client activates the app and resends.
// Foreground input must reach the app the gate admitted, so it is refused unless that app
// owns the active window. Each sequence runs with the input floor held (input-floor.ts: one at
// a time, none while an approval dialog is shown), and the active-window check runs under it,
// so nothing can change the focus between the check and the events.
import { DeskError } from "../../src/helper/desk-error.js";
import type { InputOptions, InputResult } from "../../src/helper/protocol.js";
import * as input from "./input.js";
import { inputHandled } from "./input-barrier.js";
import { keysymOf } from "./keysyms.js";
import type { CallContext, HandlerTable } from "./method-types.js";
import { pidOfActiveWindow } from "./windows.js";

type InputMethods = Pick<HandlerTable, "keys" | "keyDown" | "keyUp" | "type" | "click" | "scroll" | "drag" | "move" | "inputHandled">;

export const inputMethods: InputMethods = {
  keys: async (p, ctx) => {
    // Names first, so a bad one is bad_key wherever the focus is, and nothing is sent.
    for (const chord of p.chords) keysymOf(chord.key);
    return inForeground(ctx, p.pid, p, () => input.keys(p.chords, p.holdMs ?? 0));
  },
  keyDown: (p, ctx) => {
    keysymOf(p.key);
    return inForeground(ctx, p.pid, p, () => input.keyDown(p.key));
  },
  // No focus check: a key held down must come up wherever the focus went meanwhile.
  keyUp: async (p, ctx) => {
    keysymOf(p.key);
    refuseBackground(p);
    return ctx.services.floor.holdInput(() => input.keyUp(p.key));
  },
  type: (p, ctx) => inForeground(ctx, p.pid, p, async () => (p.text === "" ? FOREGROUND : input.type(p.text))),
  click: (p, ctx) => {
    const options: input.ClickOptions = { button: p.button ?? "left", count: p.count ?? 1 };
    if (p.mods) options.mods = p.mods;
    return inForeground(ctx, p.pid, p, () => input.click(p.x, p.y, options));
  },
  scroll: (p, ctx) => inForeground(ctx, p.pid, p, () => input.scroll(p.x, p.y, { dy: p.dy ?? 0, dx: p.dx ?? 0 })),
  drag: (p, ctx) => inForeground(ctx, p.pid, p, () => input.drag(p.path, { button: p.button ?? "left" })),
  // Moving the pointer changes no app's state, so it needs no focus check; a hover must still
  // not reach an approval dialog, so it holds the floor.
  move: async ({ x, y }, ctx) => {
    await ctx.services.floor.holdInput(() => input.move(x, y));
    return {};
  },
  // Outside the floor: waiting for the app must not hold up input to other apps.
  inputHandled: ({ pid, timeoutMs }) => inputHandled(pid, timeoutMs),
};

/** The route check, then the floor, then the active-window check and the events under it. */
export async function inForeground(ctx: CallContext, pid: number, options: InputOptions, send: () => Promise<InputResult>): Promise<InputResult> {
  refuseBackground(options);
  return ctx.services.floor.holdInput(async () => {
    await requireActive(pid);
    return send();
  });
}

const FOREGROUND: InputResult = { route: "foreground", focusRestored: false };

function refuseBackground(options: InputOptions): void {
  if (options.mode === "background") {
    throw new DeskError(
      "background_unavailable",
      "the Linux helper has no background input (X11 apps ignore synthetic events); activate the app and send it in the foreground",
    );
  }
}

async function requireActive(pid: number): Promise<void> {
  const active = await pidOfActiveWindow();
  if (active !== pid) {
    const who = active === null ? "no window is active" : `the active window belongs to pid ${active}`;
    throw new DeskError("failed", `pid ${pid} is not the active app (${who}); activate it first`);
  }
}
