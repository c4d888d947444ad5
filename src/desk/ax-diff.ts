// After the first read of a window only the changes are printed. Element indices are stable
// for the helper's life, so matching by `i` shows real changes, not reshuffles:
//   ~ 14 button "8"        changed (same index, different line or depth)
//   + 31 menu item "Copy"  added
//   - removed: 3, 7-12     gone since the last read
import type { AXNode, WindowInfo } from "../helper/protocol.js";
import { formatHeader, formatNode, formatTree, indent, type FormatInput, type FormatOptions } from "./ax-text.js";

export interface TreeDiff {
  /** The header line, then `~`/`+` lines in tree order, then `- removed: …`. */
  text: string;
  changed: number;
  added: number;
  /** Indices gone since the previous read, ascending. */
  removed: number[];
  unchanged: boolean;
}

export const NO_CHANGES = "no changes since the last read";

/**
 * Changes from `previous` to `current`. An element counts as changed when what a reader
 * would see differs: its formatted line or its depth. Both trees are formatted with the
 * same options, so a frame that moved only counts when frames are shown; otherwise a
 * scroll would mark every row changed while printing identical lines.
 */
export function diffTrees(previous: readonly AXNode[], current: readonly AXNode[], options: FormatOptions): TreeDiff {
  const before = new Map<number, string>();
  for (const node of previous) before.set(node.i, lineKey(node, options));

  const emitted: { node: AXNode; mark: "~" | "+"; line: string }[] = [];
  const seen = new Set<number>();
  let changed = 0;
  let added = 0;
  for (const node of current) {
    seen.add(node.i);
    const line = formatNode(node, options);
    const old = before.get(node.i);
    if (old === undefined) {
      added += 1;
      emitted.push({ node, mark: "+", line });
    } else if (old !== keyOf(node.d, line)) {
      changed += 1;
      emitted.push({ node, mark: "~", line });
    }
  }
  const removed = [...before.keys()].filter((i) => !seen.has(i)).sort((a, b) => a - b);
  const unchanged = emitted.length === 0 && removed.length === 0;
  const header = formatHeader(options, current.length);
  return { text: diffText(header, emitted, removed, unchanged), changed, added, removed, unchanged };
}

/** `3, 7-12, 15`: runs of consecutive indices (often a whole subtree) as ranges. */
export function compactRanges(sorted: readonly number[]): string {
  const parts: string[] = [];
  let start = 0;
  for (let k = 1; k <= sorted.length; k++) {
    if (k < sorted.length && sorted[k] === sorted[k - 1]! + 1) continue;
    const first = sorted[start]!;
    const last = sorted[k - 1]!;
    parts.push(first === last ? `${first}` : `${first}-${last}`);
    start = k;
  }
  return sorted.length === 0 ? "" : parts.join(", ");
}

function diffText(
  header: string,
  emitted: readonly { node: AXNode; mark: "~" | "+"; line: string }[],
  removed: readonly number[],
  unchanged: boolean,
): string {
  if (unchanged) return `${header}\n${NO_CHANGES}`;
  // Indent relative to the shallowest printed element: an added subtree keeps its shape
  // without paying for the depth of the whole path to it.
  let base = Infinity;
  for (const e of emitted) base = Math.min(base, e.node.d);
  const lines = [header];
  for (const e of emitted) lines.push(`${e.mark} ${indent(e.node.d - base)}${e.line}`);
  if (removed.length > 0) lines.push(`- removed: ${compactRanges(removed)}`);
  return lines.join("\n");
}

function lineKey(node: AXNode, options: FormatOptions): string {
  return keyOf(node.d, formatNode(node, options));
}

function keyOf(depth: number, line: string): string {
  return `${depth}|${line}`;
}

// ---------------------------------------------------------------------------
// History of reads per window

export interface HistoryRead {
  /** The full tree on a window's first read (or with diffing off), else the diff. */
  text: string;
  full: boolean;
  /** No element changed since the previous read (false on a full read). */
  unchanged: boolean;
  nodes: readonly AXNode[];
  /** Present when `text` is a diff. */
  diff?: TreeDiff;
}

export interface ReadOptions {
  disableDiffing?: boolean;
}

interface Remembered {
  nodes: readonly AXNode[];
  frames: boolean;
}

/** A key per window: its window id when the helper has one, else its title. */
export function windowKey(window: WindowInfo, pid?: number): string {
  const owner = pid === undefined ? "?" : String(pid);
  return window.windowId === undefined ? `${owner}:title:${window.title}` : `${owner}:id:${window.windowId}`;
}

/** Remembers the last nodes read from each window, so later reads print only changes. */
export class AXHistory {
  private readonly windows = new Map<string, Remembered>();

  /** Windows come and go over a long session; the least recently read are forgotten. */
  constructor(private readonly maxWindows = 32) {}

  read(key: string, input: FormatInput, options: ReadOptions = {}): HistoryRead {
    const last = this.windows.get(key);
    this.remember(key, { nodes: input.nodes, frames: input.frames });
    // Turning frames on needs the full tree: a diff would not show frames of unchanged elements.
    if (!last || options.disableDiffing || (input.frames && !last.frames)) {
      return { text: formatTree(input), full: true, unchanged: false, nodes: input.nodes };
    }
    const diff = diffTrees(last.nodes, input.nodes, input);
    return { text: diff.text, full: false, unchanged: diff.unchanged, nodes: input.nodes, diff };
  }

  /** The last nodes read from a window, e.g. for set-of-marks. */
  nodes(key: string): readonly AXNode[] | undefined {
    return this.windows.get(key)?.nodes;
  }

  forget(key: string): void {
    this.windows.delete(key);
  }

  clear(): void {
    this.windows.clear();
  }

  private remember(key: string, entry: Remembered): void {
    this.windows.delete(key);
    this.windows.set(key, entry);
    while (this.windows.size > this.maxWindows) {
      const oldest = this.windows.keys().next().value;
      if (oldest === undefined) break;
      this.windows.delete(oldest);
    }
  }
}
