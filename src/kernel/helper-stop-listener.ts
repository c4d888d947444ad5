import type { HelperClient } from "../helper/client.js";
import type { HelperEvent } from "../helper/protocol.js";
import type { StopSource } from "./cell-stopper.js";
import type { ExecutorChannels } from "./executor-host.js";

/** Where the stops it hears go: the kernel's one stop path. */
export interface StopPath {
  stop(reason: string): unknown;
}

/**
 * The kernel's own connection to the helper, only for the events that stop a cell (Escape,
 * and the helper's own "stop running scripts"): they must stop a cell even while the
 * executor spins in a loop and cannot read its socket. It never launches the helper; it
 * attaches once the executor has connected to one (the executor's helper channel), and
 * reconnects as a cell starts if the helper was restarted since.
 */
export class HelperStopListener implements StopSource {
  private client: HelperClient | undefined;
  private socketPath: string | undefined;
  private connecting: Promise<void> | undefined;
  /** The last attempt failed: later cells do not wait on another (a hung helper would cost each its 2 s). */
  private lastFailed = false;

  constructor(
    private readonly stops: StopPath,
    private readonly log: (line: string) => void,
  ) {}

  /** The executor's helper channel: its desk API connected to a helper at `socketPath`. */
  onExecutorEvent(event: ExecutorChannels["helper"]): void {
    this.socketPath = event.socketPath;
    // The executor has just reached it: worth waiting for again.
    this.lastFailed = false;
    void this.ensure();
  }

  /** A cell is about to start: reconnect if the helper restarted since; nothing to wait for when connected. */
  listening(): Promise<void> | undefined {
    const connecting = this.ensure();
    return this.lastFailed ? undefined : connecting;
  }

  /** The connection under way, if there is one (it never rejects: a failure is logged). */
  private ensure(): Promise<void> | undefined {
    if (!this.socketPath || this.client?.connected) return undefined;
    if (this.connecting) return this.connecting;
    const socketPath = this.socketPath;
    this.connecting = this.connect(socketPath).finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  async close(): Promise<void> {
    await this.client?.close();
  }

  private async connect(socketPath: string): Promise<void> {
    try {
      await this.client?.close();
      // Loaded on the first connection: most kernels never reach a helper, and the client with its schema checks costs start time.
      const { HelperClient } = await import("../helper/client.js");
      const client = await HelperClient.connect({ socketPath, clientName: "deskbook kernel (stop events)", connectTimeoutMs: 2_000 });
      client.onEvent((event) => {
        const reason = stopReason(event);
        if (reason !== undefined) this.stops.stop(reason);
      });
      this.client = client;
      this.lastFailed = false;
    } catch (error) {
      this.lastFailed = true;
      this.log(`cannot listen for stop events at ${socketPath}: ${(error as Error).message}`);
    }
  }
}

/** The sentence a stopped cell shows after "Stopped: "; undefined for events that stop nothing. */
function stopReason(event: HelperEvent): string | undefined {
  // The cell adds its own full stop.
  if (event.event === "escape") return "the user pressed Escape";
  if (event.event === "stop") return event.reason.replace(/\.+$/, "");
  return undefined;
}
