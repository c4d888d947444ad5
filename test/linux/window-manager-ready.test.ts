// A started desktop is one whose window manager manages windows (src/desktop/window-manager-ready.ts):
// openbox has finished its start-up when the start returns, and a window mapped the moment the start returns is never shown unmanaged (mapped straight onto the
// root) and is framed by openbox by the time openbox answers the next request, with no waiting.
// The readiness check itself: a stopped openbox is not ready (it holds the redirect but answers
// nothing), a dead one's stale _NET_SUPPORTING_WM_CHECK is not taken for a window manager; both
// fail coded, naming the step. And a process that starts a second desktop reads the second
// display's atoms, not the first's (the x11 package shared one atom cache across connections).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitForWindowManager } from "../../src/desktop/window-manager-ready.js";
import type { XCookie } from "../../src/desktop/xauthority.js";
import { windowsOfPid } from "../../helper/linux/windows.js";
import { sharedX11, X11Client } from "../../helper/linux/x11-client.js";
import { ButtonHolder } from "./button-holder.js";
import { hasX11Tools, openboxOf, startTestDesktop, type TestDesktop } from "./x-server.js";

/** The built client (npm run build), for a child process. */
const X11_CLIENT = fileURLToPath(new URL("../../dist/helper/linux/x11-client.js", import.meta.url));

/** The desktop's cookie, read back from the Xauthority file it wrote (one entry; the secret ends it). */
function cookieOf(desktop: TestDesktop): XCookie {
  const file = readFileSync(String(desktop.env.XAUTHORITY));
  return { name: "MIT-MAGIC-COOKIE-1", data: file.subarray(file.length - 16) };
}

/**
 * A directory for PATH whose `openbox` waits `seconds` before it becomes the real one, so the
 * desktop's other parts are up well before openbox is: on an idle machine openbox is usually
 * done by then, and the race this file is about would rarely show. The script's interpreter is
 * /bin/sh under a name ending in "openbox", so the desktop's check of its parts' command lines
 * takes the waiting script for openbox, as it would take a slow openbox.
 */
function slowOpenboxPath(dir: string, seconds: number): string {
  const bin = join(dir, "slow-bin");
  mkdirSync(bin);
  const shell = join(bin, "sh-as-openbox");
  symlinkSync("/bin/sh", shell);
  const real = spawnSync("sh", ["-c", "command -v openbox"], { encoding: "utf8" }).stdout.trim();
  writeFileSync(join(bin, "openbox"), `#!${shell}\nsleep ${seconds}\nexec ${real} "$@"\n`, { mode: 0o755 });
  return bin;
}

