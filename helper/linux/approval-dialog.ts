// The approval dialog: zenity, which every GTK desktop has. Names are passed with --no-markup
// so an app or client name cannot dress the dialog up. Enter chooses Deny (--default-cancel).
import { spawn } from "node:child_process";

export type DialogAnswer = "session" | "always" | "deny" | "timeout" | "unavailable";

export interface DialogRequest {
  /** The client from hello. */
  client: string;
  /** The app as people know it, and how the helper identified it. */
  app: string;
  detail: string;
  /** Closes the dialog (the client went away). */
  signal?: AbortSignal;
}

export type AskFn = (request: DialogRequest) => Promise<DialogAnswer>;

export const DIALOG_TIMEOUT_S = 60;
const ALLOW_SESSION = "Allow for this session";
const ALWAYS_ALLOW = "Always allow";
const DENY = "Deny";
/** zenity's exit status when --timeout ran out. */
const ZENITY_TIMEOUT = 5;

/** Shows the dialog and waits for the user; "unavailable" when zenity cannot be run at all. */
export function askWithZenity(request: DialogRequest, env: NodeJS.ProcessEnv = process.env): Promise<DialogAnswer> {
  const text = `${request.client} wants to control ${request.app}.\n\n${request.detail}\n\nIt will be able to read its windows and to click and type in it.`;
  const args = [
    "--question", "--title=Deskbook", `--text=${text}`, "--no-markup", "--no-wrap", "--default-cancel",
    `--ok-label=${ALLOW_SESSION}`, `--cancel-label=${DENY}`, `--extra-button=${ALWAYS_ALLOW}`,
    `--timeout=${DIALOG_TIMEOUT_S}`,
  ];
  return new Promise((resolve) => {
    const child = spawn("zenity", args, { env, stdio: ["ignore", "pipe", "ignore"], ...(request.signal && { signal: request.signal }) });
    let out = "";
    // zenity's own timeout normally ends it; this only guards against a hung one.
    const guard = setTimeout(() => child.kill("SIGKILL"), (DIALOG_TIMEOUT_S + 5) * 1000);
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
    child.once("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(guard);
      resolve(error.code === "ENOENT" ? "unavailable" : "deny");
    });
    child.once("close", (code) => {
      clearTimeout(guard);
      resolve(answerOf(code, out.trim()));
    });
  });
}

function answerOf(code: number | null, output: string): DialogAnswer {
  if (output === ALWAYS_ALLOW) return "always";
  if (code === 0) return "session";
  if (code === ZENITY_TIMEOUT) return "timeout";
  return "deny";
}
