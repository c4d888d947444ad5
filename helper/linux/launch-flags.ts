// Flags some apps need to be driven at all, added when the helper starts them. Chromium and
// Electron expose their web content over AT-SPI only with --force-renderer-accessibility (the
// accessibility bus switch is not enough), and refuse to start as root without --no-sandbox.
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";

export interface LaunchFlags {
  /** Flags to put right after the program's own arguments. */
  args: string[];
  /** One sentence per flag added, for the caller. */
  notes: string[];
}

const CHROMIUM_NAMES = /^(chromium(-browser)?|(google-)?chrome(-stable|-beta|-unstable)?|brave(-browser)?|microsoft-edge(-stable|-beta|-dev)?|vivaldi(-stable)?|opera|electron\d*)$/;

/** The flags `program` (link-resolved `executable`) needs; none for other toolkits. */
export function launchFlags(program: string, executable: string | undefined, userArgs: readonly string[], isRoot: boolean): LaunchFlags {
  const flags: LaunchFlags = { args: [], notes: [] };
  if (!isChromiumFamily(program) && !(executable && isChromiumFamily(executable))) return flags;
  const given = (flag: string): boolean => userArgs.some((arg) => arg === flag || arg.startsWith(`${flag}=`));
  if (!given("--force-renderer-accessibility")) {
    flags.args.push("--force-renderer-accessibility");
    flags.notes.push("started with --force-renderer-accessibility: Chromium-based apps show their web content over AT-SPI only with it");
  }
  if (isRoot && !given("--no-sandbox")) {
    flags.args.push("--no-sandbox");
    flags.notes.push("started with --no-sandbox: Chromium-based apps refuse to run as root without it, so its pages run without the sandbox; run Deskbook as a normal user to keep it");
  }
  return flags;
}

/** Chromium, a browser built on it, or an Electron app (its resources.pak and app.asar beside it). */
function isChromiumFamily(path: string): boolean {
  if (CHROMIUM_NAMES.test(basename(path))) return true;
  if (!path.startsWith("/")) return false;
  const dir = dirname(path);
  return existsSync(join(dir, "resources.pak")) && (existsSync(join(dir, "chrome-sandbox")) || existsSync(join(dir, "resources", "app.asar")) || existsSync(join(dir, "chrome_100_percent.pak")));
}
