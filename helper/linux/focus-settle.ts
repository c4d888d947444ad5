// The settle after an accessibility focus (focusElement, setValue AXFocused). GTK 3 also
// presents the element's window when it grabs the focus (its accessible grab_focus asks the
// window manager with _NET_ACTIVE_WINDOW), and that request leaves the app after its D-Bus reply,
// when its main loop next flushes the X connection. A caller that activates another app right
// after would have its activation handled first and then undone by the app's late one. So the
// call answers once the request has reached the X server (the app has answered a ping sent
// after it: inputHandled, on the app's one X connection) and the WM has handled it (wmHandled).
import { inputHandled } from "./input-barrier.js";
import { wmHandled } from "./wm-barrier.js";

/** Only reached when the app or the WM does not answer; the focus itself has happened by then. */
const SETTLE_TIMEOUT_MS = 5_000;

export async function focusSettled(pid: number): Promise<void> {
  const { via } = await inputHandled(pid, SETTLE_TIMEOUT_MS);
  // An app with no pingable window has no X window to present either.
  if (via !== "none") await wmHandled(SETTLE_TIMEOUT_MS);
}
