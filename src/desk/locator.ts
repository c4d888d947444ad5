// A locator names an element by what a person sees — its role and label, the labelled
// elements around it, the window's title — instead of by its index, which changes whenever
// the app or the helper restarts. It is a plain object, written by hand or by the recorder:
//   { role: "push button", label: "Save", within: [{ role: "dialog", label: "Save As" }] }
import { plainRole } from "./roles.js";
import type { AXNode } from "../helper/protocol.js";

/** One ancestor of the element: any of role, label and id. */
export interface LocatorStep {
  role?: string;
  /** title, description or placeholder */
  label?: string;
  id?: string;
}

export interface Locator extends LocatorStep {
  /** The element's value, for elements known by what they hold (a display, a filled field). */
  value?: string;
  /** Ancestors, outermost first; each must be found above the element in this order, gaps allowed. */
  within?: LocatorStep[];
  /** The title of the window the element is in (default: the app's front window). */
  window?: string;
  /** Which one, counting from 0 in tree order, when the rest matches several. */
  nth?: number;
  /** "contains": let an action take an element whose text only contains the locator's (locate always may). */
  match?: "contains";
}

const STEP_FIELDS = ["role", "label", "id"] as const;
const LOCATOR_FIELDS = new Set<string>([...STEP_FIELDS, "value", "within", "window", "nth", "match"]);

/** Throws a TypeError that says what a locator looks like when `value` is not one. */
export function validateLocator(value: unknown): asserts value is Locator {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new TypeError(`a locator is an object like { role: "push button", label: "OK" }, not ${JSON.stringify(value)}`);
  const locator = value as Record<string, unknown>;
  const unknown = Object.keys(locator).filter((k) => !LOCATOR_FIELDS.has(k));
  if (unknown.length) throw new TypeError(`unknown locator field ${unknown.map((k) => JSON.stringify(k)).join(", ")}; use role, label, id, value, within, window, nth, match`);
  for (const key of ["role", "label", "id", "value", "window"]) checkText(locator[key], key);
  if (locator.role === undefined && locator.label === undefined && locator.id === undefined && locator.value === undefined) {
    throw new TypeError("a locator needs at least one of role, label, id or value");
  }
  if (locator.nth !== undefined && (!Number.isInteger(locator.nth) || (locator.nth as number) < 0)) throw new TypeError(`a locator's nth is a whole number from 0, not ${JSON.stringify(locator.nth)}`);
  if (locator.match !== undefined && locator.match !== "contains") throw new TypeError(`a locator's match is "contains" (or left out for exact and tolerant matches only), not ${JSON.stringify(locator.match)}`);
  if (locator.within !== undefined) {
    if (!Array.isArray(locator.within)) throw new TypeError("a locator's within is a list of ancestors, outermost first: [{ role: \"dialog\", label: \"Save As\" }]");
    locator.within.forEach((step: unknown, n) => checkStep(step, n));
  }
}

function checkStep(step: unknown, n: number): void {
  if (typeof step !== "object" || step === null || Array.isArray(step)) throw new TypeError(`within[${n}] is an object like { role: "dialog", label: "Save As" }`);
  const fields = step as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((k) => !(STEP_FIELDS as readonly string[]).includes(k));
  if (unknown.length) throw new TypeError(`unknown field ${unknown.map((k) => JSON.stringify(k)).join(", ")} in within[${n}]; an ancestor has role, label, id`);
  if (STEP_FIELDS.every((k) => fields[k] === undefined)) throw new TypeError(`within[${n}] needs a role, label or id`);
  for (const key of STEP_FIELDS) checkText(fields[key], `within[${n}].${key}`);
}

function checkText(value: unknown, name: string): void {
  if (value !== undefined && (typeof value !== "string" || value === "")) throw new TypeError(`a locator's ${name} is a non-empty string, not ${JSON.stringify(value)}`);
}

/** An element's label as locators and queries read it: title, else description, else placeholder. */
export function locatorLabel(node: AXNode): string | undefined {
  return [node.title, node.desc, node.placeholder].find((t) => t !== undefined && t.trim() !== "");
}

/** The locator's fields that describe one element of `node`'s own (no ancestors, window, nth). */
export function stepOf(node: AXNode): LocatorStep {
  const step: LocatorStep = { role: plainRole(node.role, node.subrole) };
  const label = locatorLabel(node);
  if (label !== undefined) step.label = label;
  if (node.id) step.id = node.id;
  return step;
}

/** The locator as JavaScript source, the way the recorder writes it into a recipe. */
export function locatorSource(locator: Locator): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(locator)) {
    if (value === undefined) continue;
    if (key === "within") parts.push(`within: [${(value as LocatorStep[]).map((s) => objectSource(s)).join(", ")}]`);
    else parts.push(`${key}: ${JSON.stringify(value)}`);
  }
  return `{ ${parts.join(", ")} }`;
}

function objectSource(step: LocatorStep): string {
  return `{ ${Object.entries(step).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(", ")} }`;
}
