// The approval policy as a pure function, so both helpers can be checked against the same
// vectors (test/fixtures/policy-vectors.json). The order is the contract (docs/security.md):
// the helper itself, deny, allow, the blocked list, then the approval mode.
import type { ApprovalMode } from "../../src/config/config.js";
import { blockedName } from "./blocked-apps.js";

/** The part of config.json the policy reads. */
export interface PolicyConfig {
  approval: ApprovalMode;
  allow: readonly string[];
  deny: readonly string[];
}

/** An app as the gate sees it; every name is matched whole and case-insensitively. */
export interface PolicyApp {
  /** What people call it: the desktop entry's Name, else the executable. */
  name: string;
  /** Linux desktop file id (`galculator`), macOS bundle id. */
  bundleId?: string;
  /** Executable basename (`galculator`, `xterm`). */
  executable?: string;
  /** Further names it answers to (process name, argv[0]). */
  aliases?: readonly string[];
  /** The helper's own process: refused whatever the config says. */
  self?: boolean;
}

export type SessionChoice = "allow" | "deny";

/** The user's answers in approval dialogs during this session, by appKey(). */
export type SessionApprovals = ReadonlyMap<string, SessionChoice>;

export type RefusalCode = "blocked" | "denied" | "not_allowed";

export type Decision = { allowed: true } | { code: RefusalCode; message: string } | { ask: true };

export function decide(config: PolicyConfig, app: PolicyApp, session: SessionApprovals): Decision {
  const label = displayName(app);
  if (app.self) return refuse("blocked", `${label} is the Deskbook helper itself; it cannot be automated`);
  const names = appNames(app);
  if (listed(config.deny, names)) return refuse("denied", `${label} is on the deny list in config.json`);
  if (listed(config.allow, names)) return { allowed: true };
  if (blockedName(names) !== undefined) {
    return refuse("blocked", `${label} is blocked by default; add ${JSON.stringify(allowEntry(app))} to "allow" in config.json to unlock it`);
  }
  if (config.approval === "allow-all") return { allowed: true };
  if (config.approval === "allowlist") {
    return refuse("not_allowed", `approval is "allowlist" and ${label} is not on the allow list; add ${JSON.stringify(allowEntry(app))} to "allow" in config.json`);
  }
  const choice = session.get(appKey(app));
  if (choice === "allow") return { allowed: true };
  if (choice === "deny") return refuse("denied", `you chose Deny for ${label} in this session`);
  return { ask: true };
}

/** Every name the app answers to, without empties or repeats. */
export function appNames(app: PolicyApp): string[] {
  const all = [app.name, app.bundleId, app.executable, ...(app.aliases ?? [])];
  return [...new Set(all.filter((n): n is string => typeof n === "string" && n.trim() !== ""))];
}

/** One key per app for session approvals: the most specific name it has. */
export function appKey(app: PolicyApp): string {
  return (app.bundleId || app.executable || app.name).toLowerCase();
}

/** What "Always allow" writes to `allow`: the desktop/bundle id, else the executable, else the name. */
export function allowEntry(app: PolicyApp): string {
  return app.bundleId || app.executable || app.name;
}

function listed(list: readonly string[], names: readonly string[]): boolean {
  const lower = new Set(names.map((n) => n.toLowerCase()));
  return list.some((entry) => lower.has(entry.trim().toLowerCase()));
}

function displayName(app: PolicyApp): string {
  return app.name || app.bundleId || app.executable || "the app";
}

function refuse(code: RefusalCode, message: string): Decision {
  return { code, message };
}
