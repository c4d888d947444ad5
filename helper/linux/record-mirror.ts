// Records of accessible objects that no toolkit cache serves (Qt 5 keeps none; Chromium's
// leaves its web content out), kept between tree reads so that a read asks the app again only
// for what changed. What changed is what the app's own events say, much as a screen reader's
// client library (libatspi) keeps its copy:
// - children-changed on an object: its child list and everything kept below it go;
// - property-change (name, description, role, parent) or state-changed: its record and
//   action names go, and everything kept below it has its states and name read again on the
//   next read (Chromium opens a <select>'s pop-up with an event for the combo box only, while
//   the pop-up and its options below it turn visible without one);
// - a text event: its own states and name are read again;
// - a window event: the window's subtree goes, and the app root's child list;
// - any event at all: the child lists of lists, tables and trees are read again (item views
//   whose model changes may come without children-changed);
// - a web document turning busy or not busy (a page loading): the child lists that hold a web
//   document go, and that document's subtree. Chromium puts a new page's document in place of
//   the old one in its panel's child list with no children-changed on the panel; its only events
//   are the new document's own, on an object nobody has read yet.
// Action names are kept with the states they were read under, and serve only a record with the
// same states (a check box's "check" becomes "uncheck").
// Frames, text and values are never kept: they change without events (scrolling, typing).
// A read that an event overtook (the event arrived after the read was asked) is not kept, and
// nothing of an app is kept until the events have been subscribed, and the app known, for a
// moment: an app learns of a new listener (and a new app of the listeners) from the registry a
// little after RegisterEvent returns (or after the app registered).
import { performance } from "node:perf_hooks";
import type { AccessibleRef } from "./atspi-bus.js";
import type { AccessibleRecord } from "./atspi-records.js";
import { ROLE_NAMES } from "./atspi-roles.js";
import type { StateSet } from "./atspi-states.js";

const EVENT_OBJECT = "org.a11y.atspi.Event.Object";
const EVENT_WINDOW = "org.a11y.atspi.Event.Window";
const APP_ROOT = "/org/a11y/atspi/accessible/root";
/** Events that change what a read fetches afresh anyway (text, caret, frames). */
const CONTENT_EVENTS = new Set(["TextChanged", "TextCaretMoved", "TextSelectionChanged", "TextAttributesChanged", "TextBoundsChanged", "BoundsChanged"]);
const RECORD_EVENTS = new Set(["PropertyChange", "StateChanged"]);
export const SETTLE_MS = 1_000;
const ITEM_VIEW_ROLES = new Set(["list", "table", "tree", "tree table", "list box"].map((name) => ROLE_NAMES.indexOf(name)));
const DOCUMENT_WEB = ROLE_NAMES.indexOf("document web");
/** Past this many objects of one app the mirror starts again (a page that churns forever). */
const MAX_OBJECTS = 50_000;

interface Entry {
  record?: AccessibleRecord;
  /** The event sequence number its states and name were read under. */
  checked?: number;
  /** The sequence number of the last event that may have changed its states or name. */
  staleAt?: number;
  children?: AccessibleRef[];
  /** The event sequence number the child list was read under. */
  listed?: number;
  actions?: { names: string[]; states: StateSet };
}

interface AppMirror {
  objects: Map<string, Entry>;
  /** Object path → sequence number of its last record event. */
  touched: Map<string, number>;
  /** Sequence number of the app's last structural event. */
  structure: number;
  /** Sequence number of the app's last event of any kind (item views' child lists). */
  epoch: number;
  /** When this mirror first heard of the app. */
  since: number;
}

/** What a read was asked under: kept only if no event for it came later. Undefined: keep nothing. */
export type MirrorMark = number | undefined;

export class RecordMirror {
  readonly #apps = new Map<string, AppMirror>();
  #seq = 0;
  #trustedAt = Number.POSITIVE_INFINITY;

  /** `now` in milliseconds, for tests. */
  constructor(private readonly now: () => number = () => performance.now()) {}

