// The socket's place on disk: a directory only the user can enter (0700, owned by them) and no
// second helper on the same socket. Node cannot read SO_PEERCRED, so the directory's mode is
// what keeps other users out: connect() needs search permission on it.
import { chmodSync, lstatSync, statSync, unlinkSync, type Stats } from "node:fs";
import { createConnection } from "node:net";
import { dirname } from "node:path";
import { MAX_SOCKET_PATH_BYTES } from "../../src/helper/socket-path.js";
import { makeDirsSync } from "../../src/make-dirs.js";

export class SocketSetupError extends Error {
  override readonly name = "SocketSetupError";
}

const PROBE_TIMEOUT_MS = 1_000;

/**
 * Makes the directory safe and clears a stale socket; "taken" when a live helper answers there.
 * Call under umask 077 (privateUmask), so nothing is ever created wider than it ends up.
 */
export async function prepareSocket(path: string): Promise<"ready" | "taken"> {
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
    throw new SocketSetupError(`the socket path is ${Buffer.byteLength(path)} bytes, over the ${MAX_SOCKET_PATH_BYTES}-byte limit of a Unix socket; set DESKBOOK_SOCKET to a shorter path`);
  }
  secureDirectory(dirname(path));
  const existing = statOrNull(path);
  if (!existing) return "ready";
  if (!existing.isSocket()) throw new SocketSetupError(`${path} exists and is not a socket; move it away`);
  if (await answers(path)) return "taken";
  unlinkSync(path); // stale: its helper died without cleaning up
  return "ready";
}

/** Sets umask 077 until the returned function puts the previous one back. */
export function privateUmask(): () => void {
  const previous = process.umask(0o077);
  return () => void process.umask(previous);
}

/** The socket file itself: 0600 (bind gives it 0777 less the umask). Returns its inode. */
export function secureSocketFile(path: string): number {
  chmodSync(path, 0o600);
  return statSync(path).ino;
}

/** Removes the socket file if it is still the one this helper created. */
export function removeSocket(path: string, inode: number): void {
  const current = statOrNull(path);
  if (current && current.ino === inode) unlinkSync(path);
}

function secureDirectory(dir: string): void {
  makeDirsSync(dir, 0o700);
  const stats = lstatSync(dir);
  if (!stats.isDirectory()) throw new SocketSetupError(`${dir} is not a directory (a symlink?); the socket needs a private directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) {
    throw new SocketSetupError(`${dir} belongs to uid ${stats.uid}, not to you (uid ${uid}); refusing to put the helper socket there`);
  }
  if ((stats.mode & 0o077) !== 0) {
    chmodSync(dir, 0o700);
    process.stderr.write(`tightened ${dir} from ${(stats.mode & 0o777).toString(8)} to 700\n`);
  }
}

/** True when something accepts a connection on the socket; false when nothing listens there. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    const done = (alive: boolean, error?: Error): void => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(alive);
    };
    // A Unix socket connect does not hang unless a listener is there but swamped: leave it be.
    const timer = setTimeout(() => done(true), PROBE_TIMEOUT_MS);
    socket.once("connect", () => done(true));
    socket.once("error", (error: NodeJS.ErrnoException) => {
      // ECONNRESET: the listener closed with this connect in its backlog (a helper dying now).
      if (error.code === "ECONNREFUSED" || error.code === "ENOENT" || error.code === "ECONNRESET") done(false);
      else done(false, new SocketSetupError(`cannot tell whether a helper listens on ${path}: ${error.message}`));
    });
  });
}

function statOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}
