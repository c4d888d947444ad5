// What the cache does not carry — frame, actions, text or value, placeholder, id — fetched with
// parallel calls, and the AXNode built from a record plus those details.
import type { AXNode, Frame } from "../../src/helper/protocol.js";
import { AX_PRESS, listedActionNames } from "./atspi-actions.js";
import { Iface, type AccessibleRef, type AtspiBus } from "./atspi-bus.js";
import { asNumber, asString, refKey, type AccessibleRecord } from "./atspi-records.js";
import { axRole, isCheckableRole, isTextRole, pressIsObvious, Role } from "./atspi-roles.js";
import { State } from "./atspi-states.js";
import type { RecordMirror } from "./record-mirror.js";
import type { EarlyFrames } from "./frame-prefetch.js";

export interface NodeDetails {
  frame?: Frame;
  /** AccessibleId; GTK 3 never sets one, so callers can skip the call for such apps. */
  id?: string;
  /** AT-SPI (non-localized) action names. */
  actions: string[];
  text?: string;
  value?: number;
  placeholder?: string;
}

export interface DetailOptions {
  maxText: number;
  withId: boolean;
  /** Where action names are kept between reads. */
  mirror?: RecordMirror;
  /**
   * GTK 3 answers GetExtents of an object without SHOWING (an unmapped widget: a closed menu's
   * item, a hidden mode) with INT32_MIN, which is no frame: such objects are not asked.
   */
  framelessUnlessShowing?: boolean;
  /**
   * The app clamps GetText's end to the text (Chromium, as GTK does), so an empty answer is an
   * empty text and the CharacterCount check Qt needs is not asked.
   */
  textEndClamped?: boolean;
  /** Frames asked at the start of the read (FramePrefetch): taken instead of asking again. */
  early?: EarlyFrames;
}

const SCREEN_COORDS = 0;
const INT32_MIN = -2147483648;

export async function fetchDetails(bus: AtspiBus, record: AccessibleRecord, options: DetailOptions): Promise<NodeDetails> {
  const has = (iface: string): boolean => record.interfaces.has(iface);
  const [frame, actions, text, value, placeholder, id] = await Promise.all([
    wantsFrame(record, options) ? (options.early?.get(refKey(record.ref)) ?? fetchFrame(bus, record.ref).catch(() => undefined)) : undefined,
    has(Iface.action) ? mirroredActions(bus, record, options.mirror).catch(() => []) : [],
    wantsText(record) ? fetchText(bus, record.ref, options.maxText, options.textEndClamped).catch(() => undefined) : undefined,
    wantsValue(record) ? fetchValue(bus, record.ref).catch(() => undefined) : undefined,
    wantsPlaceholder(record) ? fetchPlaceholder(bus, record.ref).catch(() => undefined) : undefined,
    options.withId ? bus.getProperty(record.ref, Iface.accessible, "AccessibleId").catch(() => undefined) : undefined,
  ]);
  return { frame, actions, text, value, placeholder, id: typeof id === "string" && id ? id : undefined };
}

/** Whether a node's details include its frame (GetExtents). */
export function wantsFrame(record: AccessibleRecord, options: Pick<DetailOptions, "framelessUnlessShowing">): boolean {
  return record.interfaces.has(Iface.component) && !(options.framelessUnlessShowing && !record.states.has(State.SHOWING));
}

/** Screen-coordinate extents, or undefined for hidden objects (GTK reports INT32_MIN or -1). */
export async function fetchFrame(bus: AtspiBus, ref: AccessibleRef): Promise<Frame | undefined> {
  const [extents] = await bus.call(ref, Iface.component, "GetExtents", "u", [SCREEN_COORDS]);
  if (!Array.isArray(extents) || extents.length < 4) return undefined;
  const [x, y, width, height] = extents.map((n: unknown) => asNumber(n, 0));
  if (x === undefined || y === undefined || width === undefined || height === undefined) return undefined;
  if (width <= 0 || height <= 0 || x === INT32_MIN || y === INT32_MIN) return undefined;
  return [x, y, width, height];
}

async function mirroredActions(bus: AtspiBus, record: AccessibleRecord, mirror?: RecordMirror): Promise<string[]> {
  const kept = mirror?.actions(record);
  if (kept) return kept;
  const mark = mirror?.mark(record.ref.bus);
  const actions = await fetchTreeActions(bus, record);
  mirror?.keepActions(record, actions, mark);
  return actions;
}

/**
 * Actions for a tree node. A press-like role with a single action is taken to have just its
 * press (GTK's "click"), which saves a GetName call per button — a third of a tree's calls;
 * performAction always reads the real names.
 */
async function fetchTreeActions(bus: AtspiBus, record: AccessibleRecord): Promise<string[]> {
  const [list] = await bus.call(record.ref, Iface.action, "GetActions");
  const count = Array.isArray(list) ? list.length : 0;
  if (count === 1 && pressIsObvious(record.role)) return ["click"];
  return namesOf(bus, record.ref, list);
}

/**
 * The non-localized names ("click", not "Click"): GetActions returns localized names, so the
 * count comes from it and each name from GetName.
 */
export async function fetchActionNames(bus: AtspiBus, ref: AccessibleRef): Promise<string[]> {
  const [list] = await bus.call(ref, Iface.action, "GetActions");
  return namesOf(bus, ref, list);
}

async function namesOf(bus: AtspiBus, ref: AccessibleRef, list: unknown): Promise<string[]> {
  const count = Array.isArray(list) ? list.length : 0;
  const names = await Promise.all(
    Array.from({ length: count }, (_, index) => bus.call(ref, Iface.action, "GetName", "i", [index])),
  );
  return names.map((reply, index) => asString(reply[0]) || localizedName(list, index));
}

