// Chromium's GetItems answer kept between reads (helper/linux/kept-cache.ts): served only while
// no event of the app at all came after it was asked, and never while the mirror keeps nothing.
// The live check against fresh reads on Chromium is in test/linux/record-mirror-live.test.ts.
import { describe, expect, it } from "vitest";
import type { AccessibleRecord } from "../../helper/linux/atspi-records.js";
import { KeptCache } from "../../helper/linux/kept-cache.js";
import { RecordMirror, SETTLE_MS } from "../../helper/linux/record-mirror.js";

const BUS = ":1.42";
const OTHER = ":1.77";
const item = (id: string): AccessibleRecord => ({
  ref: { bus: BUS, path: `/org/a11y/atspi/accessible/${id}` },
  indexInParent: 0,
  childCount: 0,
  interfaces: new Set(),
  name: `item ${id}`,
  role: 29,
  description: "",
  states: new Set([30]),
});

function settled(): { mirror: RecordMirror; kept: KeptCache } {
  const clock = { t: 0 };
  const mirror = new RecordMirror(() => clock.t);
  mirror.trustSoon();
  mirror.mark(BUS);
  mirror.mark(OTHER);
  clock.t += SETTLE_MS;
  return { mirror, kept: new KeptCache(mirror) };
}

describe("kept GetItems answer", () => {
  it("is served while the app is quiet, and dropped by any event of it, of any kind", () => {
    for (const [iface, member] of [
      ["org.a11y.atspi.Event.Object", "PropertyChange"],
      ["org.a11y.atspi.Event.Object", "StateChanged"],
      ["org.a11y.atspi.Event.Object", "ChildrenChanged"],
      ["org.a11y.atspi.Event.Object", "TextChanged"],
      ["org.a11y.atspi.Event.Window", "Activate"],
      ["org.a11y.atspi.Cache", "AddAccessible"],
    ] as const) {
      const { mirror, kept } = settled();
      const answer = [item("1"), item("2")];
      kept.keep(BUS, answer, mirror.mark(BUS));
      expect(kept.get(BUS)).toBe(answer);
      // Another app's events say nothing about this one.
      mirror.onEvent(OTHER, iface, member, "/org/a11y/atspi/accessible/9");
      expect(kept.get(BUS)).toBe(answer);
      mirror.onEvent(BUS, iface, member, "/org/a11y/atspi/accessible/2");
      expect(kept.get(BUS), `${iface}.${member}`).toBeUndefined();
      // Gone for good: a later quiet moment does not bring the stale answer back.
      expect(kept.get(BUS)).toBeUndefined();
    }
  });

  it("does not keep an answer an event overtook, nor one asked before the mirror settled", () => {
    const { mirror, kept } = settled();
    const mark = mirror.mark(BUS);
    mirror.onEvent(BUS, "org.a11y.atspi.Event.Object", "StateChanged", "/org/a11y/atspi/accessible/1");
    kept.keep(BUS, [item("1")], mark);
    expect(kept.get(BUS)).toBeUndefined();

    const early = new RecordMirror(() => 0);
    const unsettled = new KeptCache(early);
    unsettled.keep(BUS, [item("1")], early.mark(BUS));
    expect(unsettled.get(BUS)).toBeUndefined();
  });

  it("forgets an app whose bus name went away", () => {
    const { mirror, kept } = settled();
    kept.keep(BUS, [item("1")], mirror.mark(BUS));
    kept.forgetBus(BUS);
    expect(kept.get(BUS)).toBeUndefined();
  });
});
