import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { desktopHome } from "../config/home.js";

/**
 * Where the helper listens: `DESKBOOK_SOCKET`, else `helper.sock` in the desktop's directory
 * (DESKBOOK_HOME, or a per-kernel desktop's own).
 * Like DESKBOOK_HOME, a leading ~ is expanded here because kernel.json env values are not
 * shell-expanded, and a relative path is made absolute so it does not follow the kernel's cwd.
 */
export function helperSocketPath(
  env: NodeJS.ProcessEnv = process.env,
  home: string = desktopHome(env),
): string {
  const configured = env.DESKBOOK_SOCKET?.trim();
  if (!configured) return join(home, "helper.sock");
  const userHome = env.HOME || homedir();
  if (configured.startsWith("~/")) return join(userHome, configured.slice(2));
  return isAbsolute(configured) ? configured : resolve(configured);
}

/** sockaddr_un allows 108 bytes on Linux and 104 on macOS, each counting a NUL. */
export const MAX_SOCKET_PATH_BYTES = 103;
