import { readFileSync } from "node:fs";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { drawMarks, type Mark } from "../../src/desk/marks.js";
import { COLOURS } from "../../src/image/marks-raster.js";
import { markPixels } from "../../src/image/mark-pixels.js";
import { placeLabels, unionArea } from "../../src/image/label-placement.js";
import type { Frame } from "../../src/helper/protocol.js";

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

  it("marks a greyscale image in colour", async () => {
    const grey = await sharp({ create: { width: 240, height: 160, channels: 3, background: GREY } }).toColourspace("b-w").png().toBuffer();
    expect((await sharp(grey).metadata()).channels).toBe(1);
    const img = await pixels(await drawMarks(grey, "png", 80, marks));
    expect(at(img, 40, 60)).toEqual([1, 3, 5].map((k) => parseInt(COLOURS[7]!.slice(k, k + 2), 16)));
  });

  it("keeps an image's own transparency in PNG, and puts JPEG's on white", async () => {
    // A window shot with clear corners: the left quarter transparent, the rest grey.
    const width = 240;
    const height = 160;
    const rgba = Buffer.alloc(width * height * 4);
    for (let i = 0; i < width * height; i++) if (i % width >= 60) rgba.set([GREY.r, GREY.g, GREY.b, 255], i * 4);
    const input = await sharp(rgba, { raw: { width, height, channels: 4 } }).png().toBuffer();
    const png = await sharp(await drawMarks(input, "png", 80, marks)).raw().toBuffer({ resolveWithObject: true });
    expect(png.info.channels).toBe(4);
    expect(png.data[(10 * width + 10) * 4 + 3]).toBe(0); // still clear, away from every mark
    expect(png.data[(60 * width + 40) * 4 + 3]).toBe(255); // the first box's left edge, painted over the clear part
    const jpeg = await pixels(await drawMarks(input, "jpeg", 80, marks));
    expect(at(jpeg, 10, 10).every((v) => v >= 245)).toBe(true);
  });

  it("rejects bytes that are not an image", async () => {
    await expect(drawMarks(Buffer.from("not an image"), "png", 80, marks)).rejects.toThrow();
  });
});

