import { describe, expect, it } from "vitest";
import { placeLabels, type Raster } from "../../src/image/label-placement.js";
import { TextInk } from "../../src/image/text-ink.js";
import type { Frame } from "../../src/helper/protocol.js";

// A white 200 × 200 image, grey inside B's inner rectangle: ink for A (white background), not for B.
function raster(): Raster {
  const [width, height, channels] = [200, 200, 3];
  const data = Buffer.alloc(width * height * channels, 255);
  for (let y = 3; y < 97; y++) data.fill(128, (y * width + 13) * channels, (y * width + 107) * channels);
  return { data, width, height, channels };
}

// A's frame is the larger (80 000 px), so it is painted first, but clipped to the image its inner
// rectangle (197 × 14) is smaller than B's (94 × 94): A is small and B large for this spot area.
const A = { frame: [0, 0, 4000, 20] as Frame, text: true, size: { w: 20, h: 14 } };
const B = { frame: [10, 0, 100, 100] as Frame, text: true, size: { w: 20, h: 14 } };
const SPOT_AREA = 5000;
const overlap = { x: 13, y: 3, w: 94, h: 14 };

describe("text ink", () => {
  it("keeps a small element's ink under a large one that is painted after it", () => {
    const lazy = new TextInk(raster(), [A, B], SPOT_AREA);
    const eager = new TextInk(raster(), [A, B], Infinity); // nothing large: every element read up front
    expect(eager.count(overlap, 0)).toEqual({ all: 94 * 14, own: 94 * 14 });
    expect(lazy.count(overlap, 0)).toEqual(eager.count(overlap, 0));
    expect(lazy.count(overlap, 1)).toEqual(eager.count(overlap, 1));
    expect(lazy.count({ x: 0, y: 0, w: 200, h: 200 }, 1)).toEqual(eager.count({ x: 0, y: 0, w: 200, h: 200 }, 1));
  });

  it("places the same labels for that layout whichever path reads the ink", () => {
    const layout = [A, B];
    const lazy = placeLabels(raster(), layout);
    // Small frames appended with big labels add spot area, so nothing is large; their labels come later.
    const padding = Array.from({ length: 40 }, () => ({ frame: [190, 190, 10, 10] as Frame, size: { w: 60, h: 40 } }));
    const eager = placeLabels(raster(), [...layout, ...padding]).slice(0, layout.length);
    expect(lazy).toEqual(eager);
  });
});
