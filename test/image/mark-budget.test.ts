import { describe, expect, it } from "vitest";
import { MAX_MARKED_PIXELS, markBudgetProblem } from "../../src/image/mark-budget.js";

describe("markBudgetProblem", () => {
  const text = (frame: [number, number, number, number]) => ({ index: 1, frame, text: true });

  it("lets the cap itself through and names width one pixel above it", () => {
    expect(markBudgetProblem(4096, 4096, [text([0, 0, 10, 10])])).toBeUndefined();
    expect(MAX_MARKED_PIXELS).toBe(4096 * 4096);
    expect(markBudgetProblem(4097, 4096, [text([0, 0, 10, 10])])).toContain("width");
  });

  it("asks nothing of an image without marks, however large", () => {
    expect(markBudgetProblem(16_384, 16_384, [])).toBeUndefined();
  });

  it("sums text marks clipped to the image: 4× its area passes, one pixel more names marks", () => {
    const four = Array.from({ length: 4 }, () => text([-50, -50, 200, 200]));
    expect(markBudgetProblem(100, 100, four)).toBeUndefined();
    expect(markBudgetProblem(100, 100, [...four, text([99, 99, 1, 1])])).toContain("marks");
  });

  it("counts no area for marks without text or wholly outside", () => {
    const plain = Array.from({ length: 50 }, () => ({ index: 2, frame: [0, 0, 100, 100] as [number, number, number, number] }));
    expect(markBudgetProblem(100, 100, [...plain, text([200, 200, 1e6, 1e6])])).toBeUndefined();
  });
});
