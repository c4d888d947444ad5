// A handler's result that JSON cannot carry (a BigInt, a cycle) must still get a reply: a coded
// `failed` error for that call, with the connection and the server going on. The server is the
// helper's own (helper/linux/server.ts), in this process, over a real Unix socket.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HelperServer } from "../../helper/linux/server.js";
import { PROTOCOL_VERSION } from "../../src/helper/protocol.js";
import { RawHelperConnection } from "../fixtures/raw-helper-connection.js";

const cyclic: Record<string, unknown> = { name: "loop" };
cyclic.self = cyclic;
/** What each method answers: listApps a BigInt, permissions a cycle, ping plain JSON. */
const RESULTS: Record<string, unknown> = { listApps: { pid: 10n }, permissions: cyclic, ping: { platform: "linux" } };

describe("a result that cannot be sent as JSON", () => {
  let dir: string;
  let server: HelperServer;
  let raw: RawHelperConnection;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "deskbook-unencodable-"));
    server = new HelperServer({ call: async (_session, request) => RESULTS[request.method] }, { identity: { version: "test", platform: "linux", protocol: PROTOCOL_VERSION } });
    await server.listen(join(dir, "helper.sock"));
    raw = await RawHelperConnection.open(join(dir, "helper.sock"));
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ["listApps", /^the result of listApps could not be sent as JSON \(.*BigInt/],
    ["permissions", /^the result of permissions could not be sent as JSON \(.*circular/i],
  ])("%s answers failed, and the connection serves the next call", async (method, message) => {
    const reply = await raw.call(method);
    expect(reply.error).toMatchObject({ code: "failed", message: expect.stringMatching(message) });
    expect((await raw.call("ping")).result).toEqual({ platform: "linux" });
    expect(raw.closed).toBe(false);
  });
});
