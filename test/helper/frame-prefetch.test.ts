// Frames asked at the start of a read (helper/linux/frame-prefetch.ts): what an app's last read
// framed is asked again, all in one go, before the tree is known; a failed call is no frame.
import { describe, expect, it } from "vitest";
import type { AccessibleRef, AtspiBus } from "../../helper/linux/atspi-bus.js";
import { FramePrefetch } from "../../helper/linux/frame-prefetch.js";
import { refKey } from "../../helper/linux/atspi-records.js";

const BUS = ":1.42";
const ref = (id: string): AccessibleRef => ({ bus: BUS, path: `/org/a11y/atspi/accessible/${id}` });

/** A bus that answers GetExtents from a table, and records what was asked. */
function fakeBus(extents: Record<string, number[] | Error>): { bus: AtspiBus; asked: string[] } {
  const asked: string[] = [];
  const bus = {
    call: async (target: AccessibleRef, _iface: string, member: string) => {
      asked.push(`${member} ${target.path}`);
      const answer = extents[target.path];
      if (answer instanceof Error) throw answer;
      return [answer];
    },
  } as unknown as AtspiBus;
  return { bus, asked };
}

describe("frame prefetch", () => {
  it("asks nothing for an app it has not seen read, then what its last read framed", async () => {
    const { bus, asked } = fakeBus({ [ref("1").path]: [1, 2, 30, 40], [ref("2").path]: new Error("gone"), [ref("3").path]: [0, 0, 0, 0] });
    const prefetch = new FramePrefetch();
    expect(prefetch.start(bus, BUS).size).toBe(0);
    prefetch.remember(BUS, [ref("1"), ref("2"), ref("3")]);
    const early = prefetch.start(bus, BUS);
    // Every call left before the first answer was awaited.
    expect(asked).toEqual(["GetExtents /org/a11y/atspi/accessible/1", "GetExtents /org/a11y/atspi/accessible/2", "GetExtents /org/a11y/atspi/accessible/3"]);
    expect(await early.get(refKey(ref("1")))).toEqual([1, 2, 30, 40]);
    expect(await early.get(refKey(ref("2")))).toBeUndefined(); // the call failed: no frame, as a late ask gives
    expect(await early.get(refKey(ref("3")))).toBeUndefined(); // an empty box is no frame
    prefetch.forgetBus(BUS);
    expect(prefetch.start(bus, BUS).size).toBe(0);
  });
});
