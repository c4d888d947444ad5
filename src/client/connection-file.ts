/**
 * Writes a Jupyter connection file the way a frontend does before launching a
 * kernel: five free loopback ports, a random key, hmac-sha256.
 */
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ConnectionInfo } from "../jupyter/connection.js";
import { freePorts } from "./free-ports.js";

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
