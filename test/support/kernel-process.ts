/**
 * The tests start the real kernel through the product's own launcher (src/client), each
 * with a private DESKBOOK_HOME unless one is given. The build (`npm run build`) must have
 * run first; `npm test` does that.
 */
import { join } from "node:path";
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

/**
 * The environment of a headless machine, for a kernel or front door under `dir`: no DISPLAY
 * (so the kernel starts the virtual desktop itself) and fresh app settings, nothing of the
 * user's touched. Undefined drops a variable.
 */
export function headlessEnv(dir: string): NodeJS.ProcessEnv {
  return {
    DISPLAY: undefined,
    WAYLAND_DISPLAY: undefined,
    AT_SPI_BUS_ADDRESS: undefined,
    XDG_CONFIG_HOME: join(dir, "xdg-config"),
    XDG_CACHE_HOME: join(dir, "xdg-cache"),
    XDG_DATA_HOME: join(dir, "xdg-data"),
    GSETTINGS_BACKEND: "memory",
  };
}

/** The real kernel as a headless machine runs it (headlessEnv), in `dir`. */
export function startHeadlessKernel(dir: string, home: string): Promise<RunningKernel> {
  return startKernel({ home, cwd: dir, env: headlessEnv(dir) });
}
