// The AT-SPI accessibility service of the Linux helper: applications, trees in bulk, and
// element operations by stable index. Errors are AtspiError with the protocol's codes.
import type { AXNode, ErrorCode, Frame, HitElement } from "../../src/helper/protocol.js";
import { AX_PRESS, axActionNames, findActionIndex } from "./atspi-actions.js";
import { AtspiBus, Iface, NULL_PATH, REGISTRY, type AccessibleRef, type AtspiBusOptions } from "./atspi-bus.js";
import { AtspiEvents } from "./atspi-events.js";
import type { ChangeWait } from "./event-counter.js";
import { buildAXNode, fetchActionNames, fetchDetails, fetchFrame, fetchText, fetchValue, wantsFrame } from "./atspi-details.js";
import { AtspiError, dbusErrorName, errorMessage, isGoneError, isUnsupportedError } from "./atspi-error.js";
import {
  asRef,
  asString,
  fetchChildren,
  fetchRecord,
  mirroredRecord,
  PARALLEL_CALLS,
  readCache,
  refKey,
  walk,
  type AccessibleRecord,
} from "./atspi-records.js";
import { axRole, isCheckableRole, isWindowRole, Role } from "./atspi-roles.js";
import { decodeStates, State } from "./atspi-states.js";
import {
  childrenIndex,
  incompleteNodes,
  selectNodes,
  TREE_DEFAULTS,
  visibilityFilter,
  type ChildrenIndex,
  type Placed,
  type TreeLimits,
} from "./atspi-tree.js";
import { ElementTable, type ElementEntry } from "./element-table.js";
import { parallelMap } from "./parallel-map.js";
import { toCharOffset, toUtf16Offset } from "./text-offsets.js";
import { pickWindow, type WindowChoice } from "./window-match.js";
import { RecordMirror } from "./record-mirror.js";
import { FramePrefetch, type EarlyFrames } from "./frame-prefetch.js";
import { KeptCache } from "./kept-cache.js";

export type { AccessibleRef } from "./atspi-bus.js";
export { AtspiError } from "./atspi-error.js";
export { TREE_DEFAULTS } from "./atspi-tree.js";
export type { WindowChoice, WindowMatch } from "./window-match.js";

export interface AtspiOptions extends AtspiBusOptions {
  /** false: never use Cache.GetItems, always walk object by object (tests; apps with a broken cache). */
  cache?: boolean;
  /** false: never read an app through its direct connection, always through the bus (tests). */
  direct?: boolean;
}

export interface AtspiApplication {
  name: string;
  pid: number;
  busName: string;
  path: string;
}

export interface TreeOptions {
  /**
   * A number indexes listWindows(pid); a string matches a title (exact, else a substring); a
   * {title, frame} (an X11 window from the protocol's `windows`) picks the closest accessible.
   * Default: the active window, else a showing one, else the first.
   */
  window?: WindowChoice;
  /** Defaults: TREE_DEFAULTS (the protocol's 800 / 40 / 160). */
  maxNodes?: number;
  maxDepth?: number;
  maxText?: number;
  /** Include the menu bar and its items (closed menus' items have no frame). Default false. */
  menus?: boolean;
  /** Also list objects without the SHOWING state (hidden modes). Default false. */
  includeHidden?: boolean;
}

/** A top-level window of an app as AT-SPI sees it. */
export interface AtspiWindow {
  /** Element index of the window object. */
  i: number;
  /** Position among the app's accessible windows (listWindows order). */
  index: number;
  title: string;
  frame?: Frame;
  focused: boolean;
  minimized: boolean;
  role: string;
  subrole?: string;
}

export interface TreeResult {
  windowAccessible: AtspiWindow;
  /** Pre-order; nodes[0] is the window (d = 0). */
  nodes: AXNode[];
  truncated: boolean;
  /** "cache" when Cache.GetItems served the tree, "walk" for the per-object fallback. */
  source: "cache" | "walk";
}

/** The protocol's hitTest result, plus the element as a tree node. */
export interface AtspiHit extends HitElement {
  node: AXNode;
}

const MAX_HIT_DEPTH = 64;

interface Toolkit {
  /** Lower case: "gtk", "chromium", "qt" … ("" when the app did not say). */
  name: string;
  version: string;
}

