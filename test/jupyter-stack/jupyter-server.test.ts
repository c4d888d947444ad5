/**
 * A real `jupyter server` (Debian's jupyter_server) with the deskbook kernelspec on
 * its JUPYTER_PATH, driven from Node by @jupyterlab/services — the client library
 * JupyterLab itself uses — over REST and the kernel websocket.
 * If Debian's classic Notebook is installed, `jupyter notebook` is checked too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import WebSocket from "ws";
import { KernelManager, KernelMessage, KernelSpecManager, ServerConnection, type Kernel } from "@jupyterlab/services";
import { JUPYTER, JupyterStack, sleep, stopProcess, waitFor } from "./stack.js";
import { startWebServer, type WebServer } from "./web-server.js";

const NOTEBOOK_INSTALLED = existsSync("/usr/bin/jupyter-notebook");

/** Debian's `jupyter server` or `jupyter notebook` (jupyter_server 1 and Notebook 6: `<App>.token`). */
function startServer(stack: JupyterStack, app: "server" | "notebook"): Promise<WebServer> {
  return startWebServer(stack, { command: [JUPYTER, app], app: app === "server" ? "ServerApp" : "NotebookApp", timeoutMs: 45_000 });
}

/** GET with the server's token. */
function get(server: WebServer, path: string): Promise<Response> {
  return fetch(new URL(path, server.baseUrl), { headers: { Authorization: `token ${server.token}` } });
}

/** Runs code and collects what came back: the reply and every iopub message of the request. */
async function execute(kernel: Kernel.IKernelConnection, code: string, onBusy?: () => Promise<void>) {
  const iopub: KernelMessage.IIOPubMessage[] = [];
  let markBusy!: () => void;
  const busy = new Promise<void>((resolve) => (markBusy = resolve));
  const future = kernel.requestExecute({ code });
  future.onIOPub = (msg) => {
    iopub.push(msg);
    if (KernelMessage.isStatusMsg(msg) && msg.content.execution_state === "busy") markBusy();
  };
  if (onBusy) {
    await busy;
    await onBusy();
  }
  const reply = await future.done;
  const result = iopub.find(KernelMessage.isExecuteResultMsg);
  const stdout = iopub
    .filter(KernelMessage.isStreamMsg)
    .filter((m) => m.content.name === "stdout")
    .map((m) => m.content.text)
    .join("");
  const errors = iopub.filter(KernelMessage.isErrorMsg).map((m) => ({ ename: m.content.ename, evalue: m.content.evalue }));
  return { reply: reply.content, result: result?.content.data["text/plain"], stdout, errors };
}

