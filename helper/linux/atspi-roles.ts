// AT-SPI roles (AtspiRole in atspi-constants.h, the number Cache.GetItems and GetRole return)
// and their macOS AX names, which the protocol uses on every OS.
//
// Decisions (where AT-SPI and macOS do not line up one to one):
// - toggle button → AXButton, subrole AXToggle. macOS reports toggle-style NSButtons as
//   AXCheckBox/AXToggle, but GTK uses toggle buttons for plain buttons too (every key of
//   galculator), and a cell looking for "the 7 button" must find AXButton. It carries no value,
//   like an AXButton: galculator flashes a key "checked" for a moment after each press, and a
//   value that flickers would show up in every tree diff.
// - check box / radio button / check and radio menu items carry value "1" or "0", as on macOS.
// - label (and other static text) → AXStaticText whose text is the VALUE, not the title, as
//   on macOS.
// - text, entry, editbar → AXTextArea when the MULTI_LINE state is set, else AXTextField;
//   password text → AXTextField/AXSecureTextField, and its text is never read.
// - frame → AXWindow/AXStandardWindow; dialog, alert, file chooser and friends at the top
//   level → AXWindow/AXDialog; window (popups, tooltips) → AXWindow/AXFloatingWindow.
// - menu → AXMenuBarItem directly under a menu bar, else AXMenuItem (a submenu's item);
//   popup menu → AXMenu; separators inside menus → AXMenuItem without a title, like macOS.
// - page tab → AXRadioButton/AXTabButton, page tab list → AXTabGroup, as AppKit does.
// - list item and tree item → AXRow (tree item with subrole AXOutlineRow); table cell → AXCell.
// - containers without a macOS twin (panel, filler, viewport, section, …) → AXGroup; anything
//   else unknown → AXUnknown.
import { State, type StateSet } from "./atspi-states.js";

export const ROLE_NAMES: readonly string[] = [
  "invalid", "accelerator label", "alert", "animation", "arrow", "calendar", "canvas", "check box",
  "check menu item", "color chooser", "column header", "combo box", "date editor", "desktop icon",
  "desktop frame", "dial", "dialog", "directory pane", "drawing area", "file chooser", "filler",
  "focus traversable", "font chooser", "frame", "glass pane", "html container", "icon", "image",
  "internal frame", "label", "layered pane", "list", "list item", "menu", "menu bar", "menu item",
  "option pane", "page tab", "page tab list", "panel", "password text", "popup menu", "progress bar",
  "push button", "radio button", "radio menu item", "root pane", "row header", "scroll bar",
  "scroll pane", "separator", "slider", "spin button", "split pane", "status bar", "table",
  "table cell", "table column header", "table row header", "tearoff menu item", "terminal", "text",
  "toggle button", "tool bar", "tool tip", "tree", "tree table", "unknown", "viewport", "window",
  "extended", "header", "footer", "paragraph", "ruler", "application", "autocomplete", "editbar",
  "embedded", "entry", "chart", "caption", "document frame", "heading", "page", "section",
  "redundant object", "form", "link", "input method window", "table row", "tree item",
  "document spreadsheet", "document presentation", "document text", "document web",
  "document email", "comment", "list box", "grouping", "image map", "notification", "info bar",
  "level bar", "title bar", "block quote", "audio", "video", "definition", "article", "landmark",
  "log", "marquee", "math", "rating", "timer", "static", "math fraction", "math root", "subscript",
  "superscript", "description list", "description term", "description value", "footnote",
  "content deletion", "content insertion", "mark", "suggestion", "push button menu",
];

