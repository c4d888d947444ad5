// Shaping one window's tree from accessible records: child order, which subtrees are shown,
// and the pre-order node list bounded by maxNodes and maxDepth. Pure functions.
import { DEFAULT_CONFIG } from "../../src/config/config.js";
import { refKey, type AccessibleRecord, type DepthRecord } from "./atspi-records.js";
import { Role } from "./atspi-roles.js";
import { State } from "./atspi-states.js";

export interface TreeLimits {
  maxNodes: number;
  maxDepth: number;
  maxText: number;
  /** Include the menu bar and its (closed, frameless) items. */
  menus: boolean;
  /** Include objects without SHOWING (hidden modes, closed menus). */
  includeHidden: boolean;
}

/** The limits a read takes when it is given none: config.json's default `ax` section. */
export const TREE_DEFAULTS = { maxNodes: DEFAULT_CONFIG.ax.maxNodes, maxDepth: DEFAULT_CONFIG.ax.maxDepth, maxText: DEFAULT_CONFIG.ax.maxTextLength } as const;

export interface Placed {
  record: AccessibleRecord;
  d: number;
  parentRole?: number;
}

export type ChildrenIndex = Map<string, AccessibleRecord[]>;

/** Children by parent key, in the toolkit's order (objects without an index go last). */
export function childrenIndex(records: Iterable<AccessibleRecord>): ChildrenIndex {
  const children: ChildrenIndex = new Map();
  for (const record of records) {
    if (!record.parent) continue;
    const key = refKey(record.parent);
    const list = children.get(key) ?? [];
    list.push(record);
    children.set(key, list);
  }
  for (const list of children.values()) list.sort((a, b) => orderOf(a) - orderOf(b));
  return children;
}

function orderOf(record: AccessibleRecord): number {
  return record.indexInParent < 0 ? Number.MAX_SAFE_INTEGER : record.indexInParent;
}

/** Parent links followed at most, looking for the page (a cycle must not hang a read). */
const MAX_PAGE_DEPTH = 256;
const MENU_ROLES = new Set<number>([Role.MENU, Role.MENU_ITEM, Role.CHECK_MENU_ITEM, Role.RADIO_MENU_ITEM]);

/**
 * Which records (with their subtrees) belong in the tree. Hidden ones do not; inside a window
 * that is not showing (minimized), VISIBLE decides instead, and so it does inside a web page,
 * whose content scrolled out of view is VISIBLE but not SHOWING and is still the page's. The
 * menu bar is left out unless `menus`, and then its closed menus' items count too. `records`
 * holds every record read so far (ancestors are read before their children).
 */
export function visibilityFilter(
  window: AccessibleRecord,
  limits: TreeLimits,
  records: ReadonlyMap<string, AccessibleRecord>,
): (record: AccessibleRecord) => boolean {
  const state = window.states.has(State.SHOWING) ? State.SHOWING : State.VISIBLE;
  const inPage = pageTest(window, records);
  return (record) => {
    if (record === window) return true;
    if (record.role === Role.MENU_BAR) return limits.menus;
    if (limits.includeHidden || (limits.menus && MENU_ROLES.has(record.role))) return true;
    if (record.states.has(state)) return true;
    return record.states.has(State.VISIBLE) && inPage(record);
  };
}

/** Whether a record lies inside a web document (Chromium, Electron, Firefox), by its parent links. */
function pageTest(window: AccessibleRecord, records: ReadonlyMap<string, AccessibleRecord>): (record: AccessibleRecord) => boolean {
  const known = new Map<string, boolean>();
  const test = (record: AccessibleRecord, hops: number): boolean => {
    const key = refKey(record.ref);
    const cached = known.get(key);
    if (cached !== undefined) return cached;
    const parent = record.parent ? records.get(refKey(record.parent)) : undefined;
    const answer = record.role === Role.DOCUMENT_WEB || (record !== window && parent !== undefined && hops < MAX_PAGE_DEPTH && test(parent, hops + 1));
    known.set(key, answer);
    return answer;
  };
  return (record) => test(record, 0);
}

/** Objects whose ChildCount exceeds what the cache holds (e.g. MANAGES_DESCENDANTS views). */
export function incompleteNodes(
  window: AccessibleRecord,
  children: ChildrenIndex,
  include: (record: AccessibleRecord) => boolean,
  maxDepth: number,
): DepthRecord[] {
  const found: DepthRecord[] = [];
  const visit = (record: AccessibleRecord, depth: number): void => {
    if (!include(record) || depth >= maxDepth) return;
    const known = children.get(refKey(record.ref)) ?? [];
    if (record.childCount > known.length) found.push({ record, depth });
    for (const child of known) visit(child, depth + 1);
  };
  visit(window, 0);
  return found;
}

/** Pre-order from the window (d = 0); `truncated` when maxNodes or maxDepth left nodes out. */
export function selectNodes(
  window: AccessibleRecord,
  children: ChildrenIndex,
  include: (record: AccessibleRecord) => boolean,
  limits: TreeLimits,
): { placed: Placed[]; truncated: boolean } {
  const placed: Placed[] = [];
  let truncated = false;
  const stack: Placed[] = [{ record: window, d: 0, parentRole: Role.APPLICATION }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    if (placed.length >= limits.maxNodes) return { placed, truncated: true };
    placed.push(next);
    const kids = (children.get(refKey(next.record.ref)) ?? []).filter(include);
    if (kids.length === 0) continue;
    if (next.d >= limits.maxDepth) {
      truncated = true;
      continue;
    }
    for (let k = kids.length - 1; k >= 0; k--) {
      stack.push({ record: kids[k] as AccessibleRecord, d: next.d + 1, parentRole: next.record.role });
    }
  }
  return { placed, truncated };
}
