// A live line (progress, a pending approval) belongs to the cell that was running when it was
// made. The session's sink tags output with the cell current at the moment it is sent, so a line
// opened late would land in whatever cell runs then: after a stop, the next cell. So the line
// keeps its cell: it opens only while that cell still runs, and its rewrites (the closing
// sentence after a stop included) go to that cell's output.
import { randomUUID } from "node:crypto";
import type { LiveOutput } from "../desk/desk-context.js";
import type { SessionHost } from "./session-host.js";

/** A line in the cell running now; once another cell runs, a line not yet shown never shows. */
export function cellLiveLine(host: Pick<SessionHost, "output" | "runningCell" | "lastCell">): LiveOutput {
  const owner = host.runningCell();
  const cell = host.lastCell();
  const id = randomUUID();
  let state: "new" | "open" | "dropped" = "new";
  return {
    show: (bundle) => {
      if (state === "new" && host.runningCell() !== owner) state = "dropped";
      if (state === "dropped") return;
      host.output.display(bundle, {}, id, state === "open", cell);
      state = "open";
    },
  };
}
