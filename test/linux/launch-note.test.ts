// The note a launch gives at its deadline for an app that shows a window but no tree.
import { describe, expect, it } from "vitest";
import { deadlineReason, unregisteredNote } from "../../helper/linux/launch-note.js";

describe("deadlineReason", () => {
  it("gives the registry note only for a joining toolkit still connected to the bus", () => {
    expect(deadlineReason(true, null)).toMatch(/on the accessibility bus but has not registered with the AT-SPI registry/);
  });

  it("gives registration-check's reason for a joining toolkit off the bus, sure or not", () => {
    expect(deadlineReason(true, { reason: "it has not connected to the accessibility bus", certain: false })).toBe("it has not connected to the accessibility bus");
    expect(deadlineReason(true, { reason: "it was started on another D-Bus session", certain: true })).toBe("it was started on another D-Bus session");
  });

  it("gives no note when the toolkit is unknown or never joins", () => {
    expect(deadlineReason(null, null)).toBeNull();
    expect(deadlineReason(false, null)).toBeNull();
    expect(deadlineReason(null, { reason: "anything", certain: true })).toBeNull();
  });
});

describe("unregisteredNote", () => {
  it("says how long the window has shown, from a second on", () => {
    expect(unregisteredNote("why", 400)).toMatch(/^shows a window but no accessibility tree: why\. /);
    expect(unregisteredNote("why", 12_340)).toMatch(/^shows a window but no accessibility tree after 12\.3 s: why\. /);
  });
});
