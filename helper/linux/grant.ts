// The safety tiers as pure functions, so both helpers can be checked against the same vectors
// (test/fixtures/grant-vectors.json). `grant` in config.json (and per app under `apps`) says
// what a cell may do to an app: `read-only` reads only, `act` also drives the app's own UI,
// `full` (the default) also runs scripts and force-quits. `confirm: "ask"` makes a press on an
// element labelled like pay/buy/send/delete/transfer wait for the person (confirmation.ts).
import type { AppRule, ConfirmMode, DeskbookConfig, GrantTier } from "../../src/config/config.js";
import type { MethodName } from "../../src/helper/protocol.js";
import { appNames, type PolicyApp } from "./policy.js";

/** What applies to one app: its entries under `apps` where it has some, else the top level. */
export interface AppGrant {
  grant: GrantTier;
  confirm: ConfirmMode;
}

/** Methods that only read: every tier allows them. Every other method acts. */
export const READ_METHODS: ReadonlySet<MethodName> = new Set<MethodName>([
  "hello", "ping", "permissions", "listApps", "resolveApp", "forget", "cursor",
  "isActive", "windows", "axTree", "hitTest", "elementFrame", "actionNames", "screenshot", "readText", "waitChange", "clipboardRead",
  // Sends the app only a ping its window manager could send too.
  "inputHandled",
]);

/**
 * Methods that only let go of what an earlier call holds: every tier allows them, so a key held
 * down before the grant became read-only is never left stuck down on the X server.
 */
export const RELEASE_METHODS: ReadonlySet<MethodName> = new Set<MethodName>(["keyUp"]);

/**
 * Words that make a press look destructive or costly, in the forms a button shows. Past tenses
 * (`Sent`, `Deleted`, `Paid`) are left out: those label folders and states, not actions.
 */
export const DESTRUCTIVE_WORDS: readonly string[] = [
  "pay", "pays", "paying", "payment", "payments",
  "buy", "buys", "buying", "purchase", "purchases", "purchasing", "checkout",
  "send", "sends", "sending",
  "delete", "deletes", "deleting", "remove", "removes", "removing", "erase", "erasing",
  "transfer", "transfers", "transferring",
];

export function appGrant(config: Pick<DeskbookConfig, "grant" | "confirm" | "apps">, app: PolicyApp | undefined): AppGrant {
  const rules = app ? rulesFor(config.apps, app) : [];
  const grants = rules.flatMap((rule) => rule.grant ?? []);
  const confirms = rules.flatMap((rule) => rule.confirm ?? []);
  return {
    grant: grants.length > 0 ? grants.reduce(stricter) : config.grant,
    confirm: confirms.length > 0 ? (confirms.includes("ask") ? "ask" : "off") : config.confirm,
  };
}

/** The message of a not_granted refusal, or undefined when the tier allows the call. `who`: the app, for messages. */
export function tierRefusal(grant: GrantTier, method: MethodName, params: Readonly<Record<string, unknown>>, who: string): string | undefined {
  if (READ_METHODS.has(method) || RELEASE_METHODS.has(method)) return undefined;
  if (grant === "read-only") return `${method} acts, and "grant" for ${who} is "read-only" in config.json; set it to "act" to allow actions`;
  if (grant === "act" && needsFull(method, params)) {
    const what = method === "runScript" ? "runScript" : "quit with force";
    return `${what} needs "grant": "full", and "grant" for ${who} is "act" in config.json`;
  }
  return undefined;
}

/** The word that makes `label` look destructive, or undefined. Words are runs of letters and digits. */
export function destructiveWord(label: string): string | undefined {
  const words = label.toLowerCase().split(/[^\p{L}\p{N}]+/u);
  return words.find((word) => DESTRUCTIVE_WORDS.includes(word));
}

function needsFull(method: MethodName, params: Readonly<Record<string, unknown>>): boolean {
  return method === "runScript" || (method === "quit" && params.force === true);
}

/**
 * Every `apps` entry whose key is one of the app's names (whole, case-insensitive). When several
 * match, the strictest says: so the outcome never hangs on key order, which not every JSON
 * reader keeps.
 */
function rulesFor(apps: Readonly<Record<string, AppRule>>, app: PolicyApp): AppRule[] {
  const names = new Set(appNames(app).map((n) => n.toLowerCase()));
  return Object.keys(apps).filter((name) => names.has(name.trim().toLowerCase())).map((name) => apps[name]!);
}

const TIER_ORDER: readonly GrantTier[] = ["read-only", "act", "full"];

function stricter(a: GrantTier, b: GrantTier): GrantTier {
  return TIER_ORDER.indexOf(a) <= TIER_ORDER.indexOf(b) ? a : b;
}
