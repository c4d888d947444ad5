// The message of a failed `app.expect`: what was expected, the elements nearest to it, and
// the tree as it was at the deadline, so a failed run's output says why without a rerun.
// Also the errors waitFor and expect end with at their deadline.
import type { AXNode } from "../helper/protocol.js";
import type { WaitOptions } from "./change-wait.js";
import { formatTree, type FormatInput } from "./ax-text.js";
import { describeQuery, roleMatches, type Query } from "./query.js";
import { describeEntry, withAncestors } from "./locate.js";

export interface ExpectOptions extends WaitOptions {
  /** How long to wait for the postcondition, in ms (default 5000). */
  timeout?: number;
  /** Expect no element to match. */
  gone?: boolean;
}

/** How many lines of the tree a failure quotes; the rest is counted. */
const TREE_LINES = 60;

export class ExpectationFailed extends Error {
  override readonly name = "ExpectationFailed";
  readonly code = "expectation_failed" as const;
}

/** waitFor's error at its deadline: named and coded like ExpectationFailed. */
export class WaitTimeout extends Error {
  override readonly name = "WaitTimeout";
  readonly code = "wait_timeout" as const;
}

export interface Failure {
  app: string;
  query: Query;
  timeout: number;
  gone: boolean;
  /** What matched at the deadline (for `gone`, what was still there). */
  hits: readonly AXNode[];
  tree: FormatInput;
}

export function expectationFailure(failure: Failure): ExpectationFailed {
  const wanted = describeQuery(failure.query);
  const lines = [
    failure.gone
      ? `expected nothing in ${failure.app} to match ${wanted} within ${failure.timeout} ms; still there: ${failure.hits.slice(0, 5).map((n) => describeEntry({ node: n, ancestors: [] })).join("; ")}`
      : `expected ${wanted} in ${failure.app} within ${failure.timeout} ms; nothing matches.`,
  ];
  const sameRole = failure.gone ? [] : sameRoleAs(failure.query, failure.tree.nodes);
  if (sameRole.length) lines.push(`Elements with that role: ${sameRole.join("; ")}`);
  const tree = formatTree(failure.tree).split("\n");
  lines.push("The tree holds:", ...tree.slice(0, TREE_LINES + 1));
  if (tree.length > TREE_LINES + 1) lines.push(`… ${tree.length - TREE_LINES - 1} more lines`);
  return new ExpectationFailed(lines.join("\n"));
}

/** Up to eight elements of the wanted role, with what they hold: usually the answer to "why not?". */
function sameRoleAs(query: Query, nodes: readonly AXNode[]): string[] {
  if (typeof query === "string" || query.role === undefined) return [];
  const role = query.role;
  return withAncestors(nodes)
    .filter((e) => roleMatches(e.node, role))
    .slice(0, 8)
    .map(describeEntry);
}
