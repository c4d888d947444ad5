// How attach mode notices that someone else restarted the kernel (JupyterLab's ⟳, the REST API,
// Enterprise Gateway): Jupyter does not promise that a websocket survives a restart, and one
// kept across it may carry the new kernel's messages, or lose every reply. So a connection
// watches for signs, and a run asks the kernel which process it is before and while it runs.
import type { Kernel, KernelMessage } from "@jupyterlab/services";
import { probeKernel } from "./kernel-probe.js";

/** Watches one kernel connection for the signs of a restart or a lost websocket. */
export class RestartWatch {
  /** The first sign seen, in words for the agent; undefined while all looks well. */
  sign: string | undefined;
  /** When the kernel last sent anything on this connection (ms since the epoch). */
  lastHeardAt = Date.now();
  private readonly listeners = new Set<(sign: string) => void>();

  constructor(
    private readonly kernel: Kernel.IKernelConnection,
    /** The kernel process the connection reached when it opened. */
    private readonly session: string,
  ) {
    kernel.anyMessage.connect(this.onMessage, this);
    kernel.statusChanged.connect(this.onStatus, this);
    kernel.connectionStatusChanged.connect(this.onConnection, this);
  }

  /** Calls `listener` at the first sign (at once, if one was seen already); returns its removal. */
  onSign(listener: (sign: string) => void): () => void {
    if (this.sign !== undefined) {
      listener(this.sign);
      return () => undefined;
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Whether a run should first ask the kernel which process it is: after a sign, or after `idleMs` without a word. */
  needsProbe(idleMs: number): boolean {
    return this.sign !== undefined || Date.now() - this.lastHeardAt >= idleMs;
  }

  dispose(): void {
    this.listeners.clear();
    this.kernel.anyMessage.disconnect(this.onMessage, this);
    this.kernel.statusChanged.disconnect(this.onStatus, this);
    this.kernel.connectionStatusChanged.disconnect(this.onConnection, this);
  }

  /** Signs are kept from the first: the later ones say less. */
  mark(sign: string): void {
    if (this.sign !== undefined) return;
    this.sign = sign;
    for (const listener of [...this.listeners]) listener(sign);
    this.listeners.clear();
  }

  private onMessage(_: Kernel.IKernelConnection, { msg, direction }: Kernel.IAnyMessageArgs): void {
    if (direction !== "recv") return;
    this.lastHeardAt = Date.now();
    // The server's own status messages (restarting, dead) carry its session, not the kernel's: a sign as well.
    if (msg.header.session !== this.session) this.mark(`its websocket carried a ${msg.header.msg_type} message from another kernel process`);
  }

  private onStatus(_: Kernel.IKernelConnection, status: KernelMessage.Status): void {
    // "restarting" is what jupyter_server sends when it restarted a kernel that died; the library then cancels every request.
    if (status === "restarting" || status === "autorestarting") this.mark("the Jupyter server said the kernel was restarting");
    if (status === "dead") this.mark("the Jupyter server said the kernel died");
  }

  private onConnection(_: Kernel.IKernelConnection, status: Kernel.ConnectionStatus): void {
    // "connecting" is the library's own reconnect, which a probe judges; "disconnected" is it giving up.
    if (status === "disconnected") this.mark("the kernel's websocket closed");
  }
}

/**
 * While a call runs: asks the kernel which process it is every `everyMs`. `lost` resolves with
 * the reason when an answer comes from another process, or when none comes within `timeoutMs`
 * and nothing else came on the connection meanwhile (`lastHeardAt`): a websocket backed up
 * behind a cell's output, or a slow machine or gateway, delays the answer but still delivers.
 */
export function watchdog(kernel: Kernel.IKernelConnection, watch: Pick<RestartWatch, "lastHeardAt">, session: string, everyMs: number, timeoutMs: number): { lost: Promise<string>; stop: () => void } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const lost = new Promise<string>((resolve) => {
    const tick = async (): Promise<void> => {
      const sentAt = Date.now();
      const answer = await probeKernel(kernel, timeoutMs);
      if (stopped) return;
      if (answer === undefined && watch.lastHeardAt <= sentAt) return resolve(`the kernel did not answer a probe on its websocket, and sent nothing else on it, within ${duration(timeoutMs)}`);
      if (answer !== undefined && answer !== session) return resolve("the kernel answered a probe as another process");
      timer = setTimeout(() => void tick(), everyMs);
    };
    timer = setTimeout(() => void tick(), everyMs);
  });
  return {
    lost,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

export function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
