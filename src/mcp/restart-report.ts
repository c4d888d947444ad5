// What attach mode tells the agent when the kernel it shares was restarted, or its websocket
// went quiet, around a call: plainly, with what is known about the call, and never by running
// the call's code again (it may have run once already).
import type { CellInHistory } from "./kernel-probe.js";

/** What is known about a call whose reply did not come. */
export interface LostCall {
  /** What showed that something was wrong. */
  sign: string;
  /** The kernel had begun the call: its busy status or execute_input for it came. */
  started: boolean;
  /** What the kernel answering now has in its history for the call's code. */
  inHistory: CellInHistory;
}

/** The restart was noticed before the call's code was sent: it was not run. */
export function restartedBeforeCall(sign: string): string {
  return `kernel_restarted: someone restarted the kernel since your last call (${sign}). ${GONE} This call's code was not run: check what the apps show, then send it again, binding what it needs.`;
}

/** The call ran, in a kernel restarted before it reached it (its reply came from the new process). */
export function restartedBeforeItRan(sign: string): string {
  return `kernel_restarted: someone restarted the kernel before this call reached it (${sign}), so it ran in the fresh kernel, where nothing from earlier calls was bound. ${GONE} Its result follows.`;
}

/** The kernel was restarted while the call waited for its reply (sent before the restart, or after it on a websocket that lost the reply). */
export function restartedDuringCall(call: LostCall): string {
  const previous = call.started
    ? "The kernel had started running it when the restart came, so it may have acted on the desktop."
    : "No word of it had come back when the restart was noticed.";
  const restarted =
    call.inHistory === "absent"
      ? "The restarted kernel has not run it."
      : call.inHistory === "unknown"
        ? "Whether the restarted kernel ran it is unknown: its history did not come in time."
        : `The restarted kernel did run it, as In [${call.inHistory.line}], but its reply was lost on the old connection: its outputs are missing here, and what it bound exists now.`;
  return `kernel_restarted: someone restarted the kernel while this call was under way (${call.sign}). ${GONE} ${previous} ${restarted} Deskbook did not run it again; read the app's state before you act.`;
}

/** The websocket went quiet while the call ran, and a new one reached the same kernel process. */
export function lostDuringCall(call: LostCall): string {
  const state =
    call.inHistory === "absent"
      ? "The kernel has no record of it, so it did not run."
      : call.inHistory === "unknown"
        ? "Whether it ran is unknown: the kernel's history did not come in time."
        : `The kernel has it as In [${call.inHistory.line}]: it ran or is still running, and its outputs from then on are lost here.`;
  return `connection_lost: the connection to the kernel stopped answering while this call ran (${call.sign}), and Deskbook opened a new one. The kernel is the same process, so every binding is kept. ${state} Deskbook did not run it again; read the app's state before you act.`;
}

const GONE = "Every binding from earlier calls is gone (const/let/function, bound apps: bind them again with desk.getApp).";
