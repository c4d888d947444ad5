// Ports inside Enterprise Gateway's port range ("LOWER..UPPER", "0..0" for any), so a cluster
// that opens only that range between the gateway and its kernels can reach every one of them.
import { createServer, type Server } from "node:net";

export interface PortRange {
  lower: number;
  upper: number;
}

export class PortRangeError extends Error {
  override readonly name = "PortRangeError";
}

const ATTEMPTS = 50;

/** "LOWER..UPPER" → the range; "0..0" (EG's default) means any port. */
export function parsePortRange(text: string): PortRange {
  const match = /^(\d+)\.\.(\d+)$/.exec(text.trim());
  const lower = Number(match?.[1]);
  const upper = Number(match?.[2]);
  const any = lower === 0 && upper === 0;
  if (!match || (!any && (lower < 1024 || upper > 65535 || upper - lower < 5))) {
    throw new PortRangeError(`--port-range must be LOWER..UPPER (1024..65535, at least 6 ports) or 0..0, not ${JSON.stringify(text)}`);
  }
  return { lower, upper };
}

/** Listens on `host` at a free port of the range (any port for 0..0); the caller owns the server. */
export async function listenInRange(range: PortRange, host: string): Promise<Server> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = range.upper === 0 ? 0 : range.lower + Math.floor(Math.random() * (range.upper - range.lower + 1));
    const server = await listen(port, host).catch(() => null);
    if (server) return server;
  }
  throw new PortRangeError(`no free port in ${range.lower}..${range.upper} on ${host} after ${ATTEMPTS} tries`);
}

/** `count` distinct free ports of the range: all held open until every one is known, then released for the kernel. */
export async function freePortsInRange(count: number, range: PortRange, host: string): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) servers.push(await listenInRange(range, host));
    return servers.map(portOf);
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
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
