// `deskbook desktop list`: every desktop of a DESKBOOK_HOME — the shared one and each kernel's
// own — with its kernel, display and live-view URL (when a view runs).
import { kernelDesktopDirs } from "./kernel-desktop.js";
import { runningView, viewUrl } from "./live-view.js";
import { isAlive } from "../process-signals.js";
import { desktopStatus } from "./virtual-desktop.js";

export interface DesktopListing {
  kind: "shared" | "per-kernel";
  /** The desktop's directory: DESKBOOK_HOME, or the kernel's under desktops/. */
  dir: string;
  kernelId: string | null;
  kernelPid: number | null;
  /** Null until the kernel's first desk call starts it. */
  display: string | null;
  running: boolean;
  /** The watch-only live view, when one runs. */
  viewUrl: string | null;
}

export async function listDesktops(home: string): Promise<DesktopListing[]> {
  const listings: DesktopListing[] = [];
  const shared = await desktopStatus({ home });
  if (shared.state) listings.push({ kind: "shared", dir: home, kernelId: null, kernelPid: null, ...await describe(home) });
  for (const { dir, owner } of await kernelDesktopDirs(home)) {
    // A directory whose kernel is gone is being ended (or will be, by the next kernel): not a desktop to use.
    if (owner && !isAlive(owner.pid)) continue;
    listings.push({ kind: "per-kernel", dir, kernelId: owner?.kernelId ?? null, kernelPid: owner?.pid ?? null, ...await describe(dir) });
  }
  return listings;
}

async function describe(dir: string): Promise<Pick<DesktopListing, "display" | "running" | "viewUrl">> {
  const status = await desktopStatus({ home: dir });
  const view = runningView(dir);
  return { display: status.state?.display ?? null, running: status.running, viewUrl: view ? viewUrl(view) : null };
}

/** One line per desktop, for people. */
export function formatListing(listings: DesktopListing[]): string {
  if (listings.length === 0) return "no desktops\n";
  return listings
    .map((l) => {
      const who = l.kind === "shared" ? "shared" : `kernel ${l.kernelId ?? "?"} (pid ${l.kernelPid ?? "?"})`;
      const state = l.display === null ? "not started yet" : `${l.display} ${l.running ? "running" : "NOT running"}`;
      return `${who.padEnd(40)} ${state}${l.viewUrl ? `  ${l.viewUrl}` : ""}\n`;
    })
    .join("");
}
