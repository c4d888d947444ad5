import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { makeDirs } from "../make-dirs.js";

/**
 * The directory holding config.json, history.jsonl and logs.
 * Always absolute: the kernel's cwd is the notebook's directory, which a
 * relative DESKBOOK_HOME would silently follow.
 */
export function deskbookHome(env: NodeJS.ProcessEnv = process.env): string {
  const userHome = env.HOME || homedir();
  const configured = env.DESKBOOK_HOME?.trim();
  if (!configured) return join(userHome, ".deskbook");
  // kernel.json "env" entries are not shell-expanded, so honour a leading ~ ourselves.
  if (configured === "~") return userHome;
  if (configured.startsWith("~/")) return join(userHome, configured.slice(2));
  return isAbsolute(configured) ? configured : resolve(configured);
}

/** mkdir -p with 0700: history and logs can contain whatever the user typed. */
export async function ensureHome(home: string): Promise<void> {
  await makeDirs(home, 0o700);
}

/**
 * Where this process's desktop and helper live (desktop.json, helper.sock, the live view):
 * `DESKBOOK_DESKTOP_DIR`, which a kernel with its own desktop sets for its executor and helper,
 * else DESKBOOK_HOME, whose desktop every kernel shares. config.json and history stay in
 * DESKBOOK_HOME either way.
 */
export function desktopHome(env: NodeJS.ProcessEnv = process.env): string {
  const own = env.DESKBOOK_DESKTOP_DIR?.trim();
  return own && isAbsolute(own) ? own : deskbookHome(env);
}
