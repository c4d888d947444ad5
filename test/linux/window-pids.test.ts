// The window-pid cache (helper/linux/window-pids.ts) against a real Xvfb + openbox: a window id
// that is destroyed and handed out again to a window of another pid must be read afresh, with no
// read of the window list between the two to notice that the id left it. A second X client here
// plays the apps: it owns its window ids, so it can reuse one at will (as the server does for a
// new client once an old one is gone), and writes whatever _NET_WM_PID it likes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { windowsOfPid } from "../../helper/linux/windows.js";
import { cachedWindowCount } from "../../helper/linux/window-pids.js";
import { sharedX11 } from "../../helper/linux/x11-client.js";
import { INPUT_OUTPUT, openRawX11, type RawX11 } from "./raw-x11.js";
import { hasX11Tools, startTestDesktop, waitFor, type TestDesktop } from "./x-server.js";

const CARDINAL = 6;
/** Pids no process has: the cache must not care whether the pid runs. */
const FIRST_PID = 3_999_001;
const SECOND_PID = 3_999_002;

function sync(raw: RawX11): Promise<void> {
  return new Promise((resolve, reject) => raw.InternAtom(false, "_NET_WM_PID", (err) => (err ? reject(err) : resolve())));
}

describe.skipIf(!hasX11Tools())("window pids, kept per window until it is destroyed", () => {
  let desktop: TestDesktop;
  let raw: RawX11;
  let wmPid: number;

  beforeAll(async () => {
    desktop = await startTestDesktop();
    raw = await openRawX11("window-pids test client");
    wmPid = await new Promise<number>((resolve, reject) => raw.InternAtom(false, "_NET_WM_PID", (err, atom) => (err ? reject(err) : resolve(atom))));
  });

  afterAll(async () => {
    raw?.terminate();
    await desktop?.stop();
  });

  /** Maps a top-level window with this id claiming `pid`. */
  async function show(id: number, pid: number): Promise<void> {
    raw.CreateWindow(id, raw.display.screen[0].root, 40, 40, 200, 120, 0, 0, INPUT_OUTPUT, 0, { backgroundPixel: 0xffffff });
    raw.ChangeProperty(0, id, wmPid, CARDINAL, 32, [pid]);
    raw.MapWindow(id);
    await sync(raw);
  }

  it("reads a reused window id's new pid, and forgets the destroyed window", async () => {
    const id = raw.AllocID();
    await show(id, FIRST_PID);
    await waitFor(async () => (await windowsOfPid(FIRST_PID)).some((w) => w.windowId === id), "the first window listed under its pid");
    const kept = cachedWindowCount(await sharedX11());

    // Destroyed and made again with the same id for another pid, with no read in between.
    raw.DestroyWindow(id);
    await show(id, SECOND_PID);
    await waitFor(async () => (await windowsOfPid(SECOND_PID)).some((w) => w.windowId === id), "the reused id listed under its new pid");
    expect(await windowsOfPid(FIRST_PID)).toEqual([]);
    expect(cachedWindowCount(await sharedX11())).toBe(kept);

    raw.DestroyWindow(id);
    await sync(raw);
    await waitFor(async () => (await windowsOfPid(SECOND_PID)).length === 0, "the window gone from the list");
    await waitFor(async () => cachedWindowCount(await sharedX11()) === kept - 1, "the destroyed window's entry dropped");
  });
});