/** Role numbers the service code refers to by name. */
export const Role = {
  CHECK_BOX: 7,
  CHECK_MENU_ITEM: 8,
  COMBO_BOX: 11,
  DIALOG: 16,
  FRAME: 23,
  LABEL: 29,
  MENU: 33,
  MENU_BAR: 34,
  MENU_ITEM: 35,
  PASSWORD_TEXT: 40,
  POPUP_MENU: 41,
  PUSH_BUTTON: 43,
  RADIO_BUTTON: 44,
  RADIO_MENU_ITEM: 45,
  SEPARATOR: 50,
  SLIDER: 51,
  SPIN_BUTTON: 52,
  TERMINAL: 60,
  TEXT: 61,
  TOGGLE_BUTTON: 62,
  WINDOW: 69,
  PARAGRAPH: 73,
  APPLICATION: 75,
  EDITBAR: 77,
  ENTRY: 79,
  DOCUMENT_TEXT: 94,
  DOCUMENT_WEB: 95,
} as const;

export function roleName(role: number): string {
  return ROLE_NAMES[role] ?? `role ${role}`;
}

export interface AXRole {
  role: string;
  subrole?: string;
}

export interface RoleContext {
  states: StateSet;
  /** AT-SPI role of the parent, when known: menus and top-level windows depend on it. */
  parentRole?: number;
}

// One-to-one mappings. Roles that depend on state or parent are handled in axRole().
const SIMPLE: Readonly<Record<string, AXRole>> = {
  "accelerator label": { role: "AXStaticText" },
  animation: { role: "AXImage" },
  application: { role: "AXApplication" },
  article: { role: "AXGroup" },
  "block quote": { role: "AXGroup" },
  calendar: { role: "AXGroup" },
  canvas: { role: "AXGroup" },
  caption: { role: "AXStaticText" },
  "check box": { role: "AXCheckBox" },
  "check menu item": { role: "AXMenuItem" },
  "color chooser": { role: "AXColorWell" },
  "column header": { role: "AXButton", subrole: "AXSortButton" },
  "combo box": { role: "AXPopUpButton" },
  "date editor": { role: "AXDateField" },
  dial: { role: "AXSlider" },
  "document frame": { role: "AXGroup" },
  "document web": { role: "AXWebArea" },
  "document text": { role: "AXTextArea" },
  "drawing area": { role: "AXGroup" },
  embedded: { role: "AXGroup" },
  filler: { role: "AXGroup" },
  footer: { role: "AXGroup" },
  form: { role: "AXGroup" },
  grouping: { role: "AXGroup" },
  header: { role: "AXGroup" },
  heading: { role: "AXHeading" },
  "html container": { role: "AXGroup" },
  icon: { role: "AXImage" },
  image: { role: "AXImage" },
  "info bar": { role: "AXGroup" },
  "internal frame": { role: "AXGroup" },
  label: { role: "AXStaticText" },
  landmark: { role: "AXGroup" },
  "layered pane": { role: "AXGroup" },
  "level bar": { role: "AXLevelIndicator" },
  link: { role: "AXLink" },
  list: { role: "AXList" },
  "list box": { role: "AXList" },
  "list item": { role: "AXRow" },
  "menu bar": { role: "AXMenuBar" },
  "menu item": { role: "AXMenuItem" },
  notification: { role: "AXGroup" },
  "option pane": { role: "AXGroup" },
  "page tab": { role: "AXRadioButton", subrole: "AXTabButton" },
  "page tab list": { role: "AXTabGroup" },
  panel: { role: "AXGroup" },
  paragraph: { role: "AXGroup" },
  "popup menu": { role: "AXMenu" },
  "progress bar": { role: "AXProgressIndicator" },
  "push button": { role: "AXButton" },
  "push button menu": { role: "AXMenuButton" },
  "radio button": { role: "AXRadioButton" },
  "radio menu item": { role: "AXMenuItem" },
  "root pane": { role: "AXGroup" },
  "row header": { role: "AXCell" },
  "scroll bar": { role: "AXScrollBar" },
  "scroll pane": { role: "AXScrollArea" },
  section: { role: "AXGroup" },
  slider: { role: "AXSlider" },
  "spin button": { role: "AXIncrementor" },
  "split pane": { role: "AXSplitGroup" },
  static: { role: "AXStaticText" },
  "status bar": { role: "AXGroup" },
  table: { role: "AXTable" },
  "table cell": { role: "AXCell" },
  "table column header": { role: "AXButton", subrole: "AXSortButton" },
  "table row": { role: "AXRow" },
  "table row header": { role: "AXCell" },
  "tearoff menu item": { role: "AXMenuItem" },
  terminal: { role: "AXTextArea" },
  "toggle button": { role: "AXButton", subrole: "AXToggle" },
  "tool bar": { role: "AXToolbar" },
  "tool tip": { role: "AXHelpTag" },
  tree: { role: "AXOutline" },
  "tree item": { role: "AXRow", subrole: "AXOutlineRow" },
  "tree table": { role: "AXOutline" },
  viewport: { role: "AXGroup" },
};

