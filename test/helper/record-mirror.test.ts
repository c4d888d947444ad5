// The record mirror's rules (helper/linux/record-mirror.ts): what an app's events drop, what a
// read that an event overtook may not keep, and when nothing is kept at all. The live check, a
// mirrored read against a fresh one on Chromium, is in test/linux/record-mirror-live.test.ts.
import { describe, expect, it } from "vitest";
import type { AccessibleRecord } from "../../helper/linux/atspi-records.js";
import { RecordMirror, SETTLE_MS } from "../../helper/linux/record-mirror.js";
import { ROLE_NAMES } from "../../helper/linux/atspi-roles.js";

const BUS = ":1.42";
const OBJECT = "org.a11y.atspi.Event.Object";
const WINDOW = "org.a11y.atspi.Event.Window";
const ref = (id: string) => ({ bus: BUS, path: `/org/a11y/atspi/accessible/${id}` });

function record(id: string, states: number[] = [8, 25, 30], name = `node ${id}`): AccessibleRecord {
  return { ref: ref(id), parent: ref("root"), indexInParent: 0, childCount: 0, interfaces: new Set(), name, role: 29, description: "", states: new Set(states) };
}

/** A mirror whose events are subscribed and settled, and that has known the app for long enough. */
function settled(): { mirror: RecordMirror; clock: { t: number } } {
  const clock = { t: 0 };
  const mirror = new RecordMirror(() => clock.t);
  mirror.trustSoon();
  mirror.mark(BUS);
  clock.t += SETTLE_MS;
  return { mirror, clock };
}