/** GTK 3 names itself "gtk" with a 3.x version (GTK 4 has its own AT-SPI code, with other rules). */
function isGtk3(toolkit: Toolkit): boolean {
  return toolkit.name === "gtk" && toolkit.version.startsWith("3.");
}

/** Chromium, and the browsers and Electron apps built on it. */
function isChromium(toolkit: Toolkit): boolean {
  return toolkit.name === "chromium";
}

const SCREEN_COORDS = 0;

type RecordMap = Map<string, AccessibleRecord>;

export class Atspi {
  private readonly table = new ElementTable();
  /** pid → app, so a tree read does not list every app first; dropped when the app's bus closes. */
  private readonly apps = new Map<number, AtspiApplication>();
  /** Apps whose first tree had no AccessibleId at all (GTK 3): later reads skip that call. */
  private readonly withoutIds = new Set<string>();
  /** Apps whose Cache.GetItems answered nothing usable (Qt 5): later reads walk at once. */
  private readonly withoutCache = new Set<string>();
  /** What the walk read of apps without a (complete) cache, and action names, kept between reads. */
  private readonly mirror = new RecordMirror();
  /** Per app: its toolkit (Application.ToolkitName and Version), asked once beside the first read. */
  private readonly toolkits = new Map<string, Promise<Toolkit>>();
  /** Chromium's GetItems answers, kept while the app sends no event. */
  private readonly keptCache = new KeptCache(this.mirror);
  /** Per app: the frames its last read asked, asked first by the next. */
  private readonly prefetch = new FramePrefetch();
  private readonly events: AtspiEvents;

  private constructor(
    private readonly bus: AtspiBus,
    private readonly useCache: boolean,
    private readonly useDirect: boolean,
  ) {
    bus.onNameLost((name) => this.forgetBus(name));
    bus.onSignal((sender, iface, member, path, detail) => this.mirror.onEvent(sender, iface, member, path, detail));
    this.events = new AtspiEvents(bus);
  }

  /** The protocol's waitChange: the app's next accessibility event after `after`, or the timeout. */
  async waitChange(pid: number, after: number | undefined, timeoutMs: number): Promise<ChangeWait> {
    const app = await this.appByPid(pid);
    return this.call(() => this.events.wait(app.busName, after, timeoutMs));
  }

  /** Connects to the accessibility bus ($AT_SPI_BUS_ADDRESS, else org.a11y.Bus on the session bus). */
  static async connect(options: AtspiOptions = {}): Promise<Atspi> {
    return new Atspi(await AtspiBus.connect(options), options.cache !== false, options.direct !== false);
  }

  close(): void {
    this.bus.close();
  }

  /** Why the bus connection can no longer be used (Services then opens a new one), or null. */
  get broken(): string | null {
    return this.bus.broken;
  }

  /** Whether tree reads of the app skip the bus daemon (its direct connection is open). */
  async readsDirect(pid: number): Promise<boolean> {
    return this.bus.hasDirect((await this.appByPid(pid)).busName);
  }

  /** The protocol's `forget`: drops the app's elements; their indices answer stale_index. */
  forget(pid: number): void {
    this.table.forgetPid(pid);
    this.apps.delete(pid);
  }

  /**
   * The pid whose tree handed element i out; stale_index when unknown or gone. The helper's
   * gate checks a pid, so element calls must not reach an element of another app.
   */
  ownerOf(i: number): number {
    return this.table.get(i).pid;
  }

  private forgetBus(name: string): void {
    this.table.markBusGone(name);
    this.withoutIds.delete(name);
    this.withoutCache.delete(name);
    this.toolkits.delete(name);
    this.keptCache.forgetBus(name);
    this.mirror.forgetBus(name);
    this.prefetch.forgetBus(name);
    for (const [pid, app] of this.apps) if (app.busName === name) this.apps.delete(pid);
  }

  // -------------------------------------------------------------------------------------------
  // Applications and windows

  /** The children of the registry's desktop root: one per accessible app connection. */
  async listApplications(): Promise<AtspiApplication[]> {
    const roots = await this.call(() => fetchChildren(this.bus, REGISTRY));
    const apps = await parallelMap(roots, PARALLEL_CALLS, (ref) => this.describeApp(ref).catch(() => undefined));
    return apps.filter((app): app is AtspiApplication => app !== undefined);
  }

