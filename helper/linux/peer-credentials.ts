// Who is on the other end of an accepted Unix socket. Node has no SO_PEERCRED, so the helper
// asks the kernel the long way: its own socket's inode (/proc/self/fd), the peer socket's inode
// and the processes holding it (`ss -xp`, which reads the kernel's sock_diag tables and the
// processes' fds), then their effective uid (/proc/<pid>/status). A process of another user
// cannot have its fds read by a non-root helper, so it is never found: that counts as foreign.
import { execFile } from "node:child_process";
import { readFile, readlink } from "node:fs/promises";
import type { Socket } from "node:net";

export type PeerVerdict = { ok: true } | { ok: false; reason: string };

const SS_TIMEOUT_MS = 5_000;
const SS_MAX_BUFFER = 64 * 1024 * 1024;

/** Refuses a peer unless every process holding its end runs as `ownUid` or root. */
export async function checkPeer(socket: Socket, ownUid: number): Promise<PeerVerdict> {
  const inode = await socketInode(socket);
  if (inode === null) return { ok: false, reason: "the connection's socket could not be identified" };
  const table = parseSs(await ss());
  const peer = table.get(inode)?.peer;
  if (peer === undefined) return { ok: false, reason: "the connecting process could not be identified" };
  const pids = table.get(peer)?.pids ?? [];
  if (pids.length === 0) return { ok: false, reason: "the connecting process belongs to another user (its sockets cannot be read)" };
  for (const pid of pids) {
    const uid = await effectiveUid(pid);
    if (uid === null) return { ok: false, reason: `the connecting process (pid ${pid}) has gone` };
    if (uid !== ownUid && uid !== 0) return { ok: false, reason: `the connecting process (pid ${pid}) runs as uid ${uid}; this helper serves uid ${ownUid} only` };
  }
  return { ok: true };
}

/** True when `ss` can be run (iproute2); without it the helper cannot check peers. */
export async function canCheckPeers(): Promise<boolean> {
  return ss().then(
    () => true,
    () => false,
  );
}

async function socketInode(socket: Socket): Promise<number | null> {
  // The fd of a net.Socket is not public API, but every Unix build of Node has it on the handle.
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  if (typeof fd !== "number" || fd < 0) return null;
  const link = await readlink(`/proc/self/fd/${fd}`).catch(() => "");
  const match = /^socket:\[(\d+)\]$/.exec(link);
  return match ? Number(match[1]) : null;
}

function ss(): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("ss", ["-xnpH"], { timeout: SS_TIMEOUT_MS, maxBuffer: SS_MAX_BUFFER }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
  });
}

export interface UnixSocketEntry {
  peer: number;
  pids: number[];
}

/**
 * `ss -xnpH` lines, by local inode: "u_str ESTAB 0 0 <local> <inode> <peer> <peer inode>
 * users:(("node",pid=12,fd=3),…)". Addresses may hold spaces; the inodes are the numbers
 * before the peer address and at the end.
 */
export function parseSs(text: string): Map<number, UnixSocketEntry> {
  const table = new Map<number, UnixSocketEntry>();
  const line = /^\S+\s+\S+\s+\d+\s+\d+\s+.*?\s(\d+)\s+\S.*?\s(\d+)(?:\s+users:\((.*)\))?\s*$/;
  for (const row of text.split("\n")) {
    const match = line.exec(row);
    if (!match) continue;
    const pids = [...(match[3] ?? "").matchAll(/pid=(\d+)/g)].map((m) => Number(m[1]));
    table.set(Number(match[1]), { peer: Number(match[2]), pids });
  }
  return table;
}

async function effectiveUid(pid: number): Promise<number | null> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => null);
  const uids = status ? /^Uid:\s+\d+\s+(\d+)/m.exec(status) : null;
  return uids ? Number(uids[1]) : null;
}
