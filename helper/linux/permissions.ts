// permissions: what the helper can do on this desktop right now. On Linux nothing is granted
// per app: accessibility is the AT-SPI bus answering with accessibility switched on, screen
// capture is the X server letting us read the root window, and Escape needs XInput2 (the
// watcher running), which is also what input monitoring means here.
import type { PermissionsParams, PermissionsResult } from "../../src/helper/protocol.js";
import { a11yEnabled, enableA11y } from "../../src/desktop/a11y-status.js";
import type { Services } from "./services.js";
import { sharedX11 } from "./x11-client.js";

export async function checkPermissions(services: Services, params: PermissionsParams): Promise<PermissionsResult> {
  const [accessibility, screenRecording] = await Promise.all([accessibilityOn(services, params.prompt === true || params.prompt === "accessibility"), canReadScreen()]);
  const watching = services.watcher !== null;
  return { accessibility, screenRecording, escapeWatcher: watching, inputMonitoring: watching };
}

/** The bus answers and IsEnabled is on; with `prompt`, switches IsEnabled on when it is off. */
async function accessibilityOn(services: Services, prompt: boolean): Promise<boolean> {
  try {
    await (await services.atspi()).listApplications();
  } catch {
    return false;
  }
  const sessionBus = services.env.DBUS_SESSION_BUS_ADDRESS;
  const enabled = await a11yEnabled(sessionBus);
  if (enabled === false && prompt) return enableA11y(sessionBus);
  // null: no session bus to ask, but the a11y bus itself answered, which is what GTK needs.
  return enabled !== false;
}

async function canReadScreen(): Promise<boolean> {
  try {
    await (await sharedX11()).withRootImage(0, 0, 1, 1, async () => undefined);
    return true;
  } catch {
    return false;
  }
}
