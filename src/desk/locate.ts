// Finding a locator's element in a tree read, and describing an element by a locator.
//
// Matching runs in tiers and stops at the first tier that finds anything:
//   exact     every text field equal to the element's text;
//   tolerant  equal after src/text/tolerant-text.ts folds both (case, spaces, "…", a trailing ":" …);
//   contains  the element's folded text contains the locator's.
// The role always matches as queries do (AX name or plain words). `nth` picks among the
// first tier's matches in tree order; without it, several matches are `ambiguous`.
// Actions stop at the tolerant tier unless the locator says `match: "contains"`: a contains
// match there would click "Don't Save" for "Save" without a word.
import type { AXNode } from "../helper/protocol.js";
import { DeskError } from "../helper/desk-error.js";
import { tolerantKey } from "../text/tolerant-text.js";
import { roleMatches } from "./query.js";
import { plainRole } from "./roles.js";
import { locatorLabel, locatorSource, stepOf, type Locator, type LocatorStep } from "./locator.js";

export type Tier = "exact" | "tolerant" | "contains";
const TIERS: readonly Tier[] = ["exact", "tolerant", "contains"];
/** The tiers an action accepts: a contains-only match fails unless the locator opts in. */
export const ACTION_TIERS: readonly Tier[] = ["exact", "tolerant"];

/** The tiers a lookup tries: all for `locate`, the action tiers for verbs unless the locator opts in. */
export function tiersFor(locator: Locator, forAction: boolean): readonly Tier[] {
  return forAction && locator.match !== "contains" ? ACTION_TIERS : TIERS;
}

/** An element with its ancestors in the same read, outermost first. */
export interface TreeEntry {
  node: AXNode;
  ancestors: AXNode[];
}

/** Pairs each node of a depth-first read with its ancestors, from the depths. */
export function withAncestors(nodes: readonly AXNode[]): TreeEntry[] {
  const stack: AXNode[] = [];
  return nodes.map((node) => {
    stack.length = Math.min(stack.length, Math.max(0, node.d));
    const entry = { node, ancestors: [...stack] };
    stack.push(node);
    return entry;
  });
}

/** The first tier's matches (empty when no tier finds any). */
export function matchLocator(entries: readonly TreeEntry[], locator: Locator, tiers: readonly Tier[] = TIERS): { tier: Tier; matches: TreeEntry[] } {
  for (const tier of tiers) {
    const found = entries.filter((e) => entryMatches(e, locator, tier));
    if (found.length > 0) return { tier, matches: found };
  }
  return { tier: "contains", matches: [] };
}

/** The one element the locator names, or a not_found / ambiguous error listing candidates. */
export function pickOne(entries: readonly TreeEntry[], locator: Locator, where: string, truncated = false, tiers: readonly Tier[] = TIERS): TreeEntry {
  const { tier, matches } = matchLocator(entries, locator, tiers);
  const wanted = locatorSource(locator);
  if (matches.length === 0) {
    const cut = truncated ? " (the read was cut short: raise config.json's ax.maxNodes)" : "";
    const loose = tiers.includes("contains") ? [] : entries.filter((e) => entryMatches(e, locator, "contains"));
    if (loose.length) {
      const shown = loose.slice(0, 8).map(describeEntry).join("; ");
      throw new DeskError("not_found", `nothing in ${where} matches ${wanted} exactly or tolerantly${cut}; only containing it: ${shown}; name one of them, or add match: "contains" to accept a containing match`);
    }
    const near = nearest(entries, locator);
    const list = near.length ? `; nearest: ${near.map(describeEntry).join("; ")}` : "";
    throw new DeskError("not_found", `nothing in ${where} matches ${wanted}${cut}${list}`);
  }
  if (locator.nth !== undefined) {
    const chosen = matches[locator.nth];
    if (!chosen) throw new DeskError("not_found", `${wanted} asks for nth ${locator.nth}, but ${matches.length} match in ${where}: ${matches.map(describeEntry).join("; ")}`);
    return chosen;
  }
  if (matches.length > 1) {
    const shown = matches.slice(0, 8).map((m, n) => `nth ${n}: ${describeEntry(m)}`);
    const more = matches.length > 8 ? `; and ${matches.length - 8} more` : "";
    throw new DeskError("ambiguous", `${matches.length} elements in ${where} match ${wanted} (${tier}): ${shown.join("; ")}${more}; add within, window or nth to pick one`);
  }
  return matches[0]!;
}

/**
 * A locator that finds exactly this element in this read (exact tier): its role, label and
 * id, then labelled ancestors nearest first until it is unique, then `nth`. Values are left
 * out: they are what actions change.
 */
