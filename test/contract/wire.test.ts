// The contract's transport: hello, ping, permissions, and how a helper treats lines that are not
// good requests (docs/backend-protocol.md, "Transport" and "Messages").
import { describe, expect, it } from "vitest";
import { MAX_LINE_BYTES, PROTOCOL_VERSION } from "../../src/helper/protocol.js";
import type { RawReply } from "../fixtures/raw-helper-connection.js";
import { announceSkip, CLIENT_NAME, profile, useHelper, within } from "./harness.js";

const skip = announceSkip("test/contract/wire.test.ts");

describe.skipIf(skip)("helper contract: the wire", () => {
  const session = useHelper();

  /** A request line of exactly `bytes` bytes (newline not counted), padded through `step`. */
  const paddedPing = (id: number, bytes: number): string => {
    const bare = JSON.stringify({ id, method: "ping", params: {}, step: "" });
    return JSON.stringify({ id, method: "ping", params: {}, step: "x".repeat(bytes - Buffer.byteLength(bare)) });
  };

  it("answers hello with its version, the protocol, its platform and pid", () => {
    const hello = session.client.helper;
    expect(hello.protocol).toBe(PROTOCOL_VERSION);
    expect(hello.platform).toBe(profile.platform);
    expect(hello.version).toEqual(expect.any(String));
    expect(Number.isInteger(hello.pid) && hello.pid > 0).toBe(true);
  });

  it("refuses another protocol in hello, naming both versions, and keeps the connection", async () => {
    const raw = await session.raw(false);
    const refused = await within(5000, raw.call("hello", { client: CLIENT_NAME, protocol: PROTOCOL_VERSION + 1 }), "hello");
    expect(refused.error?.code).toBe("bad_request");
    expect(refused.error?.message).toContain(String(PROTOCOL_VERSION));
    expect(refused.error?.message).toContain(String(PROTOCOL_VERSION + 1));
    const accepted = await within(5000, raw.call("hello", { client: CLIENT_NAME, protocol: PROTOCOL_VERSION }), "hello");
    expect(accepted.result).toMatchObject({ protocol: PROTOCOL_VERSION });
  });

  it("refuses every method before hello with bad_request, then serves hello on the same connection", async () => {
    const raw = await session.raw(false);
    expect((await within(5000, raw.call("ping"), "ping")).error?.code).toBe("bad_request");
    expect((await within(5000, raw.call("listApps"), "listApps")).error?.code).toBe("bad_request");
    expect((await within(5000, raw.call("hello", { client: CLIENT_NAME, protocol: PROTOCOL_VERSION }), "hello")).result).toBeDefined();
    expect((await within(5000, raw.call("ping"), "ping")).result).toBeDefined();
  });

  it("answers ping with its version, platform, pid and background functions", async () => {
    // HelperClient has already checked the shape against the schema.
    const ping = await session.call("ping", {});
    expect(ping).toMatchObject({ platform: profile.platform, pid: session.client.helper.pid, version: session.client.helper.version });
    expect(typeof ping.background).toBe("object");
  });

  it("answers permissions, and has what this suite needs", async () => {
    const permissions = await session.call("permissions", {});
    for (const key of ["accessibility", "screenRecording", "escapeWatcher", "inputMonitoring"] as const) {
      expect(typeof permissions[key], key).toBe("boolean");
    }
    expect(permissions, "the helper lacks a grant the other tests need").toMatchObject({ accessibility: true, screenRecording: true });
  });

  it("takes one permission's name as prompt, and refuses an unknown one", async () => {
    // Everything this suite needs is granted already, so no prompt appears.
    expect(await session.call("permissions", { prompt: "accessibility" })).toMatchObject({ accessibility: true });
    await expect(session.call("permissions", { prompt: "microphone" } as never)).rejects.toMatchObject({ code: "bad_request" });
  });

  it("answers a line that is not JSON with bad_request and id null, then serves the next line", async () => {
    const raw = await session.raw();
    raw.sendRaw('{"id": 5, "method": "ping"\n');
    expect(await within(5000, raw.next(), "a line that is not JSON")).toMatchObject({ id: null, error: { code: "bad_request" } });
    raw.sendRaw("not json at all\n");
    expect(await within(5000, raw.next(), "a line that is not JSON")).toMatchObject({ id: null, error: { code: "bad_request" } });
    expect((await within(5000, raw.call("ping"), "ping")).result).toBeDefined();
  });

  it("answers JSON that is not a request with bad_request, with the id when it can read one", async () => {
    const raw = await session.raw();
    const cases: [string, number | string | null][] = [
      ["[1, 2, 3]", null],
      ['"ping"', null],
      ['{"method": "ping"}', null],
      ['{"id": 41, "params": {}}', 41],
      ['{"id": "forty-two", "method": 7}', "forty-two"],
      ['{"id": 43, "method": "ping", "params": [1]}', 43],
    ];
    for (const [line, id] of cases) {
      raw.sendRaw(`${line}\n`);
      const reply = (await within(5000, raw.next(), line)) as RawReply;
      expect(reply, line).toMatchObject({ id, error: { code: "bad_request" } });
      expect(reply.result, line).toBeUndefined();
    }
    expect((await within(5000, raw.call("ping"), "ping")).result).toBeDefined();
  });

  it("answers an unknown method with bad_request naming it, and keeps serving", async () => {
    const raw = await session.raw();
    const reply = await within(5000, raw.call("frobnicate", {}), "frobnicate");
    expect(reply.error?.code).toBe("bad_request");
    expect(reply.error?.message).toContain("frobnicate");
    expect((await within(5000, raw.call("ping"), "ping")).result).toBeDefined();
  });

  it("answers invalid params with bad_request naming the field", async () => {
    const raw = await session.raw();
    const cases: [string, unknown, string][] = [
      // Params are closed: an unknown field is refused.
      ["ping", { bogus: true }, "bogus"],
      ["resolveApp", {}, "query"],
      ["windows", { pid: "one" }, "pid"],
      ["keys", { pid: 1, chords: [{ key: "a", mods: ["hyper"] }] }, "mods"],
      ["screenshot", { pid: 1, windowId: 1, width: 0, height: 10 }, "width"],
    ];
    for (const [method, params, field] of cases) {
      const reply = await within(5000, raw.call(method, params), method);
      expect(reply.error?.code, `${method} ${JSON.stringify(params)}`).toBe("bad_request");
      expect(reply.error?.message, `${method} ${JSON.stringify(params)}`).toContain(field);
    }
    expect((await within(5000, raw.call("ping"), "ping")).result).toBeDefined();
  });

  it("ignores blank lines", async () => {
    const raw = await session.raw();
    raw.sendRaw(`\n\n${JSON.stringify({ id: 77, method: "ping", params: {} })}\n\n`);
    expect(await within(5000, raw.next(), "ping after blank lines")).toMatchObject({ id: 77, result: {} });
  });

  it("takes string ids and answers requests sent together, each under its own id", async () => {
    const raw = await session.raw();
    const ids = ["a", 2, "c-3", 4, "five"];
    raw.sendRaw(ids.map((id, k) => `${JSON.stringify({ id, method: k % 2 ? "permissions" : "ping", params: {} })}\n`).join(""));
    const replies: RawReply[] = [];
    for (const _ of ids) replies.push((await within(5000, raw.next(), "replies")) as RawReply);
    expect(replies.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(replies.every((r) => r.result !== undefined)).toBe(true);
  });

  it("serves a line of exactly 16 MiB", async () => {
    const raw = await session.raw();
    const line = paddedPing(90, MAX_LINE_BYTES);
    expect(Buffer.byteLength(line)).toBe(MAX_LINE_BYTES);
    raw.sendRaw(`${line}\n`);
    expect(await within(20_000, raw.next(), "a 16 MiB ping")).toMatchObject({ id: 90, result: { pid: session.client.helper.pid } });
  }, 30_000);

  // The protocol lets a helper either skip the over-long line and go on, or close that
  // connection; either way it answers first, and the helper and its other clients live on.
  it("refuses a line over 16 MiB with bad_request and id null, and only that line or connection", async () => {
    const raw = await session.raw();
    raw.sendRaw(`${paddedPing(91, MAX_LINE_BYTES + 1)}\n`);
    expect(await within(20_000, raw.next(), "an over-long line")).toMatchObject({ id: null, error: { code: "bad_request" } });
    if (!raw.closed) {
      raw.sendRaw(`${JSON.stringify({ id: 92, method: "ping", params: {} })}\n`);
      const next = await within(5000, raw.next(), "the next line, or the connection to close");
      if (next !== null) expect(next).toMatchObject({ id: 92, result: { pid: session.client.helper.pid } });
    }
    // The helper itself lives on: the session's connection and a new one are served.
    expect(await session.call("ping", {})).toMatchObject({ pid: session.client.helper.pid });
    const fresh = await session.raw();
    expect((await within(5000, fresh.call("ping"), "ping")).result).toBeDefined();
  }, 30_000);
});
