// AT-SPI action names → the names a cell uses. GTK names the default action of buttons and
// menu items "click", of combo boxes "press" and of entries "activate"; Chromium names it after
// what it does ("jump" on a link, "check" on a check box, "open" on a pop-up, "select" on its
// options). All of them are what macOS calls AXPress. Every other action keeps its AT-SPI name ("expand or contract", …).

export const AX_PRESS = "AXPress";
/** In order of preference when an element has several. */
const PRESS_ALIASES = ["click", "press", "activate", "jump", "check", "uncheck", "open", "select", "clickancestor"];
/**
 * Chromium gives nearly every node these two: a context menu, and a "default action" that on a
 * group or a text does nothing useful. Reads leave them out (app.actions(i) lists them); doDefault
 * still serves as the press of an element that has no other (a tab).
 */
const BOILERPLATE = ["showcontextmenu", "dodefault"];
const LAST_RESORT_PRESS = "dodefault";

export function axActionName(atspiName: string): string {
  return PRESS_ALIASES.includes(atspiName.toLowerCase()) ? AX_PRESS : atspiName;
}

export function axActionNames(atspiNames: readonly string[]): string[] {
  const names = atspiNames.map(axActionName);
  // An element whose only press is Chromium's doDefault can still be pressed as AXPress.
  if (!names.includes(AX_PRESS) && atspiNames.some((name) => name.toLowerCase() === LAST_RESORT_PRESS)) names.push(AX_PRESS);
  return [...new Set(names)];
}

/** What a tree read lists: no boilerplate, the press named AXPress. */
export function listedActionNames(atspiNames: readonly string[]): string[] {
  return axActionNames(atspiNames.filter((name) => !BOILERPLATE.includes(name.toLowerCase())));
}

/**
 * The index to pass to Action.DoAction, or -1. AXPress means the first of the press aliases,
 * in their order of preference, else doDefault; any other name matches case-insensitively.
 */
export function findActionIndex(atspiNames: readonly string[], wanted: string): number {
  const lower = atspiNames.map((name) => name.toLowerCase());
  if (wanted === AX_PRESS) {
    for (const alias of [...PRESS_ALIASES, LAST_RESORT_PRESS]) {
      const index = lower.indexOf(alias);
      if (index >= 0) return index;
    }
    return -1;
  }
  return lower.indexOf(wanted.toLowerCase());
}
