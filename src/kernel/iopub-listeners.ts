import type { IopubSubscriptions } from "../jupyter/iopub-subscriptions.js";

/** How long a shell request waits for someone to subscribe to iopub. */
export const IOPUB_WAIT_MS = 5_000;

/**
 * A shell request is served once someone listens on iopub. A client's sockets connect each on
 * their own reconnect timer, so on a loaded machine its shell request can reach a fresh kernel
 * before its iopub subscription does; `jupyter console` then shows its prompt on the
 * kernel_info reply, sends the first cell and waits forever for that cell's `status: idle`,
 * which went out to nobody. Clients that look for iopub first (jupyter_client's
 * wait_for_ready, Deskbook's own client) only wait less.
 *
 * A client that never subscribes waits once, IOPUB_WAIT_MS, and is then served without
 * waiting until someone subscribes and everyone has left again.
 */
export class IopubListeners {
  /** The subscription count when a wait last ran out with no one there. */
  private gaveUpAt: number | undefined;

  constructor(
    private readonly subscriptions: IopubSubscriptions,
    private readonly log: (line: string) => void,
    private readonly waitMs = IOPUB_WAIT_MS,
  ) {}

  /** Undefined when the request may be served now; else a promise that settles when it may. */
  ready(): Promise<void> | undefined {
    if (this.subscriptions.any || this.gaveUpAt === this.subscriptions.subscribes) return undefined;
    return this.subscriptions.whenAny(this.waitMs).then((subscribed) => {
      if (subscribed) return;
      this.gaveUpAt = this.subscriptions.subscribes;
      this.log(`no one subscribed to iopub within ${this.waitMs} ms: serving shell requests without it`);
    });
  }
}
