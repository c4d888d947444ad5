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

/** Listening failed for a reason another port cannot mend (a wrong address, no file descriptors left). */
export class PortListenError extends Error {
  override readonly name = "PortListenError";
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

/**
 * Listens at a free port of the range (any port for 0..0); the caller owns the server. Only a
 * port that is taken (or, inside a range, refused) is worth another pick; port 0 is tried once,
 * since the OS already picked the port. Any other error is thrown at once.
 */
export async function listenOnFreePort(options: FreePortOptions = {}): Promise<Server> {
  const { lower, upper } = options.range ?? ANY_PORT;
  const host = options.host ?? "127.0.0.1";
  const attempts = upper === 0 ? 1 : ATTEMPTS;
  let last: NodeJS.ErrnoException | undefined;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const port = upper === 0 ? 0 : lower + Math.floor(Math.random() * (upper - lower + 1));
    try {
      return await listen(port, host);
    } catch (error) {
      last = error as NodeJS.ErrnoException;
      if (!(last.code === "EADDRINUSE" || (last.code === "EACCES" && upper !== 0))) {
        throw new PortListenError(`cannot listen on ${host} ${port === 0 ? "at any port" : `port ${port}`}: ${last.code ?? last.message}${HINTS[last.code ?? ""] ?? ""}`, { cause: error });
      }
    }
  }
  const tries = attempts === 1 ? "1 try" : `${attempts} tries`;
  throw new NoFreePortError(`no free port in ${lower}..${upper} on ${host} after ${tries} (${last?.code})`, { cause: last });
}

/** What a user can do about the errors a wrong flag or a full machine gives. */
const HINTS: Record<string, string> = {
  EADDRNOTAVAIL: " (the address is not one of this machine's)",
  EMFILE: " (this process has no file descriptors left)",
  EACCES: " (not allowed to listen there)",
};

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
