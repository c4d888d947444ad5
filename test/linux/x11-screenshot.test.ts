// Root-window screenshots of galculator's window against a real Xvfb + openbox.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureWindow } from "../../helper/linux/screenshot.js";
import { windowFrame } from "../../helper/linux/windows.js";
import { sharedX11 } from "../../helper/linux/x11-client.js";
import { hasX11Tools, mainWindow, run, startTestDesktop, waitFor, type TestDesktop } from "./x-server.js";

/** Set to a directory to keep the images for a look. */
const ARTIFACTS = process.env.DESKBOOK_TEST_ARTIFACTS;

describe.skipIf(!hasX11Tools())("X11 screenshots", () => {
  let desktop: TestDesktop;
  let windowId: number;

  beforeAll(async () => {
    desktop = await startTestDesktop();
    const app = desktop.launch("galculator");
    windowId = (await mainWindow(app.pid ?? 0)).windowId ?? 0;
    run(desktop, "xdotool", ["windowsize", "--sync", String(windowId), "600", "450"]);
    run(desktop, "xdotool", ["windowmove", "--sync", String(windowId), "100", "100"]);
    await waitFor(async () => sameSize(await windowFrame(windowId), 600, 450), "the 600×450 window");
    // The frame has its new size before GTK has repainted into it; on a loaded machine a capture
    // then holds part of the old layout. Go on once three captures 200 ms apart are the same.
    let last: Buffer = Buffer.alloc(0);
    let same = 0;
    await waitFor(async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const pixels = (await captureWindow(windowId, 600, 450, "png")).data;
      same = pixels.equals(last) ? same + 1 : 0;
      last = pixels;
      return same >= 2;
    }, "galculator to finish repainting at 600×450", 20_000);
  });

  afterAll(async () => {
    await desktop?.stop();
  });

  it("captures a 600×450 window as exactly 400×300 PNG with real content", async () => {
    const shot = await captureWindow(windowId, 400, 300, "png");
    keep("galculator-400x300.png", shot.data);
    expect(shot).toMatchObject({ width: 400, height: 300, mimeType: "image/png", clipped: false });
    expect(shot.frame.slice(2)).toEqual([600, 450]);
    const meta = await sharp(shot.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 400, 300]);
    const stats = await sharp(shot.data).stats();
    // GTK's light theme with dark button labels: a bright image with real contrast, not one colour.
    expect(stats.isOpaque).toBe(true);
    expect(stats.channels[0].mean).toBeGreaterThan(150);
    expect(stats.channels[0].stdev).toBeGreaterThan(8);
    expect(stats.channels[0].min).toBeLessThan(80);
  });

  it("encodes JPEG at the requested size", async () => {
    const shot = await captureWindow(windowId, 300, 200, "jpeg", 70);
    expect(shot.mimeType).toBe("image/jpeg");
    expect(shot.data.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    const meta = await sharp(shot.data).metadata();
    expect([meta.width, meta.height]).toEqual([300, 200]);
  });

  it("keeps colours in RGB order", async () => {
    // An xmessage painted orange (#ff8000) at a known place: BGRX must come out as 255,128,0.
    desktop.launch("xmessage", ["-bg", "#ff8000", "-fg", "#ff8000", "-geometry", "300x150+700+500", "orange"]);
    const pixel = await waitFor(async () => {
      const shot = await captureWindow([760, 560, 40, 30], 1, 1, "png");
      const rgb = [...(await sharp(shot.data).raw().toBuffer())];
      return rgb[0] === 255 ? rgb : null;
    }, "the orange xmessage");
    expect(pixel).toEqual([255, 128, 0]);
  });

  it("keeps colours in RGB order at the captured size (no resize)", async () => {
    const x = await sharedX11();
    expect(await x.usesSharedMemory()).toBe(true); // Xvfb on this machine: the MIT-SHM path
    const shot = await waitFor(async () => {
      const capture = await captureWindow([760, 560, 40, 30], 40, 30, "png");
      const raw = await sharp(capture.data).raw().toBuffer({ resolveWithObject: true });
      return raw.data[0] === 255 ? raw : null;
    }, "the orange xmessage at full size");
    expect(shot.info.channels).toBe(3);
    expect([...shot.data.subarray(0, 3)]).toEqual([255, 128, 0]);
    expect([...shot.data.subarray(shot.data.length - 3)]).toEqual([255, 128, 0]);
  });

  it("keeps colours in JPEG, whose encoder must not read the pad byte as alpha", async () => {
    // The X server leaves the pad byte 0 under core drawing (xmessage): taken as an alpha, it
    // made these pixels fully transparent and JPEG flattened them to white.
    const shot = await waitFor(async () => {
      const capture = await captureWindow([760, 560, 40, 30], 40, 30, "jpeg", 90);
      const rgb = [...(await sharp(capture.data).raw().toBuffer())];
      return rgb[0]! > 200 ? rgb : null;
    }, "the orange xmessage in JPEG");
    const [r, g, b] = shot.slice(3 * 615, 3 * 615 + 3); // a pixel inside, away from the edges
    expect(r).toBeGreaterThan(240);
    expect(Math.abs(g! - 128)).toBeLessThan(12);
    expect(b).toBeLessThan(15);
  });

  it("gives captures made at the same time each their own pixels", async () => {
    // Shared-memory reads are encoded in place: a read must wait until the encode before it
    // is done. Here the lower half of the screen would land on the whole screen's upper rows.
    const whole = (): Promise<Buffer> => captureWindow([0, 0, 1280, 800], 1280, 800, "png").then((c) => sharp(c.data).raw().toBuffer());
    const lower = (): Promise<Buffer> => captureWindow([0, 400, 1280, 400], 1280, 400, "png").then((c) => sharp(c.data).raw().toBuffer());
    const [wholeAlone, lowerAlone] = [await whole(), await lower()];
    expect(wholeAlone.subarray(0, lowerAlone.length).equals(lowerAlone)).toBe(false);
    const shots = await Promise.all([whole(), lower(), whole(), lower(), whole(), lower()]);
    shots.forEach((raw, k) => expect(raw.equals(k % 2 === 0 ? wholeAlone : lowerAlone)).toBe(true));
  });

  it("clips a window that is partly off-screen and says so", async () => {
    run(desktop, "xdotool", ["windowmove", "--sync", String(windowId), "1000", "100"]);
    await waitFor(async () => (await windowFrame(windowId))[0] > 900, "the window to move right");
    const shot = await captureWindow(windowId, 300, 225, "png");
    keep("galculator-clipped.png", shot.data);
    expect(shot.clipped).toBe(true);
    const meta = await sharp(shot.data).metadata();
    expect([meta.width, meta.height]).toEqual([300, 225]);
    // The off-screen part (right of x = 1280) is black; the on-screen part is the light theme.
    const raw = await sharp(shot.data).raw().toBuffer();
    const at = (x: number, y: number): number => raw[(y * 300 + x) * 3];
    expect(at(290, 100)).toBe(0);
    expect(at(20, 100)).toBeGreaterThan(150);
    run(desktop, "xdotool", ["windowmove", "--sync", String(windowId), "100", "100"]);
  });

  it("fails with no_window for an area entirely off-screen or a window that is gone", async () => {
    await expect(captureWindow([2000, 2000, 100, 100], 50, 50)).rejects.toMatchObject({ code: "no_window" });
    await expect(captureWindow(0x7654321, 50, 50)).rejects.toMatchObject({ code: "no_window" });
  });

  it("rejects a size that is not a positive integer", async () => {
    await expect(captureWindow(windowId, 0, 10)).rejects.toMatchObject({ code: "bad_request" });
    await expect(captureWindow(windowId, 10.5, 10)).rejects.toMatchObject({ code: "bad_request" });
  });

  // How fast this is belongs to the bench (bench/linux-bench.ts), not to a test.
  it("captures and encodes the whole 1280×800 screen as PNG and JPEG", async () => {
    // Fill the screen with the app, so the encoders see UI rather than a black root.
    run(desktop, "xdotool", ["windowsize", "--sync", String(windowId), "1280", "800"]);
    run(desktop, "xdotool", ["windowmove", "--sync", String(windowId), "0", "0"]);
    for (const format of ["png", "jpeg"] as const) {
      const shot = await captureWindow([0, 0, 1280, 800], 1280, 800, format);
      const meta = await sharp(shot.data).metadata();
      expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({ format, width: 1280, height: 800 });
      if (format === "png") keep("screen-1280x800.png", shot.data);
    }
  });
});

function sameSize(frame: number[], width: number, height: number): boolean {
  return frame[2] === width && frame[3] === height;
}

function keep(name: string, data: Buffer): void {
  if (!ARTIFACTS) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  writeFileSync(join(ARTIFACTS, name), data);
}