  /** Whether `pid` has a connection to the accessibility bus, registered with the registry or not. */
  async connected(pid: number): Promise<boolean> {
    return (await this.call(() => this.bus.connectedPids())).has(pid);
  }

  /** The app's top-level accessibles that are windows, in the toolkit's order. */
  async listWindows(pid: number): Promise<AtspiWindow[]> {
    const windows = await this.topLevelWindows(await this.appByPid(pid));
    const frames = await this.framesOf(windows);
    return windows.map((record, index) => this.describeWindow(record, index, pid, frames.get(record)));
  }

  private async describeApp(ref: AccessibleRef): Promise<AtspiApplication> {
    const [name, pid] = await Promise.all([
      // A hung app (stopped, busy) does not answer, but the bus still knows its pid: keep it,
      // so calls about it time out with a code instead of calling it not running.
      this.bus.getProperty(ref, Iface.accessible, "Name").catch(() => ""),
      this.bus.connectionPid(ref.bus),
    ]);
    return { name: asString(name), pid, busName: ref.bus, path: ref.path };
  }

  private async appByPid(pid: number): Promise<AtspiApplication> {
    const cached = this.apps.get(pid);
    if (cached) return cached;
    const app = (await this.listApplications()).find((candidate) => candidate.pid === pid);
    if (!app) throw new AtspiError("not_running", `no accessible application with pid ${pid} (not running, or no AT-SPI tree)`);
    // One that did not say its name is asked again next time.
    if (app.name !== "") this.apps.set(pid, app);
    return app;
  }

  private async topLevelWindows(app: AtspiApplication): Promise<AccessibleRecord[]> {
    const refs = await this.call(() => fetchChildren(this.bus, appRef(app)));
    const records = await parallelMap(refs, PARALLEL_CALLS, (ref) => fetchRecord(this.bus, ref).catch(() => undefined));
    return records.filter((r): r is AccessibleRecord => r !== undefined && isWindowRole(r.role));
  }

  private async framesOf(records: readonly AccessibleRecord[]): Promise<Map<AccessibleRecord, Frame>> {
    const frames = await parallelMap(records, PARALLEL_CALLS, (r) => fetchFrame(this.bus, r.ref).catch(() => undefined));
    const map = new Map<AccessibleRecord, Frame>();
    records.forEach((record, n) => {
      const frame = frames[n];
      if (frame) map.set(record, frame);
    });
    return map;
  }

  private describeWindow(record: AccessibleRecord, index: number, pid: number, frame?: Frame): AtspiWindow {
    const entry = this.intern(record, pid);
    const { role, subrole } = axRole(record.role, { states: record.states, parentRole: Role.APPLICATION });
    const window: AtspiWindow = {
      i: entry.i,
      index,
      title: record.name,
      focused: record.states.has(State.ACTIVE),
      minimized: record.states.has(State.ICONIFIED),
      role,
    };
    if (frame) window.frame = frame;
    if (subrole) window.subrole = subrole;
    return window;
  }

  // -------------------------------------------------------------------------------------------
  // Trees

  /** One window's tree, read in bulk (Cache.GetItems) where the app offers it. */
  async tree(pid: number, options: TreeOptions = {}): Promise<TreeResult> {
    const limits = resolveLimits(options);
    const app = await this.appByPid(pid);
    if (this.useDirect) await this.bus.openDirect(appRef(app), pid);
    // Taken beside the first calls, and awaited before anything the mirror kept is used.
    const synced = this.bus.sync(app.busName);
    const early = this.prefetch.start(this.bus, app.busName);
    const toolkit = this.toolkitOf(app);
    const [{ records, source }, kit] = await Promise.all([this.readApp(app, synced, toolkit), toolkit, synced]);
    let children = childrenIndex(records.values());
    const windows = (children.get(refKey(appRef(app))) ?? []).filter((r) => isWindowRole(r.role));
    const frames = typeof options.window === "object" ? await this.framesOf(windows) : new Map<AccessibleRecord, Frame>();
    const window = pickWindow(windows, frames, options.window, pid);
    const include = visibilityFilter(window, limits, records);
    const gaps = await this.fillGaps(window, records, children, include, limits, source);
    if (gaps.added) children = childrenIndex(records.values());
    const { placed, truncated } = selectNodes(window, children, include, limits);
    const nodes = await this.buildNodes(placed, app, limits, { gtk3: isGtk3(kit) && source === "cache", textEndClamped: isChromium(kit) }, early);
    return {
      windowAccessible: this.describeWindow(window, windows.indexOf(window), pid, nodes[0]?.frame),
      nodes,
      truncated: truncated || gaps.truncated,
      source,
    };
  }

