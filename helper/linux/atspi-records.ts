// Accessible records: what Cache.GetItems returns for every object of an app in one call, and
// what a per-object fallback fetches with parallel calls when an app has no cache (or the
// cache leaves a subtree out, e.g. children of MANAGES_DESCENDANTS containers).
import { Iface, type AccessibleRef, type AtspiBus } from "./atspi-bus.js";
import { CACHE_ITEMS_SIGNATURE, decodeCacheItems } from "./atspi-cache-decoder.js";
import { decodeStates, type StateSet } from "./atspi-states.js";
import { parallelMap } from "./parallel-map.js";
import type { RecordMirror } from "./record-mirror.js";

export interface AccessibleRecord {
  ref: AccessibleRef;
  parent?: AccessibleRef;
  /** Position among the parent's children; -1 when the toolkit does not say. */
  indexInParent: number;
  /** -1 when unknown (GTK menus fill theirs lazily). */
  childCount: number;
  interfaces: ReadonlySet<string>;
  name: string;
  role: number;
  description: string;
  states: StateSet;
}

export const PARALLEL_CALLS = 64;
const CACHE_PATH = "/org/a11y/atspi/cache";

export function refKey(ref: AccessibleRef): string {
  return `${ref.bus}\n${ref.path}`;
}

/** Every object of the app, from its cache; throws (a DBusError) when it has none. */
export function readCache(bus: AtspiBus, appBus: string): Promise<AccessibleRecord[]> {
  const reply = { signature: CACHE_ITEMS_SIGNATURE, fromBytes: decodeCacheItems, fromValues: recordsOfValues };
  return bus.callDecoding({ bus: appBus, path: CACHE_PATH }, Iface.cache, "GetItems", reply, bus.callTimeoutMs * 2);
}

/** The records of a GetItems reply decoded by the library (through the bus) or in general. */
export function recordsOfValues([items]: unknown[]): AccessibleRecord[] {
  if (!Array.isArray(items)) return [];
  return items.flatMap((item: unknown) => {
    const record = decodeCacheItem(item);
    return record ? [record] : [];
  });
}

// a((so)(so)(so)iiassusau): object, application, parent, index in parent, child count,
// interfaces, name, role, description, states. at-spi2-atk before 2.34 sent the children
// (a(so)) instead of index and count; both are read.
function decodeCacheItem(item: unknown): AccessibleRecord | undefined {
  if (!Array.isArray(item) || item.length < 10) return undefined;
  const ref = asRef(item[0]);
  if (!ref) return undefined;
  const legacyChildren = Array.isArray(item[3]);
  const tail = legacyChildren ? 1 : 0;
  return {
    ref,
    parent: asRef(item[2]),
    indexInParent: legacyChildren ? -1 : asNumber(item[3], -1),
    childCount: legacyChildren ? (item[3] as unknown[]).length : asNumber(item[4], -1),
    interfaces: new Set(asStrings(item[5 - tail])),
    name: asString(item[6 - tail]),
    role: asNumber(item[7 - tail], 0),
    description: asString(item[8 - tail]),
    states: decodeStates(asNumbers(item[9 - tail])),
  };
}

/**
 * One object's record, with parallel calls (the fallback when there is no cache). Properties are
 * read one by one: Qt 5's bridge crashes the app on Properties.GetAll (speedcrunch, featherpad).
 */
export async function fetchRecord(bus: AtspiBus, ref: AccessibleRef): Promise<AccessibleRecord> {
  const property = (name: string): Promise<unknown> => bus.getProperty(ref, Iface.accessible, name);
  const [role, states, interfaces, parent, childCount, name, description] = await Promise.all([
    bus.call(ref, Iface.accessible, "GetRole"),
    bus.call(ref, Iface.accessible, "GetState"),
    bus.call(ref, Iface.accessible, "GetInterfaces"),
    property("Parent"),
    property("ChildCount"),
    property("Name"),
    property("Description"),
  ]);
  return {
    ref,
    parent: asRef(parent),
    indexInParent: -1,
    childCount: asNumber(childCount, -1),
    interfaces: new Set(asStrings(interfaces[0])),
    name: asString(name),
    role: asNumber(role[0], 0),
    description: asString(description),
    states: decodeStates(asNumbers(states[0])),
  };
}

export async function fetchChildren(bus: AtspiBus, ref: AccessibleRef): Promise<AccessibleRef[]> {
  const [children] = await bus.call(ref, Iface.accessible, "GetChildren");
  return Array.isArray(children) ? children.flatMap((child: unknown) => asRef(child) ?? []) : [];
}

export interface DepthRecord {
  record: AccessibleRecord;
  depth: number;
}

export interface WalkLimits {
  /** Depth of the deepest level to fetch, counted like the frontier's depths. */
  maxDepth: number;
  /** Stop after this many new records. */
  budget: number;
  /** Whether a record's children are wanted (hidden subtrees are skipped). */
  descend: (record: AccessibleRecord) => boolean;
}

export interface WalkResult {
  /** The records the walk added to the map (read now or taken from the mirror). */
  records: AccessibleRecord[];
  /** True when maxDepth or budget left children unread. */
  truncated: boolean;
}

