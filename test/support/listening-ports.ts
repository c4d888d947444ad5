/**
 * The TCP ports a process listens on, from Linux's /proc: its socket file descriptors matched
 * with the listening sockets of its network namespace. For servers told to listen on port 0
 * that print and record 0 instead of the port the OS gave them (jupyter_server 1, Notebook 6,
 * Enterprise Gateway 3).
 */
import { readdir, readFile, readlink } from "node:fs/promises";

/** A socket's state in /proc/net/tcp: 0A is LISTEN. */
const LISTEN = "0A";

export async function listeningPorts(pid: number): Promise<number[]> {
  const inodes = await socketInodes(pid);
  const ports: number[] = [];
  for (const table of ["tcp", "tcp6"]) {
    const text = await readFile(`/proc/${pid}/net/${table}`, "utf8").catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== LISTEN || !inodes.has(fields[9]!)) continue;
      ports.push(parseInt(fields[1]!.split(":")[1]!, 16));
    }
  }
  return ports;
}

async function socketInodes(pid: number): Promise<Set<string>> {
  const dir = `/proc/${pid}/fd`;
  const inodes = new Set<string>();
  for (const fd of await readdir(dir).catch(() => [])) {
    const target = await readlink(`${dir}/${fd}`).catch(() => "");
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode) inodes.add(inode);
  }
  return inodes;
}
