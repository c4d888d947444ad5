/**
 * Attach mode when someone else restarts the kernel: a real `jupyter server` (the peers' venv)
 * with a Deskbook kernel, restarted through the REST API by another client, as JupyterLab's ⟳
 * does. The agent's session notices (a probe of the kernel before and while a call runs, the
 * websocket's own messages), opens a new websocket, and says so in the call's result: the
 * code of a call made after the restart is not run, a call cut off by the restart says what is
 * known of it, and nothing is run twice. The kept websocket's replies lost (what happened
 * through Enterprise Gateway) are played by a relay that mutes it. Every wait is bounded.
 * (Enterprise Gateway's route: test/gateway/enterprise-gateway.test.ts.)
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AttachedSession, type AttachOptions } from "../../src/mcp/attached-session.js";
import type { RunResult } from "../../src/mcp/js-session.js";
import { CLI, JupyterStack, REPO_ROOT, stopProcess, waitFor } from "../jupyter-stack/stack.js";
import { startWebServer, type WebServer } from "../jupyter-stack/web-server.js";
import { errorOf, resultOf } from "../support/run-result.js";
import { tcpRelay, type TcpRelay } from "./tcp-relay.js";

const JUPYTER_SERVER = join(REPO_ROOT, ".venv/peers/bin/jupyter-server");
const missing = existsSync(JUPYTER_SERVER) ? null : ".venv/peers missing (bash scripts/setup-python.sh)";
if (missing) console.warn(`test/mcp/attach-restart.test.ts skipped: ${missing}`);

const ROUNDS = 10;
/** Far above a probe's deadline plus a reconnect here, far below the test's limit: a call that hangs fails. */
const CALL_LIMIT_MS = 30_000;
/** For calls probed before the relay mutes: the default, far above what a probe takes at any load. */
const PROBE_TIMEOUT_MS = 5_000;

