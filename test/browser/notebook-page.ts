/**
 * One notebook open in JupyterLab 4 or Notebook 7 (both render notebooks with the same
 * @jupyterlab/notebook widgets, so one driver serves both). Cell text goes in through the
 * document model (typing races with CodeMirror's auto-closing brackets); running, the
 * toolbar, completion and tooltips are driven with real clicks and keys.
 */
import type { Browser, Locator, Page } from "playwright-core";
import { chromium } from "playwright-core";
import sharp from "sharp";
import { CHROMIUM } from "./lab-server.js";

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

export interface CellRun {
  index: number;
  cell: Locator;
  /** Every output of the cell. */
  outputs: Locator;
}

export class NotebookPage {
  constructor(readonly page: Page) {}

  /** Waits until the open notebook's kernel is idle (after start or restart). */
  async waitForIdle(timeoutMs = 60_000): Promise<void> {
    await this.page.waitForFunction(
      () => {
        const app = (window as unknown as { jupyterapp?: JupyterAppLike }).jupyterapp;
        const kernel = app?.shell.currentWidget?.sessionContext?.session?.kernel;
        return kernel?.status === "idle" && kernel.connectionStatus === "connected";
      },
      undefined,
      { timeout: timeoutMs, polling: 100 },
    );
  }

  /** The kernel the open notebook's session runs, as the frontend names it. */
  async kernelDisplayName(): Promise<string | undefined> {
    return this.page.evaluate(() => (window as unknown as { jupyterapp: JupyterAppLike }).jupyterapp.shell.currentWidget?.sessionContext?.kernelDisplayName);
  }

  /** Puts `code` in the active cell and runs it from the toolbar's Run button; returns once it started. */
  async start(code: string): Promise<CellRun> {
    const index = await this.page.evaluate((source) => {
      const panel = (window as unknown as { jupyterapp: JupyterAppLike }).jupyterapp.shell.currentWidget!;
      const notebook = panel.content!;
      notebook.activeCell!.model.sharedModel.setSource(source);
      return notebook.activeCellIndex!;
    }, code);
    await this.toolbarButton("notebook:run-cell-and-select-next").click();
    const cell = this.page.locator(".jp-Notebook .jp-Cell").nth(index);
    return { index, cell, outputs: cell.locator(".jp-OutputArea-output") };
  }

  /** Runs `code` and waits until its cell has an execution count. */
  async run(code: string, timeoutMs = 60_000): Promise<CellRun> {
    const run = await this.start(code);
    await this.finished(run, timeoutMs);
    return run;
  }

  async finished(run: CellRun, timeoutMs = 60_000): Promise<void> {
    await run.cell.locator(".jp-InputPrompt").filter({ hasText: /\[\d+\]/ }).waitFor({ timeout: timeoutMs });
  }

  /** The toolbar button for a command (JupyterLab 4 and Notebook 7 tag them with data-command). */
  toolbarButton(command: string): Locator {
    return this.page.locator(`.jp-NotebookPanel-toolbar [data-command="${command}"]`).first();
  }

  /** Puts `code` in the active cell, places the cursor at its end, and focuses the editor. */
  async edit(code: string): Promise<Locator> {
    const index = await this.page.evaluate((source) => {
      const notebook = (window as unknown as { jupyterapp: JupyterAppLike }).jupyterapp.shell.currentWidget!.content!;
      notebook.activeCell!.model.sharedModel.setSource(source);
      return notebook.activeCellIndex!;
    }, code);
    const editor = this.page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".cm-content");
    await editor.click();
    await this.page.keyboard.press("Control+End");
    return editor;
  }

  /** Clears the active cell (after a completion or tooltip check). */
  async clearActive(): Promise<void> {
    await this.page.keyboard.press("Escape");
    await this.page.evaluate(() => {
      const notebook = (window as unknown as { jupyterapp: JupyterAppLike }).jupyterapp.shell.currentWidget!.content!;
      notebook.activeCell!.model.sharedModel.setSource("");
    });
  }
}

/** The page decoded, and the part of it inside `locator`'s box, as raw RGB. */
export async function screenshotRegion(page: Page, locator: Locator): Promise<{ data: Buffer; width: number; height: number }> {
  await locator.scrollIntoViewIfNeeded();
  const box = await locator.boundingBox();
  if (!box) throw new Error("element has no box on the page");
  const png = await page.screenshot();
  const scale = await page.evaluate(() => window.devicePixelRatio);
  const region = {
    left: Math.round(box.x * scale),
    top: Math.round(box.y * scale),
    width: Math.round(box.width * scale),
    height: Math.round(box.height * scale),
  };
  const { data, info } = await sharp(png).extract(region).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Mean absolute difference per channel (0–255) between a decoded image and a page region of the same size. */
export async function meanDifference(image: Buffer, region: { data: Buffer; width: number; height: number }): Promise<number> {
  const resized = await sharp(image).removeAlpha().resize(region.width, region.height, { fit: "fill" }).raw().toBuffer();
  let sum = 0;
  for (let i = 0; i < resized.length; i++) sum += Math.abs(resized[i]! - region.data[i]!);
  return sum / resized.length;
}

/** How many distinct colours a raw RGB buffer has (a blank region has one or two). */
export function distinctColours(raw: Buffer): number {
  const seen = new Set<number>();
  for (let i = 0; i + 2 < raw.length; i += 3) seen.add((raw[i]! << 16) | (raw[i + 1]! << 8) | raw[i + 2]!);
  return seen.size;
}

/** The slice of JupyterLab's object model the driver touches. */
interface JupyterAppLike {
  shell: {
    currentWidget?: {
      content?: {
        activeCell?: { model: { sharedModel: { setSource(source: string): void } } };
        activeCellIndex?: number;
      };
      sessionContext?: { kernelDisplayName?: string; session?: { kernel?: { status: string; connectionStatus: string } } };
    };
  };
}
