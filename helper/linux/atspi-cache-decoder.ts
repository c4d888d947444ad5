// Cache.GetItems replies decoded by hand, straight from the bytes into accessible records. The
// reply holds every object of the app (81 for galculator, 322 for mousepad) and the general
// decoders (dbus-next's, or dbus-body-decoder.ts) build nested arrays, a string per field and a
// set per record before atspi-records.ts turns them into records: the largest CPU cost of a
// warm read. Here the one signature is walked once; the app's bus name, interface lists and
// state sets, which repeat from object to object, are decoded once per reply and shared (both
// are read-only sets). A body that does not hold the signature throws DBusDecodeError.
import type { AccessibleRecord } from "./atspi-records.js";
import { decodeStates, type StateSet } from "./atspi-states.js";
import { BodyReader } from "./dbus-body-decoder.js";

/**
 * What at-spi2-core's Cache.GetItems returns: object, application, parent, index in parent,
 * child count, interfaces, name, role, description, states.
 */
export const CACHE_ITEMS_SIGNATURE = "a((so)(so)(so)iiassusau)";

export function decodeCacheItems(body: Buffer, little: boolean): AccessibleRecord[] {
  const reader = new BodyReader(body, little);
  const strings = new StringCache(body);
  const interfaceSets = new Map<string, ReadonlySet<string>>();
  const stateSets = new StateSets();
  const records: AccessibleRecord[] = [];
  const end = reader.arrayEnd(8);
  while (reader.pos < end) {
    reader.align(8);
    const ref = refAt(reader, strings);
    reader.align(8); // the application: not needed
    reader.skipString();
    reader.skipString();
    const parent = refAt(reader, strings);
    const indexInParent = reader.int32();
    const childCount = reader.int32();
    const interfaces = interned(reader, interfaceSets, () => new Set(elementsOf(reader, () => reader.string())));
    const name = reader.string();
    const role = reader.uint32();
    const description = reader.string();
    const states = statesAt(reader, stateSets);
    reader.checkInside(end);
    records.push({ ref, parent, indexInParent, childCount, interfaces, name, role, description, states });
  }
  return records;
}

function refAt(reader: BodyReader, strings: StringCache): { bus: string; path: string } {
  reader.align(8);
  const bus = strings.read(reader);
  return { bus, path: reader.string() };
}

/**
 * An array value shared by every record whose array has the same bytes: the bytes (as latin1,
 * a cheap exact key) are looked up before anything is decoded.
 */
function interned<T>(reader: BodyReader, known: Map<string, T>, decode: () => T): T {
  reader.align(4);
  const start = reader.pos;
  const end = reader.arrayEnd(4);
  // The length word is part of the key; padding before it is not.
  const key = reader.buffer.toString("latin1", start, end);
  const found = known.get(key);
  if (found !== undefined) {
    reader.pos = end;
    return found;
  }
  reader.pos = start;
  const value = decode();
  known.set(key, value);
  return value;
}

/** State sets are two words (`au`); the usual pair is looked up by number, anything else by its bytes. */
class StateSets {
  readonly pairs = new Map<number, Map<number, StateSet>>();
  readonly other = new Map<string, StateSet>();
}

function statesAt(reader: BodyReader, known: StateSets): StateSet {
  reader.align(4);
  const start = reader.pos;
  if (reader.uint32() !== 8) {
    reader.pos = start;
    return interned(reader, known.other, () => decodeStates(elementsOf(reader, () => reader.uint32())));
  }
  const low = reader.uint32();
  const high = reader.uint32();
  let byHigh = known.pairs.get(low);
  if (!byHigh) known.pairs.set(low, (byHigh = new Map()));
  let states = byHigh.get(high);
  if (!states) byHigh.set(high, (states = decodeStates([low, high])));
  return states;
}

/** An array's elements (`as`, `au`), each read by `read`. */
function elementsOf<T>(reader: BodyReader, read: () => T): T[] {
  const end = reader.arrayEnd(4);
  const values: T[] = [];
  while (reader.pos < end) {
    values.push(read());
    reader.checkInside(end);
  }
  return values;
}

/** Bus names repeat in every reference: one is decoded again only when its bytes differ. */
class StringCache {
  #start = -1;
  #length = -1;
  #value = "";

  constructor(private readonly body: Buffer) {}

  read(reader: BodyReader): string {
    const at = reader.pos;
    const length = reader.uint32();
    const start = reader.pos;
    const fits = start + length < this.body.length;
    if (fits && length === this.#length && this.body.compare(this.body, this.#start, this.#start + length, start, start + length) === 0 && this.body[start + length] === 0) {
      reader.pos = start + length + 1;
      return this.#value;
    }
    reader.pos = at;
    const value = reader.string();
    this.#start = start;
    this.#length = length;
    this.#value = value;
    return value;
  }
}