describe("record mirror", () => {
  it("keeps nothing until the events are subscribed, and the app known, for SETTLE_MS", () => {
    const clock = { t: 0 };
    const mirror = new RecordMirror(() => clock.t);
    expect(mirror.mark(BUS)).toBeUndefined();
    mirror.keepRecord(record("1"), mirror.mark(BUS));
    expect(mirror.record(ref("1"))).toBeUndefined();
    mirror.trustSoon();
    clock.t += SETTLE_MS - 1;
    expect(mirror.mark(BUS)).toBeUndefined();
    clock.t += 1;
    expect(mirror.mark(BUS)).toBeDefined();
    // An app first met now waits its own moment: it may not have heard of the listeners yet.
    expect(mirror.mark(":1.99")).toBeUndefined();
    clock.t += SETTLE_MS;
    expect(mirror.mark(":1.99")).toBeDefined();
  });

  it("asks again for the states and name of everything kept below an object whose states changed", () => {
    const { mirror } = settled();
    const mark = mirror.mark(BUS);
    // A combo box, its pop-up and the pop-up's option; a sibling elsewhere.
    mirror.keepChildren(ref("combo"), [ref("popup")], mark);
    mirror.keepChildren(ref("popup"), [ref("option")], mark);
    for (const id of ["combo", "popup", "option", "sibling"]) mirror.keepRecord(record(id), mark);
    mirror.onEvent(BUS, OBJECT, "StateChanged", ref("combo").path);
    expect(mirror.record(ref("combo"))).toBeUndefined();
    expect(mirror.record(ref("popup"))?.current).toBe(false);
    expect(mirror.record(ref("option"))?.current).toBe(false);
    expect(mirror.record(ref("sibling"))?.current).toBe(true);
    mirror.keepRecord(record("option", [8, 25, 30, 23]), mirror.mark(BUS));
    expect(mirror.record(ref("option"))?.current).toBe(true);
    // Another app's events change nothing here.
    mirror.onEvent(":1.7", OBJECT, "StateChanged", ref("popup").path);
    expect(mirror.record(ref("popup"))?.current).toBe(false);
    expect(mirror.record(ref("option"))?.current).toBe(true);
  });

  it("asks again for a text's own states and name after its text event", () => {
    const { mirror } = settled();
    const mark = mirror.mark(BUS);
    mirror.keepChildren(ref("field"), [ref("inner")], mark);
    for (const id of ["field", "inner"]) mirror.keepRecord(record(id), mark);
    mirror.onEvent(BUS, OBJECT, "TextChanged", ref("field").path);
    expect(mirror.record(ref("field"))?.current).toBe(false);
    expect(mirror.record(ref("inner"))?.current).toBe(true);
  });

  it("drops an object's record and actions on its own state or property event", () => {
    const { mirror } = settled();
    const box = record("1");
    mirror.keepRecord(box, mirror.mark(BUS));
    mirror.keepActions(box, ["check"], mirror.mark(BUS));
    mirror.onEvent(BUS, OBJECT, "StateChanged", box.ref.path);
    expect(mirror.record(box.ref)).toBeUndefined();
    expect(mirror.actions(box)).toBeUndefined();
  });

  it("serves action names only to a record with the states they were read under", () => {
    const { mirror } = settled();
    const unchecked = record("1", [8, 25]);
    mirror.keepActions(unchecked, ["check"], mirror.mark(BUS));
    expect(mirror.actions(record("1", [25, 8]))).toEqual(["check"]);
    expect(mirror.actions(record("1", [8, 25, 4]))).toBeUndefined();
  });

  it("drops a child list and everything kept below it on children-changed", () => {
    const { mirror } = settled();
    const mark = mirror.mark(BUS);
    mirror.keepChildren(ref("list"), [ref("a"), ref("b")], mark);
    mirror.keepChildren(ref("a"), [ref("a1")], mark);
    for (const id of ["list", "a", "b", "a1", "other"]) mirror.keepRecord(record(id), mark);
    mirror.onEvent(BUS, OBJECT, "ChildrenChanged", ref("list").path);
    for (const id of ["list", "a", "b", "a1"]) expect(mirror.record(ref(id)), id).toBeUndefined();
    expect(mirror.children(ref("list"))).toBeUndefined();
    expect(mirror.record(ref("other"))).toBeDefined();
  });

  it("asks a list's, table's or tree's children again after any event of its app, not a panel's", () => {
    const { mirror } = settled();
    const mark = mirror.mark(BUS);
    mirror.keepRecord({ ...record("table"), role: 55 }, mark);
    mirror.keepRecord({ ...record("panel"), role: 39 }, mark);
    mirror.keepChildren(ref("table"), [ref("row")], mark);
    mirror.keepChildren(ref("panel"), [ref("button")], mark);
    mirror.onEvent(BUS, OBJECT, "TextChanged", ref("elsewhere").path);
    expect(mirror.children(ref("table"))).toBeUndefined();
    expect(mirror.children(ref("panel"))).toEqual([ref("button")]);
    mirror.keepChildren(ref("table"), [ref("row")], mirror.mark(BUS));
    expect(mirror.children(ref("table"))).toEqual([ref("row")]);
  });

  it("drops the app root's child list and the window's subtree on a window event", () => {
    const { mirror } = settled();
    const mark = mirror.mark(BUS);
    mirror.keepChildren(ref("root"), [ref("w")], mark);
    mirror.keepChildren(ref("w"), [ref("x")], mark);
    mirror.keepRecord(record("x"), mark);
    mirror.onEvent(BUS, WINDOW, "Create", ref("w").path);
    expect(mirror.children(ref("root"))).toBeUndefined();
    expect(mirror.record(ref("x"))).toBeUndefined();
  });

  it("does not keep a read that an event overtook", () => {
    const { mirror } = settled();
    const before = mirror.mark(BUS);
    mirror.onEvent(BUS, OBJECT, "StateChanged", ref("1").path);
    mirror.keepRecord(record("1"), before);
    expect(mirror.record(ref("1"))).toBeUndefined();
    mirror.onEvent(BUS, OBJECT, "ChildrenChanged", ref("9").path);
    mirror.keepChildren(ref("2"), [ref("3")], before);
    expect(mirror.children(ref("2"))).toBeUndefined();
    // Read afresh after the events, it is kept.
    mirror.keepRecord(record("1"), mirror.mark(BUS));
    expect(mirror.record(ref("1"))?.current).toBe(true);
  });

  it("reads again the child lists that hold a web document when a page starts or ends loading, and no other", () => {
    const { mirror } = settled();
    const mark = mirror.mark(BUS);
    const document = { ...record("doc"), parent: ref("panel"), role: ROLE_NAMES.indexOf("document web") };
    // Chromium's panel holds the empty first document; a toolbar elsewhere holds a button.
    mirror.keepChildren(ref("panel"), [ref("doc")], mark);
    mirror.keepChildren(ref("doc"), [], mark);
    mirror.keepRecord(document, mark);
    mirror.keepChildren(ref("toolbar"), [ref("button")], mark);
    mirror.keepRecord({ ...record("button"), parent: ref("toolbar") }, mark);
    // Another state of an object nobody read changes no child list.
    mirror.onEvent(BUS, OBJECT, "StateChanged", ref("new-doc").path, "focused");
    expect(mirror.children(ref("panel"))).toEqual([ref("doc")]);
    // The new page's document, never read yet, turns busy: its panel lists it in place of the old one.
    const before = mirror.mark(BUS);
    mirror.onEvent(BUS, OBJECT, "StateChanged", ref("new-doc").path, "busy");
    expect(mirror.children(ref("panel"))).toBeUndefined();
    expect(mirror.children(ref("doc"))).toEqual([]);
    expect(mirror.children(ref("toolbar"))).toEqual([ref("button")]);
    expect(mirror.record(ref("button"))?.current).toBe(true);
    // A panel list read before the event and answered after it is not kept.
    mirror.keepChildren(ref("panel"), [ref("doc")], before);
    expect(mirror.children(ref("panel"))).toBeUndefined();
    // A kept document reloading loses its own list too.
    mirror.keepChildren(ref("panel"), [ref("doc")], mirror.mark(BUS));
    mirror.onEvent(BUS, OBJECT, "StateChanged", ref("doc").path, "busy");
    expect(mirror.children(ref("panel"))).toBeUndefined();
    expect(mirror.children(ref("doc"))).toBeUndefined();
  });

  it("forgets an app whose connection closed", () => {
    const { mirror } = settled();
    mirror.keepRecord(record("1"), mirror.mark(BUS));
    mirror.forgetBus(BUS);
    expect(mirror.record(ref("1"))).toBeUndefined();
  });
});
