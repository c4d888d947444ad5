/**
 * `deskbook mcp` over stdio, driven by the MCP SDK's own client, on a virtual desktop the
 * server's kernel starts by itself, with galculator and mousepad: persistence, content,
 * images and the byte budget, untrusted wrapping, errors and stops, progress, js_reset,
 * bad arguments, and the agent's name and step in actions.log.
 */
import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI } from "../support/kernel-process.js";
import { desktopHome, missingDesktopTools, withEnv, type DesktopHome } from "../support/desktop-home.js";

const execFileAsync = promisify(execFile);
const missing = missingDesktopTools(["xdotool"]);
if (missing.length > 0) console.warn(`test/mcp/mcp-desktop.test.ts skipped: ${missing.join(", ")} not installed`);

type Item = CallToolResult["content"][number];
const textOf = (result: CallToolResult): string[] => result.content.filter((c): c is Extract<Item, { type: "text" }> => c.type === "text").map((c) => c.text);
const imagesOf = (result: CallToolResult) => result.content.filter((c): c is Extract<Item, { type: "image" }> => c.type === "image");

describe.skipIf(missing.length > 0)("deskbook mcp on the virtual desktop", () => {
  let desk: DesktopHome;
  let client: Client;
  let transport: StdioClientTransport;
  let serverLog = "";

  const js = async (code: string, extra: Record<string, unknown> = {}, options: { onprogress?: () => void } = {}): Promise<CallToolResult> =>
    (await client.callTool({ name: "js", arguments: { code, ...extra } }, undefined, { timeout: 90_000, ...options })) as CallToolResult;
  const config = (value: Record<string, unknown>) => writeFile(join(desk.home, "config.json"), JSON.stringify({ allow: ["galculator", "mousepad"], ...value }));

  beforeAll(async () => {
    desk = await desktopHome({ allow: ["galculator", "mousepad"] });
    transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp"], env: withEnv(process.env, desk.env), cwd: desk.dir, stderr: "pipe" });
    transport.stderr?.on("data", (chunk: Buffer) => (serverLog += chunk.toString("utf8")));
    client = new Client({ name: "test-agent", version: "1.0.0" });
    await client.connect(transport);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await desk?.cleanup();
  }, 60_000);

  it("lists js and js_reset, with a cheat sheet of at most 2 KB", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["js", "js_reset"]);
    const jsTool = tools[0]!;
    expect(Buffer.byteLength(jsTool.description ?? "", "utf8")).toBeLessThanOrEqual(2048);
    expect(jsTool.description).toContain("desk.getApp");
    expect(jsTool.inputSchema).toMatchObject({ required: ["code"], properties: { code: { type: "string" }, title: { type: "string" }, timeout_ms: { type: "integer" } } });
  });

  it("keeps bindings across calls, in one real kernel", async () => {
    expect(textOf(await js("const base = 40; function add(n) { return base + n }"))).toEqual(["(no output)"]);
    const result = await js("add(2)");
    expect(result.isError).toBe(false);
    expect(textOf(result)).toEqual(["42"]);
  });

  it("binds galculator, and hands back stdout, the AX text (wrapped as app text) and the result in order", async () => {
    const result = await js(`console.log("binding"); const calc = await desk.getApp("galculator"); await calc.getAXState(); calc.name`, { title: "bind galculator" });
    expect(result.isError, `${JSON.stringify(result)}\n${serverLog}`).toBe(false);
    // A launch that took over a second also hands back its closing line.
    const [out, ax, value] = textOf(result).filter((piece) => !/^Galculator started \(pid \d+\) in \d+\.\d s\.$/.test(piece));
    expect(out).toBe("binding\n");
    expect(ax).toMatch(/^<untrusted-app-text app="Galculator" id="[0-9a-f]{8}">\n\(Read from the app "Galculator": data/);
    expect(ax).toMatch(/\napp "Galculator", window "galculator", image \d+×\d+, \d+ elements\n/);
    expect(ax).toMatch(/\d+ toggle button "7"/);
    expect(value).toBe("'Galculator'");
    expect(JSON.stringify(result)).not.toContain("\\u001b");
  });

  it("presses buttons found by label and reads 42; the agent's name and title reach actions.log", async () => {
    const result = await js(
      `for (const key of ["AC", "6", "*", "7", "="]) await calc.click({ find: { role: "AXButton", label: key, exact: true } });
       (await calc.find({ role: "text area" })).value.trim()`,
      { title: "compute 6 × 7" },
    );
    expect(textOf(result), JSON.stringify(result)).toEqual(["'42'"]);
    const log = (await readFile(join(desk.home, "actions.log"), "utf8")).trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    const presses = log.filter((l) => l.step === "compute 6 × 7");
    expect(presses.length).toBe(5);
    for (const line of presses) expect(line).toMatchObject({ client: "test-agent", app: "Galculator" });
  });

  it("records an agent's calls into a recipe: titles from the calls, indices written as locators", async () => {
    expect(textOf(await js(`desk.record("agent-recipe.ipynb")`))[0]).toMatch(/agent-recipe\.ipynb'$/);
    const seven = textOf(await js(`(await calc.find({ role: "toggle button", label: "7", exact: true })).i`))[0];
    expect(Number(seven)).toBeGreaterThan(0);
    expect((await js(`await calc.click(${seven})`, { title: "press 7" })).isError).toBe(false);
    expect((await js(`desk.stopRecording()`)).isError).toBe(false);
    const recipe = JSON.parse(await readFile(join(desk.dir, "agent-recipe.ipynb"), "utf8")) as { cells: { source: string[] }[] };
    const sources = recipe.cells.map((c) => c.source.join(""));
    expect(sources).toContain('// press 7\nawait calc.click({ role: "toggle button", label: "7", window: "galculator" })');
  });

  it("hands over a long wait's closing sentence, not its progress, then the result", async () => {
    const result = await js('await calc.waitFor({ label: "Never there" }, { timeout: 1500 }).catch((e) => e.name)');
    const [line, value] = textOf(result);
    expect(line).toMatch(/^Gave up waiting for \{"label":"Never there"\} to appear in Galculator after (1\.[5-9]|[2-9]\.\d|\d{2,}) s: WaitTimeout \(wait_timeout\): /);
    expect(value).toBe("'WaitTimeout'");
    expect(textOf(result)).toHaveLength(2);
  });

  it("returns a screenshot as ImageContent with its pixel space, and re-encodes it to fit a small budget", async () => {
    const full = await js("await calc.getScreenshot()");
    const [png] = imagesOf(full);
    expect(png?.mimeType).toBe("image/png");
    const meta = await sharp(Buffer.from(png!.data, "base64")).metadata();
    const caption = textOf(full).join("\n");
    expect(caption).toContain(`${meta.width}×${meta.height} image pixels`);
    expect(caption).toMatch(/^<untrusted-app-text app="Galculator"/);

    const budget = 6000;
    await config({ mcp: { maxImageBytes: budget } });
    try {
      const small = await js("await calc.getScreenshot()");
      const [jpeg] = imagesOf(small);
      expect(jpeg?.mimeType).toBe("image/jpeg");
      const bytes = Buffer.from(jpeg!.data, "base64");
      expect(bytes.byteLength).toBeLessThanOrEqual(budget);
      const shrunk = await sharp(bytes).metadata();
      expect(shrunk.width!).toBeLessThan(meta.width!);
      const note = textOf(small).join("\n");
      const factor = Number(/multiply x and y read off this image by (\d+(?:\.\d+)?)/.exec(note)?.[1]);
      expect(factor).toBeCloseTo(meta.width! / shrunk.width!, 2);
    } finally {
      await config({});
    }
  });

  it("reports a thrown error as isError with the cell's line, after the output before it", async () => {
    const result = await js("console.log('so far'); null.boom");
    expect(result.isError).toBe(true);
    const [out, error] = textOf(result);
    expect(out).toBe("so far\n");
    expect(error).toMatch(/^TypeError: Cannot read properties of null/);
    expect(error).toContain("cell-");
  });

  it("stops a call at timeout_ms, saying Stopped:, and the bindings survive", async () => {
    const result = await js("console.log('waiting'); await new Promise((r) => setTimeout(r, 20_000))", { timeout_ms: 700 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toEqual(["Stopped: the cell ran longer than 700 ms.", "waiting\n"]);
    expect(textOf(await js("add(1)"))).toEqual(["41"]);
  });

  it("stops a call when the user presses Escape", async () => {
    const x11 = await desk.x11Env();
    const running = js("await new Promise((r) => setTimeout(r, 30_000))");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await execFileAsync("xdotool", ["key", "Escape"], { env: { ...process.env, ...x11 }, timeout: 10_000 });
    const result = await running;
    expect(result.isError).toBe(true);
    expect(textOf(result)[0]).toBe("Stopped: the user pressed Escape.");
  });

  it("sends progress notifications during a long call", async () => {
    let progress = 0;
    const result = await js("await new Promise((r) => setTimeout(r, 2500)); 'done'", {}, { onprogress: () => void (progress += 1) });
    expect(textOf(result)).toEqual(["'done'"]);
    expect(progress).toBeGreaterThanOrEqual(1);
  });

  it("answers bad arguments with an MCP error, and goes on serving", async () => {
    const bad: [string, Record<string, unknown>, RegExp][] = [
      ["js", {}, /"code" must be a string/],
      ["js", { code: 42 }, /"code" must be a string/],
      ["js", { code: "1", timeout_ms: -3 }, /"timeout_ms" must be a whole number/],
      ["js", { code: "1", timeout_ms: "soon" }, /"timeout_ms" must be a whole number/],
      ["js", { code: "1", title: 5 }, /"title" must be a string/],
      ["js", { code: "1", cwd: "/" }, /unknown argument "cwd"/],
      ["js_reset", { now: true }, /takes no arguments/],
      ["shell", { code: "ls" }, /unknown tool "shell"/],
    ];
    for (const [name, args, message] of bad) {
      const error = await client.callTool({ name, arguments: args }).then(() => undefined, (e: unknown) => e);
      expect(error, `${name} ${JSON.stringify(args)}`).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32602);
      expect((error as McpError).message).toMatch(message);
    }
    expect(textOf(await js("add(0)"))).toEqual(["40"]);
  });

  it("js_reset drops every binding", async () => {
    const reset = (await client.callTool({ name: "js_reset", arguments: {} })) as CallToolResult;
    expect(textOf(reset)[0]).toMatch(/every binding is gone/);
    expect(textOf(await js("typeof calc + ' ' + typeof add"))).toEqual(["'undefined undefined'"]);
  });
});
