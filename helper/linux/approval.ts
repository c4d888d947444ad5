// The approval gate: every gated call passes here before it acts. The policy itself is the
// pure decide() (policy.ts); this adds config.json read fresh on every check, the dialog for
// `ask`, the session's answers, and "Always allow" written back to config.json.
// The dialog is shown with the input floor held (input-floor.ts), so no synthetic input from
// another call can land in it.
import { DeskError } from "../../src/helper/desk-error.js";
import { askWithZenity, DIALOG_TIMEOUT_S, type AskFn, type DialogAnswer } from "./approval-dialog.js";
import { dialogPlace, waysOut, type DialogPlace } from "./dialog-place.js";
import { addToAllow } from "../../src/config/config-edit.js";
import { allowEntry, appKey, decide, type PolicyApp } from "./policy.js";
import type { Services } from "./services.js";
import type { Session } from "./session.js";

export { decide } from "./policy.js";

/** How often config.json is read while a dialog is open, for an allow added from a terminal. */
const CONFIG_POLL_MS = 500;

export interface AdmitRequest {
  app: PolicyApp;
  /** For the dialog: how the helper identified the app (pid, executable). */
  detail: string;
}

export class Gate {
  constructor(
    private readonly services: Services,
    private readonly ask: AskFn = (request) => askWithZenity(request, services.env),
  ) {}

  /** Resolves when the call may go ahead; throws DeskError blocked, denied or not_allowed otherwise. */
  async admit(session: Session, request: AdmitRequest): Promise<void> {
    const first = decide(this.services.config(), request.app, session.approvals);
    if (!("ask" in first)) return settle(first);
    await this.dialogOnce(session, request);
    const second = decide(this.services.config(), request.app, session.approvals);
    if ("ask" in second) throw new DeskError("denied", `no answer for ${request.app.name}`);
    return settle(second);
  }

  /** One dialog per app and session at a time; concurrent calls wait for the same answer. */
  private dialogOnce(session: Session, request: AdmitRequest): Promise<void> {
    const key = appKey(request.app);
    const pending = session.asks.get(key);
    if (pending) return pending;
    const asking = this.showDialog(session, request).finally(() => session.asks.delete(key));
    session.asks.set(key, asking);
    return asking;
  }

  /** The dialog, announced to the waiting client first so its cell can say where to answer it. */
  private async showDialog(session: Session, request: AdmitRequest): Promise<void> {
    const client = session.client ?? "a client";
    const place = dialogPlace(this.services.env);
    const app = request.app.name;
    const allow = allowEntry(request.app);
    session.notify({ event: "approval", state: "pending", app, allow, screen: place.screen, ...(place.display && { display: place.display }), timeoutS: DIALOG_TIMEOUT_S });
    // `deskbook allow APP` while the dialog is open answers it too: the dialog closes and the call goes on.
    const dialog = new AbortController();
    const closeDialog = (): void => dialog.abort();
    session.closed.signal.addEventListener("abort", closeDialog);
    let allowedMeanwhile = false;
    const watch = setInterval(() => {
      if (this.allowedByConfig(session, request.app)) {
        allowedMeanwhile = true;
        dialog.abort();
      }
    }, CONFIG_POLL_MS);
    let answer: DialogAnswer = "deny";
    try {
      // Held with the input floor, so no synthetic input from another call lands in the dialog.
      answer = await this.services.floor.holdDialog(() => this.ask({ client, app, detail: request.detail, signal: dialog.signal }));
    } finally {
      clearInterval(watch);
      session.closed.signal.removeEventListener("abort", closeDialog);
      const state = allowedMeanwhile || answer === "session" || answer === "always" ? "allowed" : "denied";
      session.notify({ event: "approval", state, app, allow, screen: place.screen, ...(place.display && { display: place.display }) });
    }
    if (!allowedMeanwhile) this.record(session, request.app, answer, place);
  }

  private allowedByConfig(session: Session, app: PolicyApp): boolean {
    try {
      return "allowed" in decide(this.services.config(), app, session.approvals);
    } catch {
      return false; // a config.json being rewritten; the next poll reads it again
    }
  }

  private record(session: Session, app: PolicyApp, answer: DialogAnswer, place: DialogPlace): void {
    const key = appKey(app);
    const howToAllow = `run "deskbook allow ${allowEntry(app)}", or add ${JSON.stringify(allowEntry(app))} to "allow" in ${this.services.home}/config.json`;
    switch (answer) {
      case "session":
        session.approvals.set(key, "allow");
        return;
      case "always":
        session.approvals.set(key, "allow");
        this.alwaysAllow(app);
        return;
      case "deny":
        session.approvals.set(key, "deny");
        throw new DeskError("denied", `the user chose Deny for ${app.name} in this session; to allow it after all, ${waysOut({ screen: "real" }, allowEntry(app))}`);
      case "timeout": {
        // Not remembered: the user may simply have been away.
        const where = place.screen === "virtual" ? ` (it was on Deskbook's virtual desktop${place.display ? ` ${place.display}` : ""}, which no one sees without the live view)` : "";
        throw new DeskError("denied", `nobody answered the approval dialog for ${app.name} within a minute${where}; ${waysOut(place, allowEntry(app))}`);
      }
      case "unavailable":
        throw new DeskError("denied", `${app.name} needs approval but no dialog can be shown (zenity is not installed); ${howToAllow}, or set "approval" to "allow-all"`);
    }
  }

  private alwaysAllow(app: PolicyApp): void {
    try {
      addToAllow(this.services.home, allowEntry(app));
    } catch (error) {
      // The session approval stands; the user is told on the helper's log.
      process.stderr.write(`could not add ${allowEntry(app)} to config.json: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
}

function settle(decision: { allowed: true } | { code: "blocked" | "denied" | "not_allowed"; message: string }): void {
  if ("code" in decision) throw new DeskError(decision.code, decision.message);
}
