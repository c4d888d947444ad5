import { readFile } from "node:fs/promises";

/** The connection file a Jupyter frontend hands to the kernel at launch. */
export interface ConnectionInfo {
  transport: "tcp" | "ipc";
  ip: string;
  shell_port: number;
  iopub_port: number;
  stdin_port: number;
  control_port: number;
  hb_port: number;
  key: string;
  signature_scheme: string;
  kernel_name?: string;
}

/** Raised for any connection file we cannot use; the message names the file and the field. */
export class ConnectionFileError extends Error {
  override readonly name = "ConnectionFileError";
  constructor(
    readonly path: string,
    readonly problem: string,
    options?: { cause?: unknown },
  ) {
    super(`connection file ${path}: ${problem}`, options);
  }
}

const PORT_FIELDS = ["shell_port", "iopub_port", "stdin_port", "control_port", "hb_port"] as const;

export async function readConnectionFile(path: string): Promise<ConnectionInfo> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new ConnectionFileError(path, `cannot read file (${errorText(err)})`, { cause: err });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ConnectionFileError(path, `invalid JSON (${errorText(err)})`, { cause: err });
  }
  return validateConnectionInfo(raw, path);
}

/** Checks an already parsed connection object; `source` only labels errors. */
export function validateConnectionInfo(raw: unknown, source: string): ConnectionInfo {
  if (!isPlainObject(raw)) {
    throw new ConnectionFileError(source, "top level must be a JSON object");
  }
  const fail = (field: string, why: string): never => {
    // Never echo the key back: log lines and error reports must not carry the secret.
    const got = field === "key" ? typeof raw[field] : describe(raw[field]);
    throw new ConnectionFileError(source, `field "${field}" ${why} (got ${got})`);
  };
  const transport = raw.transport;
  if (transport !== "tcp" && transport !== "ipc") fail("transport", 'must be "tcp" or "ipc"');
  const ip = raw.ip;
  if (typeof ip !== "string" || ip.length === 0) fail("ip", "must be a non-empty string");
  for (const field of PORT_FIELDS) {
    const port = raw[field];
    if (typeof port !== "number" || !Number.isInteger(port) || port < 0 || port > 65535) {
      fail(field, "must be an integer port between 0 and 65535");
    }
  }
  if (typeof raw.key !== "string") fail("key", "must be a string (empty disables signing)");
  checkScheme(raw, fail);
  if (raw.kernel_name !== undefined && typeof raw.kernel_name !== "string") {
    fail("kernel_name", "must be a string when present");
  }
  return pickFields(raw);
}

function checkScheme(raw: Record<string, unknown>, fail: (f: string, why: string) => never): void {
  const scheme = raw.signature_scheme;
  if (typeof scheme !== "string") fail("signature_scheme", "must be a string");
  // An unsigned session may leave the scheme empty; a signed one needs hmac-<alg>.
  const empty = scheme === "" && raw.key === "";
  if (!empty && !/^hmac-[A-Za-z0-9-]+$/.test(scheme as string)) {
    fail("signature_scheme", 'must look like "hmac-sha256"');
  }
}

// Copy only known fields so callers never see stray keys typed as ConnectionInfo.
function pickFields(raw: Record<string, unknown>): ConnectionInfo {
  const info: ConnectionInfo = {
    transport: raw.transport as ConnectionInfo["transport"],
    ip: raw.ip as string,
    shell_port: raw.shell_port as number,
    iopub_port: raw.iopub_port as number,
    stdin_port: raw.stdin_port as number,
    control_port: raw.control_port as number,
    hb_port: raw.hb_port as number,
    key: raw.key as string,
    signature_scheme: raw.signature_scheme as string,
  };
  if (typeof raw.kernel_name === "string") info.kernel_name = raw.kernel_name;
  return info;
}

/** ZeroMQ endpoint for one port; ipc paths follow jupyter_client's `${ip}-${port}` convention. */
export function endpoint(info: Pick<ConnectionInfo, "transport" | "ip">, port: number): string {
  return info.transport === "ipc" ? `ipc://${info.ip}-${port}` : `tcp://${info.ip}:${port}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  const json = JSON.stringify(value);
  return json.length > 40 ? `${json.slice(0, 40)}…` : json;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
