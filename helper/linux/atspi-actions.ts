// AT-SPI action names → the names a cell uses. GTK names the default action of buttons and
// menu items "click", of combo boxes "press" and of entries "activate"; all three are what
// macOS calls AXPress. Every other action keeps its AT-SPI name ("expand or contract", …).

export const AX_PRESS = "AXPress";
const PRESS_ALIASES = ["click", "press", "activate"];

export function axActionName(atspiName: string): string {
  return PRESS_ALIASES.includes(atspiName.toLowerCase()) ? AX_PRESS : atspiName;
}

export function axActionNames(atspiNames: readonly string[]): string[] {
  return [...new Set(atspiNames.map(axActionName))];
}

/**
 * The index to pass to Action.DoAction, or -1. AXPress means the first of click, press,
 * activate, in that order of preference; any other name matches case-insensitively.
 */
export function findActionIndex(atspiNames: readonly string[], wanted: string): number {
  const lower = atspiNames.map((name) => name.toLowerCase());
  if (wanted === AX_PRESS) {
    for (const alias of PRESS_ALIASES) {
      const index = lower.indexOf(alias);
      if (index >= 0) return index;
    }
    return -1;
  }
  return lower.indexOf(wanted.toLowerCase());
}
