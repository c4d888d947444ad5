import type { JupyterMessage } from "../jupyter/message.js";

/**
 * Shell requests run one at a time, in arrival order, as in every Jupyter kernel.
 * After a failed cell with stop_on_error, the execute requests already waiting are
 * answered "aborted" instead of run.
 */
export class ShellQueue {
  private readonly waiting: JupyterMessage[] = [];
  private readonly aborted = new Set<JupyterMessage>();
  private running = false;

  constructor(private readonly run: (msg: JupyterMessage, aborted: boolean) => Promise<void>) {}

  push(msg: JupyterMessage): void {
    this.waiting.push(msg);
    if (!this.running) void this.drain();
  }

  /** Marks every execute request waiting now as aborted. */
  abortWaitingExecutes(): void {
    for (const msg of this.waiting) if (msg.header.msg_type === "execute_request") this.aborted.add(msg);
  }

  private async drain(): Promise<void> {
    this.running = true;
    for (let msg = this.waiting.shift(); msg; msg = this.waiting.shift()) {
      const aborted = this.aborted.delete(msg);
      await this.run(msg, aborted);
    }
    this.running = false;
  }
}
