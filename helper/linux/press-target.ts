// Which element a call would press, and its label, for the confirmation rule (grant.ts): an
// accessibility action names its element, a left click presses what lies under the point, a
// left drag that starts and ends on one element presses it (the button sees a press and a
// release inside it), and a menu call presses the item the menu handler's own match resolves.
// Other calls press nothing by name (keys typed into a focused button are not covered;
// docs/security.md says so).
import type { MethodName } from "../../src/helper/protocol.js";
import type { MenuLeaf } from "./menu-path.js";
import { resolveMenuItem } from "./menu-methods.js";
import type { CallContext } from "./method-types.js";

type Point = [number, number];

export interface PressTarget {
  /** Names the pressed element within the app, so an approval covers exactly that press. */
  key: string;
  /** The element's real label (not the caller's spelling of it). */
  label: string;
  /** For menu: the item resolved, so the handler presses the very item whose label was checked. */
  menuItem?: MenuLeaf;
}

export async function pressTarget(method: MethodName, params: Readonly<Record<string, unknown>>, ctx: CallContext): Promise<PressTarget | undefined> {
  const pid = params.pid as number;
  switch (method) {
    case "performAction": {
      const index = params.index as number;
      const atspi = await ctx.services.atspi();
      // An index of another app fails the method itself (stale_index) before anything is pressed.
      if (atspi.ownerOf(index) !== pid) return undefined;
      return { key: `element ${index}`, label: await atspi.labelOf(index) };
    }
    case "click":
      if (params.button !== undefined && params.button !== "left") return undefined;
      return elementAt(ctx, pid, [params.x as number, params.y as number]);
    case "drag": {
      if (params.button !== undefined && params.button !== "left") return undefined;
      const path = params.path as Point[];
      const [start, end] = [await elementAt(ctx, pid, path[0]!), await elementAt(ctx, pid, path[path.length - 1]!)];
      return start && end && start.key === end.key ? start : undefined;
    }
    case "menu": {
      const item = await resolveMenuItem(params as { pid: number; path: string[]; window?: number }, ctx);
      return { key: `element ${item.node.i}`, label: nodeLabel(item.node), menuItem: item };
    }
    default:
      return undefined;
  }
}

async function elementAt(ctx: CallContext, pid: number, [x, y]: Point): Promise<PressTarget | undefined> {
  const hit = await (await ctx.services.atspi()).hitTest(pid, x, y);
  return hit ? { key: `element ${hit.index}`, label: nodeLabel(hit.node) } : undefined;
}

/** The accessible name and description, joined: an icon button often has only the description. */
function nodeLabel(node: { title?: string | null; desc?: string | null }): string {
  return [node.title, node.desc].filter((part): part is string => typeof part === "string" && part.trim() !== "").map((p) => p.trim()).join(" ");
}
