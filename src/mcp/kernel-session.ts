// The session `deskbook mcp` owns: a real Deskbook kernel started through src/client on the
// first call, kept until js_reset or the end of the connection. The server is one more
// Jupyter client of it, so the executor, stop rules and time limit are the kernel's own.
import { startKernel, type RunningKernel } from "../client/kernel-process.js";
import type { JupyterMessage } from "../jupyter/message.js";
import { callMetadata, isOutput, type JsSession, type RunOptions, type RunResult } from "./js-session.js";

export interface KernelSessionOptions {
  /** The agent's name (MCP clientInfo.name): approval dialogs and actions.log show it. */
  clientName: () => string;
  /** Environment for the kernel on top of the server's own. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** No client-side deadline of its own: the kernel's time limit ends a cell; this only guards a lost kernel. */
const NO_DEADLINE_MS = 2 ** 31 - 1;
const KERNEL_START_TIMEOUT_MS = 60_000;

export class KernelSession implements JsSession {
  private kernel: Promise<RunningKernel> | undefined;

  constructor(private readonly options: KernelSessionOptions) {}

  async run(code: string, options: RunOptions): Promise<RunResult> {
    const kernel = await this.ensureKernel();
    const onInterrupt = () => void kernel.client.request("control", "interrupt_request", {}).catch(() => undefined);
    options.signal?.addEventListener("abort", onInterrupt, { once: true });
    let onExit: ((exit: number | null, signal: NodeJS.Signals | null) => void) | undefined;
    try {
      const running = kernel.client.execute(code, {
        timeoutMs: NO_DEADLINE_MS,
        metadata: callMetadata(options),
        allow_stdin: false,
        stop_on_error: false,
        ...(options.onOutput && {
          onIopub: (msg: JupyterMessage) => {
            if (isOutput(msg.header.msg_type)) options.onOutput!({ type: msg.header.msg_type, content: msg.content });
          },
        }),
      });
      // A listener per call, removed after it: racing one long-lived promise would keep every result.
      const lost = new Promise<never>((_, reject) => {
        onExit = (exit: number | null, signal: NodeJS.Signals | null) =>
          reject(new Error(`the Deskbook kernel exited (${signal ?? `code ${exit}`}) during the call; the next call starts a new one.\n${kernel.stderr().slice(-2000)}`));
        kernel.process.once("exit", onExit);
      });
      lost.catch(() => undefined);
      const { reply, iopub } = await Promise.race([running, lost]);
      return {
        outputs: iopub.filter((m) => isOutput(m.header.msg_type)).map((m) => ({ type: m.header.msg_type, content: m.content })),
        status: String(reply.content.status),
      };
    } catch (error) {
      if (kernel.process.exitCode !== null || kernel.process.signalCode !== null) this.kernel = undefined;
      throw error;
    } finally {
      options.signal?.removeEventListener("abort", onInterrupt);
      if (onExit) kernel.process.off("exit", onExit);
    }
  }

  async reset(): Promise<string> {
    const had = this.kernel !== undefined;
    await this.close();
    return had ? "The session was reset: every binding is gone; the next js call starts a fresh kernel." : "There was no session yet; the next js call starts one.";
  }

  async close(): Promise<void> {
    const kernel = this.kernel;
    this.kernel = undefined;
    if (kernel) await (await kernel.catch(() => undefined))?.stop();
  }

  private ensureKernel(): Promise<RunningKernel> {
    this.kernel ??= startKernel({
      env: { ...this.options.env, DESKBOOK_CLIENT: this.options.clientName() },
      username: this.options.clientName(),
      keepHistory: false,
      // A loaded machine can take longer than the usual 10 s to start a kernel; waiting beats failing the call.
      readyTimeoutMs: KERNEL_START_TIMEOUT_MS,
      ...(this.options.cwd !== undefined && { cwd: this.options.cwd }),
    }).catch((error: unknown) => {
      this.kernel = undefined;
      throw error;
    });
    return this.kernel;
  }
}
