// How the macOS helper is launched, and when the client refuses to.
import { describe, expect, it } from "vitest";
import { isDeskError } from "../../src/helper/desk-error.js";
import { helperAppPaths } from "../../src/macos/helper-app.js";
import { assertLaunchable, macosLaunchCommand } from "../../src/macos/launch-app.js";

describe("macosLaunchCommand", () => {
  it("opens the bundle through LaunchServices in the background, home and socket as arguments", () => {
    expect(macosLaunchCommand("/h/Deskbook Helper.app", "/h", "/h/helper.sock", "/h/helper.log")).toEqual({
      command: "open",
      args: ["-g", "-n", "-a", "/h/Deskbook Helper.app", "--stdout", "/h/helper.log", "--stderr", "/h/helper.log", "--args", "--home", "/h", "--socket", "/h/helper.sock"],
    });
  });
});

describe("assertLaunchable", () => {
  const paths = helperAppPaths("/h");
  it("refuses a missing or stale bundle with a failed DeskError naming deskbook setup", () => {
    for (const state of [{ state: "missing" as const, paths }, { state: "stale" as const, paths, builtFrom: "a", sourceHash: "b" }]) {
      let caught: unknown;
      try {
        assertLaunchable(state);
      } catch (error) {
        caught = error;
      }
      expect(isDeskError(caught, "failed")).toBe(true);
      expect((caught as Error).message).toMatch(/run "deskbook setup"/);
    }
  });

  it("lets a current bundle through", () => {
    expect(() => assertLaunchable({ state: "current", paths, sourceHash: "b" })).not.toThrow();
  });
});