  /** Every object of the app: from its cache, else the app root and its direct children. */
  private async readApp(app: AtspiApplication, synced: Promise<void>, toolkit: Promise<Toolkit>): Promise<{ records: RecordMap; source: TreeResult["source"] }> {
    const records: RecordMap = new Map();
    if (this.useCache && !this.withoutCache.has(app.busName)) {
      const keeps = isChromium(await toolkit);
      const kept = keeps ? await this.quietCache(app, synced) : undefined;
      if (kept) {
        for (const record of kept) records.set(refKey(record.ref), record);
        return { records, source: "cache" };
      }
      const mark = keeps ? this.mirror.mark(app.busName) : undefined;
      const answered = await this.readCacheInto(records, app);
      if (records.has(refKey(appRef(app)))) {
        if (keeps) this.keptCache.keep(app.busName, [...records.values()], mark);
        return { records, source: "cache" };
      }
      // A cache that answers without the app root (Qt 5: an empty list) is no cache; one not
      // exported yet (GTK before its lazy start) is asked again next time.
      if (answered) this.withoutCache.add(app.busName);
    }
    records.clear();
    await synced;
    await this.followEvents();
    const root = await this.call(() => mirroredRecord(this.bus, appRef(app), this.mirror));
    records.set(refKey(root.ref), root);
    const windowsOnly = { maxDepth: 0, budget: 200, descend: () => true };
    await walk(this.bus, [{ record: root, depth: -1 }], records, windowsOnly, this.mirror);
    return { records, source: "walk" };
  }

  /** The app's toolkit, asked once; a failed ask says nothing and is asked again next read. */
  private toolkitOf(app: AtspiApplication): Promise<Toolkit> {
    let known = this.toolkits.get(app.busName);
    if (!known) {
      const property = (name: string): Promise<string> => this.bus.getProperty(appRef(app), Iface.application, name).then(asString);
      known = Promise.all([property("ToolkitName"), property("Version")]).then(
        ([name, version]) => ({ name: name.toLowerCase(), version }),
        () => {
          this.toolkits.delete(app.busName);
          return { name: "", version: "" };
        },
      );
      this.toolkits.set(app.busName, known);
    }
    return known;
  }

  /**
   * The kept GetItems answer (see KeptCache), once the bus's Ping shows no event came since it
   * was asked; undefined at once when one already has, so GetItems is not held up by the Ping.
   */
  private async quietCache(app: AtspiApplication, synced: Promise<void>): Promise<readonly AccessibleRecord[] | undefined> {
    if (!this.keptCache.get(app.busName)) return undefined;
    await synced;
    return this.keptCache.get(app.busName);
  }

  /** False when the app has no cache object (yet). */
  private async readCacheInto(records: RecordMap, app: AtspiApplication): Promise<boolean> {
    try {
      for (const record of await readCache(this.bus, app.busName)) records.set(refKey(record.ref), record);
      return true;
    } catch (error) {
      // No cache object (UnknownObject) or no such method: the caller walks instead.
      if (isUnsupportedError(error) || dbusErrorName(error) === "org.freedesktop.DBus.Error.UnknownObject") return false;
      // NoReply ("recipient disconnected") is also what an app that exits mid-call leaves: its name tells.
      if (isGoneError(error) || !(await this.bus.nameHasOwner(app.busName).catch(() => true))) {
        throw new AtspiError("not_running", `application ${app.name} (pid ${app.pid}) exited`);
      }
      throw wrap(error, "failed");
    }
  }

