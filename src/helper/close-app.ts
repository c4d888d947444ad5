// Ending an app so that it saves no "crashed" state, through the helper's `quit`: first the
// polite quit (a close request to its windows, which the helper waits on a few seconds), then
// — if the app is still there, for instance asking about unsaved work — the forced one
// (SIGTERM, then SIGKILL, each after a short wait). Used when a session ends and by
// `deskbook desktop stop`.
import type { HelperClient } from "./client.js";

/** Answers how the app ended: "closed" on request, "forced" by signals; refusals and errors are passed on. */
export async function closeApp(client: HelperClient, pid: number, step: string): Promise<"closed" | "forced"> {
  const polite = await client.request("quit", { pid }, { step, timeoutMs: 10_000 }).catch((error: { code?: string }) => {
    // No window to close: go straight to the signals.
    if (error.code === "action_failed") return { exited: false };
    throw error;
  });
  if (polite.exited) return "closed";
  await client.request("quit", { pid, force: true }, { step, timeoutMs: 10_000 });
  return "forced";
}
