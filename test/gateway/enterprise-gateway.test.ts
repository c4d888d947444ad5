/**
 * Jupyter Enterprise Gateway 3.3.0 (its own .venv/gateway) with the `deskbook install --gateway`
 * kernelspec, whose kernels EG starts through its LocalProcessProxy, each with a desktop of its
 * own; and `jupyter server` (.venv/peers) started with `--gateway-url` pointing at it, so that
 * every kernel request a notebook makes goes server → gateway → kernel. Through that route:
 * bindings persist, a desk call drives galculator on the kernel's own desktop, interrupt and
 * Escape (pressed on that desktop) stop a cell and keep its bindings, the time limit stops a
 * cell, a restart gives a fresh session and a fresh desktop, and a shutdown leaves nothing.
 */
import { execFile, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pidsWithEnv } from "../../src/client/home-processes.js";
import { desktopStatus, type DesktopState } from "../../src/desktop/virtual-desktop.js";
import { AttachedSession } from "../../src/mcp/attached-session.js";
import type { RunResult } from "../../src/mcp/js-session.js";
import { LOCAL_PROCESS_PROXY, kernelJson } from "../../src/cli/install.js";
import { missingDesktopTools } from "../support/desktop-home.js";
import { CLI, headlessEnv } from "../support/kernel-process.js";
import { errorOf, resultOf, streamOf } from "../support/run-result.js";
import { JupyterStack, REPO_ROOT, freePorts, waitFor } from "../jupyter-stack/stack.js";
import { startService, startWebServer, type Service, type WebServer } from "../jupyter-stack/web-server.js";

const execFileAsync = promisify(execFile);
const GATEWAY_BIN = join(REPO_ROOT, ".venv/gateway/bin");
const PEERS_BIN = join(REPO_ROOT, ".venv/peers/bin");
const KERNEL_NAME = "deskbook-gateway";
/**
 * What EG hands on from its own environment to a kernel (EG_INHERITED_ENVS, docs/scale-out.md):
 * by default nothing, and a Deskbook kernel wants PATH for the desktop's programs and HOME or
 * DESKBOOK_HOME for its config; the XDG ones keep the apps' settings in the test's folder.
 */
