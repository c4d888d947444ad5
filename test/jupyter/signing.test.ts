import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Signer } from "../../src/jupyter/signing.js";

const parts = ["{\"msg_id\":\"a\"}", "{}", "{}", "{\"code\":\"1+1\"}"].map((s) => Buffer.from(s));

describe("Signer", () => {
  it("matches HMAC-SHA256 over the concatenated frames, computed independently", () => {
    const expected = createHmac("sha256", "s3cret").update(Buffer.concat(parts)).digest("hex");
    expect(new Signer("hmac-sha256", "s3cret").sign(parts)).toBe(expected);
  });

  it("matches the RFC 4231 test case 2 vector when the data is split across frames", () => {
    const split = ["what do ya", " want ", "for noth", "ing?"].map((s) => Buffer.from(s));
    expect(new Signer("hmac-sha256", "Jefe").sign(split)).toBe(
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    );
  });

  it("supports other hmac-<alg> schemes node:crypto knows", () => {
    const expected = createHmac("sha512", "k").update(Buffer.concat(parts)).digest("hex");
    const signer = new Signer("hmac-sha512", "k");
    expect(signer.sign(parts)).toBe(expected);
    expect(signer.verify(expected, parts)).toBe(true);
  });

  it("verifies a good signature and rejects a tampered one or tampered content", () => {
    const signer = new Signer("hmac-sha256", "key");
    const signature = signer.sign(parts);
    expect(signer.verify(signature, parts)).toBe(true);
    const flipped = (signature[0] === "0" ? "1" : "0") + signature.slice(1);
    expect(signer.verify(flipped, parts)).toBe(false);
    const tampered = [...parts.slice(0, 3), Buffer.from("{\"code\":\"evil()\"}")];
    expect(signer.verify(signature, tampered)).toBe(false);
    expect(new Signer("hmac-sha256", "other").verify(signature, parts)).toBe(false);
  });

  it("returns false without throwing on signatures of the wrong length", () => {
    const signer = new Signer("hmac-sha256", "key");
    const signature = signer.sign(parts);
    expect(signer.verify("", parts)).toBe(false);
    expect(signer.verify(signature.slice(0, -1), parts)).toBe(false);
    expect(signer.verify(signature + "0", parts)).toBe(false);
    // Same character count, different byte count (multi-byte UTF-8).
    expect(signer.verify("é" + signature.slice(1), parts)).toBe(false);
  });

  it("treats an empty key as unsigned: empty signature, everything verifies", () => {
    const signer = new Signer("hmac-sha256", "");
    expect(signer.enabled).toBe(false);
    expect(signer.sign(parts)).toBe("");
    expect(signer.verify("", parts)).toBe(true);
    expect(signer.verify("garbage", parts)).toBe(true);
    expect(new Signer("", "").sign(parts)).toBe("");
  });

  it("rejects unknown schemes at construction", () => {
    expect(() => new Signer("hmac-nope", "k")).toThrow(/unsupported signature scheme "hmac-nope"/);
    expect(() => new Signer("sha256", "k")).toThrow(/hmac-<algorithm>/);
    expect(() => new Signer("", "k")).toThrow(/unsupported signature scheme/);
    expect(() => new Signer("hmac-nope", "")).toThrow(/unsupported/);
  });
});
