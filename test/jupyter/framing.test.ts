import { describe, expect, it } from "vitest";
import { DELIMITER, decode, encode as encodeFrames, type DecodeResult } from "../../src/jupyter/framing.js";
import { newHeader, type JupyterMessage } from "../../src/jupyter/message.js";
import { Signer } from "../../src/jupyter/signing.js";

const signer = new Signer("hmac-sha256", "test-key");
const MAX = 1024 * 1024;

function sample(): JupyterMessage {
  const parent = newHeader("execute_request", "client-session", "alice");
  return {
    identities: [Buffer.from("route-1"), Buffer.from([0, 1, 2, 255])],
    header: newHeader("execute_reply", "kernel-session", "kernel"),
    parent_header: parent,
    metadata: { started: "2024-01-01T00:00:00.000Z" },
    content: { status: "ok", execution_count: 3, nested: { list: [1, "two", null] } },
    buffers: [Buffer.from([9, 8, 7]), Buffer.alloc(0)],
  };
}

/** Frames from `<IDS|MSG>` onwards, with the four dicts replaced and re-signed. */
function signedFrames(dicts: string[], extra: Buffer[] = []): Buffer[] {
  const parts = dicts.map((d) => Buffer.from(d));
  return [DELIMITER, Buffer.from(signer.sign(parts)), ...parts, ...extra];
}

/** The frames as the peer receives them: ZeroMQ delivers every frame, string or Buffer, as bytes. */
function encode(msg: JupyterMessage, by: Signer): Buffer[] {
  return encodeFrames(msg, by).map((frame) => (typeof frame === "string" ? Buffer.from(frame, "utf8") : frame));
}

function reasonOf(result: DecodeResult): string {
  if (result.ok) throw new Error("expected the message to be refused");
  return result.reason;
}

describe("encode", () => {
  it("lays out identities, delimiter, signature, four dicts, buffers", () => {
    const msg = sample();
    const frames = encode(msg, signer);
    expect(frames).toHaveLength(2 + 1 + 1 + 4 + 2);
    expect(frames[0]!.toString()).toBe("route-1");
    expect(frames[2]!.equals(DELIMITER)).toBe(true);
    const dicts = frames.slice(4, 8);
    expect(frames[3]!.toString()).toBe(signer.sign(dicts));
    expect(JSON.parse(dicts[0]!.toString())).toEqual(msg.header);
    expect(JSON.parse(dicts[3]!.toString())).toEqual(msg.content);
    expect(frames[8]!.equals(Buffer.from([9, 8, 7]))).toBe(true);
  });

  it("sends every JSON frame as a string, however long, and only msg.buffers as Buffers, signed over the bytes that go out", () => {
    const msg = { ...sample(), content: { text: "é ✓ 😀" } };
    const small = encodeFrames(msg, signer);
    expect(small.slice(3, 8).map((frame) => typeof frame)).toEqual(["string", "string", "string", "string", "string"]);
    expect(small[2]).toBe(DELIMITER);
    expect(small.slice(8).every((frame) => Buffer.isBuffer(frame))).toBe(true);
    // An image's base64: a Buffer made of it would be one more copy, saving none.
    const large = encodeFrames({ ...msg, content: { data: "x".repeat(512 * 1024) } }, signer);
    expect(large.slice(3, 8).map((frame) => typeof frame)).toEqual(["string", "string", "string", "string", "string"]);
    for (const frames of [small, large]) {
      const result = decode(frames.map((frame) => (typeof frame === "string" ? Buffer.from(frame, "utf8") : frame)), signer, MAX);
      expect(result.ok).toBe(true);
    }
    const decoded = decode(encode(msg, signer), signer, MAX);
    expect(decoded.ok && decoded.message.content).toEqual({ text: "é ✓ 😀" });
  });

  it("writes an empty signature frame when unsigned", () => {
    const frames = encode(sample(), new Signer("hmac-sha256", ""));
    expect(frames[3]!.length).toBe(0);
  });
});

