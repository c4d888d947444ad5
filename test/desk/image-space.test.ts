import { describe, expect, it } from "vitest";
import type { Frame } from "../../src/helper/protocol.js";
import { ImageSpace, imageScale, imageSize } from "../../src/desk/image-space.js";
import { LIMITS } from "./fixtures.js";

const win = (w: number, h: number, scale = 1, x = 0, y = 0): { frame: Frame; scale: number } => ({ frame: [x, y, w, h], scale });

describe("imageScale", () => {
  it("is the backing scale for a small window", () => {
    expect(imageScale(win(400, 300, 2), LIMITS)).toBe(2);
  });

  it("is limited by the long side for a wide window", () => {
    expect(imageScale(win(3136, 200, 2), LIMITS)).toBeCloseTo(0.5, 12);
  });

  it("is limited by the pixel count for a large window", () => {
    expect(imageScale(win(1440, 900, 2), LIMITS)).toBeCloseTo(Math.sqrt(1_150_000 / (1440 * 900)), 12);
  });

  it("refuses a window with no area or a bad scale", () => {
    expect(() => imageScale(win(0, 300), LIMITS)).toThrow(RangeError);
    expect(() => imageScale(win(300, Number.NaN), LIMITS)).toThrow(/no area/);
    expect(() => imageScale(win(300, 300, 0), LIMITS)).toThrow(/backing scale/);
    expect(() => imageScale(win(300, 300), { maxLongSide: 0, maxPixels: 10 })).toThrow(/limits/);
  });
});

describe("imageSize", () => {
  it("rounds the scaled size", () => {
    expect(imageSize(win(400, 300, 2), LIMITS)).toEqual({ width: 800, height: 600 });
    // 1356.9×848.1 would round to 1357×848 = 1,150,736 pixels, just over 1.15 M.
    expect(imageSize(win(1440, 900, 2), LIMITS)).toEqual({ width: 1356, height: 848 });
  });

  it("lands exactly on maxLongSide", () => {
    expect(imageSize(win(3136, 200, 2), LIMITS)).toEqual({ width: 1568, height: 100 });
    expect(imageSize(win(1568, 1, 1), LIMITS)).toEqual({ width: 1568, height: 1 });
  });

  it("never rounds above maxPixels: floors one side when rounding both up would cross", () => {
    // 7×3 at s = sqrt(20/21): 6.83×2.93 rounds to 7×3 = 21 > 20.
    expect(imageSize(win(7, 3, 10), { maxLongSide: 100, maxPixels: 20 })).toEqual({ width: 6, height: 3 });
  });

  it("keeps a sliver window at least 1 pixel across and within maxPixels", () => {
    expect(imageSize(win(1, 10_000, 2), { maxLongSide: 1568, maxPixels: 100 })).toEqual({ width: 1, height: 100 });
    expect(imageSize(win(10_000, 1, 2), LIMITS)).toEqual({ width: 1568, height: 1 });
    expect(imageSize(win(0.1, 0.1, 1), LIMITS)).toEqual({ width: 1, height: 1 });
  });

  it("holds every limit over many window shapes", () => {
    let seed = 7;
    const random = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let k = 0; k < 5000; k++) {
      const w = 1 + Math.floor(random() * 6000);
      const h = 1 + Math.floor(random() * 4000);
      const scale = [1, 1.5, 2, 3][k % 4]!;
      const limits = k % 3 === 0 ? LIMITS : { maxLongSide: 1 + Math.floor(random() * 2000), maxPixels: 1 + Math.floor(random() * 2_000_000) };
      const size = imageSize(win(w, h, scale), limits);
      const s = imageScale(win(w, h, scale), limits);
      expect(size.width * size.height).toBeLessThanOrEqual(limits.maxPixels);
      expect(Math.max(size.width, size.height)).toBeLessThanOrEqual(limits.maxLongSide);
      expect(Math.min(size.width, size.height)).toBeGreaterThanOrEqual(1);
      if (w * s >= 1 && h * s >= 1) {
        expect(Math.abs(size.width - w * s)).toBeLessThan(1);
        expect(Math.abs(size.height - h * s)).toBeLessThan(1);
      }
    }
  });
});

describe("ImageSpace", () => {
  // A window on a display left of and above the main one: negative screen coordinates.
  const space = new ImageSpace(win(1440, 900, 2, -1440, -120), LIMITS);

  it("has the image size and the scale", () => {
    expect([space.width, space.height]).toEqual([1356, 848]);
    expect(space.scale).toBeCloseTo(0.94199, 5);
  });

  it("maps the image's corners onto the window's corners", () => {
    expect(space.toScreen([0, 0])).toEqual([-1440, -120]);
    const [sx, sy] = space.toScreen([space.width, space.height]);
    expect(sx).toBeCloseTo(0, 9);
    expect(sy).toBeCloseTo(780, 9);
  });

  it("round-trips points", () => {
    for (const p of [[0, 0], [10.5, 20.25], [1355, 847], [678, 424]] as [number, number][]) {
      const back = space.toImage(space.toScreen(p));
      expect(back[0]).toBeCloseTo(p[0], 9);
      expect(back[1]).toBeCloseTo(p[1], 9);
    }
  });

  it("maps frames to image pixels with rounded edges, so neighbours still touch", () => {
    const retina = new ImageSpace(win(232, 322, 2, 100, 200), LIMITS);
    expect(retina.frameToImage([108, 320, 52, 36])).toEqual([16, 240, 104, 72]);
    const a = space.frameToImage([-1440, -120, 100.3, 10]);
    const b = space.frameToImage([-1339.7, -120, 100.3, 10]);
    expect(a[0] + a[2]).toBe(b[0]);
    // Partly off the window stays partly off: the frame is not clipped.
    expect(retina.frameToImage([90, 190, 20, 20])).toEqual([-20, -20, 40, 40]);
  });

  it("contains the image's pixels and nothing past its right and bottom edges", () => {
    expect(space.contains([0, 0])).toBe(true);
    expect(space.contains([1355, 847])).toBe(true);
    expect(space.contains([1355.9, 847.9])).toBe(true);
    expect(space.contains([1356, 0])).toBe(false);
    expect(space.contains([0, 848])).toBe(false);
    expect(space.contains([-0.1, 5])).toBe(false);
    expect(space.contains([Number.NaN, 5])).toBe(false);
  });

  it("refuses a point off the image with a RangeError naming the point and the image size", () => {
    expect(() => space.assertInside([10, 10])).not.toThrow();
    expect(() => space.assertInside([1356, 10])).toThrow(RangeError);
    expect(() => space.assertInside([1356, 10])).toThrow("point [1356, 10] is outside the window image (1356×848)");
    expect(() => space.assertInside([-1, 2.5])).toThrow("point [-1, 2.5] is outside the window image (1356×848)");
  });

  it("does not follow later changes to the frame it was built from", () => {
    const frame: Frame = [0, 0, 100, 100];
    const s = new ImageSpace({ frame, scale: 1 }, LIMITS);
    frame[0] = 500;
    expect(s.toScreen([0, 0])).toEqual([0, 0]);
  });
});
