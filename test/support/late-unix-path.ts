/**
 * A client's ZeroMQ socket that connects late, with nothing in its path afterwards: how a loaded
 * machine can delay one of a client's sockets behind the others (each connects on its own
 * reconnect timer). The client is given a Unix socket path where nothing is yet, so each try
 * fails (ENOENT) and ZeroMQ tries again; `openLater` then makes that path a symlink to the
 * kernel's own socket, and the next try connects to the kernel directly.
 *
 * Why not a relay that holds the connection for a while: it stays in the path, and its lag on
 * every later byte is a different fault (a console's iopub then trails its shell for good). Nor a
 * listener that turns the client away: Debian's libzmq 4.3.4 SUB whose first connections were
 * closed on it did not send its subscription on the connection that finally worked.
 */
import { readFile, symlink } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";

/** Makes `path` lead to the socket `target` after `holdMs`. */
export async function openLater(path: string, target: string, holdMs: number): Promise<void> {
  await sleep(holdMs);
  await symlink(target, path);
}

/** Resolves once a socket listens at `path`, without connecting to it (Linux: /proc/net/unix). */
export function listeningAt(path: string, timeoutMs: number): Promise<void> {
  return untilState(path, UNCONNECTED, timeoutMs, "listened");
}

/** Resolves once a client is connected to the socket listening at `path` (the listener's end of the connection carries its name). */
export function connectedTo(path: string, timeoutMs: number): Promise<void> {
  return untilState(path, CONNECTED, timeoutMs, "had a client");
}

// The St column of /proc/net/unix (SS_UNCONNECTED for a listener, SS_CONNECTED for an accepted connection).
const UNCONNECTED = "01";
const CONNECTED = "03";

async function untilState(path: string, state: string, timeoutMs: number, what: string): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(20)) {
    const table = await readFile("/proc/net/unix", "utf8");
    const found = table.split("\n").some((line) => {
      const fields = line.trim().split(/\s+/);
      return fields[5] === state && fields[7] === path;
    });
    if (found) return;
  }
  throw new Error(`nothing ${what} at ${path} within ${timeoutMs} ms`);
}
