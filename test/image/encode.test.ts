import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { encodeImage, PNG_OPTIONS, type RawImage } from "../../src/image/encode.js";

function gradient(width: number, height: number, channels: 3 | 4): RawImage {
  const data = Buffer.alloc(width * height * channels);
  for (let p = 0; p < width * height; p++) {
    data[p * channels] = p % 256;
    data[p * channels + 1] = (p >> 3) % 256;
    data[p * channels + 2] = 128;
    if (channels === 4) data[p * channels + 3] = 255;
  }
  return { data, width, height, channels };
}

describe("encodeImage", () => {
  it("encodes PNG losslessly at the same size", async () => {
    const raw = gradient(64, 40, 3);
    const png = await encodeImage(raw, "png", 80);
    const decoded = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    expect((await sharp(png).metadata()).format).toBe("png");
    expect([decoded.info.width, decoded.info.height, decoded.info.channels]).toEqual([64, 40, 3]);
    expect(decoded.data.equals(raw.data)).toBe(true);
  });

  it("encodes JPEG, RGBA included, at the same size", async () => {
    const jpeg = await encodeImage(gradient(64, 40, 4), "jpeg", 80);
    const meta = await sharp(jpeg).metadata();
    expect([meta.format, meta.width, meta.height, meta.channels]).toEqual(["jpeg", 64, 40, 3]);
    expect(meta.chromaSubsampling).toBe("4:4:4");
  });

  it("refuses a buffer that does not match the stated size", async () => {
    await expect(encodeImage({ ...gradient(8, 8, 3), width: 9 }, "png", 80)).rejects.toThrow(/expected 216 for 9×8×3/);
  });

  it("ships fast zlib settings without adaptive filtering", () => {
    expect(PNG_OPTIONS).toEqual({ compressionLevel: 2, adaptiveFiltering: false, palette: false });
    expect(Object.isFrozen(PNG_OPTIONS)).toBe(true);
  });
});