/**
 * Reads the subtrees below `frontier` level by level into `records` (which `descend` may look
 * at): every call of a level goes out at once, never one awaited call per object. Records already
 * in the map are not read again; what the mirror holds is taken from it, and what is read is kept there.
 */
export async function walk(
  bus: AtspiBus,
  frontier: DepthRecord[],
  records: Map<string, AccessibleRecord>,
  limits: WalkLimits,
  mirror?: RecordMirror,
): Promise<WalkResult> {
  const added: AccessibleRecord[] = [];
  const seen = new Set(records.keys());
  let level = frontier.filter((entry) => limits.descend(entry.record));
  let truncated = false;
  while (level.length > 0) {
    const expandable = level.filter((entry) => entry.depth < limits.maxDepth);
    if (level.some((entry) => entry.depth >= limits.maxDepth && entry.record.childCount !== 0)) truncated = true;
    const childLists = await parallelMap(expandable, PARALLEL_CALLS, (entry) => childrenOf(bus, entry.record.ref, mirror));
    const wanted = collectChildren(expandable, childLists, seen);
    const room = Math.max(limits.budget - added.length, 0);
    if (wanted.length > room) truncated = true;
    const fetched = await parallelMap(wanted.slice(0, room), PARALLEL_CALLS, (child) => fetchChild(bus, child, mirror));
    level = [];
    for (const entry of fetched) {
      if (!entry) continue;
      added.push(entry.record);
      records.set(refKey(entry.record.ref), entry.record);
      if (limits.descend(entry.record)) level.push(entry);
    }
    if (added.length >= limits.budget) break;
  }
  return { records: added, truncated };
}

/** One object's record from the mirror (its states and name read again if an event came since), else read (and kept). */
export async function mirroredRecord(bus: AtspiBus, ref: AccessibleRef, mirror?: RecordMirror): Promise<AccessibleRecord> {
  const kept = mirror?.record(ref);
  if (kept?.current) return kept.record;
  const mark = mirror?.mark(ref.bus);
  const record = kept ? await refreshRecord(bus, kept.record) : await fetchRecord(bus, ref);
  mirror?.keepRecord(record, mark);
  return record;
}

/** A kept record with its states and name read again (two calls instead of seven). */
async function refreshRecord(bus: AtspiBus, record: AccessibleRecord): Promise<AccessibleRecord> {
  const [[states], name] = await Promise.all([
    bus.call(record.ref, Iface.accessible, "GetState"),
    bus.getProperty(record.ref, Iface.accessible, "Name"),
  ]);
  return { ...record, states: decodeStates(asNumbers(states)), name: asString(name) };
}

async function childrenOf(bus: AtspiBus, ref: AccessibleRef, mirror?: RecordMirror): Promise<AccessibleRef[]> {
  const kept = mirror?.children(ref);
  if (kept) return kept;
  const mark = mirror?.mark(ref.bus);
  try {
    const children = await fetchChildren(bus, ref);
    mirror?.keepChildren(ref, children, mark);
    return children;
  } catch {
    return [];
  }
}

interface WantedChild {
  ref: AccessibleRef;
  parent: AccessibleRef;
  index: number;
  depth: number;
}

function collectChildren(
  level: DepthRecord[],
  childLists: AccessibleRef[][],
  seen: Set<string>,
): WantedChild[] {
  const wanted: WantedChild[] = [];
  level.forEach((entry, n) => {
    (childLists[n] ?? []).forEach((ref, index) => {
      const key = refKey(ref);
      if (seen.has(key)) return;
      seen.add(key);
      wanted.push({ ref, parent: entry.record.ref, index, depth: entry.depth + 1 });
    });
  });
  return wanted;
}

async function fetchChild(bus: AtspiBus, child: WantedChild, mirror?: RecordMirror): Promise<DepthRecord | undefined> {
  const found = mirror?.record(child.ref);
  const kept = found && found.record.indexInParent === child.index && found.record.parent && refKey(found.record.parent) === refKey(child.parent) ? found : undefined;
  if (kept?.current) return { record: kept.record, depth: child.depth };
  const mark = mirror?.mark(child.ref.bus);
  try {
    const read = kept ? await refreshRecord(bus, kept.record) : await fetchRecord(bus, child.ref);
    // The parent's child list is the truth for order and parentage.
    const record = { ...read, parent: child.parent, indexInParent: child.index };
    mirror?.keepRecord(record, mark);
    return { record, depth: child.depth };
  } catch {
    return undefined; // destroyed while we walked: simply not part of the tree
  }
}

// ---------------------------------------------------------------------------------------------
// Decoding dbus-next values (typed as any by the library) without letting `any` out.

export function asRef(value: unknown): AccessibleRef | undefined {
  if (!Array.isArray(value) || typeof value[0] !== "string" || typeof value[1] !== "string") return undefined;
  return { bus: value[0], path: value[1] };
}

export function asString(value: unknown): string {
  return typeof value === "string" ? value : "";
}

export function asNumber(value: unknown, fallback: number): number {
  return typeof value === "number" ? value : fallback;
}

function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function asNumbers(value: unknown): number[] {
  return Array.isArray(value) ? value.filter((v): v is number => typeof v === "number") : [];
}
