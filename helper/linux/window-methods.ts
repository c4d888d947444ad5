// Windows: windows, axTree, screenshot, makeKey. Window indices and ids come from X11; the
// AT-SPI tree of the window the caller means is found by matching its title and frame.
import { setTimeout as sleep } from "node:timers/promises";
import { DeskError } from "../../src/helper/desk-error.js";
import type { AXNode, AXTreeParams, AXTreeResult, WindowInfo } from "../../src/helper/protocol.js";
import type { AtspiWindow } from "./atspi.js";
import { AtspiError } from "./atspi-error.js";
import type { HandlerTable } from "./method-types.js";
import { recognizeLines } from "./ocr.js";
import { whyNotRegistered } from "./registration-check.js";
import { joinsAtspi } from "./toolkit-probe.js";
import { captureWindow } from "./screenshot.js";
import type { Services } from "./services.js";
import { ownWindow } from "./window-actions.js";
import { activeWindowId, windowsOfPid } from "./windows.js";

type WindowMethods = Pick<HandlerTable, "windows" | "axTree" | "screenshot" | "readText" | "makeKey">;

/** How long axTree waits for an X11 window to appear in the app's accessible tree. */
export const ACCESSIBLE_WAIT_MS = 3_000;
const ACCESSIBLE_POLL_MS = 100;

export const windowMethods: WindowMethods = {
  windows: ({ pid }) => windowsOfPid(pid),
  axTree: async (params, ctx) => {
    const atspi = await ctx.services.atspi();
    const options = { ...limits(params, ctx.services), menus: params.menus === true };
    // X11 lists a new window a moment before the app's accessible tree has it: wait for it
    // (choosing again each time, as the list may change), never answer another window's tree.
    const deadline = Date.now() + ACCESSIBLE_WAIT_MS;
    for (;;) {
      const windows = await windowsOfPid(params.pid);
      const chosen = chooseWindow(windows, params.window, params.pid);
      try {
        const others = windows.filter((w) => w !== chosen).map((w) => w.title);
        const match = chosen && { title: chosen.title, frame: chosen.frame, alone: windows.length === 1, others };
        const tree = await atspi.tree(params.pid, match ? { ...options, window: match } : options);
        return { window: chosen ?? fromAccessible(tree.windowAccessible), nodes: tree.nodes, truncated: tree.truncated };
      } catch (error) {
        // An X window with no accessible app behind it: a one-node tree, so the caller turns to pixels.
        if (chosen && error instanceof AtspiError && error.code === "not_running") return windowOnlyTree(chosen, await noTreeNote(params.pid, ctx.services));
        if (!chosen || !(error instanceof AtspiError) || error.code !== "no_window") throw error;
        if (Date.now() >= deadline) {
          throw new DeskError(
            "no_window",
            `pid ${params.pid}'s window ${chosen.index} (${JSON.stringify(chosen.title)}) is not in its accessibility tree after ${ACCESSIBLE_WAIT_MS} ms; read again once it has opened`,
          );
        }
        await sleep(ACCESSIBLE_POLL_MS);
      }
    }
  },
  screenshot: async ({ pid, windowId, width, height, format, quality, marks }) => {
    await ownWindow(pid, windowId);
    const capture = await captureWindow(windowId, width, height, format ?? "png", quality ?? 80, marks);
    return { data: capture.data.toString("base64"), width: capture.width, height: capture.height, mimeType: capture.mimeType };
  },
  readText: async ({ pid, windowId, width, height, region, ...options }) => {
    await ownWindow(pid, windowId);
    if (region && (region[2] < 1 || region[3] < 1 || region[0] + region[2] > width || region[1] + region[3] > height)) {
      throw new DeskError("bad_request", `readText params: region ${JSON.stringify(region)} is not inside the ${width}×${height} image`);
    }
    const capture = await captureWindow(windowId, width, height, "png", 80);
    return { lines: await recognizeLines(capture.data, region, options) };
  },
  // X11 has no "key window inside an app" apart from the active window, and making one
  // active is activating the app; so this only reports whether it already is.
  makeKey: async ({ pid, windowId }) => {
    await ownWindow(pid, windowId);
    return { keyed: (await activeWindowId()) === windowId };
  },
};

/** The window `index` names, else the focused, main or first one; undefined when X11 lists none. */
function chooseWindow(windows: WindowInfo[], index: number | undefined, pid: number): WindowInfo | undefined {
  if (index !== undefined) {
    const found = windows.find((w) => w.index === index);
    if (!found) throw new DeskError("no_window", `pid ${pid} has no window ${index} (it has ${windows.length})`);
    return found;
  }
  return windows.find((w) => w.focused) ?? windows.find((w) => w.main) ?? windows[0];
}

/** The tree of an app with no accessible tree: its window alone (index 0, never an element). */
function windowOnlyTree(window: WindowInfo, note: string): AXTreeResult {
  const node: AXNode = { i: 0, d: 0, role: "AXWindow", frame: [0, 0, window.frame[2], window.frame[3]] };
  if (window.title) node.title = window.title;
  if (window.subrole) node.subrole = window.subrole;
  return { window, nodes: [node], truncated: false, note };
}

const BY_PIXELS = "drive it by pixels, with getScreenshot(), click([x, y]), typeText and readText";

/** Why the window stands alone: a toolkit without accessibility (xcalc), or one that joins AT-SPI but this app has not. */
async function noTreeNote(pid: number, services: Services): Promise<string> {
  if ((await joinsAtspi(pid)) !== true) return `this app exposes no accessibility (no AT-SPI tree): ${BY_PIXELS}`;
  const why = await whyNotRegistered(pid, services);
  const reason = why?.reason ?? "it is on the accessibility bus but has not registered with the AT-SPI registry yet (read again; deskbook doctor checks the registry)";
  return `this app's toolkit has accessibility, but the app has not joined the accessibility tree: ${reason}. Until it does, ${BY_PIXELS}`;
}

/** Defaults from config.json's ax section, as the protocol says. */
function limits(params: AXTreeParams, services: Services): { maxNodes: number; maxDepth: number; maxText: number } {
  const ax = services.config().ax;
  return {
    maxNodes: params.maxNodes ?? ax.maxNodes,
    maxDepth: params.maxDepth ?? ax.maxDepth,
    maxText: params.maxText ?? ax.maxTextLength,
  };
}

/** An accessible window with no X11 twin (no window manager, or an app X11 does not name). */
function fromAccessible(window: AtspiWindow): WindowInfo {
  const info: WindowInfo = {
    index: window.index,
    title: window.title,
    frame: window.frame ?? [0, 0, 0, 0],
    scale: 1,
    focused: window.focused,
    main: window.index === 0,
    minimized: window.minimized,
  };
  if (window.subrole) info.subrole = window.subrole;
  return info;
}