describe.skipIf(missing !== null)("attach mode: the kernel restarted by someone else", () => {
  let stack: JupyterStack;
  let server: WebServer;
  let kernelId: string;
  let session: AttachedSession | undefined;
  let relay: TcpRelay | undefined;

  const api = async (method: string, path: string, body?: object): Promise<Record<string, unknown>> => {
    const response = await fetch(new URL(path, server.baseUrl), { method, headers: { Authorization: `token ${server.token}`, "Content-Type": "application/json" }, ...(body && { body: JSON.stringify(body) }) });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${text}\n${server.log().slice(-3000)}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };
  /** Another client's restart, as JupyterLab's: the server answers once the new kernel answered kernel_info. */
  const restart = () => api("POST", `api/kernels/${kernelId}/restart`);
  const attach = (options: Partial<AttachOptions> = {}, url = server.baseUrl, kernel = kernelId): AttachedSession =>
    (session = new AttachedSession({ server: url, token: server.token, kernel, clientName: () => "restart test", ...options }));
  /** A run that must end by itself well inside CALL_LIMIT_MS. */
  const run = async (code: string): Promise<RunResult> => {
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${JSON.stringify(code)} did not end within ${CALL_LIMIT_MS} ms\n${server.log().slice(-3000)}`)), CALL_LIMIT_MS)));
    try {
      return await Promise.race([session!.run(code, { title: "restart" }), hung]);
    } finally {
      clearTimeout(timer);
    }
  };
  /** A cell that leaves a file behind when it runs: whether a call's code ran, asked of the filesystem. */
  const marked = (then = "1"): { code: string; ran: () => boolean } => {
    const marker = join(stack.dir, `ran-${randomBytes(4).toString("hex")}`);
    return { code: `require("node:fs").writeFileSync(${JSON.stringify(marker)}, ""); ${then}`, ran: () => existsSync(marker) };
  };

  beforeAll(async () => {
    stack = await JupyterStack.create();
    server = await startWebServer(stack, { command: [JUPYTER_SERVER], app: "ServerApp", tokenOption: "IdentityProvider.token", timeoutMs: 45_000 });
    kernelId = String((await api("POST", "api/kernels", { name: "deskbook" })).id);
  }, 90_000);

  afterEach(async () => {
    await session?.close();
    session = undefined;
    await relay?.close();
    relay = undefined;
  });

  afterAll(async () => {
    if (server) await stopProcess(server.child);
    await stack?.cleanup();
  }, 60_000);

  it(`${ROUNDS} restarts between calls: the next call says so and does not run its code; the one after runs in the fresh kernel`, async () => {
    // Probing before every call: the restart is seen whatever its timing.
    attach({ idleProbeMs: 0 });
    for (let round = 1; round <= ROUNDS; round++) {
      expect((await run(`let n = ${round}; n`)).status).toBe("ok");
      await restart();
      const call = marked("n");
      const told = await run(call.code);
      expect(told.status, `round ${round}: ${JSON.stringify(told)}`).toBe("not_run");
      expect(told.notice).toMatch(/^kernel_restarted: someone restarted the kernel since your last call \(.+\)\. Every binding from earlier calls is gone .* This call's code was not run/);
      expect(told.outputs).toEqual([]);
      expect(call.ran(), `round ${round}`).toBe(false);
      const fresh = await run("typeof n");
      expect(fresh.notice).toBeUndefined();
      expect(resultOf(fresh)).toBe("'undefined'");
    }
  }, 240_000);

  it("a call the restart cuts off ends by itself, and whichever way it ended, the agent hears of the restart before any code runs in the fresh kernel; 3 rounds", async () => {
    attach({ idleProbeMs: 0 });
    for (let round = 1; round <= 3; round++) {
      expect((await run(`let n = ${round}; n`)).status).toBe("ok");
      const marker = join(stack.dir, `spinning-${round}-${randomBytes(4).toString("hex")}`);
      const spinning = run(`console.log("before"); require("node:fs").writeFileSync(${JSON.stringify(marker)}, ""); while (true) {}`);
      await waitFor("the cell to spin", 20_000, async () => (existsSync(marker) ? true : undefined));
      await restart();
      const cut = await spinning;
      expect(cut.status, JSON.stringify(cut)).toBe("error");
      // What it printed before the restart stays in the result.
      expect(cut.outputs.map((o) => o.content.text)).toContain("before\n");
      const next = marked("n");
      const told = await run(next.code);
      if (cut.notice === undefined) {
        // jupyter_client interrupts a kernel before it shuts it down: the old kernel stopped the
        // cell and answered, a true reply from the process that had the bindings. The restart
        // came after it, so the next call is the one that hears of it, and does not run.
        expect(errorOf(cut)).toBe("Stopped: interrupted.");
        expect(told.status, JSON.stringify(told)).toBe("not_run");
        expect(told.notice).toMatch(/^kernel_restarted: someone restarted the kernel since your last call/);
      } else {
        expect(cut.notice).toMatch(/^kernel_restarted: someone restarted the kernel while this call was under way \(.+\)\. Every binding from earlier calls is gone .* The kernel had started running it when the restart came, so it may have acted on the desktop\. The restarted kernel has not run it\. Deskbook did not run it again/);
        expect(told.notice).toBeUndefined();
      }
      expect(next.ran()).toBe(told.status === "ok");
      expect(resultOf(await run("typeof n"))).toBe("'undefined'");
    }
  }, 180_000);

  it("a kept websocket that loses every reply after the restart: the call ends within the probe's deadline and says whether the restarted kernel ran it; 3 rounds", async () => {
    relay = await tcpRelay(new URL(server.baseUrl));
    // No probe before the call: it goes out on the muted websocket, as it did through the gateway.
    const probeTimeoutMs = 1000;
    attach({ idleProbeMs: 2 ** 31 - 1, probeEveryMs: 500, probeTimeoutMs: () => probeTimeoutMs }, relay.url);
    for (let round = 1; round <= 3; round++) {
      expect((await run(`let n = ${round}; n`)).status).toBe("ok");
      await restart();
      relay.mute();
      // Counts its runs in the kernel, to show it ran at most once.
      const call = marked("globalThis.runs = (globalThis.runs ?? 0) + 1");
      const lost = await run(call.code);
      expect(lost.status, JSON.stringify(lost)).toBe("error");
      // Bounded by the watchdog (a probe every 500 ms, unanswered for 1 s) and a reconnect, not by any
      // client's timeout: run() fails a call that hangs. The probes start after the mute, so 1 s is no race.
      expect(lost.notice).toMatch(/^kernel_restarted: someone restarted the kernel while this call was under way \(.+\)\. Every binding from earlier calls is gone/);
      // What it says of the restarted kernel is what happened (the code leaves a file when it runs).
      const ran = call.ran();
      if (ran) expect(lost.notice).toMatch(/The restarted kernel did run it, as In \[\d+\], but its reply was lost on the old connection/);
      else expect(lost.notice).toContain("The restarted kernel has not run it.");
      expect(lost.notice).toContain("Deskbook did not run it again");
      // It ran once at most, and only if the notice says so: nothing ran it again.
      const after = await run("globalThis.runs");
      expect(after.notice).toBeUndefined();
      expect(resultOf(after)).toBe(ran ? "1" : "undefined");
    }
  }, 180_000);

  it("a running call whose websocket goes quiet as the kernel restarts: it says the kernel had started it and the restarted one has not run it; 2 rounds", async () => {
    relay = await tcpRelay(new URL(server.baseUrl));
    attach({ probeEveryMs: 500, probeTimeoutMs: () => PROBE_TIMEOUT_MS }, relay.url);
    for (let round = 1; round <= 2; round++) {
      expect((await run(`let n = ${round}; n`)).status).toBe("ok");
      const marker = join(stack.dir, `spinning-${round}-${randomBytes(4).toString("hex")}`);
      const spinning = run(`console.log("before"); require("node:fs").writeFileSync(${JSON.stringify(marker)}, ""); while (true) {}`);
      await waitFor("the cell to spin", 20_000, async () => (existsSync(marker) ? true : undefined));
      // The old kernel's "Stopped: interrupted." (jupyter_client interrupts before it shuts down) is lost with the rest.
      relay.mute();
      await restart();
      const cut = await spinning;
      expect(cut.status, JSON.stringify(cut)).toBe("error");
      expect(cut.notice).toMatch(/^kernel_restarted: someone restarted the kernel while this call was under way \(.+\)\. Every binding from earlier calls is gone .* The kernel had started running it when the restart came, so it may have acted on the desktop\. The restarted kernel has not run it\. Deskbook did not run it again/);
      expect(cut.outputs.map((o) => o.content.text)).toContain("before\n");
      expect(resultOf(await run("typeof n"))).toBe("'undefined'");
    }
  }, 120_000);

  it("a websocket that goes quiet with no restart: connection_lost, the bindings are kept, and the kernel's history says the call ran", async () => {
    relay = await tcpRelay(new URL(server.baseUrl));
    attach({ probeEveryMs: 500, probeTimeoutMs: () => PROBE_TIMEOUT_MS }, relay.url);
    expect((await run("let kept = 7; kept")).status).toBe("ok");
    const slow = marked("await new Promise((resolve) => setTimeout(resolve, 3000)); kept");
    const running = run(slow.code);
    await waitFor("the cell to start", 20_000, async () => (slow.ran() ? true : undefined));
    relay.mute();
    const lost = await running;
    expect(lost.status).toBe("error");
    expect(lost.notice).toMatch(/^connection_lost: the connection to the kernel stopped answering while this call ran \(the kernel did not answer a probe on its websocket, and sent nothing else on it, within 5 s\), and Deskbook opened a new one\. The kernel is the same process, so every binding is kept\. The kernel has it as In \[\d+\]: it ran or is still running/);
    const after = await run("kept");
    expect(after.notice).toBeUndefined();
    expect(resultOf(after)).toBe("7");
  }, 60_000);

  it("a call whose probes go unanswered while its output keeps coming stays healthy and returns its result", async () => {
    relay = await tcpRelay(new URL(server.baseUrl));
    // No probe before the call; while it runs, every probe goes unanswered (the relay holds each
    // reply), a probe's deadline is 20 times the gaps in the cell's output, and several pass.
    attach({ idleProbeMs: 2 ** 31 - 1, probeEveryMs: 200, probeTimeoutMs: () => 2000 }, relay.url);
    expect((await run("let kept = 7; kept")).status).toBe("ok");
    relay.holdProbes();
    const streaming = await run("for (let i = 0; i < 60; i++) { console.log(`tick ${i}`); await new Promise((resolve) => setTimeout(resolve, 100)); } kept * 6");
    expect(streaming.notice, JSON.stringify(streaming)).toBeUndefined();
    expect(streaming.status).toBe("ok");
    expect(resultOf(streaming)).toBe("42");
    expect(streaming.outputs.map((o) => o.content.text).join("")).toBe(Array.from({ length: 60 }, (_, i) => `tick ${i}\n`).join(""));
    // The probes did go out and went unanswered: the relay held their replies.
    expect(relay.held()).toBeGreaterThan(0);
  }, 60_000);

  it("a kernel someone shuts down: a call under way fails with connection_lost and the reason, the next with kernel_not_found, both at once", async () => {
    const doomed = String((await api("POST", "api/kernels", { name: "deskbook" })).id);
    relay = await tcpRelay(new URL(server.baseUrl));
    attach({ probeEveryMs: 500, probeTimeoutMs: () => PROBE_TIMEOUT_MS }, relay.url, doomed);
    expect((await run("let n = 1; n")).status).toBe("ok");
    const marker = join(stack.dir, `spinning-doomed-${randomBytes(4).toString("hex")}`);
    const spinning = run(`require("node:fs").writeFileSync(${JSON.stringify(marker)}, ""); while (true) {}`);
    await waitFor("the cell to spin", 20_000, async () => (existsSync(marker) ? true : undefined));
    // Muted, so the old kernel's "Stopped: interrupted." before its shutdown does not end the call first.
    relay.mute();
    await api("DELETE", `api/kernels/${doomed}`);
    const lost = await spinning.then(
      () => undefined,
      (e: unknown) => e as Error & { code?: string },
    );
    expect(lost?.code).toBe("connection_lost");
    expect(lost?.message).toMatch(/^connection_lost: the connection to the kernel was lost while this call ran \(.+; the kernel had started it, so it may have acted on the desktop\), and a new one failed: kernel_not_found: the Jupyter server at .* has no kernel /);
    await expect(run("n")).rejects.toMatchObject({ code: "kernel_not_found" });
  }, 60_000);

  it("through `deskbook mcp`: the tool result leads with kernel_restarted and is an error; the next call runs", async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", "--server", server.baseUrl, "--token", server.token, "--kernel", kernelId], env: stack.env as Record<string, string>, stderr: "pipe" });
    const agent = new Client({ name: "restart-test", version: "1" });
    await agent.connect(transport);
    const text = (r: CallToolResult): string => r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
    try {
      const call = async (code: string): Promise<CallToolResult> => (await agent.callTool({ name: "js", arguments: { code } }, undefined, { timeout: CALL_LIMIT_MS })) as CallToolResult;
      expect(text(await call("let m = 6; m * 7"))).toContain("42");
      await restart();
      // The default probe waits for a second of quiet: a call made sooner could find no sign yet.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const told = await call("m * 7");
      expect(told.isError).toBe(true);
      expect(text(told)).toMatch(/^kernel_restarted: someone restarted the kernel since your last call/);
      expect(text(told)).not.toContain("42");
      expect(text(await call("typeof m"))).toContain("'undefined'");
    } finally {
      await agent.close();
    }
  }, 60_000);
});
