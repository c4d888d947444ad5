// HelperClient against the scripted helper: a real process on a real socket.
// Needs `npm run build` (npm test does it) for dist/test/fixtures/scripted-helper.js.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HelperClient, type HelperClientOptions } from "../../src/helper/client.js";
import { DeskError } from "../../src/helper/desk-error.js";
import { ERROR_CODES, MAX_LINE_BYTES, PROTOCOL_VERSION, type HelperEvent } from "../../src/helper/protocol.js";
import { RawHelperConnection } from "../fixtures/raw-helper-connection.js";
import { scriptedHelper, startScriptedHelper, type ScriptedHelper } from "../fixtures/start-scripted-helper.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function helper(args: string[] = []): Promise<ScriptedHelper> {
  const started = await startScriptedHelper({ args });
  cleanups.push(() => started.stop());
  return started;
}

async function client(h: ScriptedHelper, options: Partial<HelperClientOptions> = {}): Promise<HelperClient> {
  const c = await HelperClient.connect({ socketPath: h.socketPath, clientName: "client-test", launch: h.launch, ...options });
  cleanups.push(() => c.close());
  return c;
}

async function raw(h: ScriptedHelper): Promise<RawHelperConnection> {
  const r = await RawHelperConnection.open(h.socketPath);
  cleanups.push(() => r.close());
  return r;
}

/** The DeskError a promise rejects with (fails the test if it resolves or throws something else). */
async function deskError(promise: Promise<unknown>): Promise<DeskError> {
  const error = await promise.then(
    (value) => new Error(`expected a DeskError, got ${JSON.stringify(value)}`),
    (e: unknown) => e,
  );
  if (!(error instanceof DeskError)) throw error;
  return error;
}

describe("connect", () => {
  it("says hello and reports the helper", async () => {
    const h = await helper();
    const c = await client(h);
    expect(c.helper).toMatchObject({ protocol: PROTOCOL_VERSION, platform: "linux", version: expect.any(String) });
    expect(c.helper.pid).toBe(h.process!.pid);
    expect(c.connected).toBe(true);
    await expect(c.request("ping", {})).resolves.toMatchObject({ platform: "linux", background: {} });
  });

  it("launches the helper when nothing listens", async () => {
    const h = await scriptedHelper();
    cleanups.push(() => h.stop());
    const c = await client(h);
    expect(h.launches).toBe(1);
    await expect(c.request("isActive", { pid: 4242 })).resolves.toEqual({ active: false });
  });

  it("launches the helper when the listener it reached dies during the connect", async () => {
    const h = await scriptedHelper();
    cleanups.push(() => h.stop());
    // A listener that closes while the connect sits in its backlog: the connect fails with
    // ECONNRESET, as when the helper is killed at that moment.
    const dying = createServer();
    await new Promise<void>((resolve) => dying.listen(h.socketPath, resolve));
    const connecting = HelperClient.connect({ socketPath: h.socketPath, clientName: "t", launch: h.launch });
    dying.close();
    const c = await connecting;
    cleanups.push(() => c.close());
    expect(h.launches).toBe(1);
    await expect(c.request("isActive", { pid: 4242 })).resolves.toEqual({ active: false });
  });

  it("gives up after connectTimeoutMs when nothing listens and nothing launches", async () => {
    const h = await scriptedHelper();
    cleanups.push(() => h.stop());
    const started = Date.now();
    const error = await deskError(HelperClient.connect({ socketPath: h.socketPath, clientName: "t", connectTimeoutMs: 300 }));
    expect(error.code).toBe("failed");
    expect(error.message).toMatch(/no helper answered at .*helper\.sock within 300 ms/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("reports a launch function that throws", async () => {
    const h = await scriptedHelper();
    cleanups.push(() => h.stop());
    const launch = (): void => {
      throw new Error("no binary");
    };
    const error = await deskError(HelperClient.connect({ socketPath: h.socketPath, clientName: "t", launch }));
    expect(error.message).toBe("failed: could not launch the helper: no binary");
  });

  it("refuses a helper that speaks another protocol, naming both versions", async () => {
    const h = await helper(["--protocol", "2"]);
    const error = await deskError(HelperClient.connect({ socketPath: h.socketPath, clientName: "t" }));
    expect(error.code).toBe("bad_request");
    expect(error.method).toBe("hello");
    expect(error.message).toContain("protocol 2");
    expect(error.message).toContain("protocol 1");
  });

  it("reports a helper that turns the connection away (another user's process) with its reason", async () => {
    const dir = await mkdtemp(join(tmpdir(), "dbk-refuse-"));
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.end(`${JSON.stringify({ id: null, error: { code: "permission", message: "this helper refuses the connection: uid 1001" } })}\n`);
    });
    await new Promise<void>((resolve) => server.listen(join(dir, "helper.sock"), resolve));
    cleanups.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    });
    const error = await deskError(HelperClient.connect({ socketPath: join(dir, "helper.sock"), clientName: "t" }));
    expect(error.code).toBe("permission");
    expect(error.message).toContain("uid 1001");
    expect(sockets.size).toBe(1);
  });

  it("refuses a socket path too long for a Unix socket", async () => {
    const error = await deskError(HelperClient.connect({ socketPath: `/tmp/${"x".repeat(120)}.sock`, clientName: "t" }));
    expect(error.message).toMatch(/DESKBOOK_SOCKET/);
  });
});

