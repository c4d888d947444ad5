// Where an approval dialog appears, so the waiting cell can tell the person where to look:
// the screen they sit at, or Deskbook's virtual desktop (which nobody sees unless they open
// the live view). The helper is on the virtual desktop when its DISPLAY is the one
// desktop.json records.
import { readFileSync } from "node:fs";
import { desktopStatePath } from "../../src/desktop/virtual-desktop.js";

export interface DialogPlace {
  screen: "virtual" | "real";
  display?: string;
}

export function dialogPlace(home: string, env: NodeJS.ProcessEnv): DialogPlace {
  const display = env.DISPLAY;
  try {
    const state = JSON.parse(readFileSync(desktopStatePath(home), "utf8")) as { display?: unknown };
    if (display !== undefined && state.display === display) return { screen: "virtual", display };
  } catch {
    // no virtual desktop recorded
  }
  return display === undefined ? { screen: "real" } : { screen: "real", display };
}

/** The ways out a refusal names: the command, and for the virtual desktop, the live view. */
export function waysOut(place: DialogPlace, allowName: string): string {
  const view = place.screen === "virtual" ? `, or open desk.view() and answer the dialog on the virtual desktop` : "";
  return `run \`deskbook allow ${allowName}\` and try again${view}`;
}
