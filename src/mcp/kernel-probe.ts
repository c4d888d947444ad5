// Questions attach mode asks a kernel on its control channel, each with a deadline: which kernel
// process answers (kernel_info), and whether that process has a cell with some code in its
// history. Control, because a Deskbook kernel answers it at once even while a cell runs;
// kernel_info, because JupyterLab leaves a kernel_info's busy/idle out of the kernel's status
// (and jupyter_server out of its activity), so the person sees nothing of the probes.
import { KernelMessage, type Kernel } from "@jupyterlab/services";

/**
 * The answering process's session id (every message a kernel process sends carries it, and a
 * restarted kernel is a new process with a new one), or undefined with no answer in `timeoutMs`.
 */
export async function probeKernel(kernel: Kernel.IKernelConnection, timeoutMs: number): Promise<string | undefined> {
  const reply = await ask(kernel, "kernel_info_request", undefined, timeoutMs);
  return reply?.header.session;
}

/** What a kernel process's history says about one piece of code. */
export type CellInHistory = { line: number } | "absent" | "unknown";

/**
 * Whether the kernel process answering has run (or is running: a Deskbook kernel records a
 * cell as it starts) `code` as a cell numbered above `after`: its In [n], "absent", or
 * "unknown" when the history did not come in `timeoutMs`.
 */
export async function findCell(kernel: Kernel.IKernelConnection, code: string, after: number, timeoutMs: number): Promise<CellInHistory> {
  // Session 0 is the answering process's own session (IPython's convention, kept by Deskbook).
  // stop null: to the end (the library's type wants a number; Deskbook and IPython take null).
  const content = { hist_access_type: "range", session: 0, start: 1, stop: null as unknown as number, raw: true, output: false } as const;
  const reply = await ask(kernel, "history_request", content, timeoutMs);
  const history = (reply?.content as { history?: unknown } | undefined)?.history;
  if (!Array.isArray(history)) return "unknown";
  const lines = history
    .filter((entry): entry is [number, number, string] => Array.isArray(entry) && typeof entry[1] === "number" && entry[2] === code)
    .map((entry) => entry[1])
    .filter((line) => line > after);
  return lines.length > 0 ? { line: Math.max(...lines) } : "absent";
}

/** The request on control (the library types kernel_info and history as shell requests; the protocol allows both). */
function controlRequest(kernel: Kernel.IKernelConnection, msgType: "kernel_info_request" | "history_request", content: KernelMessage.IHistoryRequestMsg["content"] | undefined): KernelMessage.IControlMessage {
  const from = { channel: "shell" as const, session: kernel.clientId, username: kernel.username };
  const shell =
    msgType === "kernel_info_request"
      ? KernelMessage.createMessage<KernelMessage.IInfoRequestMsg>({ msgType, content: {}, ...from })
      : KernelMessage.createMessage<KernelMessage.IHistoryRequestMsg>({ msgType, content: content!, ...from });
  return { ...shell, channel: "control" } as unknown as KernelMessage.IControlMessage;
}

/** One control request; its reply, or undefined when none came in time or it could not be sent. */
async function ask(kernel: Kernel.IKernelConnection, msgType: "kernel_info_request" | "history_request", content: KernelMessage.IHistoryRequestMsg["content"] | undefined, timeoutMs: number): Promise<KernelMessage.IMessage | undefined> {
  let future: Kernel.IControlFuture | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    // Throws at once when the connection holds a dead kernel or is disposed.
    future = kernel.sendControlMessage(controlRequest(kernel, msgType, content), true, true);
    const expired = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)));
    return await Promise.race([future.done, expired]);
  } catch {
    // The connection was disposed, or the library cancelled the request (a restart it saw).
    return undefined;
  } finally {
    clearTimeout(timer);
    if (future && !future.isDisposed) future.dispose();
  }
}