describe("requests", () => {
  it("surfaces every error code as a DeskError with that code", async () => {
    const h = await helper();
    const c = await client(h);
    const r = await raw(h);
    for (const code of ERROR_CODES) {
      await r.script({ op: "fail", method: "ping", code, message: `scripted ${code} for ping` });
      const error = await deskError(c.request("ping", {}));
      expect(error).toMatchObject({ name: "DeskError", code, method: "ping", message: `${code}: scripted ${code} for ping` });
    }
  });

  it("passes on the helper's own refusals", async () => {
    const h = await helper();
    const c = await client(h);
    const error = await deskError(c.request("windows", { pid: 6161 }));
    expect(error.code).toBe("blocked");
    expect(error.message).toMatch(/^blocked: Terminal is blocked/);
  });

  it("validates params before sending anything", async () => {
    const h = await helper();
    const c = await client(h);
    const r = await raw(h);
    await r.script({ op: "fail", method: "click", code: "action_failed" });
    const bad = await deskError(c.request("click", { pid: 4242, x: 1 } as never));
    expect(bad).toMatchObject({ code: "bad_request", method: "click", message: "bad_request: click params: missing `y`" });
    const unknown = await deskError(c.request("nope" as never, {} as never));
    expect(unknown.code).toBe("bad_request");
    // The scripted failure is still armed: the invalid click never reached the helper.
    expect((await deskError(c.request("click", { pid: 4242, x: 1, y: 2 }))).code).toBe("action_failed");
  });

  it("times out a slow call and ignores its late reply", async () => {
    const h = await helper();
    const c = await client(h);
    const r = await raw(h);
    await r.script({ op: "delay", method: "ping", ms: 400 });
    const error = await deskError(c.request("ping", {}, { timeoutMs: 100 }));
    expect(error.message).toBe("failed: the helper did not answer ping within 100 ms");
    await new Promise((resolve) => setTimeout(resolve, 500));
    await expect(c.request("isActive", { pid: 4242 })).resolves.toEqual({ active: false });
  });

  it("uses the client's default timeout", async () => {
    const h = await helper();
    const c = await client(h, { requestTimeoutMs: 80 });
    const r = await raw(h);
    await r.script({ op: "delay", method: "listApps", ms: 300 });
    expect((await deskError(c.request("listApps", {}))).message).toBe("failed: the helper did not answer listApps within 80 ms");
  });

  it("gives a gated call time for an approval dialog, longer than the default", async () => {
    const h = await helper();
    const c = await client(h, { requestTimeoutMs: 80 });
    const r = await raw(h);
    // windows names a pid, so it is gated: the 80 ms default does not cut it short.
    await r.script({ op: "delay", method: "windows", ms: 300 });
    expect(await c.request("windows", { pid: 4242 })).toHaveLength(1);
  });

  it("matches replies to calls by id when they come back out of order", async () => {
    const h = await helper();
    const c = await client(h);
    const r = await raw(h);
    await r.script({ op: "delay", method: "windows", ms: 200 });
    const slow = c.request("windows", { pid: 4242 });
    const fast = c.request("isActive", { pid: 4242 });
    await expect(fast).resolves.toEqual({ active: false });
    await expect(slow).resolves.toMatchObject([{ title: "Calculator" }]);
  });

  it("fails a reply that breaks the schema, naming the method and the complaint", async () => {
    const h = await helper();
    const c = await client(h);
    const r = await raw(h);
    await r.script({ op: "reply", method: "ping", line: '{"id":$ID,"result":{"version":"x"}}' });
    const error = await deskError(c.request("ping", {}));
    expect(error.code).toBe("failed");
    expect(error.message).toBe("failed: the helper's reply to ping breaks the protocol: ping result: missing `platform`");
    await r.script({ op: "reply", method: "ping", line: '{"id":$ID,"error":{"code":"teapot","message":"x"}}' });
    expect((await deskError(c.request("ping", {}))).message).toMatch(/reply to ping breaks the protocol: reply: error\.code must be one of/);
  });

  it("ignores a reply whose id matches nothing", async () => {
    const h = await helper();
    const c = await client(h);
    const r = await raw(h);
    const ping = '{"version":"v","platform":"linux","pid":1,"background":{}}';
    await r.script({ op: "reply", method: "ping", line: `{"id":999999,"result":{}}\n{"id":$ID,"result":${ping}}` });
    await expect(c.request("ping", {})).resolves.toEqual(JSON.parse(ping));
  });

  it("reads replies split into one-byte chunks, UTF-8 included", async () => {
    const h = await helper();
    const c = await client(h);
    const r = await raw(h);
    await c.request("axTree", { pid: 5151 });
    await c.request("setValue", { pid: 5151, index: 4, value: "6 × 7 = 42 ✓" });
    await r.script({ op: "split", method: "axTree", bytes: 1, delayMs: 0 });
    const tree = await c.request("axTree", { pid: 5151 });
    expect(tree.nodes.find((n) => n.i === 4)?.value).toBe("6 × 7 = 42 ✓");
  });

  it("sends the step along (it ends up in actions.log)", async () => {
    const h = await helper();
    const c = await client(h);
    await c.request("activate", { pid: 4242 }, { step: "bring the calculator forward" });
    // No log file was asked for; the request still had to be accepted with `step` in it.
    await expect(c.request("isActive", { pid: 4242 })).resolves.toEqual({ active: true });
  });
});