  /**
   * Reads, object by object, the parts of the window's subtree the cache lacks: all of it when
   * there was no cache, else the children of objects whose ChildCount exceeds what the cache
   * holds. Adds them to `records`.
   */
  private async fillGaps(
    window: AccessibleRecord,
    records: RecordMap,
    children: ChildrenIndex,
    include: (record: AccessibleRecord) => boolean,
    limits: TreeLimits,
    source: TreeResult["source"],
  ): Promise<{ added: boolean; truncated: boolean }> {
    const frontier =
      source === "walk" ? [{ record: window, depth: 0 }] : incompleteNodes(window, children, include, limits.maxDepth);
    if (frontier.length === 0) return { added: false, truncated: false };
    await this.followEvents();
    const bounds = { maxDepth: limits.maxDepth, budget: limits.maxNodes, descend: include };
    const result = await walk(this.bus, frontier, records, bounds, this.mirror);
    return { added: result.records.length > 0, truncated: result.truncated };
  }

  /**
   * What the walk reads is kept in the mirror only while the app's events say what changed:
   * subscribing is asked for once, and a failure leaves reads as they were (all read afresh).
   */
  private async followEvents(): Promise<void> {
    if (this.mirror.trusted) return;
    try {
      await this.events.start();
      this.mirror.trustSoon();
    } catch {
      // The registry refused or timed out: nothing is kept, the next read asks again.
    }
  }

  /**
   * GTK 3 objects (cache-served): frames only of showing objects (see fetchDetails), and action
   * names from the mirror, which needs the app's events followed (its state and property events
   * drop them).
   */
  private async buildNodes(
    placed: Placed[],
    app: AtspiApplication,
    limits: TreeLimits,
    { gtk3, textEndClamped }: { gtk3: boolean; textEndClamped: boolean },
    early: EarlyFrames,
  ): Promise<AXNode[]> {
    if (gtk3) await this.followEvents();
    const options = { maxText: limits.maxText, withId: !this.withoutIds.has(app.busName), mirror: this.mirror, framelessUnlessShowing: gtk3, textEndClamped, early };
    const details = await parallelMap(placed, PARALLEL_CALLS, (p) => fetchDetails(this.bus, p.record, options));
    this.prefetch.remember(app.busName, placed.flatMap((p) => (wantsFrame(p.record, options) ? [p.record.ref] : [])));
    if (options.withId && !details.some((d) => d.id)) this.withoutIds.add(app.busName);
    return placed.map((p, n) => {
      const entry = this.intern(p.record, app.pid);
      const place = { i: entry.i, d: p.d, parentRole: p.parentRole, maxText: limits.maxText };
      return buildAXNode(p.record, details[n] ?? { actions: [] }, place);
    });
  }

  private intern(record: AccessibleRecord, pid: number): ElementEntry {
    const entry = this.table.intern(record.ref, pid);
    entry.interfaces = record.interfaces;
    entry.role = record.role;
    return entry;
  }

  // -------------------------------------------------------------------------------------------
  // Element operations

  /** Action.DoAction by name; AXPress means the first of click, press, activate. */
  async performAction(i: number, name: string): Promise<void> {
    await this.withElement(i, "action_failed", (entry) => this.doAction(entry, name));
  }

  private async doAction(entry: ElementEntry, name: string): Promise<void> {
    const names = await fetchActionNames(this.bus, entry.ref);
    const index = findActionIndex(names, name);
    if (index < 0) {
      const available = axActionNames(names).join(", ") || "none";
      throw new AtspiError("action_failed", `element ${entry.i} has no action ${name} (it has: ${available})`);
    }
    const [done] = await this.bus.call(entry.ref, Iface.action, "DoAction", "i", [index]);
    if (done !== true) throw new AtspiError("action_failed", `element ${entry.i} refused ${name}`);
  }

  /** The element's accessible name and description, joined: what the confirmation rule reads. */
  async labelOf(i: number): Promise<string> {
    return this.withElement(i, "failed", async (entry) => {
      const [name, description] = await Promise.all([
        this.bus.getProperty(entry.ref, Iface.accessible, "Name"),
        this.bus.getProperty(entry.ref, Iface.accessible, "Description"),
      ]);
      return [asString(name), asString(description)].filter((part) => part !== "").join(" ");
    });
  }

  /** Every action, AXPress included (for click/press/activate); others keep their AT-SPI names. */
  async actionNames(i: number): Promise<string[]> {
    return this.withElement(i, "failed", async (entry) => {
      const interfaces = await this.interfacesOf(entry);
      return interfaces.has(Iface.action) ? axActionNames(await fetchActionNames(this.bus, entry.ref)) : [];
    });
  }

