// `deskbook gateway-kernel`: a kernel that Jupyter Enterprise Gateway starts away from itself
// (a Kubernetes pod, another host) and that tells the gateway where to reach it, as EG's own
// kernel launchers do: it binds its ports (inside EG's port range), and only then sends the
// connection info encrypted to EG's response address, and listens on a comm port for EG's signal
// and shutdown requests. The kernel runs in this process, so a signal EG asks for goes to it
// directly. EG learns the ports only from what is sent, so no port can be lost between a pick
// and its bind: with any port (0..0) the kernel's sockets bind where the OS says; inside a range
// a port another process took first is picked again, in this process, before anything is sent.
import { randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import type { ConnectionInfo } from "../jupyter/connection.js";
import { serveCommRequests } from "../gateway/comm-listener.js";
import { encryptConnectionInfo, PublicKeyError } from "../gateway/connection-payload.js";
import { freePorts, listenOnFreePort, NoFreePortError, PortListenError, portOf, type FreePortOptions } from "../client/free-ports.js";
import { parsePortRange, PortRangeError, type PortRange } from "../gateway/port-range.js";
import type { PortInUseError } from "../jupyter/port-in-use.js";
import { serveKernel, type ServedKernel } from "./kernel.js";
import { scratchDir } from "./scratch-dir.js";

export const GATEWAY_KERNEL_USAGE = `usage: deskbook gateway-kernel --kernel-id ID --response-address HOST:PORT --public-key KEY
                               [--port-range LOWER..UPPER] [--ip ADDRESS]

  What an Enterprise Gateway kernelspec for remote kernels runs (docs/scale-out.md). Each value
  may come from the environment instead, as EG's Kubernetes launcher sets it in the kernel pod:
  KERNEL_ID, RESPONSE_ADDRESS, PUBLIC_KEY, PORT_RANGE (default 0..0: any port).
  --ip is the address the kernel listens on (default 0.0.0.0: the pod's or host's every address).
`;

export interface GatewayKernelOptions {
  kernelId: string;
  response: { host: string; port: number };
  publicKey: string;
  portRange: PortRange;
  ip: string;
}

export class GatewayKernelUsageError extends Error {
  override readonly name = "GatewayKernelUsageError";
}

type Field = "kernelId" | "response" | "publicKey" | "portRange" | "ip";
const FLAGS: Record<string, Field> = {
  "--kernel-id": "kernelId",
  "--response-address": "response",
  "--public-key": "publicKey",
  "--port-range": "portRange",
  "--ip": "ip",
};
/** Where EG's Kubernetes launcher puts each value in the kernel pod's environment. */
const ENV: Partial<Record<Field, string>> = { kernelId: "KERNEL_ID", response: "RESPONSE_ADDRESS", publicKey: "PUBLIC_KEY", portRange: "PORT_RANGE" };

/** Flags first, then the environment; throws GatewayKernelUsageError naming what is missing or wrong. */
export function parseGatewayKernelArgs(args: string[], env: NodeJS.ProcessEnv): GatewayKernelOptions {
  const given: Partial<Record<Field, string>> = {};
  for (let i = 0; i < args.length; i++) {
    const eq = args[i]!.indexOf("=");
    const flag = eq > 0 ? args[i]!.slice(0, eq) : args[i]!;
    const key = FLAGS[flag];
    if (!key) throw new GatewayKernelUsageError(`unknown argument ${JSON.stringify(args[i])}`);
    const value = eq > 0 ? args[i]!.slice(eq + 1) : args[++i];
    if (value === undefined || value === "") throw new GatewayKernelUsageError(`${flag} needs a value`);
    given[key] = value;
  }
  const value = (key: Field): string | undefined => given[key] ?? (ENV[key] ? env[ENV[key]] : undefined);
  const kernelId = required(value("kernelId"), "--kernel-id", "KERNEL_ID");
  if (!/^[A-Za-z0-9-]{1,64}$/.test(kernelId)) throw new GatewayKernelUsageError(`--kernel-id must be EG's kernel id (letters, digits and "-"), not ${JSON.stringify(kernelId)}`);
  const response = responseAddress(required(value("response"), "--response-address", "RESPONSE_ADDRESS"));
  const publicKey = required(value("publicKey"), "--public-key", "PUBLIC_KEY");
  let portRange: PortRange;
  try {
    portRange = parsePortRange(value("portRange") ?? "0..0");
  } catch (error) {
    throw new GatewayKernelUsageError(error instanceof PortRangeError ? error.message : String(error));
  }
  return { kernelId, response, publicKey, portRange, ip: value("ip") ?? "0.0.0.0" };
}

/** Picks `count` distinct free ports (free-ports.ts); a parameter so a test can hand the kernel a port it holds. */
export type PickPorts = (count: number, options: FreePortOptions) => Promise<number[]>;

/** Picks of ports inside a range before giving up, each after a port was taken before the kernel bound it. */
export const PORT_PICKS = 10;

/**
 * `deskbook gateway-kernel …`: 2 for usage errors, 1 when the kernel cannot start or reach the
 * gateway, PORT_IN_USE_EXIT_CODE when every pick of ports in the range lost one; otherwise it
 * runs until shut down.
 */
export async function runGatewayKernel(args: string[], env: NodeJS.ProcessEnv = process.env, pickPorts: PickPorts = freePorts): Promise<number> {
  let options: GatewayKernelOptions;
  try {
    options = parseGatewayKernelArgs(args, env);
  } catch (error) {
    if (!(error instanceof GatewayKernelUsageError)) throw error;
    process.stderr.write(`deskbook gateway-kernel: ${error.message}\n\n${GATEWAY_KERNEL_USAGE}`);
    return 2;
  }
  const log = (line: string) => process.stderr.write(`[deskbook] ${line}\n`);
  // Holds the connection file; removed however the process ends, but a SIGKILL (scratch-dir.ts).
  const dir = scratchDir("deskbook-gateway-kernel-");
  try {
    const at = { range: options.portRange, host: options.ip };
    // The comm port first: it stays ours from here on, and a wrong --ip fails here, said plainly.
    const comm = await listenOnFreePort(at);
    const served = await serveOnFreePorts(options, join(dir, `kernel-${options.kernelId}.json`), pickPorts, log);
    if (typeof served === "number") return served;
    const info = served.connection;
    serveCommRequests({ server: comm, signal: (signum) => process.kill(process.pid, signum), log });
    const payload = encryptConnectionInfo({ ...info, kernel_id: options.kernelId, comm_port: portOf(comm), pid: process.pid, ...pgid() }, options.publicKey);
    await send(options.response, payload);
    log(`connection info sent to the gateway at ${options.response.host}:${options.response.port}`);
  } catch (error) {
    if (!(error instanceof PublicKeyError || error instanceof NoFreePortError || error instanceof PortListenError || error instanceof GatewayUnreachableError)) throw error;
    process.stderr.write(`deskbook gateway-kernel: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  return new Promise<number>(() => undefined);
}

/**
 * Starts the kernel and resolves once its sockets are bound, with the ports they are bound to.
 * Any port (0..0): the connection file asks for port 0 and the OS picks each port as the socket
 * binds, so none can be taken first. Inside a range: picked ports, picked again (up to
 * PORT_PICKS times) when another process took one before the kernel bound it. Only the bind is
 * tried again: the kernel's desktop and executor are prepared once. The file (named after EG's
 * kernel id, so a per-kernel desktop's directory carries it) ends up with the ports bound.
 */
async function serveOnFreePorts(options: GatewayKernelOptions, file: string, pickPorts: PickPorts, log: (line: string) => void): Promise<number | ServedKernel> {
  const anyPort = options.portRange.upper === 0;
  const key = randomUUID();
  const range = `${options.portRange.lower}..${options.portRange.upper}`;
  const pickConnection = async (): Promise<ConnectionInfo> => {
    const [shell, iopub, stdin, control, hb] = anyPort ? [0, 0, 0, 0, 0] : await pickPorts(5, { range: options.portRange, host: options.ip });
    const info: ConnectionInfo = { transport: "tcp", ip: options.ip, shell_port: shell!, iopub_port: iopub!, stdin_port: stdin!, control_port: control!, hb_port: hb!, key, signature_scheme: "hmac-sha256", kernel_name: "deskbook" };
    writeFileSync(file, JSON.stringify(info, null, 2), { mode: 0o600 });
    return info;
  };
  let pick = 1;
  const rebind = async (error: PortInUseError): Promise<ConnectionInfo | undefined> => {
    if (pick === PORT_PICKS) {
      process.stderr.write(`deskbook gateway-kernel: another process took one of the picked ports in ${range} before the kernel bound it, ${PORT_PICKS} times: the range is too busy; give EG a wider one (EG_PORT_RANGE)\n`);
      return undefined;
    }
    pick += 1;
    log(`${error.message}: a port picked in ${range} was taken before the kernel bound it; picking again (${pick} of ${PORT_PICKS})`);
    return pickConnection();
  };
  await pickConnection();
  // With port 0 no port can be taken first: a PortInUseError there is not a lost pick.
  // serveKernel writes the ports it bound back into the file.
  return serveKernel(file, anyPort ? {} : { rebind });
}

function required(value: string | undefined, flag: string, envName: string): string {
  if (value === undefined || value.trim() === "") throw new GatewayKernelUsageError(`${flag} (or ${envName}) is required`);
  return value.trim();
}

function responseAddress(text: string): { host: string; port: number } {
  const colon = text.lastIndexOf(":");
  const port = Number(text.slice(colon + 1));
  const host = text.slice(0, colon).replace(/^\[(.*)\]$/, "$1");
  if (colon <= 0 || !host || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new GatewayKernelUsageError(`--response-address must be HOST:PORT, not ${JSON.stringify(text)}`);
  }
  return { host, port };
}

/** The process group, from /proc (Node has no getpgid); EG signals it when the kernel runs on its own host. */
function pgid(): { pgid?: number } {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const value = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
    return Number.isInteger(value) && value > 0 ? { pgid: value } : {};
  } catch {
    return {};
  }
}

/** One connection, the payload, then close: EG reads until the end of the stream. */
function send(to: { host: string; port: number }, payload: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(to.port, to.host, () => socket.end(payload));
    socket.setTimeout(30_000, () => socket.destroy(new GatewayUnreachableError(`the gateway at ${to.host}:${to.port} did not take the connection info within 30 s`)));
    socket.once("close", (hadError) => (hadError ? undefined : resolve()));
    socket.once("error", (error) => reject(error instanceof GatewayUnreachableError ? error : new GatewayUnreachableError(`cannot send the connection info to the gateway at ${to.host}:${to.port}: ${error.message}`)));
  });
}

class GatewayUnreachableError extends Error {
  override readonly name = "GatewayUnreachableError";
}