export function locatorFor(entries: readonly TreeEntry[], index: number, window?: string): Locator | undefined {
  const entry = entries.find((e) => e.node.i === index);
  if (!entry) return undefined;
  const own = stepOf(entry.node);
  const locator: Locator = { ...own };
  const unique = (): boolean => {
    const { tier, matches } = matchLocator(entries, locator);
    return tier === "exact" && matches.length === 1 && matches[0] === entry;
  };
  // An element known only by its role, in a read of one window, is often still unique.
  const labelled = entry.ancestors.filter((a) => a.d > 0 && (locatorLabel(a) !== undefined || a.id));
  const within: LocatorStep[] = [];
  for (let n = labelled.length - 1; n >= 0 && !unique(); n--) {
    within.unshift(stepOf(labelled[n]!));
    locator.within = within;
  }
  if (!unique()) {
    const { matches } = matchLocator(entries, { ...locator, nth: undefined });
    const nth = matches.indexOf(entry);
    if (nth < 0) return undefined;
    if (matches.length > 1) locator.nth = nth;
  }
  return window ? { ...locator, window } : locator;
}

/** `[12] toggle button "6" in panel "Keys"`: how errors show an element. */
export function describeEntry(entry: TreeEntry): string {
  const n = entry.node;
  let text = `[${n.i}] ${plainRole(n.role, n.subrole)}`;
  const label = locatorLabel(n);
  if (label !== undefined) text += ` ${JSON.stringify(label)}`;
  if (n.value) text += ` = ${JSON.stringify(n.value.length > 40 ? `${n.value.slice(0, 39)}…` : n.value)}`;
  if (n.id) text += ` #${n.id}`;
  const around = entry.ancestors.filter((a) => a.d > 0 && locatorLabel(a) !== undefined).slice(-2);
  if (around.length) text += ` in ${around.map((a) => `${plainRole(a.role, a.subrole)} ${JSON.stringify(locatorLabel(a))}`).join(" › ")}`;
  return text;
}

/** Whether `have` (the app's text) meets `want` (the locator's) at `tier`. */
export function textMeets(have: string | undefined, want: string, tier: Tier): boolean {
  if (have === undefined) return false;
  if (tier === "exact") return have === want;
  const h = tolerantKey(have);
  const w = tolerantKey(want);
  // A locator of only dots or a colon folds to nothing: it names no element tolerantly.
  if (w === "") return false;
  return tier === "tolerant" ? h === w : h.includes(w);
}

function entryMatches(entry: TreeEntry, locator: Locator, tier: Tier): boolean {
  if (!stepMatches(entry.node, locator, tier)) return false;
  if (locator.value !== undefined && !textMeets(entry.node.value, locator.value, tier)) return false;
  if (!locator.within?.length) return true;
  // Each ancestor step, outermost first, must match an ancestor below the one before it.
  let from = 0;
  for (const step of locator.within) {
    const at = entry.ancestors.findIndex((a, k) => k >= from && stepMatches(a, step, tier));
    if (at < 0) return false;
    from = at + 1;
  }
  return true;
}

function stepMatches(node: AXNode, step: LocatorStep, tier: Tier): boolean {
  if (step.role !== undefined && !roleMatches(node, step.role)) return false;
  if (step.id !== undefined && !textMeets(node.id, step.id, tier)) return false;
  if (step.label !== undefined && ![node.title, node.desc, node.placeholder].some((t) => textMeets(t, step.label!, tier))) return false;
  return true;
}

/** Up to five elements most like the locator: same role, similar label, id or value. */
function nearest(entries: readonly TreeEntry[], locator: Locator): TreeEntry[] {
  const scored = entries.map((entry) => ({ entry, score: likeness(entry.node, locator) })).filter((s) => s.score > 0.5);
  scored.sort((a, b) => b.score - a.score);
  return scored.slice(0, 5).map((s) => s.entry);
}

function likeness(node: AXNode, locator: Locator): number {
  let score = locator.role !== undefined && roleMatches(node, locator.role) ? 1 : 0;
  const texts = [node.title, node.desc, node.placeholder, node.value, node.id].filter((t): t is string => t !== undefined);
  for (const want of [locator.label, locator.id, locator.value]) {
    if (want === undefined) continue;
    score += Math.max(0, ...texts.map((t) => similarity(tolerantKey(t), tolerantKey(want))));
  }
  return score;
}

/** 1 for equal, 0.8 when one holds the other, else what edit distance leaves (short texts only). */
function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a === "" || b === "") return 0;
  if (a.includes(b) || b.includes(a)) return 0.8;
  if (a.length > 60 || b.length > 60) return 0;
  return Math.max(0, 1 - editDistance(a, b) / Math.max(a.length, b.length));
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, k) => k);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}