  /**
   * Text goes through EditableText.SetTextContents, numbers through Value.CurrentValue, and a
   * boolean on a check box or toggle presses it when its checked state differs.
   */
  async setValue(i: number, value: string | number | boolean): Promise<void> {
    await this.withElement(i, "action_failed", async (entry) => {
      const interfaces = await this.interfacesOf(entry);
      if (interfaces.has(Iface.editableText)) return this.setText(entry, String(value));
      if (interfaces.has(Iface.value)) return this.setNumber(entry, typeof value === "boolean" ? Number(value) : value);
      if (typeof value === "boolean" && interfaces.has(Iface.action)) return this.setChecked(entry, value);
      // Chromium's web text fields are editable Text without EditableText: only typing sets them.
      if (typeof value === "string" && interfaces.has(Iface.text) && (await this.statesOf(entry.ref)).has(State.EDITABLE)) {
        throw new AtspiError("unsupported", `element ${i} is editable text without EditableText (web content): focus it, select all and type`);
      }
      throw new AtspiError("action_failed", `element ${i} has no settable value (no EditableText or Value)`);
    });
  }

  private async setText(entry: ElementEntry, text: string): Promise<void> {
    const [done] = await this.bus.call(entry.ref, Iface.editableText, "SetTextContents", "s", [text]);
    if (done !== true) throw new AtspiError("action_failed", `element ${entry.i} refused the text (read-only?)`);
  }

  private async setNumber(entry: ElementEntry, value: string | number): Promise<void> {
    const number = typeof value === "number" ? value : Number(value);
    if (!Number.isFinite(number)) {
      throw new AtspiError("action_failed", `element ${entry.i} takes a number, not ${JSON.stringify(value)}`);
    }
    await this.bus.setProperty(entry.ref, Iface.value, "CurrentValue", "d", number);
  }

  private async setChecked(entry: ElementEntry, checked: boolean): Promise<void> {
    const role = entry.role ?? (await this.roleOf(entry.ref));
    if (role === undefined || !(isCheckableRole(role) || role === Role.TOGGLE_BUTTON)) {
      throw new AtspiError("action_failed", `element ${entry.i} is not a check box or toggle`);
    }
    const states = await this.statesOf(entry.ref);
    if (states.has(State.CHECKED) !== checked) await this.doAction(entry, AX_PRESS);
  }

  /** Component.GrabFocus: keyboard focus inside the app. */
  async focus(i: number): Promise<void> {
    await this.withElement(i, "action_failed", async (entry) => {
      const [done] = await this.bus.call(entry.ref, Iface.component, "GrabFocus");
      if (done !== true) throw new AtspiError("action_failed", `element ${i} did not take the focus`);
    });
  }

  /**
   * Selects `length` UTF-16 code units from `start` (the protocol's units, converted to AT-SPI
   * characters) and puts the caret at the end; length 0 only moves the caret.
   */
  async selectText(i: number, start: number, length: number): Promise<void> {
    await this.withElement(i, "action_failed", async (entry) => {
      const text = await fetchText(this.bus, entry.ref);
      const from = toCharOffset(text, Math.max(start, 0));
      const to = toCharOffset(text, Math.max(start, 0) + Math.max(length, 0));
      // The caret first: GTK collapses any selection when the caret moves.
      await this.textCall(entry, "SetCaretOffset", "i", [to]);
      const [count] = await this.bus.call(entry.ref, Iface.text, "GetNSelections");
      const existing = typeof count === "number" ? count : 0;
      if (to <= from) {
        if (existing > 0) await this.bus.call(entry.ref, Iface.text, "RemoveSelection", "i", [0]);
      } else if (existing > 0) {
        await this.textCall(entry, "SetSelection", "iii", [0, from, to]);
      } else {
        await this.textCall(entry, "AddSelection", "ii", [from, to]);
      }
    });
  }

  private async textCall(entry: ElementEntry, member: string, signature: string, body: unknown[]): Promise<void> {
    const [done] = await this.bus.call(entry.ref, Iface.text, member, signature, body);
    if (done !== true) throw new AtspiError("action_failed", `element ${entry.i} refused Text.${member}(${body.join(", ")})`);
  }

