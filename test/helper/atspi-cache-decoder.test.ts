// Cache.GetItems decoded by hand must give the records the general path gives (the library's
// values through recordsOfValues), for every reply, and a body that does not hold the signature
// must fail with DBusDecodeError: cut short at any byte, flipped, or random.
import { describe, expect, it } from "vitest";
import { CACHE_ITEMS_SIGNATURE, decodeCacheItems } from "../../helper/linux/atspi-cache-decoder.js";
import { recordsOfValues, type AccessibleRecord } from "../../helper/linux/atspi-records.js";
import { DBusDecodeError, decodeBody } from "../../helper/linux/dbus-body-decoder.js";
import { bodyOf, libraryReply, libraryValues } from "./dbus-reference.js";
import { mutations, outcome, seeded } from "./decode-fuzz.js";

const ACCESSIBLE = "org.a11y.atspi.Accessible";
const COMPONENT = "org.a11y.atspi.Component";
const ACTION = "org.a11y.atspi.Action";
const ROOT = "/org/a11y/atspi/accessible/root";

type Item = [[string, string], [string, string], [string, string], number, number, string[], string, number, string, number[]];

/** An app-like reply: a root, windows, and objects that share interface lists and state sets. */
function items(count: number, seed: number): Item[] {
  const random = seeded(seed);
  const lists = [[ACCESSIBLE], [ACCESSIBLE, COMPONENT], [ACCESSIBLE, COMPONENT, ACTION], []];
  const states = [[0x02000100, 0], [0x43000000, 0x801], [0, 0], [0xffffffff, 0xffffffff]];
  const names = ["", "7", "Calculator", "héllo ☃ 😀", "a \"quoted\"\nline", "x".repeat(300)];
  const out: Item[] = [];
  for (let n = 0; n < count; n++) {
    const pick = <T,>(from: T[]): T => from[Math.floor(random() * from.length)] as T;
    // Most objects are the app's own; a few are another connection's (an embedded socket).
    const bus = random() < 0.9 ? ":1.42" : ":1.7";
    const parent: [string, string] = n === 0 ? ["", "/org/a11y/atspi/null"] : [bus, `/org/a11y/atspi/accessible/${Math.floor(random() * n)}`];
    out.push([[bus, n === 0 ? ROOT : `/org/a11y/atspi/accessible/${n}`], [":1.42", ROOT], parent, n === 0 ? -1 : Math.floor(random() * 9), Math.floor(random() * 5) - 1, pick(lists), pick(names), Math.floor(random() * 130), pick(names), pick(states)]);
  }
  return out;
}

/** Sets as sorted arrays, so records compare by content. */
function plain(records: AccessibleRecord[]): unknown[] {
  return records.map((r) => ({ ...r, interfaces: [...r.interfaces], states: [...r.states].sort((a, b) => a - b) }));
}

function general(body: Buffer): AccessibleRecord[] {
  return recordsOfValues(decodeBody(CACHE_ITEMS_SIGNATURE, body, true));
}

describe("decodeCacheItems", () => {
  for (const count of [0, 1, 5, 300]) {
    it(`gives the library's records for ${count} objects`, () => {
      const message = libraryReply(CACHE_ITEMS_SIGNATURE, [items(count, count + 1)]);
      const records = decodeCacheItems(bodyOf(message), true);
      expect(records).toHaveLength(count);
      expect(plain(records)).toEqual(plain(recordsOfValues(libraryValues(message))));
    });
  }

  it("keeps the fields where they belong", () => {
    const item: Item = [[":1.42", "/a/5"], [":1.42", ROOT], [":1.42", "/a/1"], 3, 2, [ACCESSIBLE, ACTION], "OK", 62, "Confirms", [1 << 25, 1]];
    const [record] = decodeCacheItems(bodyOf(libraryReply(CACHE_ITEMS_SIGNATURE, [[item]])), true);
    expect(record).toMatchObject({ ref: { bus: ":1.42", path: "/a/5" }, parent: { bus: ":1.42", path: "/a/1" }, indexInParent: 3, childCount: 2, name: "OK", role: 62, description: "Confirms" });
    expect([...record!.interfaces]).toEqual([ACCESSIBLE, ACTION]);
    expect([...record!.states]).toEqual([25, 32]);
  });

  it("shares equal interface lists and state sets, and only those", () => {
    const same: Item = [[":1.42", "/a/1"], [":1.42", ROOT], [":1.42", ROOT], 0, 0, [ACCESSIBLE, COMPONENT], "", 1, "", [5, 0]];
    const other: Item = [[":1.42", "/a/3"], [":1.42", ROOT], [":1.42", ROOT], 2, 0, [ACCESSIBLE], "", 1, "", [6, 0]];
    const [a, b, c] = decodeCacheItems(bodyOf(libraryReply(CACHE_ITEMS_SIGNATURE, [[same, same, other]])), true);
    expect(a!.interfaces).toBe(b!.interfaces);
    expect(a!.states).toBe(b!.states);
    expect(c!.interfaces).not.toBe(a!.interfaces);
    expect([...c!.states]).toEqual([1, 2]);
  });

  it("reads state sets of other lengths", () => {
    const item = (words: number[]): Item => [[":1.42", "/a/1"], [":1.42", ROOT], [":1.42", ROOT], 0, 0, [], "", 1, "", words];
    const records = decodeCacheItems(bodyOf(libraryReply(CACHE_ITEMS_SIGNATURE, [[item([]), item([1]), item([1, 0, 1])]])), true);
    expect(records.map((r) => [...r.states])).toEqual([[], [0], [0, 64]]);
  });

  it("a body cut short anywhere is DBusDecodeError", () => {
    const body = bodyOf(libraryReply(CACHE_ITEMS_SIGNATURE, [items(6, 3)]));
    for (let length = 0; length < body.length; length++) {
      expect(() => decodeCacheItems(body.subarray(0, length), true), `cut to ${length} bytes`).toThrow(DBusDecodeError);
    }
  });

  it("flipped or random bytes fail with DBusDecodeError, or decode exactly as the general path does", () => {
    const body = bodyOf(libraryReply(CACHE_ITEMS_SIGNATURE, [items(8, 9)]));
    let decoded = 0;
    for (const bytes of mutations(body, 1_500, 17)) {
      const fast = outcome(() => plain(decodeCacheItems(bytes, true)));
      const slow = outcome(() => plain(general(bytes)));
      if (fast instanceof Error) {
        expect(fast).toBeInstanceOf(DBusDecodeError);
        expect(slow, bytes.toString("hex")).toBeInstanceOf(DBusDecodeError);
      } else {
        decoded++;
        expect(fast, bytes.toString("hex")).toEqual(slow);
      }
    }
    // Most flips land in strings and numbers and still decode: both paths must agree on those.
    expect(decoded).toBeGreaterThan(150);
  });
});
