// clipboardRead, clipboardWrite and paste. The clipboard is its own grant in config.json
// (`clipboard.read`, off by default: what the user copied elsewhere is theirs; `clipboard.write`,
// on), refused with not_granted. Reads and writes name no app, so they skip the app gate but
// are logged here, with the text's length only unless `log.text`.
import { DeskError } from "../../src/helper/desk-error.js";
import type { InputResult } from "../../src/helper/protocol.js";
import { writeAction } from "./action-log.js";
import { readClipboard, releaseClipboard, writeClipboard } from "./clipboard.js";
import * as input from "./input.js";
import { inForeground } from "./input-methods.js";
import type { CallContext, HandlerTable } from "./method-types.js";
import type { Services } from "./services.js";

/** Long enough for the app to have asked for the selection before the old one comes back. */
const PASTE_SETTLE_MS = 300;

type ClipboardMethods = Pick<HandlerTable, "clipboardRead" | "clipboardWrite" | "paste">;

export const clipboardMethods: ClipboardMethods = {
  clipboardRead: async (_params, ctx) => {
    granted(ctx.services, "read");
    const text = await readClipboard(ctx.services.env);
    logClipboard(ctx, "clipboardRead", text.length);
    return { text };
  },
  clipboardWrite: async ({ text }, ctx) => {
    granted(ctx.services, "write");
    await writeClipboard(text, ctx.services.env);
    logClipboard(ctx, "clipboardWrite", text.length);
    return {};
  },
  paste: async (params, ctx) => {
    granted(ctx.services, "write");
    return inForeground(ctx, params.pid, params, () => pasteText(params.text, ctx.services.env));
  },
};

/** Clipboard, ctrl+v, then the clipboard as it was (its text, or no owner at all). */
async function pasteText(text: string, env: NodeJS.ProcessEnv): Promise<InputResult> {
  const previous = await readClipboard(env);
  await writeClipboard(text, env);
  try {
    const result = await input.keys([{ key: "v", mods: ["ctrl"] }]);
    await new Promise((resolve) => setTimeout(resolve, PASTE_SETTLE_MS));
    return result;
  } finally {
    if (previous === "") releaseClipboard();
    else await writeClipboard(previous, env);
  }
}

function granted(services: Services, what: "read" | "write"): void {
  if (services.config().clipboard[what]) return;
  throw new DeskError("not_granted", `clipboard ${what === "read" ? "reading" : "writing"} is off; set "clipboard": {"${what}": true} in config.json to allow it`);
}

function logClipboard(ctx: CallContext, action: "clipboardRead" | "clipboardWrite", length: number): void {
  try {
    writeAction(ctx.services.home, ctx.services.config().log, { client: ctx.client ?? "", ...(ctx.services.desktop !== undefined && { desktop: ctx.services.desktop }), app: "(clipboard)", action, params: { length } });
  } catch (error) {
    process.stderr.write(`actions.log: ${error instanceof Error ? error.message : String(error)}\n`);
  }
}
