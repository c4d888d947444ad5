// The variables that say which desktop a process uses: what the helper reports in hello, and
// what the executor takes over so that processes a cell starts open where the helper looks.
export const DESKTOP_ENV_NAMES = ["DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS", "XAUTHORITY"] as const;

/** Those of the desktop variables that `env` sets. */
export function pickDesktopEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of DESKTOP_ENV_NAMES) {
    const value = env[name];
    if (value) picked[name] = value;
  }
  return picked;
}
