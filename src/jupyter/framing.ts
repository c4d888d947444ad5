import type { JupyterMessage, MessageHeader } from "./message.js";
import type { Signer } from "./signing.js";

/** Separates ZeroMQ routing identities from the message proper. */
export const DELIMITER = Buffer.from("<IDS|MSG>", "utf8");

export type DecodeResult = { ok: true; message: JupyterMessage } | { ok: false; reason: string };

/**
 * One outgoing frame. zeromq.js copies a string into a message of its own, which its I/O
 * thread frees; a Buffer over 128 bytes it borrows instead, and each one given back wakes this
 * process's main thread to release it (issue 12, docs/design.md): about one wake-up more per
 * message. Making a Buffer of a JSON string is itself a full copy, so lending one never saves a
 * copy: every JSON frame goes as a string, whatever its length. Only `msg.buffers`, which are
 * bytes already, go as Buffers.
 */
export type OutgoingFrame = Buffer | string;

/** Frames: identities, `<IDS|MSG>`, signature, header, parent, metadata, content, buffers. */
export function encode(msg: JupyterMessage<unknown>, signer: Signer): OutgoingFrame[] {
  const dicts = [toJsonFrame(msg.header), toJsonFrame(msg.parent_header), toJsonFrame(msg.metadata), toJsonFrame(msg.content)];
  return [...msg.identities, DELIMITER, signer.sign(dicts), ...dicts, ...msg.buffers];
}

/**
 * Parses and authenticates one incoming multipart message. Never throws: anything
 * malformed, oversized or unauthenticated comes back as `{ ok: false, reason }`.
 */
export function decode(frames: readonly Buffer[], signer: Signer, maxBytes: number): DecodeResult {
  try {
    return decodeUnsafe(frames, signer, maxBytes);
  } catch (err) {
    // Defensive: the steps below are written not to throw, but a wire decoder must not crash a loop.
    return refuse(`internal decode error: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function decodeUnsafe(frames: readonly Buffer[], signer: Signer, maxBytes: number): DecodeResult {
  const size = frames.reduce((sum, frame) => sum + frame.length, 0);
  if (size > maxBytes) return refuse(`message is ${size} bytes, over the ${maxBytes} byte limit`);
  const at = frames.findIndex((frame) => frame.equals(DELIMITER));
  if (at < 0) return refuse("missing <IDS|MSG> delimiter");
  const rest = frames.slice(at + 1);
  if (rest.length < 5) return refuse(`expected at least 5 frames after <IDS|MSG>, got ${rest.length}`);
  const [signatureFrame, ...tail] = rest as [Buffer, ...Buffer[]];
  const dictFrames = tail.slice(0, 4);
  // Authenticate the raw bytes before any parsing so unauthenticated input never reaches JSON.parse.
  if (signer.enabled && signatureFrame.length === 0) return refuse("missing signature");
  if (!signer.verify(signatureFrame.toString("utf8"), dictFrames)) return refuse("invalid signature");
  return assemble(frames.slice(0, at), dictFrames, tail.slice(4));
}

function assemble(identities: Buffer[], dictFrames: Buffer[], buffers: Buffer[]): DecodeResult {
  const names = ["header", "parent_header", "metadata", "content"] as const;
  const dicts: Record<string, unknown>[] = [];
  for (const [i, frame] of dictFrames.entries()) {
    const parsed = parseObject(frame);
    if (typeof parsed === "string") return refuse(`${names[i]} ${parsed}`);
    dicts.push(parsed);
  }
  const [rawHeader, rawParent, metadata, content] = dicts as [
    Record<string, unknown>, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>,
  ];
  if (typeof rawHeader.msg_id !== "string") return refuse("header.msg_id must be a string");
  if (typeof rawHeader.msg_type !== "string") return refuse("header.msg_type must be a string");
  const message: JupyterMessage = {
    identities,
    header: normalizeHeader(rawHeader),
    parent_header: Object.keys(rawParent).length === 0 ? {} : normalizeHeader(rawParent),
    metadata,
    content,
    buffers,
  };
  return { ok: true, message };
}

/**
 * Fills missing string fields with "" but keeps every other key (e.g. a
 * `subshell_id`), because replies echo the header back as parent_header verbatim.
 */
function normalizeHeader(raw: Record<string, unknown>): MessageHeader {
  const text = (key: keyof MessageHeader): string => (typeof raw[key] === "string" ? (raw[key] as string) : "");
  return {
    ...raw,
    msg_id: text("msg_id"),
    session: text("session"),
    username: text("username"),
    date: text("date"),
    msg_type: text("msg_type"),
    version: text("version"),
  };
}

/** The parsed object, or a string saying what is wrong with the frame. */
function parseObject(frame: Buffer): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(frame.toString("utf8"));
  } catch {
    return "is not valid JSON";
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "is not a JSON object";
  return value as Record<string, unknown>;
}

/** Each dict serialised once: the signature is computed over the same frame that is sent. */
function toJsonFrame(value: unknown): string {
  return JSON.stringify(value ?? {});
}

function refuse(reason: string): DecodeResult {
  return { ok: false, reason };
}