describe("jupyter server with @jupyterlab/services", () => {
  let stack: JupyterStack | undefined;
  let server: WebServer | undefined;
  let settings: ServerConnection.ISettings;
  let specs: KernelSpecManager | undefined;
  let kernels: KernelManager | undefined;
  let kernel: Kernel.IKernelConnection | undefined;

  beforeAll(async () => {
    stack = await JupyterStack.create();
    server = await startServer(stack, "server");
    settings = ServerConnection.makeSettings({
      baseUrl: server.baseUrl,
      wsUrl: server.baseUrl.replace(/^http/, "ws"),
      token: server.token,
      // Node 20 has no global WebSocket; ws is API-compatible enough for services.
      WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
    });
  }, 60_000);

  afterAll(async () => {
    // Ask the server to end any kernel a failed test left running, then stop everything.
    await kernels?.shutdownAll().catch(() => undefined);
    kernels?.dispose();
    specs?.dispose();
    if (server) await stopProcess(server.child);
    await stack?.cleanup();
  }, 60_000);

  it("lists the deskbook kernelspec with its name, language and logos", async () => {
    specs = new KernelSpecManager({ serverSettings: settings });
    await specs.ready;
    const spec = specs.specs?.kernelspecs["deskbook"];
    expect(spec).toMatchObject({ name: "deskbook", display_name: "Deskbook (JavaScript)", language: "javascript" });
    expect(spec?.argv.slice(-3)).toEqual(["kernel", "-f", "{connection_file}"]);
    expect(Object.keys(spec?.resources ?? {}).sort()).toEqual(["logo-32x32", "logo-64x64", "logo-svg"]);
    // The resources are served, and are what their names say.
    for (const [name, url] of Object.entries(spec!.resources)) {
      const response = await get(server!, url);
      expect(response.status, name).toBe(200);
      const body = Buffer.from(await response.arrayBuffer());
      if (name === "logo-svg") {
        expect(body.toString("utf8")).toContain("<svg");
      } else {
        const size = Number(name.slice("logo-".length).split("x")[0]);
        expect(body.subarray(1, 4).toString("latin1"), name).toBe("PNG");
        expect([body.readUInt32BE(16), body.readUInt32BE(20)], name).toEqual([size, size]);
      }
    }
  }, 30_000);

  it("starts a deskbook kernel and executes 6 * 7 over the websocket", async () => {
    kernels = new KernelManager({ serverSettings: settings });
    await kernels.ready;
    kernel = await kernels.startNew({ name: "deskbook" });
    const info = await kernel.info;
    expect(info).toMatchObject({ implementation: "deskbook", language_info: { name: "javascript" } });

    const answer = await execute(kernel, "6 * 7");
    expect(answer.reply.status).toBe("ok");
    expect(answer.result).toBe("42");

    await execute(kernel, "const base = 40");
    const logged = await execute(kernel, "console.log(`base is ${base}`); base + 2");
    expect(logged).toMatchObject({ stdout: "base is 40\n", result: "42" });
  }, 60_000);

  it("interrupts a spinning cell through the server's interrupt endpoint", async () => {
    expect(kernel).toBeDefined();
    const started = Date.now();
    const spun = await execute(kernel!, "while (true) {}", async () => {
      await sleep(500);
      await kernel!.interrupt();
    });
    expect(spun.reply).toMatchObject({ status: "error", ename: "Stopped", evalue: "Stopped: interrupted." });
    expect(spun.errors).toEqual([{ ename: "Stopped", evalue: "Stopped: interrupted." }]);
    expect(Date.now() - started).toBeLessThan(10_000);
    // The kernel is still the same one, with its bindings.
    expect((await execute(kernel!, "base + 1")).result).toBe("41");
  }, 30_000);

  it("shuts the kernel down, and its processes end", async () => {
    expect(kernel).toBeDefined();
    await kernel!.shutdown();
    const listed = (await (await get(server!, "api/kernels")).json()) as unknown[];
    expect(listed).toEqual([]);
    // Nothing of ours but the server itself remains.
    await waitFor("the kernel processes to exit", 10_000, async () => {
      const left = (await stack!.ownProcesses()).filter((pid) => pid !== server!.child.pid);
      return left.length === 0 ? true : undefined;
    });
  }, 30_000);
});

describe.skipIf(!NOTEBOOK_INSTALLED)("jupyter notebook", () => {
  let stack: JupyterStack | undefined;
  let server: WebServer | undefined;

  beforeAll(async () => {
    stack = await JupyterStack.create();
    server = await startServer(stack, "notebook");
  }, 60_000);

  afterAll(async () => {
    if (server) await stopProcess(server.child);
    await stack?.cleanup();
  }, 60_000);

  it("serves /api/kernelspecs listing deskbook", async () => {
    const response = await get(server!, "api/kernelspecs");
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      kernelspecs: Record<string, { name: string; spec: { display_name: string; language: string }; resources: Record<string, string> }>;
    };
    expect(body.kernelspecs["deskbook"]).toMatchObject({
      name: "deskbook",
      spec: { display_name: "Deskbook (JavaScript)", language: "javascript" },
    });
    expect(Object.keys(body.kernelspecs["deskbook"]!.resources)).toEqual(
      expect.arrayContaining(["logo-32x32", "logo-64x64", "logo-svg"]),
    );
  }, 30_000);
});
