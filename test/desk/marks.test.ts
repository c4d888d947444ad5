import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { drawMarks, marksSvg, type Mark } from "../../src/desk/marks.js";

const GREY = { r: 200, g: 200, b: 200 };

async function plain(width: number, height: number, format: "png" | "jpeg"): Promise<Buffer> {
  const image = sharp({ create: { width, height, channels: 3, background: GREY } });
  return (format === "png" ? image.png() : image.jpeg({ quality: 95 })).toBuffer();
}

async function pixels(image: Buffer): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

function at(img: { data: Buffer; width: number }, x: number, y: number): [number, number, number] {
  const k = (y * img.width + x) * 3;
  return [img.data[k]!, img.data[k + 1]!, img.data[k + 2]!];
}

const isGrey = ([r, g, b]: [number, number, number], tolerance = 0): boolean =>
  Math.abs(r - GREY.r) <= tolerance && Math.abs(g - GREY.g) <= tolerance && Math.abs(b - GREY.b) <= tolerance;

describe("drawMarks", () => {
  const marks: Mark[] = [
    { index: 7, frame: [40, 30, 120, 50] },
    { index: 123, frame: [170, 100, 60, 40] },
  ];

  it("returns a PNG of the same size with the box edge drawn", async () => {
    const out = await drawMarks(await plain(240, 160, "png"), "png", 80, marks);
    expect((await sharp(out).metadata()).format).toBe("png");
    const img = await pixels(out);
    expect([img.width, img.height]).toEqual([240, 160]);
    expect(isGrey(at(img, 40, 60))).toBe(false); // left edge of the first box
    expect(isGrey(at(img, 159, 60))).toBe(false); // right edge
    expect(isGrey(at(img, 100, 60))).toBe(true); // inside, away from the label
    expect(isGrey(at(img, 10, 10))).toBe(true); // outside every box
  });

  it("draws the label at the box's top-left corner", async () => {
    const img = await pixels(await drawMarks(await plain(240, 160, "png"), "png", 80, marks));
    // The label's fill is the mark's colour, darker than the grey page.
    const [r, g, b] = at(img, 41, 38); // between the white border and the first digit
    expect(r + g + b).toBeLessThan(GREY.r * 3 - 150);
  });

  it("keeps JPEG as JPEG at the same size", async () => {
    const out = await drawMarks(await plain(240, 160, "jpeg"), "jpeg", 80, marks);
    const meta = await sharp(out).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 240, 160]);
    const img = await pixels(out);
    expect(isGrey(at(img, 40, 60), 24)).toBe(false);
    expect(isGrey(at(img, 10, 10), 8)).toBe(true);
  });

  it("leaves the image alone without marks, or when every mark is off the image", async () => {
    const input = await plain(100, 80, "png");
    for (const list of [[], [{ index: 1, frame: [200, 200, 10, 10] }, { index: 2, frame: [-50, 10, 40, 10] }]] as Mark[][]) {
      const img = await pixels(await drawMarks(input, "png", 80, list));
      expect(img.data.equals((await pixels(input)).data)).toBe(true);
    }
  });

  it("keeps a box at the image's corner and its label inside the image", async () => {
    const img = await pixels(await drawMarks(await plain(100, 80, "png"), "png", 80, [{ index: 4567, frame: [90, 70, 40, 40] }]));
    expect(isGrey(at(img, 98, 78))).toBe(false);
    expect(isGrey(at(img, 65, 65))).toBe(false); // the 4-digit label moved left and up to fit
  });

  it("rejects bytes that are not an image", async () => {
    await expect(drawMarks(Buffer.from("not an image"), "png", 80, marks)).rejects.toThrow();
  });
});

describe("marksSvg", () => {
  it("keeps every label inside the image", () => {
    const svg = marksSvg(100, 80, [{ index: 99999, frame: [95, 75, 20, 20] }]);
    const label = /<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"/.exec(svg);
    expect(label).not.toBeNull();
    const [x, y, w, h] = label!.slice(1).map(Number) as [number, number, number, number];
    expect(x).toBeGreaterThanOrEqual(0);
    expect(y).toBeGreaterThanOrEqual(0);
    expect(x + w).toBeLessThanOrEqual(100);
    expect(y + h).toBeLessThanOrEqual(80);
  });

  it("is an empty overlay without marks", () => {
    expect(marksSvg(10, 10, [])).toBe('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>');
  });
});
