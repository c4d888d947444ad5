/**
 * Picking free ports for a kernel's sockets: distinct, released for the kernel to bind, inside
 * a range when one is given (Enterprise Gateway's), and a clear error when the range is full.
 */
import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { freePorts, listenOnFreePort, NoFreePortError, PortListenError, portOf } from "../../src/client/free-ports.js";
import { portsBelowEphemeral } from "../support/below-ephemeral.js";

const held: Server[] = [];
afterEach(async () => {
  await Promise.all(held.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

function listen(port: number): Promise<Server | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(null));
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

/**
 * Holds `count` consecutive loopback ports (the first run found free) and returns the first.
 * They lie below the OS's ephemeral range, so a port the test frees again cannot be handed
 * meanwhile to another process's connect() or port-0 listen (test/support/below-ephemeral.ts).
 */
async function holdConsecutive(count: number): Promise<number> {
  const span = portsBelowEphemeral(1000);
  for (let lower = span.lower; lower + count - 1 <= span.upper; lower += count) {
    const servers = await Promise.all(Array.from({ length: count }, (_, i) => listen(lower + i)));
    const got = servers.filter((s): s is Server => s !== null);
    held.push(...got);
    if (got.length === count) return lower;
  }
  throw new Error(`no run of free ports to hold in ${span.lower}..${span.upper}`);
}

describe("freePorts", () => {
  it("gives distinct loopback ports, each free again for the kernel to bind", async () => {
    const ports = await freePorts(5);
    expect(new Set(ports).size).toBe(5);
    for (const port of ports) {
      const server = await listen(port);
      expect(server, `port ${port} is still held`).not.toBeNull();
      held.push(server!);
    }
  });

  it("picks distinct free ports inside a range", async () => {
    const ports = await freePorts(6, { range: { lower: 45000, upper: 45200 }, host: "127.0.0.1" });
    expect(new Set(ports).size).toBe(6);
    for (const port of ports) expect(port >= 45000 && port <= 45200, String(port)).toBe(true);
  });

  it("says which range is full, and holds nothing after", async () => {
    // Two ports: with one of them freed, 50 random picks all miss it with odds of 2^-50.
    const lower = await holdConsecutive(2);
    const range = { lower, upper: lower + 1 };
    await expect(freePorts(1, { range })).rejects.toThrow(new NoFreePortError(`no free port in ${lower}..${lower + 1} on 127.0.0.1 after 50 tries (EADDRINUSE)`));
    // One port of the range freed: the next pick finds it, and the failed pick left no listener behind.
    await new Promise<void>((resolve) => held.shift()!.close(() => resolve()));
    const [port] = await freePorts(1, { range });
    expect(port).toBe(lower);
  });
});

describe("listenOnFreePort", () => {
  it("returns a listening server the caller owns", async () => {
    const server = await listenOnFreePort({ range: { lower: 45300, upper: 45400 } });
    held.push(server);
    expect(server.listening).toBe(true);
    expect(portOf(server)).toBeGreaterThanOrEqual(45300);
    expect(portOf(server)).toBeLessThanOrEqual(45400);
  });

  it("fails at once, naming the address and the error, on an address that is not this machine's", async () => {
    // 10.255.255.1 is on no interface here: EADDRNOTAVAIL, which no other port can mend.
    for (const range of [undefined, { lower: 45000, upper: 45200 }]) {
      const error = await freePorts(1, { host: "10.255.255.1", range }).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(PortListenError);
      expect((error as Error).message).toMatch(/^cannot listen on 10\.255\.255\.1 (at any port|port \d+): EADDRNOTAVAIL \(the address is not one of this machine's\)$/);
      expect(((error as Error).cause as NodeJS.ErrnoException).code).toBe("EADDRNOTAVAIL");
    }
  });
});
