// setup's permission walk, against a scripted helper.
import { describe, expect, it } from "vitest";
import type { PermissionsParams, PermissionsResult } from "../../src/helper/protocol.js";
import { walkPermissions, type PermissionWalkDeps } from "../../src/macos/permission-walk.js";

type State = Omit<PermissionsResult, "escapeWatcher">;

/** A helper whose grants change as scripted: `after[key]` = polls until it turns on (Infinity: never). */
function scripted(initial: State, after: Partial<Record<keyof State, number>>, onlyAfterRestart: Array<keyof State> = []) {
  const state = { ...initial };
  const calls: PermissionsParams[] = [];
  const opened: string[] = [];
  const printed: string[] = [];
  let polls = 0;
  let restarts = 0;
  const deps: PermissionWalkDeps = {
    permissions: async (params) => {
      calls.push(params);
      if (Object.keys(params).length === 0) polls++;
      for (const [key, n] of Object.entries(after) as Array<[keyof State, number]>) {
        const visible = !onlyAfterRestart.includes(key) || restarts > 0;
        if (polls >= n && visible) state[key] = true;
      }
      return { ...state, escapeWatcher: state.inputMonitoring };
    },
    restartHelper: async () => void restarts++,
    openUrl: async (url) => void opened.push(url),
    print: (text) => void printed.push(text),
    sleep: async () => undefined,
    pollMs: 1_000,
    waitMs: 5_000,
    optionalWaitMs: 2_000,
    appPath: "/Users/me/.deskbook/Deskbook Helper.app",
  };
  return { deps, calls, opened, printed, restarts: () => restarts };
}

const NONE: State = { accessibility: false, screenRecording: false, inputMonitoring: false };

describe("walkPermissions", () => {
  it("asks for each missing permission in turn, opening its pane, and succeeds once the required ones are on", async () => {
    const helper = scripted(NONE, { accessibility: 3, screenRecording: 6, inputMonitoring: 9 });
    const result = await walkPermissions(helper.deps);
    expect(result.missing).toEqual([]);
    expect(result.final).toMatchObject({ accessibility: true, screenRecording: true, inputMonitoring: true });
    expect(helper.calls.filter((params) => Object.keys(params).length > 0)).toEqual([
      { prompt: "accessibility" },
      { prompt: "screenRecording" },
      { prompt: "inputMonitoring" },
    ]);
    expect(helper.opened).toEqual([
      "x-apple.systempreferences:com.apple.preference.security?Privacy_Accessibility",
      "x-apple.systempreferences:com.apple.preference.security?Privacy_ScreenCapture",
      "x-apple.systempreferences:com.apple.preference.security?Privacy_ListenEvent",
    ]);
    expect(helper.printed.join("\n")).toContain("Privacy & Security → Accessibility");
    expect(helper.printed.join("\n")).toContain("/Users/me/.deskbook/Deskbook Helper.app");
  });

  it("neither prompts nor opens anything for what is already granted", async () => {
    const helper = scripted({ accessibility: true, screenRecording: true, inputMonitoring: true }, {});
    const result = await walkPermissions(helper.deps);
    expect(result.missing).toEqual([]);
    expect(helper.opened).toEqual([]);
    expect(helper.calls.every((params) => Object.keys(params).length === 0)).toBe(true);
  });

  it("restarts the helper once when a Screen Recording grant is only seen by a new process", async () => {
    const helper = scripted({ ...NONE, accessibility: true }, { screenRecording: 1, inputMonitoring: Infinity }, ["screenRecording"]);
    const result = await walkPermissions(helper.deps);
    expect(result.missing).toEqual([]);
    expect(result.final.screenRecording).toBe(true);
    // Once for Screen Recording; once more for Input Monitoring, which never comes.
    expect(helper.restarts()).toBe(2);
    expect(helper.printed).toContain("skipped  Input Monitoring: not granted (optional)");
  });

  it("reports the required permissions still off, and not Accessibility's restart", async () => {
    const helper = scripted(NONE, { inputMonitoring: 1 });
    const result = await walkPermissions(helper.deps);
    expect(result.missing).toEqual(["Accessibility", "Screen Recording"]);
    expect(helper.printed).toContain("MISSING  Accessibility: not granted");
    // Accessibility is read live, so only Screen Recording's wait ends in a restart.
    expect(helper.restarts()).toBe(1);
  });
});
