// While a call waits on an approval dialog, the cell says so at once: which app, where the
// dialog is, and the other ways to allow it. The helper announces the dialog (an `approval`
// event to this connection only); answering stays with the person and the helper's gate.
import type { HelperClient } from "../helper/client.js";
import type { ApprovalEvent } from "../helper/protocol.js";
import type { Bundle, LiveOutput } from "../desk/desk-context.js";

/** Shows a live line per pending approval on `client`, rewritten when the dialog closes. */
export function watchApprovals(client: HelperClient, live: () => LiveOutput): () => void {
  const lines = new Map<string, LiveOutput>();
  return client.onEvent((event) => {
    if (event.event !== "approval") return;
    if (event.state === "pending") {
      const line = live();
      lines.set(event.app, line);
      line.show(approvalBundle(event));
      return;
    }
    const line = lines.get(event.app);
    lines.delete(event.app);
    line?.show(approvalBundle(event));
  });
}

export function approvalBundle(event: ApprovalEvent): Bundle {
  return { "text/plain": approvalText(event) };
}

/** The line's text; the pending one reads well on its own, where updates are dropped. */
export function approvalText(event: ApprovalEvent): string {
  const allow = `deskbook allow ${event.allow}`;
  if (event.state === "allowed") return `Approval: ${event.app} was allowed; going on.`;
  if (event.state === "denied") return `Approval: ${event.app} was not allowed. To allow it: run \`${allow}\` in a terminal and run the cell again.`;
  const limit = event.timeoutS ? ` (it waits ${event.timeoutS} s)` : "";
  const where =
    event.screen === "virtual"
      ? `The dialog is on Deskbook's virtual desktop${event.display ? ` (${event.display})` : ""}, which only the live view shows: answer it in desk.view() if you have it open, or run \`deskbook desktop view\` in a terminal and open the URL it prints.`
      : `The dialog is on your screen${event.display ? ` (${event.display})` : ""}.`;
  return `Approval needed: Deskbook asks whether it may control ${event.app}${limit}. ${where} Or, in a terminal: \`${allow}\`.`;
}
