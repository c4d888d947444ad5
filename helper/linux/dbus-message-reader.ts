// Splits a D-Bus byte stream into messages and reads their headers, leaving each body as raw
// bytes for the caller to decode (dbus-body-decoder.ts in general, atspi-cache-decoder.ts for
// Cache.GetItems). A stream whose framing or header is malformed cannot be resynchronized:
// push() throws DBusDecodeError and the connection must be closed.
import { BodyReader, DBusDecodeError, parseSignature, type DBusType } from "./dbus-body-decoder.js";

export interface RawMessage {
  /** 1 method call, 2 method return, 3 error, 4 signal (others are ignored by the spec's rule). */
  type: number;
  serial: number;
  replySerial?: number;
  /** A call's or signal's member name. */
  member?: string;
  errorName?: string;
  signature: string;
  /** The body's bytes; offset 0 is 8-aligned in the message, as decoding needs. */
  body: Buffer;
  little: boolean;
}

const HEADER_BYTES = 16;
/** The spec's limit on a whole message. */
const MAX_MESSAGE_BYTES = 1 << 27;
const LITTLE = 0x6c; // 'l'
const BIG = 0x42; // 'B'
const FIELD_MEMBER = 3;
const FIELD_ERROR_NAME = 4;
const FIELD_REPLY_SERIAL = 5;
const FIELD_SIGNATURE = 8;
const FIELDS_TYPE = parseSignature("a(yv)")[0] as DBusType;

export class MessageReader {
  #chunks: Buffer[] = [];
  #buffered = 0;
  /** Bytes the next message needs before it can be read (its header, then all of it). */
  #need = HEADER_BYTES;

  /** Takes bytes from the stream; returns the messages they complete. Throws DBusDecodeError. */
  push(chunk: Buffer): RawMessage[] {
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    if (this.#buffered < this.#need) return [];
    // Joined once the next message is whole, so a large reply is copied once, not per chunk.
    const data = this.#chunks.length === 1 ? (this.#chunks[0] as Buffer) : Buffer.concat(this.#chunks, this.#buffered);
    const messages: RawMessage[] = [];
    let at = 0;
    for (;;) {
      const total = data.length - at >= HEADER_BYTES ? messageLength(data, at) : HEADER_BYTES;
      if (data.length - at < total) {
        this.#need = total;
        break;
      }
      messages.push(readMessage(data.subarray(at, at + total)));
      at += total;
    }
    const rest = data.subarray(at);
    this.#chunks = rest.length > 0 ? [rest] : [];
    this.#buffered = rest.length;
    return messages;
  }
}

/** The whole message's length from its fixed header; throws when the header is not D-Bus. */
function messageLength(data: Buffer, at: number): number {
  const endian = data[at];
  if (endian !== LITTLE && endian !== BIG) throw new DBusDecodeError(`a message starts with byte ${endian}, not an endianness mark`);
  if (data[at + 3] !== 1) throw new DBusDecodeError(`a message of protocol version ${data[at + 3]}`);
  const little = endian === LITTLE;
  const bodyBytes = little ? data.readUInt32LE(at + 4) : data.readUInt32BE(at + 4);
  const fieldBytes = little ? data.readUInt32LE(at + 12) : data.readUInt32BE(at + 12);
  const total = HEADER_BYTES + align8(fieldBytes) + bodyBytes;
  if (total > MAX_MESSAGE_BYTES) throw new DBusDecodeError(`a message of ${total} bytes (the limit is ${MAX_MESSAGE_BYTES})`);
  return total;
}

function readMessage(message: Buffer): RawMessage {
  const little = message[0] === LITTLE;
  const type = message[1] as number;
  const header = new BodyReader(message, little, 4);
  header.uint32(); // body length, already taken
  const serial = header.uint32();
  if (serial === 0) throw new DBusDecodeError("a message with serial 0");
  const fields = header.value(FIELDS_TYPE) as Array<[number, { value: unknown }]>;
  const result: RawMessage = { type, serial, signature: "", body: message.subarray(align8(header.pos)), little };
  for (const [code, variant] of fields) {
    const value = variant.value;
    if (code === FIELD_REPLY_SERIAL && typeof value === "number") result.replySerial = value;
    else if (code === FIELD_MEMBER && typeof value === "string") result.member = value;
    else if (code === FIELD_ERROR_NAME && typeof value === "string") result.errorName = value;
    else if (code === FIELD_SIGNATURE && typeof value === "string") result.signature = value;
  }
  return result;
}

function align8(n: number): number {
  return (n + 7) & ~7;
}