  /** The first text selection in UTF-16 units, or null when nothing is selected. */
  async selection(i: number): Promise<{ start: number; length: number } | null> {
    return this.withElement(i, "failed", async (entry) => {
      const [count] = await this.bus.call(entry.ref, Iface.text, "GetNSelections");
      if (typeof count !== "number" || count < 1) return null;
      const [start, end] = await this.bus.call(entry.ref, Iface.text, "GetSelection", "i", [0]);
      if (typeof start !== "number" || typeof end !== "number" || end <= start) return null;
      const text = await fetchText(this.bus, entry.ref);
      const from = toUtf16Offset(text, start);
      return { start: from, length: toUtf16Offset(text, end) - from };
    });
  }

  async elementFrame(i: number): Promise<Frame> {
    return this.withElement(i, "no_frame", async (entry) => {
      const frame = await fetchFrame(this.bus, entry.ref);
      if (!frame) throw new AtspiError("no_frame", `element ${i} is not on screen`);
      return frame;
    });
  }

  /** The whole text (Text), else the value (Value), else the name. */
  async textOf(i: number): Promise<string> {
    return this.withElement(i, "failed", async (entry) => {
      const interfaces = await this.interfacesOf(entry);
      if (interfaces.has(Iface.text)) return fetchText(this.bus, entry.ref);
      if (interfaces.has(Iface.value)) return String((await fetchValue(this.bus, entry.ref)) ?? "");
      return asString(await this.bus.getProperty(entry.ref, Iface.accessible, "Name"));
    });
  }

  // -------------------------------------------------------------------------------------------
  // Hit testing

  /** The deepest element of the app at a screen point, or null when none is there. */
  async hitTest(pid: number, screenX: number, screenY: number): Promise<AtspiHit | null> {
    // AT-SPI takes int32 coordinates; a frame centre is often fractional.
    const x = Math.round(screenX);
    const y = Math.round(screenY);
    for (const window of await this.windowsAt(pid, x, y)) {
      const hit = await this.descend(window.ref, x, y);
      if (hit) return this.describeHit(hit, window, pid, [x, y]);
    }
    return null;
  }

  /** The app's showing windows that contain the point, the active one first. */
  private async windowsAt(pid: number, x: number, y: number): Promise<AccessibleRecord[]> {
    const windows = (await this.topLevelWindows(await this.appByPid(pid))).filter((w) => w.states.has(State.SHOWING));
    const frames = await this.framesOf(windows);
    const found = windows.filter((w) => contains(frames.get(w), x, y));
    return found.sort((a, b) => Number(b.states.has(State.ACTIVE)) - Number(a.states.has(State.ACTIVE)));
  }

  /** Component.GetAccessibleAtPoint, again and again, until no deeper child is there. */
  private async descend(from: AccessibleRef, x: number, y: number): Promise<AccessibleRef> {
    let current = from;
    for (let step = 0; step < MAX_HIT_DEPTH; step++) {
      const reply = this.bus.call(current, Iface.component, "GetAccessibleAtPoint", "iiu", [x, y, SCREEN_COORDS]);
      const ref = asRef((await reply.catch(() => [undefined]))[0]);
      if (!ref || ref.path === NULL_PATH || !ref.bus || refKey(ref) === refKey(current)) break;
      current = ref;
    }
    return current;
  }

  private async describeHit(ref: AccessibleRef, window: AccessibleRecord, pid: number, point: [number, number]): Promise<AtspiHit> {
    const record = await this.call(() => fetchRecord(this.bus, ref));
    const [details, actions, place] = await Promise.all([
      fetchDetails(this.bus, record, { maxText: TREE_DEFAULTS.maxText, withId: true }),
      record.interfaces.has(Iface.action) ? fetchActionNames(this.bus, ref).catch(() => []) : [],
      this.placeBelow(record, window),
    ]);
    const entry = this.intern(record, pid);
    const node = buildAXNode(record, details, { i: entry.i, ...place, maxText: TREE_DEFAULTS.maxText });
    // GetAccessibleAtPoint only returns objects that contain the point, so a missing frame is
    // a toolkit quirk; the point itself is the honest answer then.
    const frame = node.frame ?? [point[0], point[1], 1, 1];
    return { index: entry.i, role: node.role, actions: axActionNames(actions), frame, node };
  }

