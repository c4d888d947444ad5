// Evidence, on the syntax tree of the macOS helper's Swift, for the fixes of the second review
// (helper/macos/README.md, "The second review") that can be seen without a compiler: what a
// tree node reads and in how many messages, which window ids `windows` hands out, how the
// background route builds and posts its events, what `type` and `keys` send, how screenshots
// are configured and gated, and what `launch` waits for. The behaviour itself needs a Mac.
import { describe, expect, it } from "vitest";
import { callee, callsTo, enclosingFunction, functionName, functionsNamed, parseSwift, stringLiterals, type SyntaxNode } from "./swift-syntax.js";

const only = (root: SyntaxNode, name: string): SyntaxNode => {
  const found = functionsNamed(root, name);
  expect(found, `one function ${name}`).toHaveLength(1);
  return found[0]!;
};
const inFunction = (node: SyntaxNode): string => {
  const fn = enclosingFunction(node);
  return fn ? (functionName(fn) ?? "?") : "(top level)";
};

describe("axTree reads each node in one message, within a timeout", () => {
  const ax = parseSwift("DeskbookHelper/Accessibility.swift");
  const attributes = (() => {
    const declaration = ax.descendantsOfType("property_declaration").find((p) => p.text.includes("nodeAttributes ="));
    return stringLiterals(declaration?.text ?? "");
  })();

  it("reads every attribute a node uses in the batch", () => {
    expect(attributes.length).toBeGreaterThan(10);
    // Every AX name the two functions spell, but the action, the fallback role and the role compared.
    const notAttributes = new Set(["AXPress", "AXUnknown", "AXScrollArea"]);
    const used = new Set<string>();
    for (const name of ["node", "read"]) {
      for (const literal of stringLiterals(only(ax, name).text)) if (/^AX\w+$/.test(literal) && !notAttributes.has(literal)) used.add(literal);
    }
    expect(used.size).toBeGreaterThan(10);
    for (const attribute of used) expect(attributes, attribute).toContain(attribute);
  });

  it("makes no one-attribute reads per node", () => {
    const singles = /^AX\.(value|string|bool|element|elements|text|frame)$/;
    for (const name of ["node", "read"]) {
      const calls = callsTo(only(ax, name), singles).filter((call) => !/AX\.(text|frame)\((values|position)/.test(call.text));
      expect(calls.map((c) => c.text), name).toEqual([]);
    }
    expect(callsTo(only(ax, "read"), /^AX\.values$/)).toHaveLength(1);
  });

  it("sets the global messaging timeout before the server starts", () => {
    const main = parseSwift("DeskbookHelper/main.swift");
    const [timeout] = callsTo(main, /^AX\.setGlobalTimeout$/);
    const [start] = callsTo(main, /^server\.start$/);
    expect(timeout && start && timeout.startIndex < start.startIndex).toBe(true);
    expect(only(ax, "setGlobalTimeout").text).toContain("AXUIElementSetMessagingTimeout(AXUIElementCreateSystemWide()");
  });

  it("walks with the core's TreeWalk (menu bar nested, off-screen left out, a time budget)", () => {
    const walks = callsTo(only(ax, "tree"), /^TreeWalk\.walk$/);
    expect(walks).toHaveLength(1);
    expect(walks[0]!.text).toMatch(/menuBar: menus \?/);
    expect(walks[0]!.text).toMatch(/expired:/);
  });
});

describe("windows hands out only ids the background route accepts", () => {
  it("keeps a window id from _AXUIElementGetWindow only when it is one of the app's layer-0 windows", () => {
    const windows = parseSwift("DeskbookHelper/Windows.swift");
    const describe = only(windows, "describe").text;
    expect(describe).toMatch(/context\.serverWindows\.contains\(where: \{ \$0\.id == direct \}\)/);
    // serverWindows is the layer-0 list that serverWindow(pid:windowId:), the background route's check, reads.
    expect(only(windows, "serverWindows").text).toMatch(/layer\.intValue == 0/);
    expect(only(windows, "serverWindow").text).toMatch(/serverWindows\(\)/);
  });
});

describe("the background route", () => {
  const route = parseSwift("DeskbookHelper/BackgroundInput.swift");

  it("builds every mouse event with AppKit, addressed to the target window", () => {
    expect(callsTo(route, /^Input\.mouseEvent$/)).toEqual([]);
    const built = callsTo(route, /^Input\.appKitMouseEvent$/);
    expect(built).toHaveLength(1);
    expect(built[0]!.text).toContain("windowNumber: target.windowId");
    const input = parseSwift("DeskbookHelper/Input.swift");
    const make = only(input, "appKitMouseEvent").text;
    expect(make).toMatch(/NSEvent\.mouseEvent\(\s*with:/);
    expect(make).toMatch(/windowNumber: Int\(windowNumber\)/);
    for (const field of ["mouseEventButtonNumber", "mouseEventSubtype", "mouseEventClickState"]) expect(make).toContain(`.${field}`);
  });

  it("posts mouse events in one place, by one route chosen by the app kind, scrolls included", () => {
    const posts = callsTo(route, /postToPid$/);
    expect([...new Set(posts.map(inFunction))].sort()).toEqual(["prepareKeys", "send"]);
    const send = only(route, "send").text;
    expect(send).toMatch(/if mouse\.target\.chromium[\s\S]*\} else \{/);
    const scroll = only(route, "scroll");
    expect(callsTo(scroll, /^send$/)).toHaveLength(2); // the move and the one wheel event
    expect(callsTo(scroll, /postToPid/)).toEqual([]);
  });

  it("sends the defocus record to the front process before the focus record, for keys and the mouse", () => {
    const focus = only(route, "focusWithoutRaise");
    const records = callsTo(focus, /^EventRecords\.(defocus|focus)$/).map(callee);
    expect(records).toEqual(["EventRecords.defocus", "EventRecords.focus"]);
    expect(callsTo(focus, /^SkyLight\.frontProcessSerialNumber$/)).toHaveLength(1);
    const users = callsTo(route, /^EventRecords\.focus$/).map(inFunction);
    expect(users).toEqual(["focusWithoutRaise"]);
    expect(callsTo(route, /^focusWithoutRaise$/).map(inFunction).sort()).toEqual(["mouse", "prepareKeys"]);
  });

  it("keeps listening for the target's activation after the last event", () => {
    const guardSource = parseSwift("DeskbookHelper/FocusGuard.swift");
    expect(guardSource.text).toContain("NSWorkspace.didActivateApplicationNotification");
    expect(only(guardSource, "restore").text).toMatch(/Thread\.sleep\(forTimeInterval: FocusGuard\.settle\)/);
  });
});

describe("keys and typing", () => {
  const input = parseSwift("DeskbookHelper/Input.swift");

  it("never presses fn as a key: it is a flag only", () => {
    const declaration = input.descendantsOfType("property_declaration").find((p) => p.text.includes("modifierKeys:"));
    const names = stringLiterals(declaration?.text ?? "");
    expect(names.sort()).toEqual(["alt", "ctrl", "shift", "super"]);
    const flags = input.descendantsOfType("property_declaration").find((p) => p.text.includes("modifierFlags:"));
    expect(flags?.text).toContain('"fn": .maskSecondaryFn');
  });

  it("types one TypedText piece per key pair, with the gap after each", () => {
    const type = only(input, "typeText").text;
    expect(type).toMatch(/for piece in TypedText\.pieces\(text\)/);
    expect(type).toMatch(/usleep\(TypedText\.gapMicroseconds\)/);
  });
});

describe("screenshots and launch", () => {
  it("fill the requested size and are gated by ScreenCaptureKit's own answer", () => {
    const shots = parseSwift("DeskbookHelper/Screenshots.swift");
    expect(shots.text).toMatch(/configuration\.preservesAspectRatio = false/);
    expect(shots.text).toMatch(/onScreenWindowsOnly: true/);
    expect(callsTo(shots, /CGPreflightScreenCaptureAccess/)).toEqual([]);
    expect(only(shots, "isDeclined").text).toContain("SCStreamError.Code.userDeclined");
  });

  it("launch waits for a window, and the catalog lists an app installed twice once", () => {
    const apps = parseSwift("DeskbookHelper/Apps.swift");
    expect(callsTo(only(apps, "launch"), /^(try )?waitForWindow$/)).toHaveLength(1);
    expect(only(apps, "installedApps").text).toMatch(/if seen\.contains\(id\) \{ continue \}/);
  });
});
