// runScript (AppleScript / JXA) exists on macOS only: Linux has no Apple Events, so the call
// is answered with a clear `unsupported` rather than a generic failure.
import { DeskError } from "../../src/helper/desk-error.js";
import type { HandlerTable } from "./method-types.js";

export const scriptMethods: Pick<HandlerTable, "runScript"> = {
  runScript: async ({ language }) => {
    const name = language === "jxa" ? "JavaScript for Automation" : "AppleScript";
    throw new DeskError("unsupported", `${name} runs on macOS only; on Linux drive apps through accessibility (getAXState, click, menu)`);
  },
};
