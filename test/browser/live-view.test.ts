/**
 * The live view in Chromium: a cell binds galculator on the virtual desktop and calls
 * desk.view(); the page it links to (noVNC through websockify, x11vnc on loopback) must show
 * galculator's window — the canvas's pixels at the window's frame match the helper's own
 * screenshot — and change when a cell presses a button. Watch-only by default.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import sharp from "sharp";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runningView } from "../../src/desktop/live-view.js";
import { isAlive } from "../../src/process-signals.js";
import { endHomeProcesses } from "../../src/client/home-processes.js";
import { startHeadlessKernel, type RunningKernel } from "../support/kernel-process.js";
import { CHROMIUM, missingForBrowser, startLabServer } from "./lab-server.js";
import { launchChromium } from "./notebook-page.js";
import { existsSync } from "node:fs";

const missing = ["Xvfb", "openbox", "dbus-daemon", "galculator", "x11vnc", "websockify"].filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0);
if (!existsSync(CHROMIUM)) missing.push(CHROMIUM);
if (!existsSync("/usr/share/novnc/vnc.html")) missing.push("novnc");
if (missing.length > 0) console.warn(`test/browser/live-view.test.ts skipped: ${missing.join(", ")} missing`);

interface Raw {
  data: Buffer;
  width: number;
  height: number;
}

describe.skipIf(missing.length > 0)("the live view in Chromium", () => {
  let dir: string;
  let home: string;
  let kernel: RunningKernel;
  let browser: Browser;
  let page: Page;

  /** Runs a cell; throws with the error if it failed; returns the plain text it showed. */
  async function cell(code: string): Promise<string> {
    const { reply, iopub } = await kernel.client.execute(code, { timeoutMs: 60_000 });
    expect(reply.content.status, JSON.stringify(reply.content)).toBe("ok");
    return iopub
      .map((m) => (m.content as { data?: Record<string, string> }).data?.["text/plain"] ?? "")
      .filter(Boolean)
      .join("\n");
  }

  /** The noVNC canvas as the page holds it, at the desktop's own resolution. */
  async function canvasPixels(): Promise<Raw> {
    const url = await page.locator("canvas").first().evaluate((c) => (c as HTMLCanvasElement).toDataURL("image/png"));
    const { data, info } = await sharp(Buffer.from(url.split(",")[1]!, "base64")).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height };
  }

  /**
   * The open view shows what the helper captures of galculator's window, and changes when a
   * cell presses its buttons.
   */
  async function expectShowsGalculator(): Promise<void> {
    const canvas = page.locator("canvas").first();
    await canvas.waitFor({ timeout: 20_000 });
    // Connected: noVNC has drawn the framebuffer at the screen's size.
    await expect.poll(async () => (await canvasPixels()).width, { timeout: 20_000 }).toBe(1280);
    const readPath = join(dir, "window.json");
    await cell(`const w = (await calc.windows())[0]; const s = await calc.getScreenshot({ emit: false, format: "png" })
require("node:fs").writeFileSync(${JSON.stringify(readPath)}, JSON.stringify({ frame: w.frame, png: s.data.toString("base64") }))`);
    const { frame, png: shot } = JSON.parse(await readFile(readPath, "utf8")) as { frame: [number, number, number, number]; png: string };
    const window = await sharp(Buffer.from(shot, "base64")).removeAlpha().resize(frame[2], frame[3], { fit: "fill" }).raw().toBuffer();
    const region = async (): Promise<Buffer> => {
      const raw = await canvasPixels();
      return sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: 3 } })
        .extract({ left: Math.round(frame[0]), top: Math.round(frame[1]), width: frame[2], height: frame[3] })
        .raw()
        .toBuffer();
    };
    const meanDiff = (a: Buffer, b: Buffer): number => {
      let sum = 0;
      for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
      return sum / a.length;
    };
    // The view shows what the helper captures of galculator's window.
    await expect.poll(async () => meanDiff(await region(), window), { timeout: 15_000 }).toBeLessThan(12);

    const before = await region();
    await cell(`for (const key of ["7", "7", "7"]) await calc.click((await calc.find({ role: "button", label: key, exact: true })).i)`);
    await expect.poll(async () => meanDiff(await region(), before), { timeout: 15_000 }).toBeGreaterThan(0.5);
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "deskbook-live-view-"));
    home = join(dir, "home");
    await mkdir(home, { recursive: true, mode: 0o700 });
    await writeFile(join(home, "config.json"), JSON.stringify({ allow: ["galculator"] }));
    kernel = await startHeadlessKernel(dir, home);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await kernel?.stop();
    await endHomeProcesses(home);
    await rm(dir, { recursive: true, force: true });
  }, 30_000);

  it("shows galculator's window, and the change a cell's click makes", async () => {
    await cell(`const calc = await desk.getApp("galculator")\nawait calc.click((await calc.find({ role: "button", label: "AC", exact: true })).i)`);
    const shown = await cell(`await desk.view()`);
    const url = /http:\/\/127\.0\.0\.1:\d+\/vnc\.html\?\S+/.exec(shown)?.[0];
    expect(shown).toContain("watch only");
    expect(url).toContain("view_only=1");
    await page.goto(url!);
    await expectShowsGalculator();
    if (process.env.DESKBOOK_BROWSER_SHOTS) await writeFile(join(process.env.DESKBOOK_BROWSER_SHOTS, "live-view.png"), await page.screenshot());
  }, 120_000);

  // The route a remote JupyterLab needs: page and WebSocket both through jupyter-server-proxy.
  it.skipIf(missingForBrowser().length > 0)("shows the same view through jupyter-server-proxy behind JupyterLab", async () => {
    const lab = await startLabServer([]);
    try {
      const shown = await cell(`const calc = await desk.getApp("galculator")\nawait desk.view({ proxy: true })`);
      const path = /\/proxy\/\d+\/vnc\.html\?\S+/.exec(shown)?.[0];
      expect(path, shown).toBeDefined();
      expect(new URL(path!, lab.baseUrl).searchParams.get("path")).toMatch(/^proxy\/\d+\/websockify$/);
      await page.goto(lab.url("api/status")); // the token in the URL logs the browser in, as opening JupyterLab does
      await page.goto(new URL(path!, lab.baseUrl).href);
      await expectShowsGalculator();
    } finally {
      await lab.stop();
    }
  }, 150_000);

  it("prints the URL from `deskbook desktop view`, the same view, and an interactive one on request", async () => {
    const cli = join(process.cwd(), "dist", "src", "cli", "main.js");
    const watch = spawnSync(process.execPath, [cli, "desktop", "view", "--json"], { env: { ...process.env, DESKBOOK_HOME: home }, encoding: "utf8" });
    expect(watch.status, watch.stderr).toBe(0);
    const { url } = JSON.parse(watch.stdout) as { url: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/vnc\.html\?.*view_only=1/);
    const take = spawnSync(process.execPath, [cli, "desktop", "view", "--interactive"], { env: { ...process.env, DESKBOOK_HOME: home }, encoding: "utf8" });
    expect(take.status, take.stderr).toBe(0);
    expect(take.stdout).toContain("view_only=0");
    expect(new URL(take.stdout.trim()).port).toBe(new URL(url).port); // one view, reused
  }, 30_000);

  it("ends with the home: endHomeProcesses stops x11vnc and websockify, also when one of them died first", async () => {
    const view = runningView(home);
    expect(view, "the view the tests above opened").toBeDefined();
    const { x11vnc, websockify } = view!.pids;
    expect([x11vnc, websockify].every(isAlive)).toBe(true);
    // The view is no longer whole: websockify is left alone and must still be ended.
    process.kill(x11vnc, "SIGKILL");
    await expect.poll(() => isAlive(x11vnc), { timeout: 10_000 }).toBe(false);
    expect(runningView(home)).toBeUndefined();
    await endHomeProcesses(home);
    expect(isAlive(websockify)).toBe(false);
  }, 30_000);
});
