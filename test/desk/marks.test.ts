import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { COLOURS, drawMarks, marksSvg, type Mark } from "../../src/desk/marks.js";

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

describe("label placement", () => {
  /** A light element with dark "text" filling its top-left quarter. */
  async function withTextTopLeft(): Promise<Buffer> {
    const text = await sharp({ create: { width: 40, height: 20, channels: 3, background: { r: 20, g: 20, b: 20 } } }).png().toBuffer();
    return sharp({ create: { width: 240, height: 160, channels: 3, background: { r: 240, g: 240, b: 240 } } })
      .composite([{ input: text, left: 44, top: 44 }])
      .png()
      .toBuffer();
  }

  it("moves a label off its element's text", async () => {
    const image = await withTextTopLeft();
    const out = await pixels(await drawMarks(image, "png", 80, [{ index: 5, frame: [40, 40, 120, 80], text: true }]));
    const before = await pixels(image);
    // Every text pixel is as it was; the label went to another corner.
    for (let y = 44; y < 64; y++) for (let x = 44; x < 84; x++) expect(at(out, x, y)).toEqual(at(before, x, y));
    expect(at(out, 150, 46)).not.toEqual(at(before, 150, 46)); // top-right corner holds the label now
  });

  it("keeps the top-left corner when nothing is there to cover", async () => {
    const out = await pixels(await drawMarks(await plain(240, 160, "png"), "png", 80, [{ index: 5, frame: [40, 30, 120, 50], text: true }]));
    const [r, g, b] = at(out, 41, 38);
    expect(r + g + b).toBeLessThan(GREY.r * 3 - 150);
  });

  it("uses label colours white digits can be read on (WCAG contrast at least 4.5:1)", () => {
    const linear = (c: number): number => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
    for (const hex of COLOURS) {
      const [r, g, b] = [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16) / 255).map(linear);
      const l = 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
      expect((1.05 / (l + 0.05)), hex).toBeGreaterThanOrEqual(4.5);
    }
  });
});
