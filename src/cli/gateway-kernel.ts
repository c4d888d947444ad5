// `deskbook gateway-kernel`: a kernel that Jupyter Enterprise Gateway starts away from itself
// (a Kubernetes pod, another host) and that tells the gateway where to reach it, as EG's own
// kernel launchers do: it picks its ports (inside EG's port range), starts the kernel on them,
// sends the connection info encrypted to EG's response address, and listens on a comm port for
// EG's signal and shutdown requests. The kernel runs in this process, so a signal EG asks for
// goes to it directly.
import { randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import type { ConnectionInfo } from "../jupyter/connection.js";
import { serveCommRequests } from "../gateway/comm-listener.js";
import { encryptConnectionInfo, PublicKeyError } from "../gateway/connection-payload.js";
import { freePorts, listenOnFreePort, NoFreePortError, PortListenError, portOf } from "../client/free-ports.js";
import { parsePortRange, PortRangeError, type PortRange } from "../gateway/port-range.js";
import { serveKernel } from "./kernel.js";
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

/** `deskbook gateway-kernel …`: 2 for usage errors, 1 when the kernel cannot start or reach the gateway; otherwise it runs until shut down. */
export async function runGatewayKernel(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
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
    const [shell, iopub, stdin, control, hb] = await freePorts(5, at);
    const comm = await listenOnFreePort(at);
    const info: ConnectionInfo = { transport: "tcp", ip: options.ip, shell_port: shell!, iopub_port: iopub!, stdin_port: stdin!, control_port: control!, hb_port: hb!, key: randomUUID(), signature_scheme: "hmac-sha256", kernel_name: "deskbook" };
    // Named after EG's kernel id, so a per-kernel desktop's directory carries its start.
    const file = join(dir, `kernel-${options.kernelId}.json`);
    writeFileSync(file, JSON.stringify(info, null, 2), { mode: 0o600 });
    const failed = await serveKernel(file);
    if (failed !== undefined) return failed;
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
