// The helper's own encoding of D-Bus method calls must be byte for byte what the library sends
// (its marshaller is the reference), and must leave to the library what it does not cover.
import { createRequire } from "node:module";
import dbus from "dbus-next";
import { describe, expect, it } from "vitest";
import { encodeMethodCall, forgetCallsTo, KEPT_BYTES, KEPT_CALLS, keptCallStats, type MethodCall } from "../../helper/linux/dbus-call-encoder.js";

const require = createRequire(import.meta.url);
const { marshallMessage } = require("dbus-next/lib/marshall-compat") as { marshallMessage: (message: dbus.Message) => [Buffer, unknown[]] };

function library(call: MethodCall): Buffer {
  const message = new dbus.Message({ destination: call.destination, path: call.path, interface: call.iface, member: call.member, signature: call.signature, body: [...call.body] });
  message.serial = call.serial;
  return marshallMessage(message)[0];
}

const base = { serial: 7, destination: ":1.42", path: "/org/a11y/atspi/accessible/123", iface: "org.a11y.atspi.Component" };

describe("encodeMethodCall", () => {
  const cases: MethodCall[] = [
    { ...base, member: "GetExtents", signature: "u", body: [0] },
    { ...base, iface: "org.a11y.atspi.Accessible", member: "GetState", signature: "", body: [] },
    { ...base, iface: "org.a11y.atspi.Text", member: "GetText", signature: "ii", body: [0, -1] },
    { ...base, iface: "org.a11y.atspi.Text", member: "SetSelection", signature: "iii", body: [0, 3, 2147483647] },
    { ...base, member: "GetAccessibleAtPoint", signature: "iiu", body: [-5, 1280, 4294967295] },
    { ...base, iface: "org.freedesktop.DBus.Properties", member: "Get", signature: "ss", body: ["org.a11y.atspi.Accessible", "Name"] },
    { ...base, iface: "org.a11y.atspi.EditableText", member: "SetTextContents", signature: "s", body: ["héllo wörld 😀, and a longer text that grows the buffer ".repeat(20)] },
    { serial: 4_000_000_000, destination: "org.freedesktop.DBus", path: "/", iface: "org.freedesktop.DBus", member: "NameHasOwner", signature: "s", body: [":1.7"] },
  ];
  for (const call of cases) {
    it(`encodes ${call.member}(${call.signature}) as the library does`, () => {
      expect(encodeMethodCall(call)?.toString("hex")).toBe(library(call).toString("hex"));
    });
  }

  it("sends a call made before with its own serial, as the library would encode it afresh", () => {
    for (const call of cases) {
      for (const serial of [1, 8, 255, 65_536, 4_294_967_295]) {
        const again = { ...call, serial };
        expect(encodeMethodCall(again)?.toString("hex")).toBe(library(again).toString("hex"));
      }
    }
  });

  it("keeps no two calls as one: another value, path or type is encoded anew", () => {
    const extents = { ...base, member: "GetExtents", signature: "u", body: [0] };
    encodeMethodCall(extents);
    for (const call of [{ ...extents, body: [1] }, { ...extents, path: "/org/a11y/atspi/accessible/1234" }, { ...extents, destination: ":1.43" }]) {
      expect(encodeMethodCall(call)?.toString("hex")).toBe(library(call).toString("hex"));
    }
    const name = { ...base, iface: "org.freedesktop.DBus.Properties", member: "Get", signature: "ss", body: ["1", "Name"] };
    expect(encodeMethodCall(name)?.toString("hex")).toBe(library(name).toString("hex"));
    // The same digits as a number, where the signature wants a string: still refused.
    expect(encodeMethodCall({ ...name, body: [1, "Name"] })).toBeUndefined();
    // The bytes handed out are the caller's: changing them does not change the next call's.
    const fresh = { ...extents, path: "/org/a11y/atspi/accessible/never_sent" };
    encodeMethodCall(fresh)!.fill(0);
    expect(encodeMethodCall(fresh)?.toString("hex")).toBe(library(fresh).toString("hex"));
    encodeMethodCall(fresh)!.fill(0);
    expect(encodeMethodCall(fresh)?.toString("hex")).toBe(library(fresh).toString("hex"));
  });

  it("leaves other signatures and values the bus would refuse to the library", () => {
    const get = { ...base, iface: "org.freedesktop.DBus.Properties", member: "Set", signature: "ssv", body: ["a", "b", new dbus.Variant("d", 1)] };
    expect(encodeMethodCall(get)).toBeUndefined();
    expect(encodeMethodCall({ ...base, member: "M", signature: "s", body: ["nul\0inside"] })).toBeUndefined();
    expect(encodeMethodCall({ ...base, member: "M", signature: "u", body: [-1] })).toBeUndefined();
    // Asked again, a refused call is still refused (nothing refused is kept).
    expect(encodeMethodCall({ ...base, member: "M", signature: "u", body: [-1] })).toBeUndefined();
    expect(encodeMethodCall({ ...base, member: "M", signature: "i", body: [2 ** 31] })).toBeUndefined();
    expect(encodeMethodCall({ ...base, member: "M", signature: "i", body: [1.5] })).toBeUndefined();
    expect(encodeMethodCall({ ...base, member: "M", signature: "ii", body: [1] })).toBeUndefined();
    expect(encodeMethodCall({ ...base, path: "/bad//path", member: "M", signature: "", body: [] })).toBeUndefined();
    expect(encodeMethodCall({ ...base, path: "relative", member: "M", signature: "", body: [] })).toBeUndefined();
  });

  it("never keeps a call that changes the app, nor its text", () => {
    const secret = "hunter2 " + "x".repeat(100);
    const before = keptCallStats();
    for (let k = 0; k < 3; k++) {
      const writes: MethodCall[] = [
        { ...base, iface: "org.a11y.atspi.EditableText", member: "SetTextContents", signature: "s", body: [`${secret}${k}`] },
        { ...base, iface: "org.a11y.atspi.EditableText", member: "InsertText", signature: "is", body: [0, secret] },
        { ...base, iface: "org.a11y.atspi.Action", member: "DoAction", signature: "i", body: [k] },
        { ...base, iface: "org.a11y.atspi.Component", member: "GrabFocus", signature: "", body: [] },
        // A member named Get on another interface than Properties is no read.
        { ...base, iface: "org.example.Store", member: "Get", signature: "s", body: [secret] },
      ];
      for (const call of writes) {
        const data = encodeMethodCall(call);
        if (data) expect(data.toString("hex")).toBe(library(call).toString("hex"));
      }
    }
    expect(keptCallStats()).toEqual(before);
    // A read is kept, and Ping (sent every read) too.
    encodeMethodCall({ ...base, member: "GetExtents", signature: "u", body: [9] });
    encodeMethodCall({ serial: 3, destination: ":1.42", path: "/", iface: "org.freedesktop.DBus.Peer", member: "Ping", signature: "", body: [] });
    expect(keptCallStats().calls).toBe(before.calls + 2);
  });

  it("evicts the oldest calls when full instead of emptying, and forgets a bus that left", () => {
    const extents = (bus: string, k: number): MethodCall => ({ ...base, destination: bus, path: `/org/a11y/atspi/accessible/${k}`, member: "GetExtents", signature: "u", body: [0] });
    for (let k = 0; k < 100; k++) encodeMethodCall(extents(":1.800", k));
    for (let k = 0; k < KEPT_CALLS + 500; k++) encodeMethodCall(extents(":1.801", k));
    expect(keptCallStats().calls).toBe(KEPT_CALLS);
    // The oldest went: nothing of :1.800 is left, so forgetting it drops nothing.
    forgetCallsTo(":1.800");
    expect(keptCallStats().calls).toBe(KEPT_CALLS);
    // The newest stay, and still encode as the library does under a new serial.
    const newest = { ...extents(":1.801", KEPT_CALLS + 499), serial: 99 };
    expect(encodeMethodCall(newest)?.toString("hex")).toBe(library(newest).toString("hex"));
    expect(keptCallStats().calls).toBe(KEPT_CALLS);
    forgetCallsTo(":1.8"); // a prefix of a name is not the name
    expect(keptCallStats().calls).toBe(KEPT_CALLS);
    forgetCallsTo(":1.801");
    expect(keptCallStats()).toEqual({ calls: 0, bytes: 0 });
  });

  it("keeps the kept calls' bytes under their cap", () => {
    const get = (k: number): MethodCall => ({ ...base, iface: "org.freedesktop.DBus.Properties", member: "Get", signature: "ss", body: ["org.a11y.atspi.Accessible", `P${k}_${"p".repeat(150)}`] });
    for (let k = 0; k < 10_000; k++) {
      encodeMethodCall(get(k));
      expect(keptCallStats().bytes).toBeLessThanOrEqual(KEPT_BYTES);
    }
    const { calls, bytes } = keptCallStats();
    expect(calls).toBeLessThan(KEPT_CALLS);
    expect(bytes).toBeGreaterThan(KEPT_BYTES * 0.9);
    // A call too large to keep is still encoded, and not kept.
    const huge = { ...get(0), body: ["org.a11y.atspi.Accessible", "q".repeat(5_000)] };
    expect(encodeMethodCall(huge)?.toString("hex")).toBe(library(huge).toString("hex"));
    expect(keptCallStats()).toEqual({ calls, bytes });
    forgetCallsTo(":1.42");
    expect(keptCallStats()).toEqual({ calls: 0, bytes: 0 });
  });
});
