// D-Bus method calls encoded straight into one buffer, for the signatures tree reads send by the
// hundred (GetExtents "u", GetText "ii", Properties.Get "ss", calls without arguments). The
// library's general marshaller builds each message from many small buffers and parses the
// signature every time: a fifth of the helper's CPU in a read, and much of its garbage.
// Anything else (other signatures, a string the bus would refuse) is left to the library.
import { isReadCall } from "./atspi-read-calls.js";

export interface MethodCall {
  serial: number;
  destination: string;
  path: string;
  iface: string;
  member: string;
  signature: string;
  body: readonly unknown[];
}

const ENCODABLE = new Set(["", "u", "i", "ii", "iii", "iiu", "s", "ss"]);
const FIELD_PATH = 1;
const FIELD_INTERFACE = 2;
const FIELD_MEMBER = 3;
const FIELD_DESTINATION = 6;
const FIELD_SIGNATURE = 8;
const METHOD_CALL = 1;
const PROTOCOL_VERSION = 1;
/** What the bus accepts as an object path; a malformed one would make it drop the connection. */
const OBJECT_PATH = /^\/(?:[A-Za-z0-9_]+(?:\/[A-Za-z0-9_]+)*)?$/;

/** Where the serial sits in a message: after the endianness, type, flags, version and body length. */
const SERIAL_AT = 8;
/** Calls kept encoded; a read repeats the same few hundred (one GetExtents per object, each read). */
export const KEPT_CALLS = 4_096;
/** What the kept calls may take in all, counting each key at two bytes a character. */
export const KEPT_BYTES = 2 * 1024 * 1024;
/** A call larger than this is not kept (a read's calls are a few hundred bytes). */
const KEPT_CALL_BYTES = 1_024;
/**
 * Call (all but its serial) → its bytes, to copy with a new serial; the oldest go first when
 * full. Only read calls and Ping: a call that changes the app (SetTextContents) carries what a
 * user typed, which must not stay in the helper's memory, and is rarely sent twice.
 */
const encoded = new Map<string, Buffer>();
let encodedBytes = 0;

/**
 * The wire bytes of the call (little-endian), or undefined when the library should encode it.
 * A read call made before is copied from its earlier bytes with the new serial: every read sends
 * the same GetExtents of the same objects, and encoding each anew was most of what sending cost.
 */
export function encodeMethodCall(call: MethodCall): Buffer | undefined {
  const key = kept(call) ? callKey(call) : undefined;
  const known = key === undefined ? undefined : encoded.get(key);
  if (known) {
    const copy = Buffer.allocUnsafe(known.length);
    known.copy(copy);
    copy.writeUInt32LE(call.serial, SERIAL_AT);
    return copy;
  }
  const data = encodeAfresh(call);
  if (data && key !== undefined) keep(key, data);
  return data;
}

/** Drops the kept calls to a bus name (its owner left the bus: the name is never reused). */
export function forgetCallsTo(destination: string): void {
  const prefix = `${destination}\0`;
  for (const [key, data] of encoded) {
    if (key.startsWith(prefix)) drop(key, data);
  }
}

/** How many calls are kept and the bytes they take (as counted against KEPT_BYTES). */
export function keptCallStats(): { calls: number; bytes: number } {
  return { calls: encoded.size, bytes: encodedBytes };
}

function kept(call: MethodCall): boolean {
  return isReadCall(call.iface, call.member) || (call.iface === "org.freedesktop.DBus.Peer" && call.member === "Ping");
}

function keep(key: string, data: Buffer): void {
  const size = entrySize(key, data);
  if (size > KEPT_CALL_BYTES) return;
  // A Map iterates in insertion order: the first entries are the oldest.
  for (const [oldKey, oldData] of encoded) {
    if (encoded.size < KEPT_CALLS && encodedBytes + size <= KEPT_BYTES) break;
    drop(oldKey, oldData);
  }
  encoded.set(key, Buffer.from(data));
  encodedBytes += size;
}

function drop(key: string, data: Buffer): void {
  encoded.delete(key);
  encodedBytes -= entrySize(key, data);
}

function entrySize(key: string, data: Buffer): number {
  return key.length * 2 + data.length;
}

/**
 * Everything but the serial, NUL-separated (no encodable string holds a NUL, so no two calls
 * share a key); undefined for a body whose values are not of the signature's types, never kept.
 */
function callKey(call: MethodCall): string | undefined {
  let key = `${call.destination}\0${call.path}\0${call.iface}\0${call.member}\0${call.signature}`;
  for (let k = 0; k < call.body.length; k++) {
    const value = call.body[k];
    // The type the signature wants, so a number and its digits as a string never share a key.
    if (typeof value !== (call.signature[k] === "s" ? "string" : "number")) return undefined;
    key += `\0${value as string | number}`;
  }
  return key;
}

