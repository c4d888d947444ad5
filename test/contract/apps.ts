// The app profile: everything the contract suite must know about the apps it drives on one
// platform. The tests are the same on every OS; a Mac run swaps this profile (Calculator and
// TextEdit for galculator and mousepad), nothing else.
import type { AppInfo, AXNode, KeyChord, LaunchParams } from "../../src/helper/protocol.js";

/** The calculator keys the suite presses. */
export type CalcKey = Digit | "times" | "equals" | "clear";
type Digit = "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9";

export interface AppProfile {
  /** What `launch` gets. */
  launch: LaunchParams;
  /** A name `resolveApp` must know, matched case-insensitively. */
  name: string;
  /** Whether an AppInfo from listApps/resolveApp/launch is this app. */
  is(app: AppInfo): boolean;
}

export interface CalculatorProfile extends AppProfile {
  /** The on-screen button that enters `key`. */
  button(nodes: AXNode[], key: CalcKey): AXNode | undefined;
  /** The element whose value shows the result. */
  display(nodes: AXNode[]): AXNode | undefined;
}

export interface EditorProfile extends AppProfile {
  /** The document's text element. */
  textArea(nodes: AXNode[]): AXNode | undefined;
  selectAll: KeyChord;
  /** Caret to the start of the document (which scrolls the view to the top). */
  documentStart: KeyChord;
  /** Opens a second document window; `closeWindow` closes it again (it is unmodified: no prompt). */
  newWindow: KeyChord;
  closeWindow: KeyChord;
}

export interface PlatformProfile {
  platform: "linux" | "darwin";
  calculator: CalculatorProfile;
  editor: EditorProfile;
  /** An app the gate blocks by default (a terminal), started outside the helper; `name` is what resolveApp knows it by. */
  blocked: { name: string; command: string; args: string[] };
  /** Presses Escape the way a user would: from another process, not through the helper. */
  userEscape: { command: string; args: string[] };
}

/** The first node with a frame (on screen) that passes `test`. */
function onScreen(nodes: AXNode[], test: (node: AXNode) => boolean): AXNode | undefined {
  return nodes.find((node) => node.frame !== undefined && test(node));
}

/** The labels a key may carry: a digit is its own label, the others as the app names them. */
function labels(others: Record<Exclude<CalcKey, Digit>, readonly string[]>): (key: CalcKey) => readonly string[] {
  return (key) => (key === "times" || key === "equals" || key === "clear" ? others[key] : [key]);
}

// GTK 3 apps on X11 (Debian's galculator 2.1 and mousepad 0.5).
// Builds differ in the multiplication sign.
const galculatorLabels = labels({ times: ["×", "*"], equals: ["="], clear: ["AC"] });

const linux: PlatformProfile = {
  platform: "linux",
  calculator: {
    launch: { bundleId: "galculator" },
    name: "Galculator",
    is: (app) => app.bundleId === "galculator",
    button: (nodes, key) => onScreen(nodes, (n) => n.role === "AXButton" && galculatorLabels(key).includes(n.title ?? "")),
    // The display is the window's only text element; its content is in `value`, not the name.
    display: (nodes) => onScreen(nodes, (n) => n.role === "AXTextArea" || n.role === "AXTextField"),
  },
  editor: {
    launch: { bundleId: "org.xfce.mousepad" },
    name: "Mousepad",
    is: (app) => app.bundleId === "org.xfce.mousepad",
    textArea: (nodes) => onScreen(nodes, (n) => n.role === "AXTextArea" && n.settable === true),
    selectAll: { key: "a", mods: ["ctrl"] },
    documentStart: { key: "Home", mods: ["ctrl"] },
    // Mousepad's ctrl+n is a new tab; a new window is ctrl+shift+n.
    newWindow: { key: "n", mods: ["ctrl", "shift"] },
    closeWindow: { key: "w", mods: ["ctrl", "shift"] },
  },
  blocked: { name: "XTerm", command: "xterm", args: [] },
  // xdotool sends through XTEST like the helper does; the helper must still tell the two apart.
  userEscape: { command: "xdotool", args: ["key", "Escape"] },
};

// Not yet run on a Mac: the labels follow Calculator's AX descriptions and may need adjusting there.
const calculatorLabels = labels({ times: ["multiply", "×"], equals: ["equals", "="], clear: ["all clear", "clear", "ac", "c"] });

const darwin: PlatformProfile = {
  platform: "darwin",
  calculator: {
    launch: { bundleId: "com.apple.calculator" },
    name: "Calculator",
    is: (app) => app.bundleId === "com.apple.calculator",
    // Calculator's keys have no title; their label is the description.
    button: (nodes, key) =>
      onScreen(nodes, (n) => n.role === "AXButton" && calculatorLabels(key).includes((n.title || n.desc || "").toLowerCase())),
    display: (nodes) => onScreen(nodes, (n) => n.role === "AXStaticText" && /display/i.test(n.desc ?? "")),
  },
  editor: {
    launch: { bundleId: "com.apple.TextEdit" },
    name: "TextEdit",
    is: (app) => app.bundleId === "com.apple.TextEdit",
    textArea: (nodes) => onScreen(nodes, (n) => n.role === "AXTextArea"),
    selectAll: { key: "a", mods: ["super"] },
    documentStart: { key: "Up", mods: ["super"] },
    newWindow: { key: "n", mods: ["super"] },
    closeWindow: { key: "w", mods: ["super"] },
  },
  blocked: { name: "Terminal", command: "/System/Applications/Utilities/Terminal.app/Contents/MacOS/Terminal", args: [] },
  // System Events posts the key as another process; the helper must report it.
  userEscape: { command: "osascript", args: ["-e", 'tell application "System Events" to key code 53'] },
};

export function platformProfile(platform: string = process.platform): PlatformProfile {
  if (platform === "darwin") return darwin;
  return linux;
}