describe("decode", () => {
  it("round-trips a message, preserving identities and buffers", () => {
    const msg = sample();
    const result = decode(encode(msg, signer), signer, MAX);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.message.identities.map((b) => b.toString("hex"))).toEqual(["726f7574652d31", "000102ff"]);
    expect(result.message.header).toEqual(msg.header);
    expect(result.message.parent_header).toEqual(msg.parent_header);
    expect(result.message.metadata).toEqual(msg.metadata);
    expect(result.message.content).toEqual(msg.content);
    expect(result.message.buffers.map((b) => [...b])).toEqual([[9, 8, 7], []]);
  });

  it("accepts a message without identities and with an empty parent header", () => {
    const msg = { ...sample(), identities: [], parent_header: {}, buffers: [] };
    const result = decode(encode(msg, signer), signer, MAX);
    expect(result.ok && result.message.identities).toEqual([]);
    expect(result.ok && result.message.parent_header).toEqual({});
  });

  it("refuses oversized messages before looking at anything else", () => {
    const frames = encode(sample(), new Signer("hmac-sha256", "wrong-key"));
    const total = frames.reduce((n, f) => n + f.length, 0);
    expect(reasonOf(decode(frames, signer, total - 1))).toMatch(new RegExp(`${total} bytes, over the ${total - 1}`));
    // At exactly the limit the size check passes and the bad signature is what is reported.
    expect(reasonOf(decode(frames, signer, total))).toBe("invalid signature");
  });

  it("refuses a missing delimiter", () => {
    const frames = encode(sample(), signer).filter((f) => !f.equals(DELIMITER));
    expect(reasonOf(decode(frames, signer, MAX))).toMatch(/missing <IDS\|MSG> delimiter/);
    expect(reasonOf(decode([], signer, MAX))).toMatch(/delimiter/);
  });

  it("refuses fewer than five frames after the delimiter", () => {
    const frames = encode({ ...sample(), buffers: [] }, signer).slice(0, -1);
    expect(reasonOf(decode(frames, signer, MAX))).toBe("expected at least 5 frames after <IDS|MSG>, got 4");
  });

  it("refuses a missing or wrong signature before parsing JSON", () => {
    const frames = signedFrames(["not json", "{}", "{}", "{}"]);
    const unsigned = [frames[0]!, Buffer.alloc(0), ...frames.slice(2)];
    expect(reasonOf(decode(unsigned, signer, MAX))).toBe("missing signature");
    const forged = [frames[0]!, Buffer.from("0".repeat(64)), ...frames.slice(2)];
    expect(reasonOf(decode(forged, signer, MAX))).toBe("invalid signature");
    // With a valid signature the same frames get as far as JSON parsing.
    expect(reasonOf(decode(frames, signer, MAX))).toBe("header is not valid JSON");
  });

  it("refuses a message signed with another key", () => {
    const frames = encode(sample(), new Signer("hmac-sha256", "other"));
    expect(reasonOf(decode(frames, signer, MAX))).toBe("invalid signature");
  });

  it("refuses invalid JSON or non-objects in each dict frame", () => {
    const header = JSON.stringify(newHeader("kernel_info_request", "s", "u"));
    expect(reasonOf(decode(signedFrames([header, "{", "{}", "{}"]), signer, MAX))).toBe(
      "parent_header is not valid JSON",
    );
    expect(reasonOf(decode(signedFrames([header, "{}", "[1]", "{}"]), signer, MAX))).toBe(
      "metadata is not a JSON object",
    );
    expect(reasonOf(decode(signedFrames([header, "{}", "{}", "null"]), signer, MAX))).toBe(
      "content is not a JSON object",
    );
    expect(reasonOf(decode(signedFrames(["\"text\"", "{}", "{}", "{}"]), signer, MAX))).toBe(
      "header is not a JSON object",
    );
  });

  it("requires string msg_id and msg_type in the header", () => {
    const noId = JSON.stringify({ msg_type: "kernel_info_request" });
    expect(reasonOf(decode(signedFrames([noId, "{}", "{}", "{}"]), signer, MAX))).toBe(
      "header.msg_id must be a string",
    );
    const badType = JSON.stringify({ msg_id: "x", msg_type: 7 });
    expect(reasonOf(decode(signedFrames([badType, "{}", "{}", "{}"]), signer, MAX))).toBe(
      "header.msg_type must be a string",
    );
  });

  it("defaults optional header fields to \"\" and keeps unknown ones", () => {
    const header = JSON.stringify({ msg_id: "m1", msg_type: "kernel_info_request", session: 42, subshell_id: "s1" });
    const parent = JSON.stringify({ msg_id: "p1" });
    const result = decode(signedFrames([header, parent, "{}", "{}"]), signer, MAX);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.message.header).toEqual({
      msg_id: "m1",
      msg_type: "kernel_info_request",
      session: "",
      username: "",
      date: "",
      version: "",
      subshell_id: "s1",
    });
    expect(result.message.parent_header.msg_id).toBe("p1");
    expect(result.message.parent_header.msg_type).toBe("");
  });

  it("accepts anything signature-wise when unsigned", () => {
    const unsigned = new Signer("hmac-sha256", "");
    const frames = encode(sample(), signer); // carries a signature nobody checks
    expect(decode(frames, unsigned, MAX).ok).toBe(true);
  });

  it("never throws on hostile input", () => {
    const inputs: Buffer[][] = [
      [DELIMITER],
      [DELIMITER, DELIMITER, DELIMITER, DELIMITER, DELIMITER, DELIMITER],
      Array.from({ length: 10 }, (_, i) => Buffer.from([i, 255, 0])),
    ];
    for (const frames of inputs) {
      expect(() => decode(frames, signer, MAX)).not.toThrow();
      expect(decode(frames, signer, MAX).ok).toBe(false);
    }
    const unsigned = new Signer("hmac-sha256", "");
    const proto = '{"msg_id":"x","msg_type":"y","__proto__":{"polluted":true}}';
    const dicts = [proto, "{}", "{}", "{}"].map((s) => Buffer.from(s));
    const result = decode([DELIMITER, Buffer.alloc(0), ...dicts], unsigned, MAX);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(Object.getPrototypeOf(result.message.header)).toBe(Object.prototype);
    expect((result.message.header as unknown as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