  /** Depth below the window and the parent's role, by walking Parent links up. */
  private async placeBelow(record: AccessibleRecord, window: AccessibleRecord): Promise<{ d: number; parentRole?: number }> {
    const parentRole = record.parent ? await this.roleOf(record.parent) : undefined;
    if (refKey(record.ref) === refKey(window.ref)) return { d: 0, parentRole };
    let d = 0;
    let current = record.parent;
    while (current && d < MAX_HIT_DEPTH) {
      d++;
      if (refKey(current) === refKey(window.ref)) break;
      current = asRef(await this.bus.getProperty(current, Iface.accessible, "Parent").catch(() => undefined));
    }
    return { d, parentRole };
  }

  private async roleOf(ref: AccessibleRef): Promise<number | undefined> {
    const [role] = await this.bus.call(ref, Iface.accessible, "GetRole").catch(() => [undefined]);
    return typeof role === "number" ? role : undefined;
  }

  private async statesOf(ref: AccessibleRef): Promise<ReadonlySet<number>> {
    const [words] = await this.bus.call(ref, Iface.accessible, "GetState");
    return decodeStates(Array.isArray(words) ? words.filter((w): w is number => typeof w === "number") : []);
  }

  // -------------------------------------------------------------------------------------------
  // Error mapping

  /**
   * Runs an operation on element i: a destroyed object (UnknownObject, DEFUNCT) or a closed
   * app becomes stale_index, an interface the object lacks becomes `unsupported`.
   */
  private async withElement<T>(
    i: number,
    unsupported: ErrorCode,
    operation: (entry: ElementEntry) => Promise<T>,
  ): Promise<T> {
    const entry = this.table.get(i);
    try {
      if ((await this.statesOf(entry.ref)).has(State.DEFUNCT)) {
        throw new AtspiError("stale_index", `element ${i} no longer exists (defunct)`);
      }
      return await operation(entry);
    } catch (error) {
      throw await this.classify(error, entry, unsupported);
    }
  }

  private async classify(error: unknown, entry: ElementEntry, unsupported: ErrorCode): Promise<AtspiError> {
    if (await this.isGone(error, entry)) {
      this.table.markGone(entry.i);
      return new AtspiError("stale_index", `element ${entry.i} no longer exists (its app exited or it was destroyed)`);
    }
    if (error instanceof AtspiError) return error;
    if (isUnsupportedError(error)) {
      return new AtspiError(unsupported, `element ${entry.i} does not support that: ${errorMessage(error)}`);
    }
    return wrap(error, "failed");
  }

  /** A NoReply or a timeout may mean the app died mid-call: its bus name tells. */
  private async isGone(error: unknown, entry: ElementEntry): Promise<boolean> {
    if (isGoneError(error)) return true;
    if (error instanceof AtspiError && error.code === "stale_index") return true;
    return !(await this.bus.nameHasOwner(entry.ref.bus).catch(() => true));
  }

  private async interfacesOf(entry: ElementEntry): Promise<ReadonlySet<string>> {
    if (entry.interfaces) return entry.interfaces;
    const [names] = await this.bus.call(entry.ref, Iface.accessible, "GetInterfaces");
    entry.interfaces = new Set(Array.isArray(names) ? names.filter((n): n is string => typeof n === "string") : []);
    return entry.interfaces;
  }

  /** Calls that are not about one element: timeouts and D-Bus errors become `failed`. */
  private async call<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw error instanceof AtspiError ? error : wrap(error, "failed");
    }
  }
}

function appRef(app: AtspiApplication): AccessibleRef {
  return { bus: app.busName, path: app.path };
}

function resolveLimits(options: TreeOptions): TreeLimits {
  return {
    maxNodes: nonNegative(options.maxNodes, TREE_DEFAULTS.maxNodes),
    maxDepth: nonNegative(options.maxDepth, TREE_DEFAULTS.maxDepth),
    maxText: nonNegative(options.maxText, TREE_DEFAULTS.maxText),
    menus: options.menus === true,
    includeHidden: options.includeHidden === true,
  };
}

function nonNegative(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 0 ? Math.floor(value) : fallback;
}

function contains(frame: Frame | undefined, x: number, y: number): boolean {
  if (!frame) return false;
  const [fx, fy, width, height] = frame;
  return x >= fx && y >= fy && x < fx + width && y < fy + height;
}

function wrap(error: unknown, code: ErrorCode): AtspiError {
  return new AtspiError(code, errorMessage(error));
}