const INHERITED_ENVS = ["PATH", "HOME", "LANG", "TMPDIR", "DESKBOOK_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "GSETTINGS_BACKEND"];
/**
 * A kernelspec for EG's remote kernels, run on this host: DistributedProcessProxy with
 * "localhost" starts `deskbook gateway-kernel` without ssh, and it must hand EG its connection
 * info over the response address and serve the comm port, as it does in a Kubernetes pod.
 */
const REMOTE_NAME = "deskbook-remote";
const DISTRIBUTED_PROXY = "enterprise_gateway.services.processproxies.distributed.DistributedProcessProxy";

function unavailable(): string | null {
  const missing = missingDesktopTools(["xdotool", "galculator"]);
  if (missing.length > 0) return `${missing.join(", ")} missing`;
  if (!existsSync(join(GATEWAY_BIN, "jupyter-enterprisegateway"))) return ".venv/gateway missing (bash scripts/setup-python.sh)";
  if (!existsSync(join(PEERS_BIN, "jupyter-server"))) return ".venv/peers missing (bash scripts/setup-python.sh)";
  return null;
}
const reason = unavailable();
if (reason) console.warn(`test/gateway/enterprise-gateway.test.ts skipped: ${reason}`);

/** What a kernel's cell says about its own desktop. */
interface OwnDesktop {
  dir: string;
  display: string;
}

describe.skipIf(reason !== null)("Enterprise Gateway: a Deskbook notebook through jupyter server --gateway-url", () => {
  let stack: JupyterStack;
  let gateway: Service | undefined;
  let server: WebServer | undefined;
  let gatewayUrl: string;
  let serverUrl: string;
  let token: string;
  const gatewayToken = randomBytes(24).toString("hex");
  let kernelId: string;
  let session: AttachedSession;
  let desktop: OwnDesktop;

  const logs = (): string => `--- gateway log (end)\n${gateway?.log().split("\n").slice(-40).join("\n") ?? ""}\n--- server log (end)\n${server?.log().split("\n").slice(-20).join("\n") ?? ""}`;
  /**
   * A cell through the server and the gateway. A reply that never comes fails with both logs
   * well inside the test's timeout, so a lost message says where it was lost.
   */
  const run = async (code: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<RunResult> => {
    const waitMs = (options.timeoutMs ?? 0) + 45_000;
    let timer: NodeJS.Timeout | undefined;
    const silent = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no execute_reply to ${JSON.stringify(code.slice(0, 60))} after ${waitMs / 1000} s\n${logs()}`)), waitMs);
    });
    try {
      return await Promise.race([session.run(code, { title: "gateway", ...options }), silent]);
    } finally {
      clearTimeout(timer);
    }
  };
  /** The server's REST API, which forwards kernel requests to the gateway. */
  const serverApi = async (method: string, path: string, body?: object): Promise<Record<string, unknown>> => {
    const response = await fetch(`${serverUrl}${path}`, { method, headers: { Authorization: `token ${token}`, "content-type": "application/json" }, ...(body && { body: JSON.stringify(body) }) });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${text}\n${logs()}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };
  const gatewayKernels = async (): Promise<string[]> => {
    const response = await fetch(`${gatewayUrl}api/kernels`, { headers: { Authorization: `token ${gatewayToken}` } });
    return ((await response.json()) as { id: string }[]).map((kernel) => kernel.id);
  };
  const ownDesktop = async (): Promise<OwnDesktop> => {
    const said = await run('{ const fs = require("node:fs"), path = require("node:path"), dir = process.env.DESKBOOK_DESKTOP_DIR; console.log(JSON.stringify({ dir, display: JSON.parse(fs.readFileSync(path.join(dir, "desktop.json"), "utf8")).display })) }');
    return JSON.parse(streamOf(said)) as OwnDesktop;
  };
  /** Starts a cell that spins, and resolves once it really runs (a marker file, not a sleep), with the run still going. */
  const spin = async (options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<{ running: Promise<RunResult> }> => {
    const marker = join(stack.dir, `spinning-${randomBytes(4).toString("hex")}`);
    const running = run(`require("node:fs").writeFileSync(${JSON.stringify(marker)}, ""); while (true) {}`, options);
    await waitFor("the spinning cell to start", 30_000, async () => (existsSync(marker) ? true : undefined));
    return { running };
  };

  beforeAll(async () => {
    stack = await JupyterStack.create(["--gateway"]);
    Object.assign(stack.env, headlessEnv(stack.dir));
    for (const [name, value] of Object.entries(stack.env)) if (value === undefined) delete stack.env[name];
    await mkdir(stack.home, { recursive: true, mode: 0o700 });
    await writeFile(join(stack.home, "config.json"), JSON.stringify({ approval: "allowlist", allow: ["galculator"] }));
    await writeRemoteKernelspec(stack.jupyterPath);
    // EG binds its response port (remote kernels send their connection info there) itself and
    // keeps it, moving to another when that one is taken (EG_RESPONSE_PORT_RETRIES, 10 by
    // default); it cannot take 0, which it would hand to the kernels as the port to send to.
    const [responsePort] = await freePorts(1);
    gateway = await startService(stack, {
      name: "Enterprise Gateway",
      command: [
        join(GATEWAY_BIN, "jupyter-enterprisegateway"),
        "--ip=127.0.0.1",
        "--port=0", // the OS picks as EG binds; startService reads the port back
        "--port_retries=0",
        `--EnterpriseGatewayApp.auth_token=${gatewayToken}`,
        `--EnterpriseGatewayApp.default_kernel_name=${KERNEL_NAME}`,
        // jupyter server's gateway client lists the gateway's kernels.
        "--EnterpriseGatewayApp.list_kernels=True",
        `--EnterpriseGatewayApp.inherited_envs=${JSON.stringify(INHERITED_ENVS)}`,
      ],
      readyPath: "api",
      token: gatewayToken,
      // Its remote kernels' logs go to the stack's folder, and its response port is one that was free.
      env: { ...stack.env, EG_RESPONSE_PORT: String(responsePort), EG_KERNEL_LOG_DIR: stack.dir },
    });
    gatewayUrl = gateway.baseUrl;
    server = await startWebServer(stack, {
      command: [join(PEERS_BIN, "jupyter-server")],
      app: "ServerApp",
      tokenOption: "IdentityProvider.token",
      args: [`--gateway-url=${gatewayUrl.slice(0, -1)}`, `--GatewayClient.auth_token=${gatewayToken}`],
      // The gateway client sends the KERNEL_* variables it has; EG refuses kernels for root (its unauthorized_users) and CI runs as root.
      env: { ...stack.env, KERNEL_USERNAME: "deskbook-test" },
    });
    serverUrl = server.baseUrl;
    token = server.token;
  }, 120_000);

  afterAll(async () => {
    await session?.close();
    if (kernelId) await fetch(`${serverUrl}api/kernels/${kernelId}`, { method: "DELETE", headers: { Authorization: `token ${token}` } }).catch(() => undefined);
    await stack?.cleanup();
  }, 60_000);

  it("offers the gateway's kernelspec through the server, with EG's LocalProcessProxy", async () => {
    const specs = (await serverApi("GET", "api/kernelspecs")) as { kernelspecs: Record<string, { spec: { metadata: Record<string, unknown>; env: Record<string, string> } }> };
    const spec = specs.kernelspecs[KERNEL_NAME]?.spec;
    expect(spec, JSON.stringify(specs)).toBeDefined();
    expect(spec!.metadata.process_proxy).toEqual({ class_name: LOCAL_PROCESS_PROXY });
    expect(spec!.env).toEqual({ DESKBOOK_DESKTOP: "per-kernel" });
  });

  it("starts a kernel on the gateway and keeps bindings from cell to cell", async () => {
    kernelId = String((await serverApi("POST", "api/kernels", { name: KERNEL_NAME })).id);
    // The kernel is the gateway's: the server only forwards to it.
    expect(await gatewayKernels()).toContain(kernelId);
    session = new AttachedSession({ server: serverUrl, token, kernel: kernelId, clientName: () => "gateway test" });
    expect((await run("let n = 6; n * 7")).status).toBe("ok");
    expect(resultOf(await run("n + 1"))).toBe("7");
  }, 60_000);

  it("drives galculator on the kernel's own desktop", async () => {
    const cells = [
      'const calc = await desk.getApp("galculator")',
      'for (const key of ["6", "*", "7", "="]) await calc.click((await calc.find({ role: "button", label: key, exact: true })).i)',
      '(await calc.find({ role: "text area" })).value',
    ];
    const results: RunResult[] = [];
    for (const cell of cells) results.push(await run(cell, { timeoutMs: 90_000 }));
    expect(results.map((r) => r.status), `${JSON.stringify(results)}\n${logs()}`).toEqual(["ok", "ok", "ok"]);
    expect(resultOf(results[2]!)).toBe("'42'");
    desktop = await ownDesktop();
    expect(desktop.dir.startsWith(join(stack.home, "desktops"))).toBe(true);
    // galculator runs on that display, and nothing started the home's shared desktop.
    const [calcPid] = pidsWithEnv("DESKBOOK_DESKTOP_DIR", desktop.dir).filter((pid) => spawnSync("cat", [`/proc/${pid}/comm`], { encoding: "utf8" }).stdout.trim() === "galculator");
    expect(calcPid).toBeDefined();
    expect((await readFile(`/proc/${calcPid}/environ`, "utf8")).split("\0")).toContain(`DISPLAY=${desktop.display}`);
    expect(existsSync(join(stack.home, "desktop.json"))).toBe(false);
  }, 150_000);

  it("interrupts a cell through the gateway, and the bindings stay", async () => {
    const abort = new AbortController();
    const { running } = await spin({ signal: abort.signal });
    // AttachedSession interrupts as JupyterLab's ■ does: POST /api/kernels/<id>/interrupt, which the server forwards.
    abort.abort();
    expect(errorOf(await running)).toBe("Stopped: interrupted.");
    expect(resultOf(await run("n * calc.name.length"))).toBe(String(6 * "galculator".length));
  }, 60_000);

  it("stops the cell when Escape is pressed on that kernel's desktop", async () => {
    const state: DesktopState | undefined = (await desktopStatus({ home: desktop.dir })).state;
    expect(state?.display).toBe(desktop.display);
    const { running } = await spin();
    await execFileAsync("xdotool", ["key", "Escape"], { env: { ...process.env, ...state!.env }, timeout: 10_000 });
    expect(errorOf(await running)).toBe("Stopped: the user pressed Escape.");
    expect(resultOf(await run("n"))).toBe("6");
  }, 60_000);

  it("stops a cell at its time limit", async () => {
    const started = Date.now();
    expect(errorOf(await run("while (true) {}", { timeoutMs: 1500 }))).toBe("Stopped: the cell ran longer than 1500 ms.");
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    expect(resultOf(await run("n"))).toBe("6");
  }, 60_000);

  it("restarts through the gateway, 3 times: the session notices, says so without running the call, and the next call runs in a fresh session on a fresh desktop", async () => {
    // A websocket kept across a restart is not something Jupyter promises: through the gateway a
    // kept one lost every reply in about one restart of three, while the restarted kernel ran
    // the cell. The session probes the kernel before a call (here before every call, so the
    // restart is seen whatever its timing), opens a new websocket, as JupyterLab does, and tells the agent.
    await session.close();
    session = new AttachedSession({ server: serverUrl, token, kernel: kernelId, clientName: () => "gateway test", idleProbeMs: 0 });
    // Connected before the first restart, to the kernel that holds n.
    expect(resultOf(await run("n"))).toBe("6");
    for (let round = 1; round <= 3; round++) {
      if (round > 1) expect((await run(`let n = ${round}; n`)).status).toBe("ok");
      await serverApi("POST", `api/kernels/${kernelId}/restart`);
      const told = await run("n");
      expect(told.status, `round ${round}: ${JSON.stringify(told)}\n${logs()}`).toBe("not_run");
      expect(told.notice).toMatch(/^kernel_restarted: someone restarted the kernel since your last call/);
      expect(resultOf(await run("typeof n"))).toBe("'undefined'");
    }
    // The restart's shutdown took the old desktop down with everything on it.
    await waitFor("the old desktop to go", 20_000, async () => (!existsSync(desktop.dir) && pidsWithEnv("DESKBOOK_DESKTOP_DIR", desktop.dir).length === 0 ? true : undefined));
    expect((await run('const calc = await desk.getApp("galculator"); calc.name', { timeoutMs: 90_000 })).status).toBe("ok");
    const fresh = await ownDesktop();
    expect(fresh.dir).not.toBe(desktop.dir);
    desktop = fresh;
  }, 150_000);

  it("shuts the kernel down through the gateway and leaves nothing running", async () => {
    await session?.close();
    await serverApi("DELETE", `api/kernels/${kernelId}`);
    expect(await gatewayKernels()).not.toContain(kernelId);
    kernelId = "";
    const servers = new Set([gateway!.child.pid, server!.child.pid]);
    await waitFor("the kernel and its desktop to end", 20_000, async () => {
      const left = (await stack.ownProcesses()).filter((pid) => !servers.has(pid));
      return left.length === 0 && pidsWithEnv("DESKBOOK_DESKTOP_DIR", desktop.dir).length === 0 && !existsSync(desktop.dir) ? true : undefined;
    });
  }, 60_000);

  it("runs a remote kernel: deskbook gateway-kernel sends EG its connection info and serves the comm port", async () => {
    const id = String((await serverApi("POST", "api/kernels", { name: REMOTE_NAME })).id);
    const remote = new AttachedSession({ server: serverUrl, token, kernel: id, clientName: () => "gateway test (remote)" });
    try {
      expect(resultOf(await remote.run("let m = 5; m * 8", { title: "remote" }))).toBe("40");
      const abort = new AbortController();
      const marker = join(stack.dir, "remote-spinning");
      const running = remote.run(`require("node:fs").writeFileSync(${JSON.stringify(marker)}, ""); while (true) {}`, { title: "remote", signal: abort.signal });
      await waitFor("the remote cell to spin", 30_000, async () => (existsSync(marker) ? true : undefined));
      abort.abort();
      expect(errorOf(await running)).toBe("Stopped: interrupted.");
      expect(resultOf(await remote.run("m", { title: "remote" }))).toBe("5");
      const pid = Number(resultOf(await remote.run("process.ppid", { title: "remote" })));
      expect(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")).toContain("gateway-kernel");
    } finally {
      await remote.close();
    }
    // EG ends a remote kernel through its comm port (SIGTERM, then the listener's shutdown).
    await serverApi("DELETE", `api/kernels/${id}`);
    const servers = new Set([gateway!.child.pid, server!.child.pid]);
    await waitFor("the remote kernel to end", 20_000, async () => ((await stack.ownProcesses()).filter((p) => !servers.has(p)).length === 0 ? true : undefined));
    expect(readdirSync(tmpdir()).filter((name) => name.startsWith("deskbook-gateway-kernel-") && existsSync(join(tmpdir(), name, `kernel-${id}.json`)))).toEqual([]);
  }, 90_000);
});

async function writeRemoteKernelspec(jupyterPath: string): Promise<void> {
  const dir = join(jupyterPath, "kernels", REMOTE_NAME);
  await mkdir(dir, { recursive: true });
  const spec = {
    ...kernelJson({ nodePath: process.execPath, mainPath: CLI, displayName: "Deskbook (remote launcher, this host)", perKernelDesktop: true }),
    argv: [process.execPath, CLI, "gateway-kernel", "--kernel-id", "{kernel_id}", "--port-range", "{port_range}", "--response-address", "{response_address}", "--public-key", "{public_key}", "--ip", "127.0.0.1"],
    metadata: { debugger: false, process_proxy: { class_name: DISTRIBUTED_PROXY, config: { remote_hosts: "localhost" } } },
  };
  await writeFile(join(dir, "kernel.json"), JSON.stringify(spec, null, 2));
}