describe("painting marks into the pixels", () => {
  /** A light page with a gradient, a dark pane, and dark "text" stripes in the first element. */
  async function referenceInput(): Promise<Buffer> {
    const [w, h] = [320, 200];
    const data = Buffer.alloc(w * h * 3);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const dark = x >= 200 && y >= 120;
        const ink = x >= 24 && x < 80 && y >= 24 && y < 36 && (x >> 2) % 2 === 0;
        const v = dark ? 30 : ink ? 20 : 230 - (x >> 4);
        data.set([v, dark ? 40 : v, dark ? 60 : v], (y * w + x) * 3);
      }
    }
    return sharp(data, { raw: { width: w, height: h, channels: 3 } }).png().toBuffer();
  }
  const REFERENCE_MARKS: Mark[] = [
    { index: 0, frame: [20, 20, 120, 40], text: true },
    { index: 7, frame: [150, 20, 60, 30] },
    { index: 12, frame: [30, 70, 90, 50] },
    { index: 345, frame: [100, 90, 80, 40] }, // overlaps 12
    { index: 9, frame: [210, 130, 90, 50] }, // on the dark pane
    { index: 6789, frame: [290, 180, 60, 40] }, // off the bottom-right corner
    { index: 3, frame: [-10, 150, 50, 30] }, // off the left edge
    { index: 15, frame: [240, 60, 8, 6] }, // smaller than its label
    { index: 21, frame: [0, 0, 320, 200] }, // the whole image
  ];

  it("draws the same pixels as the SVG overlay it replaced (halos, boxes, labels, clipping, overlaps)", async () => {
    // reference-svg.png was drawn by the librsvg overlay over referenceInput() with these marks.
    const reference = await pixels(readFileSync(new URL("../fixtures/marks/reference-svg.png", import.meta.url)));
    const out = await pixels(await drawMarks(await referenceInput(), "png", 80, REFERENCE_MARKS));
    expect([out.width, out.height]).toEqual([reference.width, reference.height]);
    const differing: string[] = [];
    for (let y = 0; y < out.height; y++) {
      for (let x = 0; x < out.width; x++) {
        if (at(out, x, y).join() !== at(reference, x, y).join()) differing.push(`${x},${y}: ${at(out, x, y)} vs ${at(reference, x, y)}`);
      }
    }
    expect(differing.slice(0, 10)).toEqual([]);
  });

  it("puts stroke, halo and label where the geometry says", async () => {
    const out = await pixels(await drawMarks(await plain(240, 160, "png"), "png", 80, [{ index: 7, frame: [40, 30, 120, 50] }]));
    const colour = COLOURS[7]!;
    const rgb = [1, 3, 5].map((k) => parseInt(colour.slice(k, k + 2), 16));
    // The stroke is 2 pixels on the edge (x 39 and 40), the halo 2 more either side of it.
    expect(at(out, 39, 60)).toEqual(rgb);
    expect(at(out, 40, 60)).toEqual(rgb);
    const halo = 191 + Math.floor((GREY.r * 64) / 255);
    expect(at(out, 38, 60)).toEqual([halo, halo, halo]);
    expect(at(out, 41, 60)).toEqual([halo, halo, halo]);
    expect(at(out, 37, 60)).toEqual([GREY.r, GREY.g, GREY.b]);
    expect(at(out, 42, 60)).toEqual([GREY.r, GREY.g, GREY.b]);
    // The label at the top-left corner: a white border, the colour, then the 7's top bar in white.
    expect(at(out, 40, 30)).toEqual([255, 255, 255]);
    expect(at(out, 41, 31)).toEqual(rgb);
    expect(at(out, 42, 32)).toEqual([255, 255, 255]);
  });

  it("lightens halos the same on canvases at every word alignment, in R G B and R G B A, alpha kept", () => {
    // Noise with every byte value (255 is the one the word trick treats apart), halos crossing
    // each other and the image edge. The word path works on words aligned in memory, so a
    // canvas starting 1, 2 or 3 bytes past a word boundary meets its words at another phase
    // (the Linux helper paints its R G B X view, one byte in); the bytes of R G B A are checked
    // against the formula one by one, and R G B against them.
    const [width, height] = [97, 61];
    // Alpha stays below 255, so a painted pixel (opaque) is told from a lightened one.
    const source = Buffer.from(Array.from({ length: width * height * 4 }, (_, i) => (i * 7919 + (i >> 5)) % (i % 4 === 3 ? 255 : 256)));
    const sourceRgb = Buffer.from(source.filter((_, i) => i % 4 !== 3));
    const list: Mark[] = [
      { index: 3, frame: [5, 5, 40, 20] },
      { index: 41, frame: [20, 12, 50, 30] },
      { index: 8, frame: [-3, 40, 30, 30] },
      { index: 900, frame: [60, 2, 60, 25] },
    ];
    const paintAt = (channels: 3 | 4, offset: number): Buffer => {
      const data = Buffer.alloc(width * height * channels + offset).subarray(offset);
      (channels === 4 ? source : sourceRgb).copy(data);
      markPixels({ data, width, height, channels }, list);
      return Buffer.from(data);
    };
    const rgba = paintAt(4, 0);
    const rgb = paintAt(3, 0);
    expect(rgb.equals(Buffer.from(rgba.filter((_, i) => i % 4 !== 3))), "R G B as the R G B A's colour bands").toBe(true);
    for (const offset of [1, 2, 3]) {
      expect(paintAt(3, offset).equals(rgb), `R G B at offset ${offset}`).toBe(true);
      expect(paintAt(4, offset).equals(rgba), `R G B A at offset ${offset}`).toBe(true);
    }
    let haloed = 0;
    for (let p = 0; p < width * height; p++) {
      const [r, g, b, a] = rgba.subarray(p * 4, p * 4 + 4);
      const was = source.subarray(p * 4, p * 4 + 4);
      if (a === was[3] && (r !== was[0] || g !== was[1] || b !== was[2])) {
        haloed += 1; // lightened, alpha kept: each channel as the formula says
        for (let c = 0; c < 3; c++) expect(rgba[p * 4 + c]).toBe(191 + Math.floor((was[c]! * 64) / 255));
      } else if (a === was[3]) {
        expect([r, g, b]).toEqual([...was.subarray(0, 3)]); // untouched
      }
    }
    expect(haloed).toBeGreaterThan(500);
  });

  it("keeps every label inside the image", async () => {
    const out = await pixels(await drawMarks(await plain(100, 80, "png"), "png", 80, [{ index: 99999, frame: [95, 75, 20, 20] }]));
    // Five digits: 2 + 5 × 10 + 4 × 2 + 2 = 62 pixels wide, so the label sits at x 38–99, y 62–79.
    expect(at(out, 99, 79)).toEqual([255, 255, 255]); // its border's corner, in the image
    expect(at(out, 98, 78)).toEqual([1, 3, 5].map((k) => parseInt(COLOURS[99999 % COLOURS.length]!.slice(k, k + 2), 16)));
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

  it("places labels the same whether a large text element's ink is read up front or where spots ask", async () => {
    // An element is read lazily when it is larger than all label spots together. Items appended
    // after the others cannot move their labels but add spots, so the same layout takes the other path.
    const { data, info } = await sharp(await withTextTopLeft()).raw().toBuffer({ resolveWithObject: true });
    const raster = { data, width: info.width, height: info.height, channels: info.channels };
    const size = { w: 20, h: 14 };
    // 2 × 9 spots of 280 pixels: less than the text element's inside (114 × 74), which is read lazily.
    const layout = [
      { frame: [40, 40, 120, 80] as Frame, text: true, size },
      { frame: [150, 30, 60, 30] as Frame, size },
    ];
    const lazy = placeLabels(raster, layout);
    const padding = Array.from({ length: 40 }, () => ({ frame: [0, 0, 10, 10] as Frame, size: { w: 60, h: 40 } }));
    const eager = placeLabels(raster, [...layout, ...padding]).slice(0, layout.length);
    expect(eager).toEqual(lazy);
    // The text element's label keeps off its text (44-84 × 44-64), at the top right.
    expect(lazy[0]).toEqual({ x: 140, y: 40, w: 20, h: 14 });
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

describe("what a label spot covers of the labels placed before", () => {
  it("counts the union of overlapping labels once, as a pixel map would", () => {
    const rects = [
      { x: 0, y: 0, w: 10, h: 10 },
      { x: 5, y: 5, w: 10, h: 10 },
      { x: 8, y: 0, w: 4, h: 20 },
    ];
    const pixels = new Set<string>();
    for (const r of rects) for (let y = r.y; y < r.y + r.h; y++) for (let x = r.x; x < r.x + r.w; x++) pixels.add(`${x},${y}`);
    expect(unionArea(rects)).toBe(pixels.size);
    expect(unionArea(rects.slice(0, 2))).toBe(175);
    expect(unionArea([])).toBe(0);
  });

  it("moves a label off one already placed where a free spot exists", async () => {
    // Two elements sharing their top-left corner: the second label takes another spot.
    const img = await pixels(await drawMarks(await plain(240, 160, "png"), "png", 80, [
      { index: 1, frame: [60, 60, 100, 60] },
      { index: 2, frame: [60, 60, 120, 70] },
    ]));
    const rgb1 = [1, 3, 5].map((k) => parseInt(COLOURS[1]!.slice(k, k + 2), 16));
    // Label 1 keeps the corner: label 2, painted after it, would have covered it there.
    expect(at(img, 60, 60)).toEqual([255, 255, 255]);
    expect(at(img, 61, 61)).toEqual(rgb1);
  });
});
