// The window-pid cache (helper/linux/window-pids.ts) against a real Xvfb + openbox: a window id
// that is destroyed and handed out again to a window of another pid must be read afresh, with no
// read of the window list between the two to notice that the id left it. A second X client here
// plays the apps: it owns its window ids, so it can reuse one at will (as the server does for a
// new client once an old one is gone), and writes whatever _NET_WM_PID it likes.
import x11 from "x11";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { windowsOfPid } from "../../helper/linux/windows.js";
import { cachedWindowCount } from "../../helper/linux/window-pids.js";
import { sharedX11 } from "../../helper/linux/x11-client.js";
import { hasX11Tools, startTestDesktop, waitFor, type TestDesktop } from "./x-server.js";

const INPUT_OUTPUT = 1;
const CARDINAL = 6;
/** Pids no process has: the cache must not care whether the pid runs. */
const FIRST_PID = 3_999_001;
const SECOND_PID = 3_999_002;

interface RawApp extends x11.Client {
  AllocID(): number;
  CreateWindow(id: number, parent: number, x: number, y: number, w: number, h: number, border: number, depth: number, cls: number, visual: number, values: Record<string, number>): void;
  MapWindow(id: number): void;
  DestroyWindow(id: number): void;
  ChangeProperty(mode: number, wid: number, name: number, type: number, units: number, data: number[]): void;
  InternAtom(onlyIfExists: boolean, name: string, cb: (err: Error | null, atom: number) => void): void;
}

function connect(): Promise<RawApp> {
  return new Promise((resolve, reject) => {
    const client = x11.createClient({ display: process.env.DISPLAY, shm: false }, (err) => (err ? reject(err) : resolve(client as RawApp)));
    client.on("error", (err: Error) => process.stderr.write(`window-pids test client: ${err.message}\n`));
  });
}

function sync(raw: RawApp): Promise<void> {
  return new Promise((resolve, reject) => raw.InternAtom(false, "_NET_WM_PID", (err) => (err ? reject(err) : resolve())));
}

describe.skipIf(!hasX11Tools())("window pids, kept per window until it is destroyed", () => {
  let desktop: TestDesktop;
  let raw: RawApp;
  let wmPid: number;

  beforeAll(async () => {
    desktop = await startTestDesktop();
    raw = await connect();
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
