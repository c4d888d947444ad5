/**
 * Attach mode's deadline against a real Jupyter server (Debian's `jupyter server` with a
 * Deskbook kernel), reached through a TCP relay (tcp-relay.ts) that passes everything but, while
 * it holds upgrades, leaves websocket upgrades unanswered, as a proxy that does not pass them does. `deskbook mcp`
 * (the built CLI, as an MCP client starts it) fails the call with attach_timeout within
 * mcp.attachTimeoutMs, keeps serving, and once the relay passes upgrades again the next call runs in the kernel.
 * stdout stays the protocol's alone throughout: the client sees no line it cannot parse.
 */
import { writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, JUPYTER, JupyterStack, stopProcess } from "../jupyter-stack/stack.js";
import { startWebServer, type WebServer } from "../jupyter-stack/web-server.js";
import { tcpRelay, type TcpRelay } from "./tcp-relay.js";

const text = (r: CallToolResult): string =>
  r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");

describe("deskbook mcp attach mode: a websocket that does not open", () => {
  let stack: JupyterStack;
  let server: WebServer | undefined;
  let door: TcpRelay | undefined;
  let kernelId: string;

  beforeAll(async () => {
    stack = await JupyterStack.create();
    await mkdir(stack.home, { recursive: true, mode: 0o700 });
    await writeFile(join(stack.home, "config.json"), JSON.stringify({ mcp: { attachTimeoutMs: 1500 } }));
    server = await startWebServer(stack, { command: [JUPYTER, "server"], app: "ServerApp", timeoutMs: 45_000 });
    const started = await fetch(new URL("api/kernels", server.baseUrl), {
      method: "POST",
      headers: { Authorization: `token ${server.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "deskbook" }),
    });
    expect(started.status).toBe(201);
    kernelId = String(((await started.json()) as { id: string }).id);
    door = await tcpRelay(new URL(server.baseUrl));
    door.holdUpgrades(true);
  }, 90_000);

  afterAll(async () => {
    await door?.close();
    if (server) await stopProcess(server.child);
    await stack?.cleanup();
  }, 60_000);

  it("fails the call with attach_timeout, survives, and runs the next call once the websocket opens", async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", "--server", door!.url, "--token", server!.token, "--kernel", kernelId], env: stack.env as Record<string, string>, stderr: "pipe" });
    let log = "";
    transport.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")));
    const agent = new Client({ name: "deadline-test", version: "1" });
    const unparsed: unknown[] = [];
    await agent.connect(transport);
    // Set after connect, which installs its own: any line on stdout that is no MCP message lands here.
    const onerror = transport.onerror;
    transport.onerror = (error) => {
      unparsed.push(error);
      onerror?.(error);
    };
    try {
      const started = Date.now();
      const failed = (await agent.callTool({ name: "js", arguments: { code: "6 * 7" } }, undefined, { timeout: 60_000 })) as CallToolResult;
      const took = Date.now() - started;
      expect(failed.isError, log).toBe(true);
      const ws = `${door!.url.replace(/^http/, "ws")}api/kernels/${kernelId}/channels`;
      expect(text(failed)).toContain(`attach_timeout: the kernel's websocket at ${ws} did not open within 1500 ms`);
      expect(text(failed)).not.toContain(server!.token);
      expect(took).toBeGreaterThanOrEqual(1500);
      // The abandoned websocket was hung up, not left waiting.
      expect(door!.hungUp().length).toBe(1);
      await door!.hungUp()[0];

      door!.holdUpgrades(false);
      const ran = (await agent.callTool({ name: "js", arguments: { code: "6 * 7" } }, undefined, { timeout: 60_000 })) as CallToolResult;
      expect(ran.isError, `${text(ran)}\n${log}`).toBe(false);
      expect(text(ran)).toContain("42");
      // The Jupyter client library's "Starting WebSocket" lines went to stderr, not into the protocol.
      expect(log).toContain("Starting WebSocket");
      expect(unparsed).toEqual([]);
    } finally {
      await agent.close();
    }
  }, 90_000);
});