function encodeAfresh(call: MethodCall): Buffer | undefined {
  if (!ENCODABLE.has(call.signature) || call.body.length !== call.signature.length) return undefined;
  if (!OBJECT_PATH.test(call.path) || !busString(call.destination) || !busString(call.iface) || !busString(call.member)) return undefined;
  for (let k = 0; k < call.body.length; k++) {
    const value = call.body[k];
    if (call.signature[k] === "s" ? !busString(value) : !isInt32Like(value, call.signature[k] as string)) return undefined;
  }
  const writer = new Writer();
  writer.byte(0x6c); // 'l'
  writer.byte(METHOD_CALL);
  writer.byte(0);
  writer.byte(PROTOCOL_VERSION);
  const bodyLengthAt = writer.reserve(4);
  writer.uint32(call.serial);
  const fieldsLengthAt = writer.reserve(4);
  const fieldsStart = writer.length;
  writer.field(FIELD_PATH, "o", call.path);
  writer.field(FIELD_INTERFACE, "s", call.iface);
  writer.field(FIELD_MEMBER, "s", call.member);
  writer.field(FIELD_DESTINATION, "s", call.destination);
  if (call.signature !== "") writer.field(FIELD_SIGNATURE, "g", call.signature);
  writer.patch(fieldsLengthAt, writer.length - fieldsStart);
  writer.align(8);
  const bodyStart = writer.length;
  for (let k = 0; k < call.body.length; k++) {
    const value = call.body[k];
    if (call.signature[k] === "s") writer.string(value as string);
    else if (call.signature[k] === "u") writer.uint32(value as number);
    else writer.int32(value as number);
  }
  writer.patch(bodyLengthAt, writer.length - bodyStart);
  return writer.done();
}

/** A string the bus takes: no NUL (D-Bus strings cannot hold one). */
function busString(value: unknown): value is string {
  return typeof value === "string" && !value.includes("\0");
}

function isInt32Like(value: unknown, type: string): boolean {
  if (typeof value !== "number" || !Number.isInteger(value)) return false;
  return type === "u" ? value >= 0 && value <= 0xffffffff : value >= -0x80000000 && value <= 0x7fffffff;
}

/** Appends aligned D-Bus values to a growing buffer. Offsets count from the message start. */
class Writer {
  #buffer = Buffer.allocUnsafe(256);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  byte(value: number): void {
    this.room(1);
    this.#buffer[this.#length++] = value;
  }

  uint32(value: number): void {
    this.align(4);
    this.room(4);
    this.#buffer.writeUInt32LE(value, this.#length);
    this.#length += 4;
  }

  int32(value: number): void {
    this.align(4);
    this.room(4);
    this.#buffer.writeInt32LE(value, this.#length);
    this.#length += 4;
  }

  /** A string or object path: length, UTF-8 bytes, NUL. */
  string(value: string): void {
    const size = Buffer.byteLength(value, "utf8");
    this.uint32(size);
    this.room(size + 1);
    this.#buffer.write(value, this.#length, "utf8");
    this.#length += size;
    this.#buffer[this.#length++] = 0;
  }

  /** A signature: one length byte, the characters, NUL. */
  signature(value: string): void {
    this.byte(value.length);
    this.room(value.length + 1);
    this.#buffer.write(value, this.#length, "latin1");
    this.#length += value.length;
    this.#buffer[this.#length++] = 0;
  }

  /** One header field: a struct (byte code, variant) aligned to 8. */
  field(code: number, type: "o" | "s" | "g", value: string): void {
    this.align(8);
    this.byte(code);
    this.signature(type);
    if (type === "g") this.signature(value);
    else this.string(value);
  }

  align(to: number): void {
    const padding = (to - (this.#length % to)) % to;
    this.room(padding);
    this.#buffer.fill(0, this.#length, this.#length + padding);
    this.#length += padding;
  }

  reserve(size: number): number {
    const at = this.#length;
    this.room(size);
    this.#length += size;
    return at;
  }

  patch(at: number, value: number): void {
    this.#buffer.writeUInt32LE(value, at);
  }

  done(): Buffer {
    return this.#buffer.subarray(0, this.#length);
  }

  private room(size: number): void {
    if (this.#length + size <= this.#buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.#buffer.length * 2, this.#length + size));
    this.#buffer.copy(grown, 0, 0, this.#length);
    this.#buffer = grown;
  }
}
