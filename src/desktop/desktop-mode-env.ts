// DESKBOOK_DESKTOP, the environment's half of a kernel's desktop mode (config.json's `desktop`
// is the other: src/desktop/kernel-desktop.ts desktopMode). Read by the CLI before anything of
// the kernel loads, to decide whether to fork the executor early, so this file imports nothing
// that costs a start: no config loading, no desktop stack.
import type { DesktopMode } from "../config/config.js";

export class DesktopModeError extends Error {
  readonly code = "bad_config" as const;
  override readonly name = "DesktopModeError";
}

const MODES: readonly DesktopMode[] = ["shared", "per-kernel"];

/**
 * The mode DESKBOOK_DESKTOP names (trimmed); undefined when it is unset or blank, which leaves
 * the choice to config.json; a DesktopModeError, returned, not thrown, for any other value, so
 * a caller that only needs to know whether the mode is settled (the CLI) need not catch.
 */
export function desktopModeFromEnv(env: NodeJS.ProcessEnv = process.env): DesktopMode | DesktopModeError | undefined {
  const value = env.DESKBOOK_DESKTOP?.trim();
  if (!value) return undefined;
  if ((MODES as readonly string[]).includes(value)) return value as DesktopMode;
  return new DesktopModeError(`DESKBOOK_DESKTOP must be "shared" or "per-kernel", not ${JSON.stringify(env.DESKBOOK_DESKTOP)}`);
}
