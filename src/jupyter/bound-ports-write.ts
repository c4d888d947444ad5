// A connection file that asks for port 0 lets the kernel pick its ports as it binds, so none can
// be taken first; the frontend then learns them from the file, which the kernel rewrites with the
// ports it bound (as ipykernel does). Only the port fields change: the key, scheme, transport, ip
// and any field Deskbook does not know (a launcher's own bookkeeping) stay as they were.
import { randomBytes } from "node:crypto";
import { readFile, rename, unlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { ConnectionInfo } from "./connection.js";

/** The exit code of a kernel that bound port 0 but could not write the ports it got into its connection file. */
export const CONNECTION_FILE_UNWRITABLE_EXIT_CODE = 4;

export class ConnectionFileUnwritableError extends Error {
  override readonly name = "ConnectionFileUnwritableError";
  readonly code = "connection_file_unwritable";
  constructor(
    readonly path: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot write the bound ports into the connection file ${path} (${reason}): no frontend could find this kernel's ports, so it does not start`, options);
  }
}

const PORT_FIELDS = ["shell_port", "iopub_port", "stdin_port", "control_port", "hb_port"] as const;

/** True when the kernel bound another port than the file names (a port 0 of the file, or a launcher's new pick). */
export function portsDiffer(asked: ConnectionInfo, bound: ConnectionInfo): boolean {
  return PORT_FIELDS.some((field) => asked[field] !== bound[field]);
}

/**
 * Rewrites the connection file at `path` with the bound ports, atomically (a reader sees the old
 * file or the new one, never half of it) and readable by its owner only (mode 0600: it holds the key).
 */
export async function writeBoundPorts(path: string, bound: ConnectionInfo): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const fields = JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;
    for (const field of PORT_FIELDS) fields[field] = bound[field];
    await writeFile(temp, `${JSON.stringify(fields, null, 2)}\n`, { mode: 0o600, flag: "wx" });
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw new ConnectionFileUnwritableError(path, error instanceof Error ? error.message : String(error), { cause: error });
  }
}
