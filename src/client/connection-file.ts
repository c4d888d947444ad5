/**
 * Writes a Jupyter connection file the way a frontend does before launching a
 * kernel: five free loopback ports, a random key, hmac-sha256.
 */
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import type { ConnectionInfo } from "../jupyter/connection.js";

export interface ConnectionFileOptions {
  /** HMAC key; "" writes an unsigned session. Default: 32 random bytes as hex. */
  key?: string;
  /** Signature scheme. Default "hmac-sha256". */
  scheme?: string;
}

export async function writeConnectionFile(
  dir: string,
  opts: ConnectionFileOptions = {},
): Promise<{ path: string; info: ConnectionInfo }> {
  const [shell, iopub, stdin, control, hb] = await freePorts(5);
  const info: ConnectionInfo = {
    transport: "tcp",
    ip: "127.0.0.1",
    shell_port: shell!,
    iopub_port: iopub!,
    stdin_port: stdin!,
    control_port: control!,
    hb_port: hb!,
    key: opts.key ?? randomBytes(32).toString("hex"),
    signature_scheme: opts.scheme ?? "hmac-sha256",
    kernel_name: "deskbook",
  };
  const path = join(dir, `kernel-${randomBytes(6).toString("hex")}.json`);
  await writeFile(path, JSON.stringify(info, null, 2), { mode: 0o600 });
  return { path, info };
}

/**
 * Distinct free ports: all listeners stay open until every port is known, so the
 * OS cannot hand out the same port twice. (Another process could still grab one
 * before the kernel binds; that window is accepted, as jupyter_client accepts it.)
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(Array.from({ length: count }, listenOnRandomPort));
  const ports = servers.map((server) => {
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("unexpected server address");
    return address.port;
  });
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  return ports;
}

function listenOnRandomPort(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}
