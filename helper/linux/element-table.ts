// Stable element indices: the same accessible object (bus name + object path) keeps the same
// `i` for the helper's life. Both halves of the key are never reused on a bus (unique names
// only grow; at-spi2-atk numbers objects with a counter), so identity is exact. Indices start
// at 1 so that a cell's `if (el.i)` never mistakes the first element for none.
import type { AccessibleRef } from "./atspi-bus.js";
import { AtspiError } from "./atspi-error.js";

export interface ElementEntry {
  readonly i: number;
  readonly ref: AccessibleRef;
  readonly pid: number;
  /** Filled in when known (from a tree read or a hit test); saves a GetInterfaces call. */
  interfaces?: ReadonlySet<string>;
  role?: number;
  gone: boolean;
}

export class ElementTable {
  private nextIndex = 1;
  private readonly byKey = new Map<string, ElementEntry>();
  private readonly byIndex = new Map<number, ElementEntry>();
  private readonly byBus = new Map<string, Set<number>>();
  private readonly byPid = new Map<number, Set<number>>();

  /** The entry for this object, created on first sight. */
  intern(ref: AccessibleRef, pid: number): ElementEntry {
    const key = keyOf(ref);
    const known = this.byKey.get(key);
    if (known && !known.gone) return known;
    const entry: ElementEntry = { i: this.nextIndex++, ref, pid, gone: false };
    this.byKey.set(key, entry);
    this.byIndex.set(entry.i, entry);
    addTo(this.byBus, ref.bus, entry.i);
    addTo(this.byPid, pid, entry.i);
    return entry;
  }

  /** The entry for `i`; throws stale_index when it was never handed out or its object is gone. */
  get(i: number): ElementEntry {
    const entry = this.byIndex.get(i);
    if (!entry) throw new AtspiError("stale_index", `no element ${i}: read the tree again`);
    if (entry.gone) throw new AtspiError("stale_index", `element ${i} no longer exists: read the tree again`);
    return entry;
  }

  /** The object was destroyed (UnknownObject, DEFUNCT state). */
  markGone(i: number): void {
    const entry = this.byIndex.get(i);
    if (!entry) return;
    entry.gone = true;
    this.byKey.delete(keyOf(entry.ref));
  }

  /** The app's connection closed: every element it owned is gone. */
  markBusGone(bus: string): void {
    const indices = this.byBus.get(bus);
    if (!indices) return;
    for (const i of indices) this.markGone(i);
    this.byBus.delete(bus);
  }

  /** The protocol's `forget`: drops every element of the app; their indices turn stale. */
  forgetPid(pid: number): void {
    for (const i of this.byPid.get(pid) ?? []) {
      this.markGone(i);
      this.byIndex.delete(i);
    }
    this.byPid.delete(pid);
  }

  get size(): number {
    return this.byIndex.size;
  }
}

function addTo<K>(index: Map<K, Set<number>>, key: K, i: number): void {
  const indices = index.get(key) ?? new Set<number>();
  indices.add(i);
  index.set(key, indices);
}

function keyOf(ref: AccessibleRef): string {
  return `${ref.bus}\n${ref.path}`;
}
