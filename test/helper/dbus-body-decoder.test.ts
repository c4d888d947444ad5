// The direct connection's own D-Bus decoding: messages the library builds must frame and decode
// to exactly what the library decodes them to, and bytes that are not D-Bus (cut short, flipped,
// random) must end in DBusDecodeError, never another exception and never a hang.
import dbus from "dbus-next";
import { describe, expect, it } from "vitest";
import { DBusDecodeError, decodeBody, parseSignature } from "../../helper/linux/dbus-body-decoder.js";
import { MessageReader } from "../../helper/linux/dbus-message-reader.js";
import { bodyOf, libraryMessage, libraryReply, libraryValues, messageWithFields } from "./dbus-reference.js";
import { mutations, outcome } from "./decode-fuzz.js";

const v = (signature: string, value: unknown): dbus.Variant => new dbus.Variant(signature, value);

/** Signatures and values the direct connection meets (and the corners of the format). */
const CASES: Array<[string, unknown[]]> = [
  ["", []],
  ["u", [4294967295]],
  ["i", [-2147483648]],
  ["y", [255]],
  ["b", [true]],
  ["bb", [false, true]],
  ["nq", [-32768, 65535]],
  ["x", [-(2n ** 62n)]],
  ["t", [2n ** 64n - 1n]],
  ["d", [-3.25]],
  ["s", ["héllo wörld 😀 \n\t quote\" and more"]],
  ["s", [""]],
  ["o", ["/org/a11y/atspi/accessible/42"]],
  ["g", ["a((so)(so)(so)iiassusau)"]],
  ["(iiii)", [[10, -20, 300, 4000]]],
  ["a(sss)", [[["click", "", "<Primary>c"], ["press", "Press it", ""]]]],
  ["a(so)", [[[":1.5", "/org/a11y/atspi/accessible/1"], [":1.5", "/org/a11y/atspi/null"]]]],
  ["a(so)", [[]]],
  ["au", [[0x12345678, 0x80000001]]],
  ["as", [["org.a11y.atspi.Accessible", "", "org.a11y.atspi.Component"]]],
  ["ay", [Buffer.from([0, 1, 2, 255])]],
  ["a{ss}", [{ toolkit: "gtk", "id with space": "x", "": "empty key" }]],
  ["v", [v("s", "Name")]],
  ["v", [v("(so)", [":1.5", "/org/a11y/atspi/accessible/7"])]],
  ["v", [v("i", -1)]],
  ["v", [v("v", v("u", 5))]],
  ["a{sv}", [{ Name: v("s", "Calculator"), ChildCount: v("i", 3), Parent: v("(so)", ["", "/org/a11y/atspi/null"]), List: v("as", ["a", "b"]) }]],
  ["av", [[v("x", 2n ** 40n), v("ad", [1.5, -2]), v("a{sv}", { k: v("b", false) })]]],
  ["ssv", ["org.a11y.atspi.Accessible", "Name", v("s", "x")]],
  ["a(ya(tx))", [[[1, [[1n, -1n]]], [2, []]]]],
  ["aas", [[["a"], [], ["b", "c"]]]],
  ["a((so)(so)(so)iiassusau)", [[
    [[":1.5", "/a/1"], [":1.5", "/org/a11y/atspi/accessible/root"], [":1.5", "/a/0"], 0, 2, ["org.a11y.atspi.Accessible", "org.a11y.atspi.Component"], "7", 63, "", [0x02000100, 0]],
    [[":1.5", "/a/2"], [":1.5", "/org/a11y/atspi/accessible/root"], ["", "/org/a11y/atspi/null"], -1, -1, [], "", 0, "desc ☃", [0, 0]],
  ]]],
];

