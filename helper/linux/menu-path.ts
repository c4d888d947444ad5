// Finding a menu item from a path of titles (["File", "Save As…"]) in a window's tree read with
// its menu bar. Pure: the caller reads the tree and presses what this finds. The Swift helper's
// MenuMatch.swift follows the same rules, checked by test/fixtures/menu-match-vectors.json.
//
// Each title is matched among the items of one level: exactly (after trimming the padding
// toolkits add) first, else tolerantly (src/text/tolerant-text.ts, as locators match). A
// tolerant match must be unique.
import { DeskError } from "../../src/helper/desk-error.js";
import type { AXNode } from "../../src/helper/protocol.js";
import { tolerantKey } from "../../src/text/tolerant-text.js";

export interface MenuLeaf {
  /** The element to press. */
  node: AXNode;
  /** Each level's item, named as the app shows it. */
  path: string[];
}

const MENU_BAR = "AXMenuBar";
const ITEM_ROLES: ReadonlySet<string> = new Set(["AXMenuBarItem", "AXMenuItem"]);
/** The container between an item and its submenu's items (macOS always has one; GTK popups too). */
const MENU = "AXMenu";

/** The item `path` names, below the first menu bar of `nodes` (pre-order with depths). */
export function findMenuItem(nodes: readonly AXNode[], path: readonly string[]): MenuLeaf {
  const bar = nodes.findIndex((n) => n.role === MENU_BAR);
  if (bar < 0) throw new DeskError("not_found", "this window has no menu bar");
  let parent = bar;
  const shown: string[] = [];
  for (const wanted of path) {
    const items = menuItems(nodes, parent);
    const at = matchItem(items.map((k) => label(nodes[k]!)), wanted, shown);
    parent = items[at]!;
    shown.push(label(nodes[parent]!));
  }
  const node = nodes[parent]!;
  if (node.disabled) throw new DeskError("action_failed", `the menu item ${describe(shown)} is disabled`);
  return { node, path: shown };
}

/** The index among `labels` that `wanted` names; not_found listing them when none or several do. */
export function matchItem(labels: readonly string[], wanted: string, above: readonly string[] = []): number {
  const exact = labels.flatMap((l, k) => (l === wanted.trim() ? [k] : []));
  if (exact.length > 0) return exact[0]!;
  const key = tolerantKey(wanted, { mnemonics: true });
  const loose = labels.flatMap((l, k) => (tolerantKey(l, { mnemonics: true }) === key ? [k] : []));
  if (loose.length === 1) return loose[0]!;
  const where = above.length > 0 ? `in ${describe(above)}` : "in the menu bar";
  if (loose.length > 1) {
    throw new DeskError("not_found", `"${wanted}" matches several items ${where}: ${loose.map((k) => JSON.stringify(labels[k])).join(", ")}; give the exact title`);
  }
  const available = labels.map((l) => JSON.stringify(l)).join(", ") || "no items";
  throw new DeskError("not_found", `no menu item "${wanted}" ${where}; it has: ${available}`);
}

/** The title as a person reads it: GTK pads menu item names with spaces for the shortcut column. */
function label(node: AXNode): string {
  return (node.title ?? "").trim();
}

/** The items one level below nodes[parent], looking through AXMenu containers; separators (no title) left out. */
function menuItems(nodes: readonly AXNode[], parent: number): number[] {
  return childIndices(nodes, parent).flatMap((k) => {
    if (nodes[k]!.role === MENU) return menuItems(nodes, k);
    return ITEM_ROLES.has(nodes[k]!.role) && label(nodes[k]!) !== "" ? [k] : [];
  });
}

/** The indices of the direct children of nodes[parent] (pre-order: until the depth returns). */
function childIndices(nodes: readonly AXNode[], parent: number): number[] {
  const depth = nodes[parent]!.d;
  const children: number[] = [];
  for (let k = parent + 1; k < nodes.length && nodes[k]!.d > depth; k++) {
    if (nodes[k]!.d === depth + 1) children.push(k);
  }
  return children;
}

function describe(path: readonly string[]): string {
  return path.map((p) => `"${p}"`).join(" > ");
}
