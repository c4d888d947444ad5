// What `deskbook setup` does to the helper bundle, decided from facts alone (so it is testable
// anywhere): nothing when it is current, else quit, build, assemble, sign, verify, install.
import type { HelperAppState } from "./helper-app.js";
import { SIGNING_IDENTITY_NAME, type SigningIdentity } from "./signing-identity.js";

export type BuildStep =
  | { kind: "quit-helper" }
  | { kind: "swift-build" }
  | { kind: "assemble" }
  | { kind: "sign"; identity: string }
  | { kind: "verify" }
  | { kind: "install" };

export interface BuildFacts {
  state: HelperAppState["state"];
  /** `--rebuild` was given. */
  rebuild: boolean;
  identity: SigningIdentity | undefined;
}

export interface BuildPlan {
  /** Why it builds; undefined when the bundle is current and nothing is done. */
  reason: string | undefined;
  steps: BuildStep[];
  /** One line for the user: which signature the bundle gets and what that means. */
  signing: string;
}

export function planBuild(facts: BuildFacts): BuildPlan {
  const signing = describeSigning(facts.identity);
  const reason = buildReason(facts);
  if (!reason) return { reason, steps: [], signing };
  const identity = facts.identity?.sha1 ?? "-";
  return {
    reason,
    signing,
    // A running helper is quit first: it is the old code, and it holds the old grants.
    steps: [{ kind: "quit-helper" }, { kind: "swift-build" }, { kind: "assemble" }, { kind: "sign", identity }, { kind: "verify" }, { kind: "install" }],
  };
}

function buildReason(facts: BuildFacts): string | undefined {
  if (facts.rebuild) return "--rebuild was given";
  if (facts.state === "missing") return "the helper app is not built yet";
  if (facts.state === "stale") return "the helper's Swift source changed since it was built";
  return undefined;
}

export function describeSigning(identity: SigningIdentity | undefined): string {
  if (identity) return `signed with the local identity "${identity.name}" (${identity.sha1}): grants survive rebuilds`;
  return `signed ad hoc: there is no "${SIGNING_IDENTITY_NAME}" identity, so every rebuild loses the permission grants (run \`deskbook signing --create\`, then \`deskbook setup --rebuild\`)`;
}
