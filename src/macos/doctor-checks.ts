// `deskbook doctor` on macOS: the checks as a function of facts gathered elsewhere, so the
// list can be tested on any machine.
import type { PermissionsResult, PingResult } from "../helper/protocol.js";
import { describeSigning } from "./build-plan.js";
import type { HelperAppState } from "./helper-app.js";
import type { SigningIdentity } from "./signing-identity.js";

export interface MacCheck {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string;
  /** Missing it costs a feature, not the helper: reported, but doctor still passes. */
  optional?: boolean;
}

export interface MacFacts {
  app: HelperAppState;
  /** The identity, undefined when absent, or the error `security` gave. */
  identity: SigningIdentity | undefined | { error: string };
  /** The helper's `ping`, or why it did not answer. */
  ping: PingResult | { error: string };
  /** `permissions` without prompting; undefined when the helper did not answer. */
  permissions: PermissionsResult | undefined;
}

export function macosChecks(facts: MacFacts): MacCheck[] {
  return [appCheck(facts.app), identityCheck(facts.identity), ...helperChecks(facts.ping), ...permissionChecks(facts.permissions)];
}

function appCheck(app: HelperAppState): MacCheck {
  const name = "helper app";
  if (app.state === "missing") return { name, ok: false, detail: `not built (${app.paths.app})`, fix: "deskbook setup" };
  if (app.state === "stale") return { name, ok: false, detail: `built from other source than this Deskbook's (${app.paths.app})`, fix: "deskbook setup" };
  return { name, ok: true, detail: `built and up to date (${app.paths.app})` };
}

function identityCheck(identity: MacFacts["identity"]): MacCheck {
  const name = "signing identity";
  if (identity && "error" in identity) return { name, ok: false, optional: true, detail: `could not ask the keychain: ${identity.error}` };
  if (!identity) return { name, ok: false, optional: true, detail: describeSigning(undefined), fix: "deskbook signing --create && deskbook setup --rebuild" };
  return { name, ok: true, detail: describeSigning(identity) };
}

function helperChecks(ping: MacFacts["ping"]): MacCheck[] {
  if ("error" in ping) {
    return [{ name: "helper", ok: false, detail: `does not answer: ${ping.error}`, fix: "deskbook setup" }];
  }
  const found = Object.entries(ping.background).filter(([, present]) => present).map(([fn]) => fn);
  return [
    { name: "helper", ok: true, detail: `${ping.version}, pid ${ping.pid}` },
    {
      // Informational: clients fall back to foreground input on their own.
      name: "background input",
      ok: true,
      detail: found.length ? `found ${found.join(", ")}` : "no private input functions found: input brings the app forward",
    },
  ];
}

function permissionChecks(permissions: PermissionsResult | undefined): MacCheck[] {
  const entries: Array<[keyof PermissionsResult, string, boolean]> = [
    ["accessibility", "Accessibility", false],
    ["screenRecording", "Screen Recording", false],
    ["inputMonitoring", "Input Monitoring", true],
  ];
  return entries.map(([key, name, optional]) => {
    if (!permissions) return { name, ok: false, detail: "unknown: the helper does not answer", fix: "deskbook setup", ...(optional && { optional }) };
    const ok = permissions[key];
    const detail = ok ? "granted" : optional ? "not granted: Escape does not stop a running cell" : "not granted";
    return { name, ok, detail, fix: optional ? "deskbook setup, then deskbook setup --restart once it is on" : "deskbook setup", ...(optional && { optional }) };
  });
}
