/**
 * Attach mode's close() when the connection to the Jupyter server never opened: a server that
 * answers the REST calls but leaves the kernel's websocket handshake hanging, and one that never
 * answers at all. close() returns, the run waiting for the connection fails with a clear error,
 * and nothing is left connected. The same servers for the deadline on opening: the run fails
 * with attach_timeout naming what did not answer, nothing of the attempt is left, and the next
 * run tries again. (Attach mode against real servers: test/mcp/attach-deadline.test.ts,
 * test/bridge, test/hub, test/gateway.)
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { AttachCancelledError, AttachedSession, AttachTimeoutError, SessionClosedError } from "../../src/mcp/attached-session.js";
import { REPO_ROOT } from "../support/kernel-process.js";

const KERNEL = "5f0c2d4e-1a2b-4c3d-8e9f-0a1b2c3d4e5f";
const MODEL = { id: KERNEL, name: "deskbook", last_activity: new Date(0).toISOString(), execution_state: "idle", connections: 1 };

interface StuckServer {
  url: string;
  /** Resolves with the socket of the first request the server holds without answering. */
  held: Promise<Socket>;
}

let server: Server | undefined;
/** Every socket the server accepted, upgrades included (closeAllConnections leaves those). */
const accepted = new Set<Socket>();
afterEach(stopServer);

async function stopServer(): Promise<void> {
  if (!server) return;
  const closed = once(server, "close");
  server.close();
  for (const socket of accepted) socket.destroy();
  accepted.clear();
  server = undefined;
  await closed;
}

