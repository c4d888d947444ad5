/**
 * The MCP server in this process (createMcpServer + KernelSession: a real kernel, the SDK's
 * client over an in-memory transport) survives 1 000 calls, bad ones among them, without its
 * heap growing with the calls.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KernelSession } from "../../src/mcp/kernel-session.js";
import { createMcpServer } from "../../src/mcp/server.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

let home: string;
let session: KernelSession;
let client: Client;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "deskbook-mcp-endurance-"));
  session = new KernelSession({ clientName: () => "endurance", env: { DESKBOOK_HOME: home } });
  const server = createMcpServer({ session, maxImageBytes: () => 786_432 });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: "endurance", version: "1" });
  await client.connect(clientSide);
});

afterAll(async () => {
  await client?.close();
  await session?.close();
  await rm(home, { recursive: true, force: true });
});

/** Heap in use after a full collection, in bytes. */
function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe("deskbook mcp under load", () => {
  it("serves 1 000 calls of 10 KB output each, bad arguments among them, with flat memory", async () => {
    // Each call prints 10 KB: kept messages would add about 10 MB over the run.
    const call = async (n: number) => {
      if (n % 50 === 0) {
        const bad = await client.callTool({ name: "js", arguments: { code: n } }).then(() => "accepted", (e: Error) => e.message);
        expect(bad).toMatch(/"code" must be a string/);
      }
      const result = (await client.callTool({ name: "js", arguments: { code: `console.log("x".repeat(10_000)); ${n}` } })) as CallToolResult;
      expect(result.content.at(-1)).toEqual({ type: "text", text: String(n) });
    };
    for (let n = 0; n < 200; n++) await call(n);
    const before = heapAfterGc();
    for (let n = 200; n < 1000; n++) await call(n);
    const growth = heapAfterGc() - before;
    expect(growth, `heap grew ${(growth / 1024 / 1024).toFixed(1)} MiB over 800 calls`).toBeLessThan(3 * 1024 * 1024);
  }, 120_000);
});