  /** The events are subscribed: reads asked from SETTLE_MS on are kept. */
  trustSoon(): void {
    if (this.#trustedAt === Number.POSITIVE_INFINITY) this.#trustedAt = this.now() + SETTLE_MS;
  }

  get trusted(): boolean {
    return this.now() >= this.#trustedAt;
  }

  /** Take before asking the app at `bus`; pass to keep*(). */
  mark(bus: string): MirrorMark {
    const app = this.app(bus);
    return this.trusted && this.now() >= app.since + SETTLE_MS ? this.#seq : undefined;
  }

  /** Whether no event at all of the app at `bus` came after `mark` was taken. */
  quietSince(bus: string, mark: MirrorMark): boolean {
    const app = this.#apps.get(bus);
    return mark !== undefined && app !== undefined && app.epoch <= mark;
  }

  /** The kept record; `current` is false when its states and name must be read again. */
  record(ref: AccessibleRef): { record: AccessibleRecord; current: boolean } | undefined {
    const entry = this.entry(ref);
    if (!entry?.record) return undefined;
    return { record: entry.record, current: (entry.checked ?? -1) >= (entry.staleAt ?? -1) };
  }

  /** The kept child list; a list's, table's or tree's only if no event of its app came since. */
  children(ref: AccessibleRef): AccessibleRef[] | undefined {
    const entry = this.entry(ref);
    if (!entry?.children) return undefined;
    if (entry.record && ITEM_VIEW_ROLES.has(entry.record.role) && (entry.listed ?? -1) < (this.#apps.get(ref.bus)?.epoch ?? -1)) return undefined;
    return entry.children;
  }

  /** The kept action names of a record whose states are the ones they were read under. */
  actions(record: AccessibleRecord): string[] | undefined {
    const kept = this.entry(record.ref)?.actions;
    return kept && sameStates(kept.states, record.states) ? kept.names : undefined;
  }

  /** A record read (or its states and name read again) under `mark`. */
  keepRecord(record: AccessibleRecord, mark: MirrorMark): void {
    const entry = this.writable(record.ref, mark);
    if (!entry || mark === undefined) return;
    entry.record = record;
    entry.checked = mark;
  }

  keepChildren(ref: AccessibleRef, children: AccessibleRef[], mark: MirrorMark): void {
    const entry = this.writable(ref, mark);
    if (!entry || mark === undefined) return;
    entry.children = children;
    entry.listed = mark;
  }

  keepActions(record: AccessibleRecord, names: string[], mark: MirrorMark): void {
    const entry = this.writable(record.ref, mark);
    if (entry) entry.actions = { names, states: record.states };
  }

  /** An AT-SPI event signal from `bus` about the object at `path`; `detail` is its first argument. */
  onEvent(bus: string, iface: string, member: string, path: string, detail?: string): void {
    const app = this.#apps.get(bus);
    if (!app) return;
    app.epoch = ++this.#seq;
    if (iface === EVENT_OBJECT) {
      if (CONTENT_EVENTS.has(member)) {
        const entry = app.objects.get(path);
        if (entry) entry.staleAt = this.#seq;
        return;
      }
      if (member === "StateChanged" && detail === "busy") this.documentLoading(app, path);
      if (RECORD_EVENTS.has(member)) {
        this.touch(app, path);
        this.staleBelow(app, path);
        const entry = app.objects.get(path);
        if (entry) entry.record = entry.actions = undefined;
        return;
      }
      app.structure = ++this.#seq;
      this.dropSubtree(app, path);
    } else if (iface === EVENT_WINDOW) {
      app.structure = ++this.#seq;
      this.dropSubtree(app, path);
      const root = app.objects.get(APP_ROOT);
      if (root) root.children = undefined;
    }
  }

  forgetBus(bus: string): void {
    this.#apps.delete(bus);
  }

  private entry(ref: AccessibleRef): Entry | undefined {
    return this.#apps.get(ref.bus)?.objects.get(ref.path);
  }

  private writable(ref: AccessibleRef, mark: MirrorMark): Entry | undefined {
    if (mark === undefined) return undefined;
    const app = this.app(ref.bus);
    if (app.structure > mark || (app.touched.get(ref.path) ?? -1) > mark) return undefined;
    if (app.objects.size >= MAX_OBJECTS && !app.objects.has(ref.path)) app.objects.clear();
    let entry = app.objects.get(ref.path);
    if (!entry) {
      entry = {};
      app.objects.set(ref.path, entry);
    }
    return entry;
  }

  private app(bus: string): AppMirror {
    let app = this.#apps.get(bus);
    if (!app) {
      app = { objects: new Map(), touched: new Map(), structure: -1, epoch: -1, since: this.now() };
      this.#apps.set(bus, app);
    }
    return app;
  }

  private touch(app: AppMirror, path: string): void {
    // Marks live for one read: past a bound, one structural bump says the same for every path.
    if (app.touched.size >= MAX_OBJECTS) {
      app.touched.clear();
      app.structure = ++this.#seq;
    }
    app.touched.set(path, ++this.#seq);
  }

  private staleBelow(app: AppMirror, path: string): void {
    const pending = [...(app.objects.get(path)?.children ?? [])];
    for (let next = pending.pop(); next; next = pending.pop()) {
      const entry = app.objects.get(next.path);
      if (!entry) continue;
      entry.staleAt = this.#seq;
      pending.push(...(entry.children ?? []));
    }
  }

  /** A page is loading at `path`: every child list holding a web document is read again, and `path`'s subtree. */
  private documentLoading(app: AppMirror, path: string): void {
    app.structure = ++this.#seq;
    for (const [held, entry] of app.objects) {
      if (entry.record?.role !== DOCUMENT_WEB) continue;
      const parent = entry.record.parent && app.objects.get(entry.record.parent.path);
      if (parent) parent.children = undefined;
      if (held === path) entry.children = undefined;
    }
    this.dropSubtree(app, path);
  }

  private dropSubtree(app: AppMirror, path: string): void {
    const pending = [path];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const entry = app.objects.get(next);
      if (!entry) continue;
      app.objects.delete(next);
      for (const child of entry.children ?? []) pending.push(child.path);
    }
  }
}

function sameStates(a: StateSet, b: StateSet): boolean {
  if (a.size !== b.size) return false;
  for (const state of a) if (!b.has(state)) return false;
  return true;
}