/** A loopback HTTP server: `hold(request)` says which requests (and websocket upgrades) it never answers. */
async function stuckServer(hold: (request: IncomingMessage) => boolean, onHeld?: (socket: Socket) => void): Promise<StuckServer> {
  let resolveHeld: (socket: Socket) => void = () => undefined;
  const held = new Promise<Socket>((resolve) => (resolveHeld = resolve));
  const heldSocket = (socket: Socket) => {
    onHeld?.(socket);
    resolveHeld(socket);
  };
  server = createServer((request, response) => {
    if (hold(request)) return heldSocket(request.socket);
    const path = new URL(request.url ?? "/", "http://x").pathname;
    response.setHeader("Content-Type", "application/json");
    if (path === "/api/kernels") return response.end(JSON.stringify([MODEL]));
    if (path === `/api/kernels/${KERNEL}`) return response.end(JSON.stringify(MODEL));
    response.statusCode = 404;
    response.end("{}");
  });
  server.on("connection", (socket: Socket) => {
    accepted.add(socket);
    socket.once("close", () => accepted.delete(socket));
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

/**
 * Runs one call in a Node process of its own against `url` (closing the session after
 * `closeAfterMs`, if given) and waits for that process to end by itself, without
 * process.exit: it only does once no timer of the attempt runs on and no socket of it is open.
 */
async function runAlone(url: string, timeoutMs: number, closeAfterMs?: number): Promise<{ error: { name: string; code?: string }; exitedAfterMs: number }> {
  const script = `
    import { AttachedSession } from ${JSON.stringify(pathToFileURL(join(REPO_ROOT, "dist", "src", "mcp", "attached-session.js")).href)};
    const session = new AttachedSession({ server: ${JSON.stringify(url)}, token: "t", kernel: ${JSON.stringify(KERNEL)}, clientName: () => "alone", timeoutMs: () => ${timeoutMs} });
    const run = session.run("1 + 1", {});
    ${closeAfterMs === undefined ? "" : `setTimeout(() => void session.close(), ${closeAfterMs});`}
    const error = await run.then(() => ({ name: "resolved" }), (e) => ({ name: e.name, code: e.code }));
    process.stdout.write(JSON.stringify(error) + "\\n");
  `;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  let settledAt = 0;
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
    if (out.includes("{") && out.endsWith("\n") && settledAt === 0) settledAt = Date.now();
  });
  const [code] = (await once(child, "exit")) as [number | null];
  expect(code).toBe(0);
  // The last line is the script's; the client library logs before it ("Starting WebSocket: …").
  const last = out.trimEnd().split("\n").pop() ?? "";
  return { error: JSON.parse(last) as { name: string; code?: string }, exitedAfterMs: Date.now() - settledAt };
}

describe("AttachedSession's deadline on opening the connection", () => {
  it("fails a run with attach_timeout naming the websocket, leaves nothing behind, and the next run tries again", async () => {
    const hung: Promise<unknown>[] = [];
    let upgrades = 0;
    const stuck = await stuckServer(
      (request) => request.headers.upgrade === "websocket",
      (socket) => {
        upgrades += 1;
        hung.push(once(socket, "end"));
      },
    );
    const session = new AttachedSession({ server: stuck.url, token: "secret-token", kernel: KERNEL, clientName: () => "deadline test", timeoutMs: () => 400 });
    for (let attempt = 1; attempt <= 2; attempt++) {
      const started = Date.now();
      const error = await session.run("1 + 1", {}).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(390);
      expect(error).toBeInstanceOf(AttachTimeoutError);
      expect((error as AttachTimeoutError).code).toBe("attach_timeout");
      const ws = `${stuck.url.replace(/^http/, "ws")}api/kernels/${KERNEL}/channels`;
      expect((error as Error).message).toBe(
        `attach_timeout: the kernel's websocket at ${ws} did not open within 400 ms: check that kernel ${KERNEL} is still running and that the server, and any proxy in front of it, passes websocket upgrades (mcp.attachTimeoutMs in config.json sets this deadline)`,
      );
      expect((error as Error).message).not.toContain("secret-token");
      // Each attempt opened a websocket of its own, and hung it up.
      expect(upgrades).toBe(attempt);
      await Promise.all(hung);
    }
    await session.close();
  }, 10_000);

  it("names the server when it does not answer for the kernel", async () => {
    const stuck = await stuckServer((request) => request.url?.startsWith(`/api/kernels/${KERNEL}`) === true);
    const session = new AttachedSession({ server: stuck.url, token: "t", kernel: KERNEL, clientName: () => "deadline test", timeoutMs: () => 300 });
    await expect(session.run("1 + 1", {})).rejects.toThrow(
      new AttachTimeoutError(`the Jupyter server at ${stuck.url} did not answer for kernel ${KERNEL} within 300 ms: check that the server is running and reachable at that URL (mcp.attachTimeoutMs in config.json sets this deadline)`),
    );
    // The abandoned request is hung up too.
    await once(await stuck.held, "close");
    await session.close();
  }, 10_000);

  // The server holds the websocket for good: a process that kept it, the deadline's timer or the
  // client library's polls and reconnects would not end in the time allowed here.
  it("leaves nothing running after a timed-out attempt: a process that made it ends by itself", async () => {
    const stuck = await stuckServer((request) => request.headers.upgrade === "websocket");
    const alone = await runAlone(stuck.url, 300);
    expect(alone.error).toEqual({ name: "AttachTimeoutError", code: "attach_timeout" });
    expect(alone.exitedAfterMs).toBeLessThan(5_000);
  }, 20_000);

  it("leaves no deadline running after close(): the process ends long before the deadline", async () => {
    const stuck = await stuckServer((request) => request.headers.upgrade === "websocket");
    const alone = await runAlone(stuck.url, 60_000, 500);
    expect(alone.error).toEqual({ name: "SessionClosedError" });
    expect(alone.exitedAfterMs).toBeLessThan(5_000);
  }, 20_000);
});

describe("AttachedSession: a call cancelled while the connection opens", () => {
  it("fails that run with a coded cancelled error at once, not at the deadline; the opening goes on for the next run", async () => {
    let upgrades = 0;
    const stuck = await stuckServer(
      (request) => request.headers.upgrade === "websocket",
      () => (upgrades += 1),
    );
    // A deadline far past this test's own time limit: only the cancel can end the wait in time.
    const session = new AttachedSession({ server: stuck.url, token: "t", kernel: KERNEL, clientName: () => "cancel test", timeoutMs: () => 60_000 });
    const call = new AbortController();
    const run = session.run("1 + 1", { signal: call.signal });
    const socket = await stuck.held;
    call.abort();
    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AttachCancelledError);
    expect((error as AttachCancelledError).code).toBe("cancelled");
    expect((error as Error).message).toBe(`cancelled: the call was cancelled while the connection to the Jupyter server at ${stuck.url} was still opening; nothing ran in the kernel`);
    // A call already cancelled fails at once too; the one opening is still waiting, untouched.
    await expect(session.run("1 + 1", { signal: call.signal })).rejects.toThrow(AttachCancelledError);
    expect(upgrades).toBe(1);
    expect(socket.destroyed).toBe(false);
    // close() still ends the opening that went on, and the next run would have waited for it.
    const hungUp = once(socket, "end");
    await session.close();
    await hungUp;
  }, 10_000);
});
