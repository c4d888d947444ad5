// AX role names in plain words for the text format. Helpers report macOS role names on
// every OS, so one table serves all backends.

const ROLE_WORDS: Readonly<Record<string, string>> = {
  AXApplication: "application",
  AXBrowser: "browser",
  AXBusyIndicator: "busy indicator",
  AXButton: "button",
  AXCell: "cell",
  AXCheckBox: "checkbox",
  AXColorWell: "color well",
  AXColumn: "column",
  AXComboBox: "combo box",
  AXDateField: "date field",
  AXDisclosureTriangle: "disclosure triangle",
  AXDockItem: "dock item",
  AXDrawer: "drawer",
  AXGrid: "grid",
  AXGroup: "group",
  AXGrowArea: "grow area",
  AXHandle: "handle",
  AXHeading: "heading",
  AXHelpTag: "help tag",
  AXImage: "image",
  AXIncrementor: "stepper",
  AXLayoutArea: "layout area",
  AXLayoutItem: "layout item",
  AXLevelIndicator: "level indicator",
  AXLink: "link",
  AXList: "list",
  AXMatte: "matte",
  AXMenu: "menu",
  AXMenuBar: "menu bar",
  AXMenuBarItem: "menu bar item",
  AXMenuButton: "menu button",
  AXMenuItem: "menu item",
  AXOutline: "outline",
  AXPopover: "popover",
  AXPopUpButton: "pop-up button",
  AXProgressIndicator: "progress indicator",
  AXRadioButton: "radio button",
  AXRadioGroup: "radio group",
  AXRelevanceIndicator: "relevance indicator",
  AXRow: "row",
  AXRuler: "ruler",
  AXRulerMarker: "ruler marker",
  AXScrollArea: "scroll area",
  AXScrollBar: "scroll bar",
  AXSheet: "sheet",
  AXSlider: "slider",
  AXSplitGroup: "split group",
  AXSplitter: "splitter",
  AXStaticText: "text",
  AXSystemWide: "system",
  AXTab: "tab",
  AXTabGroup: "tab group",
  AXTable: "table",
  AXTextArea: "text area",
  AXTextField: "text field",
  AXTimeField: "time field",
  AXToggleButton: "toggle button",
  AXToolbar: "toolbar",
  AXUnknown: "element",
  AXValueIndicator: "value indicator",
  AXWebArea: "web area",
  AXWindow: "window",
};

// Subroles that name the element better than its role does ("tab", not "radio button").
const SUBROLE_WORDS: Readonly<Record<string, string>> = {
  AXCloseButton: "close button",
  AXDialog: "dialog",
  AXFullScreenButton: "full screen button",
  AXMinimizeButton: "minimize button",
  AXSearchField: "search field",
  AXSecureTextField: "secure text field",
  AXSwitch: "switch",
  AXTabButton: "tab",
  AXToggle: "toggle button",
  AXZoomButton: "zoom button",
};

// Roles where a plain left click is an accessibility press (AXPress).
const PRESSABLE: ReadonlySet<string> = new Set([
  "AXButton",
  "AXCheckBox",
  "AXDisclosureTriangle",
  "AXDockItem",
  "AXLink",
  "AXMenuBarItem",
  "AXMenuButton",
  "AXMenuItem",
  "AXPopUpButton",
  "AXRadioButton",
  "AXTab",
  "AXToggleButton",
]);

// Unknown roles are few per app; the cap only guards against a helper sending junk.
const WORDS_CACHE_LIMIT = 256;
const wordsCache = new Map<string, string>();

/** A role (and optional subrole) in plain words: AXPopUpButton → "pop-up button". */
export function plainRole(role: string, subrole?: string): string {
  const fromSubrole = subrole === undefined ? undefined : SUBROLE_WORDS[subrole];
  if (fromSubrole !== undefined) return fromSubrole;
  const known = ROLE_WORDS[role];
  if (known !== undefined) return known;
  let words = wordsCache.get(role);
  if (words === undefined) {
    words = splitName(role);
    if (wordsCache.size >= WORDS_CACHE_LIMIT) wordsCache.clear();
    wordsCache.set(role, words);
  }
  return words;
}

/** Whether a plain left click on this role is sent as an accessibility press. */
export function isPressable(role: string): boolean {
  return PRESSABLE.has(role);
}

/** The action a click already performs, which the text format leaves out. */
export function obviousAction(role: string): string | undefined {
  return isPressable(role) ? "AXPress" : undefined;
}

/** AXFooBar → "foo bar", AXHTMLContent → "html content"; an empty role is an "element". */
function splitName(role: string): string {
  const bare = role.startsWith("AX") ? role.slice(2) : role;
  const words = bare
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/[_\s]+/g, " ")
    .trim()
    .toLowerCase();
  return words === "" ? "element" : words;
}
