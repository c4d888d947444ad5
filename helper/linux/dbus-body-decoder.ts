// D-Bus values read straight from a message's bytes, for the app's direct connection (which
// frames its own messages, so that Cache.GetItems can be decoded by hand: see
// atspi-cache-decoder.ts). Values come out in the shapes dbus-next gives its callers (structs as
// arrays, dicts as objects, variants as dbus.Variant, 64-bit integers as BigInt, `ay` as a
// Buffer), so code above cannot tell which connection a reply took. Every length and offset is
// checked against the bytes there are: a malformed body throws DBusDecodeError and nothing else.
import dbus from "dbus-next";

export class DBusDecodeError extends Error {
  constructor(why: string) {
    super(why);
    this.name = "DBusDecodeError";
  }
}

/** One complete type of a signature. */
export interface DBusType {
  code: string;
  /** Array: its one element type; struct and dict entry: their fields. */
  children: DBusType[];
  /** The type's own signature text (a variant carries it). */
  text: string;
}

/**
 * The spec's limits: 64 MiB arrays, 32 levels each of arrays and of structs, 255-byte signatures.
 * A signature holds at most 64 levels, but a variant brings its own signature, so a body can nest
 * without end: its depth in containers (arrays, structs, dict entries and variants together) is
 * capped at 64, or a hostile reply would overflow the stack.
 */
const MAX_ARRAY_BYTES = 1 << 26;
const MAX_NESTING = 32;
const MAX_DEPTH = 64;
const MAX_SIGNATURE = 255;
const BASIC = "ybnqiuxtdsogh";
const FIXED_ALIGN: Readonly<Record<string, number>> = { y: 1, b: 4, n: 2, q: 2, i: 4, u: 4, x: 8, t: 8, d: 8, h: 4, s: 4, o: 4, g: 1, v: 1, a: 4, "(": 8, "{": 8 };

const parsedSignatures = new Map<string, DBusType[]>();

/** The complete types of a signature (cached: replies repeat a handful); throws DBusDecodeError. */
export function parseSignature(signature: string): DBusType[] {
  const known = parsedSignatures.get(signature);
  if (known) return known;
  if (signature.length > MAX_SIGNATURE) throw new DBusDecodeError(`signature longer than ${MAX_SIGNATURE} characters`);
  const types: DBusType[] = [];
  let at = 0;
  const one = (arrays: number, structs: number, inArray: boolean): DBusType => {
    const start = at;
    const code = signature[at++];
    if (code === undefined) throw new DBusDecodeError(`signature "${signature}" ends inside a type`);
    let children: DBusType[] = [];
    if (code === "a") {
      if (arrays >= MAX_NESTING) throw new DBusDecodeError("arrays nested too deep");
      children = [one(arrays + 1, structs, true)];
    } else if (code === "(" || code === "{") {
      if (structs >= MAX_NESTING) throw new DBusDecodeError("structs nested too deep");
      if (code === "{" && !inArray) throw new DBusDecodeError("a dict entry outside an array");
      const close = code === "(" ? ")" : "}";
      while (signature[at] !== close) {
        if (at >= signature.length) throw new DBusDecodeError(`signature "${signature}" has an unclosed ${code}`);
        children.push(one(arrays, structs + 1, false));
      }
      at++;
      if (children.length === 0) throw new DBusDecodeError("an empty struct");
      if (code === "{" && (children.length !== 2 || !BASIC.includes((children[0] as DBusType).code))) throw new DBusDecodeError("a dict entry needs a basic key and one value");
    } else if (!BASIC.includes(code) && code !== "v") {
      throw new DBusDecodeError(`signature "${signature}" has an unknown type code "${code}"`);
    }
    return { code, children, text: signature.slice(start, at) };
  };
  while (at < signature.length) types.push(one(0, 0, false));
  if (parsedSignatures.size < 256) parsedSignatures.set(signature, types);
  return types;
}

/**
 * Reads aligned values from `buffer`, whose byte 0 must sit at an 8-aligned offset of its message
 * (a body does; so does a message's own start).
 */
export class BodyReader {
  pos: number;

  constructor(
    readonly buffer: Buffer,
    readonly little: boolean,
    pos = 0,
    private readonly end = buffer.length,
  ) {
    this.pos = pos;
  }

  get atEnd(): boolean {
    return this.pos >= this.end;
  }

  align(to: number): void {
    const next = (this.pos + to - 1) & ~(to - 1);
    if (next > this.end) throw this.truncated();
    this.pos = next;
  }

  byte(): number {
    this.need(1);
    return this.buffer[this.pos++] as number;
  }

  uint32(): number {
    this.align(4);
    this.need(4);
    const value = this.little ? this.buffer.readUInt32LE(this.pos) : this.buffer.readUInt32BE(this.pos);
    this.pos += 4;
    return value;
  }

  int32(): number {
    this.align(4);
    this.need(4);
    const value = this.little ? this.buffer.readInt32LE(this.pos) : this.buffer.readInt32BE(this.pos);
    this.pos += 4;
    return value;
  }

  /** A string or object path: u32 length, UTF-8 bytes, NUL. */
  string(): string {
    const length = this.uint32();
    return this.text(length);
  }

  /** Past a string or object path without decoding it. */
  skipString(): void {
    const length = this.uint32();
    this.need(length + 1);
    if (this.buffer[this.pos + length] !== 0) throw new DBusDecodeError(`a string at byte ${this.pos} is not NUL-terminated`);
    this.pos += length + 1;
  }

