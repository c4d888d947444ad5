// What a launch tells the cell about an app that shows a window but no accessible tree.
import type { NotRegistered } from "./registration-check.js";

/** The note's cause at the launch deadline: only an app whose toolkit joins AT-SPI gets one; `why` is registration-check's answer asked then. */
export function deadlineReason(joins: boolean | null, why: NotRegistered | null): string | null {
  if (joins !== true) return null;
  // Connected to the bus (why is null) but never in the registry: the registry is slow or hung.
  return why?.reason ?? "it is on the accessibility bus but has not registered with the AT-SPI registry (deskbook doctor checks the registry)";
}

export function unregisteredNote(reason: string, windowMs: number): string {
  const after = windowMs < 1_000 ? "" : ` after ${(windowMs / 1000).toFixed(1)} s`;
  return `shows a window but no accessibility tree${after}: ${reason}. Reads show its window alone; pixels (getScreenshot, click([x, y]), typeText, readText) still drive it`;
}
