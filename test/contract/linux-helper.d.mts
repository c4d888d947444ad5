// Types for linux-helper.mjs.

export interface LinuxHelper {
  readonly socketPath: string;
  /** The helper's DESKBOOK_HOME (config.json, actions.log). */
  readonly home: string;
  /** The helper's environment: the desktop's variables and the apps' throwaway HOME. */
  readonly env: NodeJS.ProcessEnv;
  /** DISPLAY, DBUS_SESSION_BUS_ADDRESS and AT_SPI_BUS_ADDRESS of the desktop it serves. */
  readonly desktopEnv: Record<string, string>;
  /** Everything the helper printed so far. */
  log(): string;
  /** Stops the helper (and the desktop, when it started one); removes its temp directory. */
  stop(): Promise<void>;
}

export interface StartLinuxHelperOptions {
  /** Written to $DESKBOOK_HOME/config.json. Default {"approval": "allow-all"}. */
  config?: object;
  /** Serve this desktop; without it, a private virtual desktop is started (and stopped with the helper). */
  desktopEnv?: Record<string, string>;
}

export const LINUX_HELPER_JS: string;
export function hasCommand(name: string): boolean;
/** Resolves once the helper printed "listening PATH". */
export function startLinuxHelper(options?: StartLinuxHelperOptions): Promise<LinuxHelper>;
