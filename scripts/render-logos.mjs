// Renders kernelspec/logo.svg to the PNG sizes Jupyter looks for.
// Run once after editing the SVG: node scripts/render-logos.mjs
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";

const SIZES = [32, 64];
const SVG_VIEWBOX = 64;
// Rasterise above the target size and downsample, so small sizes stay crisp.
const OVERSAMPLE = 4;

const specDir = join(dirname(fileURLToPath(import.meta.url)), "..", "kernelspec");

async function render(svg, size) {
  const out = join(specDir, `logo-${size}x${size}.png`);
  const density = (72 * size * OVERSAMPLE) / SVG_VIEWBOX;
  await sharp(svg, { density })
    .resize(size, size, { kernel: "lanczos3" })
    .png({ compressionLevel: 9 })
    .toFile(out);
  const { width, height } = await sharp(out).metadata();
  if (width !== size || height !== size) {
    throw new Error(`${out} came out ${width}x${height}, expected ${size}x${size}`);
  }
  console.log(`wrote ${out} (${width}x${height})`);
}

const svg = await readFile(join(specDir, "logo.svg"));
for (const size of SIZES) await render(svg, size);
