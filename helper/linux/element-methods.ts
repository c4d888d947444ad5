// Elements: hitTest, elementFrame, actionNames, performAction, setValue, focusElement,
// selectText. All go through AT-SPI, so they work with the app in the background (a focus may
// bring the window forward: GTK 3 presents it, see focus-settle.ts).
import type { Atspi } from "./atspi.js";
import { AtspiError } from "./atspi.js";
import { focusSettled } from "./focus-settle.js";
import type { CallContext, HandlerTable } from "./method-types.js";

type ElementMethods = Pick<
  HandlerTable,
  "hitTest" | "elementFrame" | "actionNames" | "performAction" | "setValue" | "focusElement" | "selectText"
>;

const VALUE = "AXValue";
const FOCUSED = "AXFocused";

export const elementMethods: ElementMethods = {
  hitTest: async ({ pid, x, y }, ctx) => {
    const hit = await (await ctx.services.atspi()).hitTest(pid, x, y);
    return hit ? { index: hit.index, role: hit.role, actions: hit.actions, frame: hit.frame } : {};
  },
  elementFrame: async ({ pid, index }, ctx) => ({ frame: await (await elementOf(ctx, pid, index)).elementFrame(index) }),
  actionNames: async ({ pid, index }, ctx) => ({ actions: await (await elementOf(ctx, pid, index)).actionNames(index) }),
  performAction: async ({ pid, index, action }, ctx) => {
    await (await elementOf(ctx, pid, index)).performAction(index, action);
    return {};
  },
  setValue: async ({ pid, index, value, attribute }, ctx) => {
    const atspi = await elementOf(ctx, pid, index);
    const name = attribute ?? VALUE;
    if (name === VALUE) await atspi.setValue(index, value);
    else if (name === FOCUSED && value === true) await focusWithSettle(atspi, pid, index);
    else throw new AtspiError("action_failed", `${name} cannot be set on Linux (only ${VALUE}, and ${FOCUSED} to true)`);
    return {};
  },
  focusElement: async ({ pid, index }, ctx) => {
    await focusWithSettle(await elementOf(ctx, pid, index), pid, index);
    return {};
  },
  selectText: async ({ pid, index, start, length }, ctx) => {
    await (await elementOf(ctx, pid, index)).selectText(index, start, length);
    return {};
  },
};

/** Focuses the element, then waits for what the focus asked of the window manager (focus-settle.ts). */
async function focusWithSettle(atspi: Atspi, pid: number, index: number): Promise<void> {
  await atspi.focus(index);
  await focusSettled(pid);
}

/**
 * The AT-SPI service, once element `index` is known to belong to `pid`: the gate admitted that
 * pid, so an index from another app's tree must not slip through it.
 */
async function elementOf(ctx: CallContext, pid: number, index: number): Promise<Atspi> {
  const atspi = await ctx.services.atspi();
  if (atspi.ownerOf(index) !== pid) throw new AtspiError("stale_index", `element ${index} is not an element of pid ${pid}; read this app's tree`);
  return atspi;
}
