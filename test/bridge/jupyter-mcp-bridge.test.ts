/**
 * Deskbook under a third-party Jupyter MCP bridge: JupyterLab 4 from the test venv
 * (.venv/peers, made by scripts/setup-python.sh) with the Deskbook kernelspec, datalayer's
 * jupyter-mcp-server pointed at it over stdio, and the MCP SDK's TypeScript client driving
 * the bridge like an agent. Also attach mode: `deskbook mcp --server … --kernel …` on the
 * same kernel, sharing bindings with the notebook.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, JupyterStack, REPO_ROOT, stopProcess } from "../jupyter-stack/stack.js";
import { startWebServer, type WebServer } from "../jupyter-stack/web-server.js";
import { missingDesktopTools, withEnv } from "../support/desktop-home.js";

const VENV_BIN = join(REPO_ROOT, ".venv", "peers", "bin");
const missing = [...missingDesktopTools(), ...["jupyter-lab", "jupyter-mcp-server"].filter((b) => !existsSync(join(VENV_BIN, b))).map((b) => `.venv/peers/bin/${b} (bash scripts/setup-python.sh)`)];
if (missing.length > 0) console.warn(`test/bridge/jupyter-mcp-bridge.test.ts skipped: ${missing.join(", ")} missing`);

type Item = CallToolResult["content"][number];
const texts = (r: CallToolResult) => r.content.filter((c): c is Extract<Item, { type: "text" }> => c.type === "text").map((c) => c.text).join("\n");
const images = (r: CallToolResult) => r.content.filter((c): c is Extract<Item, { type: "image" }> => c.type === "image");

describe.skipIf(missing.length > 0)("Deskbook in JupyterLab under jupyter-mcp-server", () => {
  let stack: JupyterStack;
  let lab: WebServer | undefined;
  let url: string;
  let token: string;
  let bridge: Client;
  let bridgeLog = "";

  const call = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
    (await bridge.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;

  beforeAll(async () => {
    stack = await JupyterStack.create();
    await mkdir(stack.home, { recursive: true, mode: 0o700 });
    await writeFile(join(stack.home, "config.json"), JSON.stringify({ allow: ["galculator"] }));
    for (const name of ["DISPLAY", "WAYLAND_DISPLAY", "AT_SPI_BUS_ADDRESS"]) delete stack.env[name];
    Object.assign(stack.env, {
      PATH: `${VENV_BIN}:${stack.env.PATH ?? ""}`,
      XDG_CONFIG_HOME: join(stack.dir, "xdg-config"),
      XDG_CACHE_HOME: join(stack.dir, "xdg-cache"),
      XDG_DATA_HOME: join(stack.dir, "xdg-data"),
      GSETTINGS_BACKEND: "memory",
    });
    await writeFile(
      join(stack.dir, "desk.ipynb"),
      JSON.stringify({ cells: [], metadata: { kernelspec: { name: "deskbook", display_name: "Deskbook (JavaScript)", language: "javascript" } }, nbformat: 4, nbformat_minor: 5 }),
    );
    lab = await startWebServer(stack, { command: [join(VENV_BIN, "jupyter-lab")], app: "ServerApp", tokenOption: "IdentityProvider.token" });
    url = lab.baseUrl.replace(/\/$/, "");
    token = lab.token;
    const transport = new StdioClientTransport({
      command: join(VENV_BIN, "jupyter-mcp-server"),
      args: [],
      env: withEnv(stack.env, { JUPYTER_URL: url, JUPYTER_TOKEN: token, TRANSPORT: "stdio", ALLOW_IMG_OUTPUT: "true" }),
      cwd: stack.dir,
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer) => (bridgeLog += chunk.toString("utf8")));
    bridge = new Client({ name: "bridge-test", version: "1" });
    await bridge.connect(transport);
  }, 180_000);

  afterAll(async () => {
    await bridge?.close();
    if (lab) await stopProcess(lab.child);
    await stack?.cleanup();
  }, 90_000);

  let kernelId: string;
  /** Appends a cell to the notebook and runs it through the bridge, as an agent does. */
  const cell = (source: string) => call("insert_execute_code_cell", { cell_index: -1, cell_source: source, timeout: 90 });

  it("opens a Deskbook notebook on a Deskbook kernel", async () => {
    const started = await fetch(`${url}/api/kernels`, { method: "POST", headers: { Authorization: `token ${token}`, "Content-Type": "application/json" }, body: JSON.stringify({ name: "deskbook" }) });
    expect(started.status).toBe(201);
    kernelId = ((await started.json()) as { id: string }).id;
    const used = await call("use_notebook", { notebook_name: "desk", notebook_path: "desk.ipynb", mode: "connect", kernel_id: kernelId });
    expect(used.isError ?? false, texts(used)).toBe(false);
  });

  it("binds galculator, and the agent gets the AX text as text", async () => {
    const result = await cell('const calc = await desk.getApp("galculator");\nawait calc.getAXState()');
    expect(texts(result), `${JSON.stringify(result)}\n${bridgeLog.slice(-3000)}`).toMatch(/app "Galculator", window "galculator", image \d+×\d+, \d+ elements/);
    expect(texts(result)).toMatch(/\d+ toggle button "7"/);
  });

  it("clicks galculator's buttons and reads 42", async () => {
    const result = await cell('for (const key of ["AC", "6", "*", "7", "="]) await calc.click({ find: { role: "AXButton", label: key, exact: true } });\n(await calc.find({ role: "text area" })).value.trim()');
    expect(texts(result)).toContain("'42'");
  });

  it("hands the screenshot over as an image, with its caption as text", async () => {
    const result = await cell("await calc.getScreenshot()");
    const [image] = images(result);
    expect(image?.mimeType, JSON.stringify(result).slice(0, 2000)).toBe("image/png");
    expect(Buffer.from(image!.data, "base64").subarray(1, 4).toString("latin1")).toBe("PNG");
  });

  it("shows an error and a Stopped: as readable text", async () => {
    const failed = await cell("null.boom");
    expect(texts(failed)).toMatch(/TypeError: Cannot read properties of null/);
    const stopped = await cell("deskbook.timeLimitMs = 1500;\nawait new Promise((r) => setTimeout(r, 30_000))");
    expect(texts(stopped)).toContain("Stopped: the cell ran longer than 1500 ms.");
    await cell("deskbook.timeLimitMs = 120_000");
  });

  it("passes what it can of display updates and HTML (what it drops is written down in docs/agents.md)", async () => {
    const updated = await cell('const handle = display("step 1");\nhandle.update("step 2");\n"done"');
    const html = await cell('display.html("<b>bold</b>")');
    // As docs/agents.md says: the bridge keeps the first display and drops the update; HTML
    // reaches the agent as its text/plain, which display.html sets to the markup.
    expect(texts(updated)).toMatch(/^'step 1'\n'done'/);
    expect(texts(updated)).not.toContain("step 2");
    expect(texts(html)).toContain("<b>bold</b>");
  });

  it("hands over a long wait's first progress line, which says what the cell waited for, then the result", async () => {
    const waited = await cell('await calc.waitFor({ label: "Never there" }, { timeout: 1500 }).catch((e) => e.name)');
    // The bridge drops the closing update (docs/agents.md); the first line still reads on its own.
    expect(texts(waited)).toMatch(/^Waiting up to 1\.5 s for \{"label":"Never there"\} to appear in Galculator…\n'WaitTimeout'/);
    expect(texts(waited)).not.toContain("Gave up");
  });

  it("attach mode: deskbook mcp runs in the same kernel and shares the notebook's bindings", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp", "--server", url, "--token", token, "--kernel", kernelId],
      env: withEnv(stack.env, {}),
      cwd: stack.dir,
      stderr: "pipe",
    });
    let log = "";
    transport.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")));
    const agent = new Client({ name: "attach-test", version: "1" });
    await agent.connect(transport);
    try {
      const shared = (await agent.callTool({ name: "js", arguments: { code: "console.log(calc.name); (await calc.find({ role: 'text area' })).value.trim()", title: "read the display" } }, undefined, { timeout: 60_000 })) as CallToolResult;
      expect(shared.isError, `${JSON.stringify(shared)}\n${log}`).toBe(false);
      expect(shared.content).toEqual([{ type: "text", text: "Galculator\n" }, { type: "text", text: "'42'" }]);
      const ax = (await agent.callTool({ name: "js", arguments: { code: "await calc.getAXState({ disableDiffing: true })" } })) as CallToolResult;
      expect(texts(ax)).toMatch(/^<untrusted-app-text app="Galculator"/);
      const reset = (await agent.callTool({ name: "js_reset", arguments: {} })) as CallToolResult;
      expect(texts(reset)).toMatch(/^Not reset/);
      const still = (await agent.callTool({ name: "js", arguments: { code: "typeof calc" } })) as CallToolResult;
      expect(texts(still)).toBe("'object'");
    } finally {
      await agent.close();
    }
    // A wrong kernel id is refused with a reason, not a hang.
    const wrong = new Client({ name: "attach-test", version: "1" });
    await wrong.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", "--server", url, "--token", token, "--kernel", "no-such-kernel"], env: withEnv(stack.env, {}), stderr: "pipe" }));
    try {
      const refused = (await wrong.callTool({ name: "js", arguments: { code: "1" } })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(texts(refused)).toContain("has no kernel no-such-kernel");
    } finally {
      await wrong.close();
    }
  });
});
