// Out-of-range numbers against the real Linux helper. A coordinate past X11's INT16 once
// made the x11 package count a request it never sent: every later X reply went to the wrong
// callback and the helper answered no X11-backed call (listApps) until restarted. Each bad
// value must be a bad_request naming the parameter, and the helper must go on serving.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missingTools, startHelperDesktop, waitFor, type HelperDesktop, type RunningHelper } from "./helper-harness.js";
import type { RawHelperConnection, RawReply } from "../fixtures/raw-helper-connection.js";

const missing = missingTools(["Xvfb", "openbox", "dbus-daemon", "galculator"]);
if (missing.length > 0) console.warn(`test/linux/helper-ranges.test.ts skipped: ${missing.join(", ")} missing`);

/** listApps and windows must answer well within this after any bad call. */
const ANSWER_MS = 5_000;

describe.skipIf(missing.length > 0)("Linux helper: numbers out of the OS's range", () => {
  let desk: HelperDesktop;
  let helper: RunningHelper;
  let conn: RawHelperConnection;
  let pid = 0;
  let windowId = 0;

  beforeAll(async () => {
    desk = await startHelperDesktop();
    desk.writeConfig({ approval: "allow-all" });
    helper = await desk.startHelper();
    conn = await helper.connect();
    const launched = await conn.call("launch", { name: "galculator", activate: true });
    pid = (launched.result as { pid: number }).pid;
    desk.trackPid(pid);
    windowId = await waitFor(async () => {
      const reply = await conn.call("windows", { pid });
      return (reply.result as Array<{ windowId?: number }> | undefined)?.[0]?.windowId;
    }, "galculator's window");
  });

  afterAll(async () => {
    conn?.close();
    await desk?.stop();
  });

  /** The reply, or a failure naming the call when none comes within ANSWER_MS. */
  async function answer(method: string, params: unknown): Promise<RawReply> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${method} got no answer within ${ANSWER_MS} ms: the helper is wedged`)), ANSWER_MS);
    });
    try {
      return await Promise.race([conn.call(method, params), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function stillServes(): Promise<void> {
    expect((await answer("listApps", {})).result).toEqual(expect.arrayContaining([expect.objectContaining({ pid })]));
    expect((await answer("windows", { pid })).result).toEqual([expect.objectContaining({ windowId })]);
  }

  const cases: Array<[string, string, () => Record<string, unknown>, string]> = [
    ["move x past INT16", "move", () => ({ pid, x: 40_000, y: 10 }), "x"],
    ["move y below INT16", "move", () => ({ pid, x: 10, y: -40_000 }), "y"],
    ["click x past INT16", "click", () => ({ pid, x: 1e9, y: 10 }), "x"],
    ["a wheel turn that would take hours", "scroll", () => ({ pid, x: 10, y: 10, dy: 1e7 }), "dy"],
    ["a drag through a point past INT16", "drag", () => ({ pid, path: [[10, 10], [70_000, 10]] }), "path[1][0]"],
    ["a hit test past INT16", "hitTest", () => ({ pid, x: 2 ** 40, y: 0 }), "x"],
    ["a window id past CARD32", "screenshot", () => ({ pid, windowId: 2 ** 33, width: 10, height: 10 }), "windowId"],
    ["a mark's index below 0", "screenshot", () => ({ pid, windowId, width: 10, height: 10, marks: [{ index: -1, frame: [0, 0, 5, 5] }] }), "marks[0].index"],
    ["a mark's frame of three numbers", "screenshot", () => ({ pid, windowId, width: 10, height: 10, marks: [{ index: 1, frame: [0, 0, 5] }] }), "marks[0].frame"],
    ["more marks than one image takes", "screenshot", () => ({ pid, windowId, width: 10, height: 10, marks: Array.from({ length: 10_001 }, (_, i) => ({ index: i, frame: [0, 0, 5, 5] })) }), "marks"],
    // Caps on painting work in the shared helper (src/image/mark-budget.ts): each of these took
    // seconds to minutes of its one thread, or gigabytes, before it was refused.
    ["marks on an image above the marked-pixel cap", "screenshot", () => ({ pid, windowId, width: 16_384, height: 16_384, marks: [{ index: 1, frame: [0, 0, 100, 20], text: true }] }), "width"],
    ["text marks covering the image a thousand times over", "screenshot", () => ({ pid, windowId, width: 1568, height: 980, marks: Array.from({ length: 1000 }, (_, i) => ({ index: i, frame: [2, 2, 1560, 970], text: true })) }), "marks"],
    ["a pid past the kernel's limit", "windows", () => ({ pid: 2 ** 31 }), "pid"],
    ["an index past INT32", "elementFrame", () => ({ pid, index: 2 ** 53 }), "index"],
    ["a text range past INT32", "selectText", () => ({ pid, index: 1, start: 0, length: 2 ** 32 }), "length"],
  ];

  for (const [name, method, params, field] of cases) {
    it(`answers ${method} with ${name} with bad_request naming ${field}, and keeps serving`, async () => {
      const reply = await answer(method, params());
      expect(reply.error?.code).toBe("bad_request");
      expect(reply.error?.message).toContain(field);
      await stillServes();
    });
  }

  it("reads a number JSON cannot hold (1e400) as out of range, not as Infinity sent to X", async () => {
    conn.sendRaw(`{"id":"inf","method":"move","params":{"pid":${pid},"x":1e400,"y":0}}\n`);
    const reply = (await conn.next()) as RawReply;
    expect(reply).toMatchObject({ id: "inf", error: { code: "bad_request" } });
    await stillServes();
  });

  it("still moves the pointer to the screen's edge (the largest values in range work)", async () => {
    expect((await answer("move", { pid, x: 32_767, y: -32_768 })).result).toEqual({});
    expect((await answer("move", { pid, x: 5.4, y: 5.6 })).result).toEqual({});
    await stillServes();
  });
});
