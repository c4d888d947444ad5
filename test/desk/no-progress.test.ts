import { describe, expect, it } from "vitest";
import { ProgressJudge } from "../../src/desk/no-progress.js";

/** Runs an action, then reads the tree (and the image when given); returns what observe said. */
function step(judge: ProgressJudge, action: string, tree: string, image?: string): (string | undefined)[] {
  judge.afterAction(action);
  const notes = [judge.observe("tree", tree)];
  if (image !== undefined) notes.push(judge.observe("image", image));
  return notes;
}

describe("ProgressJudge", () => {
  it("notes the second time the same action changes nothing", () => {
    const judge = new ProgressJudge();
    expect(judge.observe("tree", "T0")).toBeUndefined(); // baseline read, no action yet
    expect(step(judge, "click 14", "T0")).toEqual([undefined]);
    expect(step(judge, "click 14", "T0")).toEqual(["nothing changed after click 14 (twice)"]);
    expect(step(judge, "click 14", "T0")).toEqual(["nothing changed after click 14 (3 times)"]);
  });

  it("stays quiet while the action changes something", () => {
    const judge = new ProgressJudge();
    judge.observe("tree", "T0");
    expect(step(judge, "press Down", "T1")).toEqual([undefined]);
    expect(step(judge, "press Down", "T2")).toEqual([undefined]);
    expect(step(judge, "press Down", "T2")).toEqual([undefined]); // first still round
    expect(step(judge, "press Down", "T2")).toEqual(["nothing changed after press Down (twice)"]);
  });

  it("counts the picture too: a changed screenshot is progress even if the tree is the same", () => {
    const judge = new ProgressJudge();
    judge.observe("tree", "T0");
    judge.observe("image", "I0");
    expect(step(judge, "click [412, 230]", "T0", "I1")).toEqual([undefined, undefined]);
    expect(step(judge, "click [412, 230]", "T0", "I2")).toEqual([undefined, undefined]);
    expect(step(judge, "click [412, 230]", "T0", "I2")).toEqual([undefined, undefined]);
    // The note comes once per round, from the first observation that completes the streak.
    expect(step(judge, "click [412, 230]", "T0", "I2")).toEqual(["nothing changed after click [412, 230] (twice)", undefined]);
  });

  it("treats the first observation of a kind as a change", () => {
    const judge = new ProgressJudge();
    judge.observe("tree", "T0");
    expect(step(judge, "click 3", "T0", "I0")).toEqual([undefined, undefined]); // image never seen before
    expect(step(judge, "click 3", "T0", "I0")).toEqual([undefined, undefined]);
    expect(step(judge, "click 3", "T0", "I0")).toEqual(["nothing changed after click 3 (twice)", undefined]);
  });

  it("needs the same action: another action in between breaks the streak", () => {
    const judge = new ProgressJudge();
    judge.observe("tree", "T0");
    step(judge, "click 14", "T0");
    step(judge, "click 15", "T0");
    expect(step(judge, "click 14", "T0")).toEqual([undefined]);
    expect(step(judge, "click 14", "T0")).toEqual(["nothing changed after click 14 (twice)"]);
  });

  it("needs a read after each action: an unobserved action breaks the streak", () => {
    const judge = new ProgressJudge();
    judge.observe("tree", "T0");
    step(judge, "click 14", "T0");
    judge.afterAction("click 14"); // no read
    expect(step(judge, "click 14", "T0")).toEqual([undefined]);
  });

  it("needs every observation in the round to be unchanged", () => {
    const judge = new ProgressJudge();
    judge.observe("tree", "T0");
    judge.observe("image", "I0");
    step(judge, "scroll", "T0", "I1"); // image changed
    expect(step(judge, "scroll", "T0", "I1")).toEqual([undefined, undefined]);
    expect(step(judge, "scroll", "T0", "I1")[0]).toBe("nothing changed after scroll (twice)");
  });

  it("starts over after reset", () => {
    const judge = new ProgressJudge();
    judge.observe("tree", "T0");
    step(judge, "click 14", "T0");
    judge.reset();
    expect(step(judge, "click 14", "T0")).toEqual([undefined]); // first sight of the tree again
    expect(step(judge, "click 14", "T0")).toEqual([undefined]);
    expect(step(judge, "click 14", "T0")).toEqual(["nothing changed after click 14 (twice)"]);
  });

  it("never notes observations made before any action", () => {
    const judge = new ProgressJudge();
    for (let k = 0; k < 5; k++) expect(judge.observe("tree", "T0")).toBeUndefined();
  });
});
