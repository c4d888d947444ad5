// Free TCP ports for a kernel's sockets, picked one way for everyone: the client's connection
// files (loopback, any port), the live view, and the gateway kernel (inside Enterprise Gateway's
// port range, on the address it listens on, so a cluster that opens only that range reaches it).
import { createServer, type Server } from "node:net";

/** Ports from `lower` to `upper`; 0..0 (EG's default) is any port the OS hands out. */
export interface PortRange {
  lower: number;
  upper: number;
}

export const ANY_PORT: PortRange = { lower: 0, upper: 0 };

export interface FreePortOptions {
  /** Default ANY_PORT. */
  range?: PortRange;
  /** The address to listen on. Default 127.0.0.1. */
  host?: string;
}

export class NoFreePortError extends Error {
  override readonly name = "NoFreePortError";
}

/** Tries at random ports of a range before giving up: a busy range is the machine's problem to report. */
const ATTEMPTS = 50;

/**
 * Distinct free ports: all listeners stay open until every port is known, so the OS cannot
 * hand out the same port twice. (Another process can still take one before the kernel binds:
 * the kernel then exits with PORT_IN_USE_EXIT_CODE, and startKernel starts it again on new
 * ports, as jupyter_client's restarter does.)
 */
export async function freePorts(count: number, options: FreePortOptions = {}): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) servers.push(await listenOnFreePort(options));
    return servers.map(portOf);
  } finally {
    await Promise.all(servers.map(closeServer));
  }
}

/** Listens at a free port of the range (any port for 0..0); the caller owns the server. */
export async function listenOnFreePort(options: FreePortOptions = {}): Promise<Server> {
  const { lower, upper } = options.range ?? ANY_PORT;
  const host = options.host ?? "127.0.0.1";
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = upper === 0 ? 0 : lower + Math.floor(Math.random() * (upper - lower + 1));
    const server = await listen(port, host).catch(() => null);
    if (server) return server;
  }
  throw new NoFreePortError(`no free port in ${lower}..${upper} on ${host} after ${ATTEMPTS} tries`);
}

export function portOf(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("unexpected server address");
  return address.port;
}

function listen(port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, host, () => resolve(server));
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
