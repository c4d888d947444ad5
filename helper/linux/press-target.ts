// Which element a call would press, and its label, for the confirmation rule (grant.ts): an
// accessibility action names its element, a left click presses what lies under the point, a
// menu call presses its last item. Other calls press nothing by name (keys typed into a focused
// button are not covered; docs/security.md says so).
import type { MethodName } from "../../src/helper/protocol.js";
import type { CallContext } from "./method-types.js";

export interface PressTarget {
  /** Names the pressed thing within the app, so an approval covers exactly that press. */
  key: string;
  label: string;
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
    case "click": {
      if (params.button !== undefined && params.button !== "left") return undefined;
      const hit = await (await ctx.services.atspi()).hitTest(pid, params.x as number, params.y as number);
      if (!hit) return undefined;
      const label = [hit.node.title, hit.node.desc].filter((part): part is string => typeof part === "string" && part !== "").join(" ");
      return { key: `element ${hit.index}`, label };
    }
    case "menu": {
      const path = params.path as string[];
      return { key: `menu ${path.join(" > ")}`, label: path[path.length - 1] ?? "" };
    }
    default:
      return undefined;
  }
}