function localizedName(list: unknown, index: number): string {
  const entry: unknown = Array.isArray(list) ? list[index] : undefined;
  return Array.isArray(entry) ? asString(entry[0]) : "";
}

/** The text: all of it, or enough to tell whether it is longer than maxText. */
export async function fetchText(bus: AtspiBus, ref: AccessibleRef, maxText = Number.POSITIVE_INFINITY, endClamped = false): Promise<string> {
  const end = Number.isFinite(maxText) && maxText >= 0 ? maxText + 1 : -1;
  const [text] = await bus.call(ref, Iface.text, "GetText", "ii", [0, end]);
  if (asString(text) !== "" || end === -1 || endClamped) return asString(text);
  // Qt answers nothing at all when the end lies past the text (GTK clamps it): ask again within it.
  const count = asNumber(await bus.getProperty(ref, Iface.text, "CharacterCount"), 0);
  if (count <= 0) return "";
  const [within] = await bus.call(ref, Iface.text, "GetText", "ii", [0, Math.min(count, end)]);
  return asString(within);
}

/** The protocol's maxText: longer strings are cut to maxText characters, the last being "…". */
export function clip(text: string, maxText: number): string {
  if (text.length <= maxText) return text;
  return maxText < 1 ? "" : `${text.slice(0, maxText - 1)}…`;
}

export async function fetchValue(bus: AtspiBus, ref: AccessibleRef): Promise<number | undefined> {
  const value = await bus.getProperty(ref, Iface.value, "CurrentValue");
  return typeof value === "number" ? value : undefined;
}

async function fetchPlaceholder(bus: AtspiBus, ref: AccessibleRef): Promise<string | undefined> {
  const [attributes] = await bus.call(ref, Iface.accessible, "GetAttributes");
  if (typeof attributes !== "object" || attributes === null) return undefined;
  const placeholder = (attributes as Record<string, unknown>)["placeholder-text"];
  return typeof placeholder === "string" && placeholder ? placeholder : undefined;
}

function wantsText(record: AccessibleRecord): boolean {
  return record.interfaces.has(Iface.text) && isTextRole(record.role);
}

function wantsValue(record: AccessibleRecord): boolean {
  return record.interfaces.has(Iface.value) && !wantsText(record);
}

function wantsPlaceholder(record: AccessibleRecord): boolean {
  return record.interfaces.has(Iface.editableText) && isTextRole(record.role) && record.states.has(State.EDITABLE);
}

// ---------------------------------------------------------------------------------------------

export interface NodePlace {
  i: number;
  /** Depth below the window (the window is 0). */
  d: number;
  parentRole?: number;
  maxText: number;
}

export function buildAXNode(record: AccessibleRecord, details: NodeDetails, place: NodePlace): AXNode {
  const { role, subrole } = axRole(record.role, { states: record.states, parentRole: place.parentRole });
  const node: AXNode = { i: place.i, d: place.d, role };
  if (subrole) node.subrole = subrole;
  applyTexts(node, record, details, place.maxText);
  if (details.frame) node.frame = details.frame;
  const actions = listedActions(record.role, details.actions);
  if (actions.length > 0) node.actions = actions;
  applyFlags(node, record);
  return node;
}

function applyTexts(node: AXNode, record: AccessibleRecord, details: NodeDetails, maxText: number): void {
  const value = valueOf(record, details);
  // Static text shows its text as the value, not the title, as on macOS.
  if (node.role === "AXStaticText") {
    const text = value ?? record.name;
    if (text) node.value = clip(text, maxText);
  } else {
    // A label's outer whitespace is layout: GTK pads menu item names for the accelerator column.
    const title = record.name.trim();
    if (title) node.title = clip(title, maxText);
    if (value !== undefined) node.value = clip(value, maxText);
  }
  const desc = record.description.trim();
  if (desc) node.desc = clip(desc, maxText);
  if (details.placeholder) node.placeholder = clip(details.placeholder, maxText);
  if (details.id) node.id = details.id;
}

function valueOf(record: AccessibleRecord, details: NodeDetails): string | undefined {
  if (record.role === Role.PASSWORD_TEXT) return undefined; // never read a password
  if (details.text !== undefined) return details.text;
  if (details.value !== undefined) return String(details.value);
  if (isCheckableRole(record.role)) return record.states.has(State.CHECKED) ? "1" : "0";
  return undefined;
}

/** Action names beyond the obvious one and the boilerplate: a lone AXPress on a button is not listed. */
function listedActions(role: number, atspiNames: readonly string[]): string[] {
  const names = listedActionNames(atspiNames.filter((name) => name !== ""));
  if (names.length === 1 && names[0] === AX_PRESS && pressIsObvious(role)) return [];
  return names;
}

function applyFlags(node: AXNode, record: AccessibleRecord): void {
  const states = record.states;
  if (states.has(State.FOCUSED)) node.focused = true;
  if (states.has(State.SELECTED)) node.selected = true;
  // The application root has an empty state set; "disabled" would be noise there.
  if (!states.has(State.ENABLED) && record.role !== Role.APPLICATION) node.disabled = true;
  if (isSettable(record)) node.settable = true;
}

function isSettable(record: AccessibleRecord): boolean {
  if (record.states.has(State.EDITABLE) && !record.states.has(State.READ_ONLY)) return true;
  const valueRole = record.role === Role.SLIDER || record.role === Role.SPIN_BUTTON;
  return valueRole && record.interfaces.has(Iface.value) && record.states.has(State.ENABLED);
}
