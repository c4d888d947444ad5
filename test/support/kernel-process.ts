/**
 * The tests start the real kernel through the product's own launcher (src/client), each
 * with a private DESKBOOK_HOME unless one is given. The build (`npm run build`) must have
 * run first; `npm test` does that.
 */
import { fileURLToPath } from "node:url";
import { startKernel as startProductKernel, type RunningKernel, type StartOptions } from "../../src/client/kernel-process.js";

export { CLI, type RunningKernel } from "../../src/client/kernel-process.js";
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export function startKernel(options: StartOptions = {}): Promise<RunningKernel> {
  return startProductKernel({ privateHome: true, username: "deskbook-test", ...options });
}

/** The text of every `stream` message of an execution, per stream name. */
export function streams(iopub: { header: { msg_type: string }; content: unknown }[], name = "stdout"): string {
  return iopub
    .filter((m) => m.header.msg_type === "stream" && (m.content as { name: string }).name === name)
    .map((m) => (m.content as { text: string }).text)
    .join("");
}

/** The text/plain of the execute_result, if any. */
export function resultText(iopub: { header: { msg_type: string }; content: unknown }[]): string | undefined {
  const result = iopub.find((m) => m.header.msg_type === "execute_result");
  return (result?.content as { data?: Record<string, string> } | undefined)?.data?.["text/plain"];
}
