// Where the macOS executable takes the InputFloor, checked on its syntax tree (tree-sitter-swift,
// the grammar of `npm run check:swift`) since it cannot be compiled or run here: every check of
// where input lands (the frontmost app, the background target) and every event it sends runs
// inside a closure handed to `holdInput`, the foreground check before the events; approval
// dialogs are asked inside `holdDialog` (the core's gate); Escape is broadcast only when the
// floor does not swallow it.
import { describe, expect, it } from "vitest";
import { callee, callsTo, enclosingClosureCalls, enclosingFunction, functionName, parseSwift as parse, type SyntaxNode } from "./swift-syntax.js";

/**
 * True when `node` runs with the floor held: inside a closure given to `holdInput`, or in a
 * private function that is only ever called from such places.
 */
function heldByFloor(root: SyntaxNode, node: SyntaxNode, seen = new Set<string>()): boolean {
  if (enclosingClosureCalls(node).some((call) => /holdInput$/.test(callee(call)))) return true;
  const fn = enclosingFunction(node);
  const name = fn ? functionName(fn) : undefined;
  if (!fn || !name || seen.has(name) || !/^\s*private /.test(fn.text)) return false;
  seen.add(name);
  const callers = callsTo(root, new RegExp(`^(self\\.)?${name}$`));
  return callers.length > 0 && callers.every((call) => heldByFloor(root, call, seen));
}

describe("the macOS dispatcher holds the input floor", () => {
  const dispatcher = parse("DeskbookHelper/MacDispatcher.swift");

  it("checks the frontmost app and the background target only with the floor held", () => {
    const checks = callsTo(dispatcher, /^(Input\.requireForeground|route\.target)$/);
    expect(checks.map(callee).sort()).toEqual(["Input.requireForeground", "route.target", "route.target"]);
    for (const check of checks) expect(heldByFloor(dispatcher, check), check.text).toBe(true);
  });

  it("sends every event with the floor held, the foreground ones after the frontmost check", () => {
    const sends = callsTo(dispatcher, /^(foreground|background|Input\.move|route\.makeKey)$/);
    expect(sends.map(callee).sort()).toEqual(["Input.move", "background", "foreground", "route.makeKey"]);
    for (const send of sends) expect(heldByFloor(dispatcher, send), send.text).toBe(true);
    const [check] = callsTo(dispatcher, /^Input\.requireForeground$/);
    const [send] = callsTo(dispatcher, /^foreground$/);
    // tree-sitter hands out a new wrapper object on each walk, so the same node is known by its span.
    const span = (node: SyntaxNode | undefined): string => `${node?.startIndex}-${node?.endIndex}`;
    expect(span(enclosingClosureCalls(send!)[0])).toBe(span(enclosingClosureCalls(check!)[0]));
    expect(check!.startIndex).toBeLessThan(send!.startIndex);
  });

  it("hands the Input and BackgroundInput senders only to `input(…)`, which holds the floor", () => {
    const senders = callsTo(dispatcher, /^(Input\.(keys|typeText|click|scroll|drag)|route\.(keys|type|click|scroll|drag))$/);
    expect(senders.length).toBe(10);
    for (const sender of senders) {
      const outer = enclosingClosureCalls(sender).map(callee);
      expect(outer, sender.text).toContain("self.input");
    }
  });

  it("takes no lock of its own around input any more", () => {
    expect(callsTo(dispatcher, /inputLock/)).toEqual([]);
  });
});

describe("the approval dialog and the Escape watcher follow the floor", () => {
  it("asks the approver inside holdDialog (the core's gate)", () => {
    const gate = parse("DeskbookHelperCore/ApprovalGate.swift");
    const asks = callsTo(gate, /^approver\.ask$/);
    expect(asks).toHaveLength(1);
    expect(enclosingClosureCalls(asks[0]!).map(callee)).toContain("floor.holdDialog");
  });

  it("broadcasts Escape only when the floor does not swallow it", () => {
    const main = parse("DeskbookHelper/main.swift");
    const broadcasts = callsTo(main, /^server\.broadcast$/).filter((call) => call.text.includes(".escape"));
    expect(broadcasts).toHaveLength(1);
    let guarded = false;
    for (let at = broadcasts[0]!.parent; at; at = at.parent) {
      if (at.type === "if_statement" && at.text.includes("!inputFloor.escapeIsSwallowed()")) guarded = true;
    }
    expect(guarded).toBe(true);
  });
});