describe("decodeBody", () => {
  for (const [signature, body] of CASES) {
    it(`decodes "${signature}" as the library does`, () => {
      const message = libraryReply(signature, body);
      const [read] = new MessageReader().push(message);
      expect(read).toMatchObject({ type: 2, serial: 9, replySerial: 3, signature, little: true });
      expect(decodeBody(signature, read!.body, true)).toEqual(libraryValues(message));
    });
  }

  it("keeps a dict key __proto__ as a key", () => {
    const body = bodyOf(libraryReply("a{ss}", [{ a: "1" }]));
    // Replace the key "a" with one of the same length the library would assign to the prototype.
    const patched = Buffer.concat([body.subarray(0, 8), Buffer.from([9, 0, 0, 0]), Buffer.from("__proto__\0", "latin1"), Buffer.alloc(2), Buffer.from([1, 0, 0, 0]), Buffer.from("1\0")]);
    patched.writeUInt32LE(patched.length - 8, 0);
    const [entries] = decodeBody("a{ss}", patched, true) as [Record<string, unknown>];
    expect(Object.getPrototypeOf(entries)).toBe(Object.prototype);
    expect(Object.keys(entries)).toEqual(["__proto__"]);
    expect(entries["__proto__"]).toBe("1");
  });

  it("reads big-endian bodies", () => {
    const body = Buffer.from([0, 0, 0, 3, 0x41, 0x62, 0x63, 0, 0xff, 0xff, 0xff, 0xfe]);
    expect(decodeBody("si", body, false)).toEqual(["Abc", -2]);
  });

  it("every body cut short is DBusDecodeError", () => {
    for (const [signature, values] of CASES) {
      const body = bodyOf(libraryReply(signature, values));
      for (let length = 0; length < body.length; length++) {
        expect(() => decodeBody(signature, body.subarray(0, length), true), `"${signature}" cut to ${length} bytes`).toThrow(DBusDecodeError);
      }
    }
  });

  it("flipped and random bytes decode or fail with DBusDecodeError, nothing else", () => {
    for (const [signature, values] of CASES) {
      const body = bodyOf(libraryReply(signature, values));
      for (const bytes of mutations(body, 300, signature.length + 1)) {
        const result = outcome(() => decodeBody(signature, bytes, true));
        if (result instanceof Error) expect(result, `"${signature}" of ${bytes.toString("hex")}`).toBeInstanceOf(DBusDecodeError);
      }
    }
  });

  it("refuses what the format does not allow", () => {
    const fails = (signature: string, body: number[]): void => expect(() => decodeBody(signature, Buffer.from(body), true), signature).toThrow(DBusDecodeError);
    fails("b", [2, 0, 0, 0]); // booleans are 0 or 1
    fails("s", [1, 0, 0, 0, 0x41, 0x42]); // no NUL where the length ends
    fails("h", [0, 0, 0, 0]); // no descriptors on this connection
    fails("as", [0xff, 0xff, 0xff, 0x7f]); // longer than an array may be
    fails("au", [8, 0, 0, 0, 1, 0, 0, 0]); // longer than the body
    fails("v", [2, 0x69, 0x69, 0, 0, 0, 0, 0]); // a variant of two types
    fails("v", [1, 0x7a, 0]); // an unknown type code
    // An element that runs past the array's stated end.
    fails("as", [4, 0, 0, 0, 2, 0, 0, 0, 0x61, 0x62, 0]);
  });

  it("caps nesting at 64 containers, variants counted, with DBusDecodeError rather than a stack overflow", () => {
    expect(decodeBody("v", nestedVariants(64, "y"), true)).toHaveLength(1);
    expect(() => decodeBody("v", nestedVariants(65, "y"), true)).toThrow(DBusDecodeError);
    expect(() => decodeBody("v", nestedVariants(200_000, "y"), true)).toThrow(DBusDecodeError);
    // An array inside the variants adds to the same count.
    expect(decodeBody("v", nestedVariants(63, "ay"), true)).toHaveLength(1);
    expect(() => decodeBody("v", nestedVariants(64, "ay"), true)).toThrow(DBusDecodeError);
  });

  it("parses signatures within the spec's limits only", () => {
    expect(parseSignature("a{sv}(so)").map((t) => t.text)).toEqual(["a{sv}", "(so)"]);
    for (const bad of ["(", "()", "a", "{ss}", "a{vs}", "a{sss}", "(s", "z", "a".repeat(33) + "s", "(".repeat(33) + "s" + ")".repeat(33), "s".repeat(256)]) {
      expect(() => parseSignature(bad), bad).toThrow(DBusDecodeError);
    }
    expect(parseSignature("a".repeat(32) + "s")).toHaveLength(1);
  });
});

