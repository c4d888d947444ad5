// Whether a process's toolkit joins AT-SPI, judged by the libraries it has loaded: GTK (through
// atk-bridge), Qt's GUI library and Chromium's bridge do; a process with none of them (Xt and
// Motif apps such as xcalc and xterm) never will. Lets a launch wait for the tree of the first
// as long as it takes a loaded machine, and not wait at all for the second.
import { readFile } from "node:fs/promises";

const BRIDGES = /\/lib(atk-bridge-2\.0|gtk-4|Qt[56]Gui)\.so/;

/** True: expect an AT-SPI tree; false: none will come; null: cannot tell (maps unreadable). */
export async function joinsAtspi(pid: number): Promise<boolean | null> {
  try {
    return BRIDGES.test(await readFile(`/proc/${pid}/maps`, "utf8"));
  } catch {
    return null;
  }
}
