// The contract's apps and windows: listApps, resolveApp, launch, windows, activate, isActive.
import { describe, expect, it } from "vitest";
import type { WindowInfo } from "../../src/helper/protocol.js";
import { announceSkip, profile, useHelper, waitFor, type RunningApp } from "./harness.js";

const skip = announceSkip("test/contract/launch.test.ts");
/** No process has this pid: the protocol's largest (Linux's PID_MAX_LIMIT, which pids stay below). */
const NO_SUCH_PID = 4_194_304;

describe.skipIf(skip)("helper contract: apps and windows", () => {
  const session = useHelper();
  const { calculator, editor } = profile;
  let calc: RunningApp;
  let edit: RunningApp;

  it("lists the calculator and the editor among its apps", async () => {
    const apps = await session.call("listApps", {});
    expect(apps.some(calculator.is), "the calculator").toBe(true);
    expect(apps.some(editor.is), "the editor").toBe(true);
    for (const app of apps.filter((a) => a.running)) expect(app.pid, app.name).toBeGreaterThan(0);
  });

  it("resolves an app by name in any case and by bundle id; not_found for nothing", async () => {
    const byName = await session.call("resolveApp", { query: calculator.name.toUpperCase() });
    expect(calculator.is(byName), JSON.stringify(byName)).toBe(true);
    const byId = await session.call("resolveApp", { query: calculator.launch.bundleId ?? calculator.name });
    expect(calculator.is(byId), JSON.stringify(byId)).toBe(true);
    await expect(session.call("resolveApp", { query: "no-such-app-3f9a7c" })).rejects.toMatchObject({ code: "not_found" });
  });

  it("launches the calculator and the editor, answering their AppInfo with a pid", async () => {
    calc = await session.launch(calculator);
    edit = await session.launch(editor);
    expect(calc.info).toMatchObject({ running: true, pid: calc.pid });
    expect(calculator.is(calc.info), JSON.stringify(calc.info)).toBe(true);
    expect(edit.info).toMatchObject({ running: true, pid: edit.pid });
    expect(editor.is(edit.info), JSON.stringify(edit.info)).toBe(true);
    expect(edit.pid).not.toBe(calc.pid);
  });

  it("finds a running app on a second launch instead of starting another", async () => {
    const again = await session.call("launch", calculator.launch, 30_000);
    expect(again.pid).toBe(calc.pid);
  });

  it("resolves a running app by pid:N and by its path", async () => {
    const byPid = await session.call("resolveApp", { query: `pid:${calc.pid}` });
    expect(byPid).toMatchObject({ pid: calc.pid, running: true });
    expect(calculator.is(byPid)).toBe(true);
    if (calc.info.path) {
      const byPath = await session.call("resolveApp", { query: calc.info.path });
      expect(calculator.is(byPath), JSON.stringify(byPath)).toBe(true);
    }
  });

  it("answers launch of an app it cannot find with not_found", async () => {
    await expect(session.call("launch", { name: "no-such-app-3f9a7c" })).rejects.toMatchObject({ code: "not_found" });
  });

  it("lists each app's windows, indexed in order, with sane frames and a windowId", async () => {
    for (const app of [calc, edit]) {
      const windows = await session.call("windows", { pid: app.pid });
      expect(windows.length, `windows of ${app.info.name}`).toBeGreaterThan(0);
      windows.forEach((window, k) => expectSaneWindow(window, k));
      expect(windows.some((w) => w.main), `a main window of ${app.info.name}`).toBe(true);
    }
  });

  it("brings an app forward with activate, and isActive says which one is", async () => {
    for (const [front, back] of [
      [calc, edit],
      [edit, calc],
    ] as const) {
      await session.call("activate", { pid: front.pid });
      await waitFor(async () => (await session.call("isActive", { pid: front.pid })).active, `${front.info.name} to be active`);
      expect((await session.call("isActive", { pid: back.pid })).active).toBe(false);
      await waitFor(async () => (await session.call("windows", { pid: front.pid })).some((w) => w.focused), `a focused window of ${front.info.name}`);
    }
  });

  it("answers not_running for a pid that runs nothing", async () => {
    await expect(session.call("windows", { pid: NO_SUCH_PID })).rejects.toMatchObject({ code: "not_running" });
    await expect(session.call("axTree", { pid: NO_SUCH_PID })).rejects.toMatchObject({ code: "not_running" });
    await expect(session.call("activate", { pid: NO_SUCH_PID })).rejects.toMatchObject({ code: "not_running" });
  });
});

function expectSaneWindow(window: WindowInfo, position: number): void {
  const what = `window ${position}: ${JSON.stringify(window)}`;
  expect(window.index, what).toBe(position);
  const [x, y, width, height] = window.frame;
  expect([x, y, width, height].every(Number.isFinite), what).toBe(true);
  expect(width, what).toBeGreaterThan(20);
  expect(height, what).toBeGreaterThan(20);
  expect(width, what).toBeLessThan(20_000);
  expect(height, what).toBeLessThan(20_000);
  expect(Math.abs(x) + Math.abs(y), what).toBeLessThan(40_000);
  expect(window.scale, what).toBeGreaterThan(0);
  if (!window.minimized) expect(window.windowId, what).toBeGreaterThan(0);
}