describe("MessageReader", () => {
  const first = libraryReply("s", ["one"], 10, 1);
  const second = libraryReply("a(so)", [[[":1.5", "/a"]]], 11, 2);
  const third = libraryReply("", [], 12, 3);
  const stream = Buffer.concat([first, second, third]);

  it("frames messages however the stream is cut", () => {
    for (const size of [1, 3, 7, 16, 17, 40, stream.length]) {
      const reader = new MessageReader();
      const serials: number[] = [];
      for (let at = 0; at < stream.length; at += size) serials.push(...reader.push(stream.subarray(at, at + size)).map((m) => m.serial));
      expect(serials, `chunks of ${size}`).toEqual([10, 11, 12]);
    }
  });

  it("a stream that is not D-Bus throws DBusDecodeError", () => {
    const broken = (patch: (m: Buffer) => void): Buffer => {
      const copy = Buffer.from(first);
      patch(copy);
      return copy;
    };
    const cases = [
      broken((m) => (m[0] = 0x58)), // no endianness mark
      broken((m) => (m[3] = 2)), // protocol version 2
      broken((m) => m.writeUInt32LE(0, 8)), // serial 0
      broken((m) => m.writeUInt32LE(0x7fffffff, 4)), // a body past the size limit
      broken((m) => m.writeUInt32LE(3, 12)), // header fields cut inside a field
    ];
    for (const bytes of cases) expect(() => new MessageReader().push(bytes), bytes.subarray(0, 16).toString("hex")).toThrow(DBusDecodeError);
  });

  it("flipped header bytes frame, wait for more, or throw DBusDecodeError", () => {
    for (const bytes of mutations(first, 500, 3)) {
      const result = outcome(() => new MessageReader().push(bytes));
      if (result instanceof Error) expect(result).toBeInstanceOf(DBusDecodeError);
    }
  });

  it("ignores header fields it does not know, and reads an error's name", () => {
    const withUnknown = messageWithFields([[5, "u", 3], [200, "x", 1], [201, "a{sv}", [["k", ["s", "v"]]]], [8, "g", "u"]], Buffer.from([7, 0, 0, 0]));
    const [read] = new MessageReader().push(withUnknown);
    expect(read).toMatchObject({ type: 2, replySerial: 3, signature: "u" });
    expect(decodeBody("u", read!.body, true)).toEqual([7]);
    const error = new dbus.Message({ type: dbus.MessageType.ERROR, replySerial: 4, errorName: "org.example.Error.Nope", signature: "s", body: ["why"] } as unknown as dbus.MessageLike);
    error.serial = 5;
    const [reply] = new MessageReader().push(libraryMessage(error));
    expect(reply).toMatchObject({ type: 3, replySerial: 4, errorName: "org.example.Error.Nope", signature: "s" });
  });
});

/** A body of `levels` variants, each holding the next; the last holds one byte, as "y" or "ay". */
function nestedVariants(levels: number, inner: "y" | "ay"): Buffer {
  const outer = Buffer.alloc((levels - 1) * 3);
  for (let i = 0; i < levels - 1; i++) outer.set([1, 0x76, 0], i * 3);
  if (inner === "y") return Buffer.concat([outer, Buffer.from([1, 0x79, 0, 7])]);
  const head = outer.length + 4; // the last variant's signature "ay", then its array 4-aligned
  const pad = Buffer.alloc(((head + 3) & ~3) - head);
  return Buffer.concat([outer, Buffer.from([2, 0x61, 0x79, 0]), pad, Buffer.from([1, 0, 0, 0, 7])]);
}
