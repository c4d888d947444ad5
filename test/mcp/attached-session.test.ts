/**
 * Attach mode's close() when the connection to the Jupyter server never opened: a server that
 * answers the REST calls but leaves the kernel's websocket handshake hanging, and one that never
 * answers at all. close() returns, the run waiting for the connection fails with a clear error,
 * and nothing is left connected. (Attach mode against real servers: test/bridge, test/hub,
 * test/gateway.)
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { AttachedSession, SessionClosedError } from "../../src/mcp/attached-session.js";

const KERNEL = "5f0c2d4e-1a2b-4c3d-8e9f-0a1b2c3d4e5f";
const MODEL = { id: KERNEL, name: "deskbook", last_activity: new Date(0).toISOString(), execution_state: "idle", connections: 1 };

interface StuckServer {
  url: string;
  /** Resolves with the socket of the first request the server holds without answering. */
  held: Promise<Socket>;
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  server?.close();
  server = undefined;
});

/** A loopback HTTP server: `hold(request)` says which requests (and websocket upgrades) it never answers. */
async function stuckServer(hold: (request: IncomingMessage) => boolean): Promise<StuckServer> {
  let heldSocket: (socket: Socket) => void = () => undefined;
  const held = new Promise<Socket>((resolve) => (heldSocket = resolve));
  server = createServer((request, response) => {
    if (hold(request)) return heldSocket(request.socket);
    const path = new URL(request.url ?? "/", "http://x").pathname;
    response.setHeader("Content-Type", "application/json");
    if (path === "/api/kernels") return response.end(JSON.stringify([MODEL]));
    if (path === `/api/kernels/${KERNEL}`) return response.end(JSON.stringify(MODEL));
    response.statusCode = 404;
    response.end("{}");
  });
  server.on("upgrade", (request: IncomingMessage, socket: Socket) => {
    if (!hold(request)) return socket.destroy();
    // Read on, so the client's hanging up comes through as 'end'.
    socket.resume();
    heldSocket(socket);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, held };
}

async function closeWhileOpening(stuck: StuckServer): Promise<void> {
  const session = new AttachedSession({ server: stuck.url, token: "t", kernel: KERNEL, clientName: () => "close test" });
  const run = session.run("1 + 1", {});
  const socket = await stuck.held;
  // The server side stays half open (Node's HTTP server allows that): the client's end is what counts.
  const hungUp = once(socket, "end");
  await session.close();
  await expect(run).rejects.toThrow(new SessionClosedError(`the session was closed before its connection to the Jupyter server at ${stuck.url} opened`));
  // Our side hung up: no connection to the server outlives the session.
  await hungUp;
}

describe("AttachedSession.close() before the connection opened", () => {
  it("returns while the kernel's websocket handshake hangs", async () => {
    await closeWhileOpening(await stuckServer((request) => request.headers.upgrade === "websocket"));
  }, 10_000);

  it("returns while the server has not answered for the kernel", async () => {
    await closeWhileOpening(await stuckServer((request) => request.url?.startsWith(`/api/kernels/${KERNEL}`) === true));
  }, 10_000);

  it("returns at once when nothing was ever asked", async () => {
    const session = new AttachedSession({ server: "http://127.0.0.1:9/", token: "t", kernel: KERNEL, clientName: () => "close test" });
    await session.close();
  });
});
