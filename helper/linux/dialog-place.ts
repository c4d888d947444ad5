// Where an approval dialog appears, so the waiting cell can tell the person where to look:
// the screen they sit at, or Deskbook's virtual desktop (which nobody sees unless they open
// the live view): own-desktop.ts tells which.
import { ownDesktop } from "./own-desktop.js";

export interface DialogPlace {
  screen: "virtual" | "real";
  display?: string;
}

export function dialogPlace(env: NodeJS.ProcessEnv): DialogPlace {
  const own = ownDesktop(env);
  if (own) return { screen: "virtual", display: own.display };
  const display = env.DISPLAY;
  return display === undefined ? { screen: "real" } : { screen: "real", display };
}

/** The ways out a refusal names: the command, and for the virtual desktop, the live view. */
export function waysOut(place: DialogPlace, allowName: string): string {
  const view = place.screen === "virtual" ? `, or open desk.view() and answer the dialog on the virtual desktop` : "";
  return `run \`deskbook allow ${allowName}\` and try again${view}`;
}