describe.skipIf(!hasX11Tools())("a started desktop's window manager", () => {
  let scratch: string;
  let desktop: TestDesktop;
  /** Whether the root had _NET_CLIENT_LIST the moment the start returned. */
  let clientListAtStart: boolean;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), "deskbook-wm-ready-"));
    const path = process.env.PATH;
    process.env.PATH = `${slowOpenboxPath(scratch, 1)}:${path ?? ""}`;
    try {
      desktop = await startTestDesktop();
    } finally {
      process.env.PATH = path;
    }
    const x = await sharedX11();
    clientListAtStart = (await x.property(x.root, "_NET_CLIENT_LIST")) !== null;
  });
  afterAll(async () => {
    await desktop?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it("has finished starting when start returns: _NET_CLIENT_LIST, which openbox sets late in its start-up, is on the root", () => {
    // openbox sets it in client_startup, after reading its config and loading its theme and fonts,
    // just before adopting the windows already there and entering its event loop.
    expect(clientListAtStart).toBe(true);
  });

  it("manages a window mapped the moment start returned: never shown unmanaged, framed once openbox answers the next request", async () => {
    // Nothing in between: the start has just returned (beforeAll) and this is the first window.
    const holder = await ButtonHolder.open(100, 100, 200, 150);
    try {
      const x = await sharedX11();
      // openbox holds SubstructureRedirect, so the map became its MapRequest: the window is not
      // viewable until openbox reparents it into a frame (viewable and a child of the root would
      // be a window mapped before any window manager could see it).
      const viewable = await x.isViewable(holder.window);
      const parent = await holder.parent();
      expect(viewable && parent === x.root).toBe(false);
      // openbox handles events in order: once it answers a request sent after the map, it has
      // handled the MapRequest too.
      await waitForWindowManager(desktop.display, cookieOf(desktop), 5_000);
      expect(await holder.parent()).not.toBe(x.root);
      expect(await x.isViewable(holder.window)).toBe(true);
      expect((await windowsOfPid(process.pid)).map((w) => w.windowId)).toContain(holder.window);
    } finally {
      await holder.close();
    }
  });

  it("is not ready while openbox is stopped: failed, naming the request it did not answer; ready once it runs", async () => {
    const wm = openboxOf(desktop.display);
    process.kill(wm, "SIGSTOP");
    try {
      await expect(waitForWindowManager(desktop.display, cookieOf(desktop), 1_000)).rejects.toMatchObject({
        code: "failed",
        message: expect.stringMatching(/did not answer a _NET_REQUEST_FRAME_EXTENTS .* within 1 s/),
      });
    } finally {
      process.kill(wm, "SIGCONT");
    }
    await expect(waitForWindowManager(desktop.display, cookieOf(desktop), 5_000)).resolves.toBeUndefined();
  });

  it("does not take a dead openbox's stale _NET_SUPPORTING_WM_CHECK for a window manager", async () => {
    const x = await sharedX11();
    // The root keeps the property after openbox dies; the window it names dies with openbox.
    const check = await x.property(x.root, "_NET_SUPPORTING_WM_CHECK");
    expect(check).not.toBeNull();
    const wm = openboxOf(desktop.display);
    process.kill(wm, "SIGKILL");
    while (spawnSync("kill", ["-0", String(wm)]).status === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await x.sync();
    expect(await x.property(x.root, "_NET_SUPPORTING_WM_CHECK")).toEqual(check);
    await expect(waitForWindowManager(desktop.display, cookieOf(desktop), 500)).rejects.toMatchObject({
      code: "failed",
      message: expect.stringMatching(/did not set _NET_SUPPORTING_WM_CHECK on the root within 0.5 s/),
    });
  });
});

describe.skipIf(!hasX11Tools())("two desktops in one process", () => {
  let first: TestDesktop;
  let second: TestDesktop;

  beforeAll(async () => {
    first = await startTestDesktop();
    second = await startTestDesktop();
  });
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
  });

  /** The atom's id on `desktop`, asked by a process that never talked to another display. */
  function freshAtom(desktop: TestDesktop, name: string): number {
    const script = `import("${X11_CLIENT}").then(async ({ X11Client }) => { const x = await X11Client.connect(); console.log(await x.atom(${JSON.stringify(name)})); await x.close(); })`;
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { env: desktop.env, encoding: "utf8", timeout: 20_000 });
    if (result.status !== 0) throw new Error(`atom look-up failed: ${result.stderr}`);
    return Number(result.stdout.trim());
  }

  it("each connection learns its own display's atoms", async () => {
    const one = await X11Client.connect(first.display, cookieOf(first));
    const two = await X11Client.connect(second.display, cookieOf(second));
    try {
      // The first display hands out a few more ids, so the same name gets different ids on the two.
      for (const name of ["DESKBOOK_TEST_A", "DESKBOOK_TEST_B", "DESKBOOK_TEST_C"]) await one.atom(name);
      const onFirst = await one.atom("DESKBOOK_TEST_SHARED");
      const onSecond = await two.atom("DESKBOOK_TEST_SHARED");
      expect(onSecond).toBe(freshAtom(second, "DESKBOOK_TEST_SHARED"));
      expect(onSecond).not.toBe(onFirst);
    } finally {
      await one.close();
      await two.close();
    }
  });
});
