import type { AXNode } from "../helper/protocol.js";
import { plainRole } from "./roles.js";

/**
 * What `find`, `findAll`, `waitFor` and `click({find})` accept: a string matches any label
 * text; an object narrows by field. Text matches are case-insensitive substrings unless
 * `exact` is set; `role` accepts the AX name (`AXButton`) or the plain words (`button`).
 */
export type Query =
  | string
  | {
      role?: string;
      /** title, description or placeholder */
      label?: string;
      title?: string;
      value?: string;
      id?: string;
      /** any of label, value or id */
      text?: string;
      exact?: boolean;
    };

export function describeQuery(query: Query): string {
  return JSON.stringify(query);
}

export function matches(node: AXNode, query: Query): boolean {
  if (typeof query === "string") return matchesText(node, query, false);
  const exact = query.exact === true;
  const same = (have: string | undefined, want: string | undefined) => want === undefined || textMatch(have, want, exact);
  if (query.role !== undefined && !roleMatches(node, query.role)) return false;
  if (!same(node.title, query.title) || !same(node.value, query.value) || !same(node.id, query.id)) return false;
  if (query.label !== undefined && !labels(node).some((l) => textMatch(l, query.label!, exact))) return false;
  if (query.text !== undefined && !matchesText(node, query.text, exact)) return false;
  return true;
}

export function validateQuery(query: unknown): asserts query is Query {
  if (typeof query === "string") {
    if (query.length === 0) throw new TypeError("a query string must not be empty");
    return;
  }
  if (typeof query !== "object" || query === null) throw new TypeError("a query is a string or an object like { role: 'button', label: 'OK' }");
  const known = new Set(["role", "label", "title", "value", "id", "text", "exact"]);
  const unknown = Object.keys(query).filter((k) => !known.has(k));
  if (unknown.length) throw new TypeError(`unknown query field ${unknown.map((k) => JSON.stringify(k)).join(", ")}; use role, label, title, value, id, text, exact`);
}

function matchesText(node: AXNode, text: string, exact: boolean): boolean {
  return [...labels(node), node.value, node.id].some((v) => textMatch(v, text, exact));
}

function labels(node: AXNode): (string | undefined)[] {
  return [node.title, node.desc, node.placeholder];
}

function textMatch(have: string | undefined, want: string, exact: boolean): boolean {
  if (have === undefined) return false;
  return exact ? have === want : have.toLowerCase().includes(want.toLowerCase());
}

// "button" finds every AXButton, toggle buttons included; "toggle button" only those.
export function roleMatches(node: AXNode, role: string): boolean {
  const wanted = role.toLowerCase();
  return [node.role, plainRole(node.role), plainRole(node.role, node.subrole)].some((r) => r.toLowerCase() === wanted);
}
