// The X11 CLIPBOARD selection through Debian's xclip. X has no clipboard store: the owner of
// the selection serves it to whoever asks, so a write keeps an `xclip -i` process running
// (ours, started detached) until someone else copies. Restoring "nothing" ends that process,
// which leaves the selection without an owner, as it was.
import { spawn, type ChildProcess } from "node:child_process";
import { DeskError } from "../../src/helper/desk-error.js";

const READ_TIMEOUT_MS = 2_000;
const OWN_TIMEOUT_MS = 2_000;
const POLL_MS = 20;
const SELECTION = ["-selection", "clipboard"];

/** The xclip process that owns the clipboard for us, while it does. */
let owner: ChildProcess | null = null;

/** The clipboard's text, or "" when nothing (or nothing textual) is on it. */
export async function readClipboard(env: NodeJS.ProcessEnv): Promise<string> {
  const { code, stdout, stderr } = await run(["-o", ...SELECTION, "-t", "UTF8_STRING"], env);
  if (code === 0) return stdout;
  // No owner, or an owner without text: xclip says so on stderr and exits 1.
  if (/target .* not available|no owner|can't convert/i.test(stderr) || stderr.trim() === "") return "";
  throw new DeskError("failed", `xclip could not read the clipboard: ${stderr.trim()}`);
}

/** Puts `text` on the clipboard and waits until it is served. */
export async function writeClipboard(text: string, env: NodeJS.ProcessEnv): Promise<void> {
  releaseClipboard();
  const child = spawnXclip(["-i", ...SELECTION, "-quiet"], env);
  owner = child;
  child.once("exit", () => {
    if (owner === child) owner = null;
  });
  child.stdin!.end(text);
  const deadline = Date.now() + OWN_TIMEOUT_MS;
  while ((await readClipboard(env).catch(() => null)) !== text) {
    if (child.exitCode !== null || Date.now() > deadline) throw new DeskError("failed", "xclip did not take the clipboard");
    await sleep(POLL_MS);
  }
}

/** Ends our hold on the clipboard; the selection then has no owner (unless someone else took it). */
export function releaseClipboard(): void {
  owner?.kill("SIGTERM");
  owner = null;
}

function spawnXclip(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn("xclip", args, { env, stdio: ["pipe", "ignore", "ignore"], detached: true });
  child.on("error", () => undefined);
  child.unref();
  return child;
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("xclip", args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), READ_TIMEOUT_MS);
    child.once("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new DeskError("failed", error.code === "ENOENT" ? "xclip is not installed (apt-get install xclip)" : `xclip: ${error.message}`));
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