  signature(): string {
    const length = this.byte();
    return this.text(length);
  }

  /** An array's byte length, aligned to its first element; returns where it ends. */
  arrayEnd(elementAlign: number): number {
    const bytes = this.uint32();
    if (bytes > MAX_ARRAY_BYTES) throw new DBusDecodeError(`an array of ${bytes} bytes (the limit is ${MAX_ARRAY_BYTES})`);
    this.align(elementAlign);
    const end = this.pos + bytes;
    if (end > this.end) throw this.truncated();
    return end;
  }

  /** Past the end of an array element: the array's length lied. */
  checkInside(end: number): void {
    if (this.pos > end) throw new DBusDecodeError(`an array element runs past its array's end (byte ${end})`);
  }

  /** One value; `depth` is how many containers hold it. */
  value(type: DBusType, depth = 0): unknown {
    switch (type.code) {
      case "y":
        return this.byte();
      case "b": {
        const value = this.uint32();
        if (value > 1) throw new DBusDecodeError(`a boolean of ${value}`);
        return value === 1;
      }
      case "n":
      case "q":
        return this.int16(type.code === "n");
      case "i":
        return this.int32();
      case "u":
        return this.uint32();
      case "x":
      case "t":
        return this.int64(type.code === "x");
      case "d":
        return this.double();
      case "s":
      case "o":
        return this.string();
      case "g":
        return this.signature();
      case "h":
        throw new DBusDecodeError("a file descriptor (this connection takes none)");
      case "v":
        return this.variant(inside(depth));
      case "a":
        return this.array(type.children[0] as DBusType, inside(depth));
      default:
        return this.struct(type.children, inside(depth));
    }
  }

  private struct(fields: readonly DBusType[], depth: number): unknown[] {
    this.align(8);
    return fields.map((field) => this.value(field, depth));
  }

  private variant(depth: number): dbus.Variant {
    const signature = this.signature();
    const types = parseSignature(signature);
    if (types.length !== 1) throw new DBusDecodeError(`a variant of ${types.length} types ("${signature}")`);
    return new dbus.Variant(signature, this.value(types[0] as DBusType, depth));
  }

  private array(element: DBusType, depth: number): unknown {
    const end = this.arrayEnd(FIXED_ALIGN[element.code] ?? 1);
    if (element.code === "y") {
      const bytes = Buffer.from(this.buffer.subarray(this.pos, end));
      this.pos = end;
      return bytes;
    }
    if (element.code === "{") {
      const entries: Record<string, unknown> = {};
      const [keyType, valueType] = element.children as [DBusType, DBusType];
      const entryDepth = inside(depth);
      while (this.pos < end) {
        this.align(8);
        const key = String(this.value(keyType, entryDepth));
        // Defined, not assigned: a key "__proto__" must stay a key.
        Object.defineProperty(entries, key, { value: this.value(valueType, entryDepth), enumerable: true, writable: true, configurable: true });
        this.checkInside(end);
      }
      return entries;
    }
    const items: unknown[] = [];
    while (this.pos < end) {
      items.push(this.value(element, depth));
      this.checkInside(end);
    }
    return items;
  }

  private int16(signed: boolean): number {
    this.align(2);
    this.need(2);
    const b = this.buffer;
    const value = this.little ? (signed ? b.readInt16LE(this.pos) : b.readUInt16LE(this.pos)) : signed ? b.readInt16BE(this.pos) : b.readUInt16BE(this.pos);
    this.pos += 2;
    return value;
  }

  private int64(signed: boolean): bigint {
    this.align(8);
    this.need(8);
    const b = this.buffer;
    const value = this.little ? (signed ? b.readBigInt64LE(this.pos) : b.readBigUInt64LE(this.pos)) : signed ? b.readBigInt64BE(this.pos) : b.readBigUInt64BE(this.pos);
    this.pos += 8;
    return value;
  }

  private double(): number {
    this.align(8);
    this.need(8);
    const value = this.little ? this.buffer.readDoubleLE(this.pos) : this.buffer.readDoubleBE(this.pos);
    this.pos += 8;
    return value;
  }

  private text(length: number): string {
    this.need(length + 1);
    if (this.buffer[this.pos + length] !== 0) throw new DBusDecodeError(`a string at byte ${this.pos} is not NUL-terminated`);
    const value = length === 0 ? "" : this.buffer.toString("utf8", this.pos, this.pos + length);
    this.pos += length + 1;
    return value;
  }

  private need(bytes: number): void {
    if (this.pos + bytes > this.end) throw this.truncated();
  }

  private truncated(): DBusDecodeError {
    return new DBusDecodeError(`the body ends at byte ${this.end}, inside a value at byte ${this.pos}`);
  }
}

/** The depth of a container's contents; throws DBusDecodeError past the spec's limit. */
function inside(depth: number): number {
  if (depth >= MAX_DEPTH) throw new DBusDecodeError(`values nested more than ${MAX_DEPTH} containers deep`);
  return depth + 1;
}

/** Every value of a body with this signature; throws DBusDecodeError when the bytes do not hold them. */
export function decodeBody(signature: string, body: Buffer, little: boolean): unknown[] {
  const reader = new BodyReader(body, little);
  return parseSignature(signature).map((type) => reader.value(type));
}
