// waitChange: the app's next accessibility event (atspi-events.ts), so a client waiting for
// something to appear reads the tree again when the app changed rather than on a timer.
import type { HandlerTable } from "./method-types.js";

export const changeMethods: Pick<HandlerTable, "waitChange"> = {
  waitChange: async ({ pid, after, timeoutMs }, ctx) => {
    const wait = await (await ctx.services.atspi()).waitChange(pid, after, timeoutMs);
    return { ...wait, watching: true };
  },
};
