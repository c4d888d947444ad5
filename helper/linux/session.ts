// One client connection's state: who it is (from hello) and what its user answered in approval
// dialogs. "Allow for this session" lasts as long as the connection.
import type { HelperEvent } from "../../src/helper/protocol.js";
import type { SessionChoice } from "./policy.js";

export class Session {
  /** The `client` from hello; null until hello succeeded, and nothing else is served before. */
  client: string | null = null;
  /** appKey → the user's answer in this session. */
  readonly approvals = new Map<string, SessionChoice>();
  /** appKey → the dialog being shown, so concurrent calls for one app share one dialog. */
  readonly asks = new Map<string, Promise<void>>();
  /** Aborted when the connection closes: nobody is left to wait for a dialog's answer. */
  readonly closed = new AbortController();
  /** Sends an event to this connection only (the server sets it; approval progress). */
  notify: (event: HelperEvent) => void = () => undefined;
}