const TEXT_ROLES = new Set<number>([Role.TEXT, Role.ENTRY, Role.EDITBAR]);
const DIALOG_ROLES = new Set(["dialog", "alert", "file chooser", "font chooser", "color chooser"]);

export function axRole(role: number, context: RoleContext): AXRole {
  const name = roleName(role);
  if (TEXT_ROLES.has(role)) return { role: context.states.has(State.MULTI_LINE) ? "AXTextArea" : "AXTextField" };
  if (role === Role.PASSWORD_TEXT) return { role: "AXTextField", subrole: "AXSecureTextField" };
  if (role === Role.FRAME) return { role: "AXWindow", subrole: "AXStandardWindow" };
  if (role === Role.WINDOW) return { role: "AXWindow", subrole: "AXFloatingWindow" };
  if (DIALOG_ROLES.has(name) && isTopLevel(context)) return { role: "AXWindow", subrole: "AXDialog" };
  if (name === "alert") return { role: "AXGroup" };
  if (role === Role.MENU) return { role: context.parentRole === Role.MENU_BAR ? "AXMenuBarItem" : "AXMenuItem" };
  if (role === Role.SEPARATOR) return { role: isInMenu(context) ? "AXMenuItem" : "AXUnknown" };
  return SIMPLE[name] ?? { role: "AXUnknown" };
}

function isTopLevel(context: RoleContext): boolean {
  return context.parentRole === undefined || context.parentRole === Role.APPLICATION;
}

function isInMenu(context: RoleContext): boolean {
  return context.parentRole === Role.MENU || context.parentRole === Role.POPUP_MENU;
}

/** Roles whose value is their text (Text interface), read up to maxText characters. */
export function isTextRole(role: number): boolean {
  return TEXT_ROLES.has(role) || role === Role.TERMINAL || role === Role.DOCUMENT_TEXT || role === Role.PARAGRAPH;
}

/** Roles that show a checked state as value "1"/"0". */
export function isCheckableRole(role: number): boolean {
  return (
    role === Role.CHECK_BOX ||
    role === Role.RADIO_BUTTON ||
    role === Role.CHECK_MENU_ITEM ||
    role === Role.RADIO_MENU_ITEM
  );
}

/** Roles whose obvious action is a press, so a lone AXPress is not listed in `actions`. */
export function pressIsObvious(role: number): boolean {
  return (
    role === Role.PUSH_BUTTON ||
    role === Role.TOGGLE_BUTTON ||
    role === Role.MENU_ITEM ||
    role === Role.MENU ||
    role === Role.COMBO_BOX ||
    isCheckableRole(role) ||
    roleName(role) === "link" ||
    roleName(role) === "page tab" ||
    roleName(role) === "push button menu"
  );
}

/** Window-like roles: the children of an application root that a tree can start from. */
export function isWindowRole(role: number): boolean {
  return role === Role.FRAME || role === Role.WINDOW || role === Role.DIALOG || DIALOG_ROLES.has(roleName(role));
}