describe("a helper that breaks or goes away", () => {
  it("fails every pending call at once when the helper dies, then relaunches on the next call", async () => {
    const h = await helper();
    // The delayed reply and the request timeout both lie past vitest's test timeout, so the
    // pending call can only end by the helper's death: no clock is needed to prove "at once".
    const c = await client(h, { requestTimeoutMs: 600_000 });
    const r = await raw(h);
    const firstPid = c.helper.pid;
    await r.script({ op: "delay", method: "listApps", ms: 600_000 });
    await r.script({ op: "exit", method: "windows" });
    const pending = c.request("listApps", {});
    const dying = c.request("windows", { pid: 4242 });
    const [e1, e2] = await Promise.all([deskError(pending), deskError(dying)]);
    expect(e1.message).toBe("failed: the helper closed the connection during listApps");
    expect(e2.message).toBe("failed: the helper closed the connection during windows");
    expect(c.connected).toBe(false);

    await expect(c.request("isActive", { pid: 4242 })).resolves.toEqual({ active: false });
    expect(h.launches).toBe(2);
    expect(c.helper.pid).not.toBe(firstPid);
  });

  it("drops the connection on a line over the limit, failing pending calls, and reconnects", async () => {
    const h = await helper();
    const c = await client(h);
    const r = await raw(h);
    await r.script({ op: "oversize", method: "ping" });
    const error = await deskError(c.request("ping", {}));
    expect(error.message).toBe(`failed: the helper sent a line over the ${MAX_LINE_BYTES}-byte limit during ping`);
    await expect(c.request("ping", {})).resolves.toMatchObject({ platform: "linux" });
    expect(h.launches).toBe(1);
  });

  it("drops the connection on a line that is not JSON", async () => {
    const h = await helper();
    const c = await client(h);
    const r = await raw(h);
    await r.script({ op: "reply", method: "ping", line: "<html>nope</html>" });
    expect((await deskError(c.request("ping", {}))).message).toBe("failed: the helper sent a line that is not JSON during ping");
    await expect(c.request("ping", {})).resolves.toMatchObject({ platform: "linux" });
  });

  it("fails pending calls when closed, and refuses calls afterwards", async () => {
    const h = await helper();
    const c = await client(h);
    const r = await raw(h);
    await r.script({ op: "delay", method: "ping", ms: 2000 });
    const pending = deskError(c.request("ping", {}));
    await c.close();
    expect((await pending).message).toBe("failed: the helper client was closed during ping");
    expect((await deskError(c.request("ping", {}))).message).toBe("failed: the helper client is closed");
  });
});

describe("events", () => {
  it("delivers escape to every subscriber of every client, until they unsubscribe", async () => {
    const h = await helper();
    const c1 = await client(h);
    const c2 = await client(h);
    const r = await raw(h);
    const seen: string[] = [];
    const off1 = c1.onEvent((e) => seen.push(`c1a:${e.event}`));
    c1.onEvent((e) => seen.push(`c1b:${e.event}`));
    c2.onEvent((e) => seen.push(`c2:${e.event}`));
    await r.script({ op: "escape" });
    await until(() => seen.length === 3);
    expect(seen.sort()).toEqual(["c1a:escape", "c1b:escape", "c2:escape"]);

    off1();
    seen.length = 0;
    await r.script({ op: "escape", afterMs: 20 });
    await until(() => seen.length === 2);
    await c1.request("ping", {});
    expect(seen.sort()).toEqual(["c1b:escape", "c2:escape"]);
  });

  it("keeps subscribers across a relaunch", async () => {
    const h = await helper();
    const c = await client(h);
    const events: HelperEvent[] = [];
    c.onEvent((e) => events.push(e));
    const r1 = await raw(h);
    await r1.script({ op: "exit", method: "ping" });
    await deskError(c.request("ping", {}));
    await c.request("ping", {});
    const r2 = await raw(h);
    await r2.script({ op: "escape" });
    await until(() => events.length === 1);
    expect(events).toEqual([{ event: "escape" }]);
  });

  it("survives a listener that throws", async () => {
    const h = await helper();
    const c = await client(h);
    const r = await raw(h);
    const seen: HelperEvent[] = [];
    c.onEvent(() => {
      throw new Error("listener bug");
    });
    c.onEvent((e) => seen.push(e));
    await r.script({ op: "escape" });
    await until(() => seen.length === 1);
    await expect(c.request("ping", {})).resolves.toBeTruthy();
  });
});

async function until(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
