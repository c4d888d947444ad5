// The AT-SPI registry (at-spi2-registryd, org.a11y.atspi.Registry on the accessibility bus) is
// D-Bus activated: it starts when the first client asks for it. On a fresh desktop that client
// is usually the first app, and Qt 5 asks synchronously while it sets up its bridge
// (GetRegisteredEvents, then Embed) before it exports its root object: for as long as the
// activation takes, the app sits on the bus with no tree and no registration, and if the
// activation never completes it waits out its 25 s D-Bus timeout. Starting the registry with the
// desktop means no app ever waits on it (docs/linux.md, "Which apps work").
import type { Message } from "dbus-next";
import { loadDbus } from "./dbus-module.js";
import { within } from "./within.js";

export const REGISTRY_NAME = "org.a11y.atspi.Registry";
/** StartServiceByName's answers: started now, or it was running already. */
const STARTED = new Set([1, 2]);

/** Starts the registry on the accessibility bus and resolves once it owns its name; throws with the reason otherwise. */
export async function startRegistry(a11yAddress: string, timeoutMs: number): Promise<void> {
  const dbus = await loadDbus();
  const bus = dbus.sessionBus({ busAddress: a11yAddress });
  bus.on("error", () => undefined); // reported through the call below instead
  try {
    // The bus daemon answers only once the activated registry owns the name (or activation failed).
    const reply = await within(bus.call(startServiceByName(dbus, REGISTRY_NAME)), timeoutMs, `no answer within ${timeoutMs / 1000} s`);
    const result = reply?.body[0];
    if (typeof result !== "number" || !STARTED.has(result)) throw new Error(`StartServiceByName answered ${JSON.stringify(result)}`);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`the AT-SPI registry (${REGISTRY_NAME}, at-spi2-registryd) did not start on the accessibility bus: ${reason}`);
  } finally {
    bus.disconnect();
  }
}

function startServiceByName(dbus: typeof import("dbus-next"), name: string): Message {
  return new dbus.Message({
    destination: "org.freedesktop.DBus",
    path: "/org/freedesktop/DBus",
    interface: "org.freedesktop.DBus",
    member: "StartServiceByName",
    signature: "su",
    body: [name, 0],
  });
}

/** The registry's root: its children are the registered apps. */
const REGISTRY_ROOT = "/org/a11y/atspi/accessible/root";

/** How many apps the registry lists once it answers on `a11yAddress`; throws with the reason when it does not within `timeoutMs`. */
export async function registeredApps(a11yAddress: string, timeoutMs: number): Promise<number> {
  const dbus = await loadDbus();
  const bus = dbus.sessionBus({ busAddress: a11yAddress });
  bus.on("error", () => undefined); // reported through the call below instead
  try {
    // What every AT-SPI client does first; the bus starts the registry if it is not running.
    const call = new dbus.Message({ destination: REGISTRY_NAME, path: REGISTRY_ROOT, interface: "org.a11y.atspi.Accessible", member: "GetChildren" });
    const reply = await within(bus.call(call), timeoutMs, `no answer within ${timeoutMs / 1000} s`);
    const children = reply?.body[0];
    if (!Array.isArray(children)) throw new Error(`GetChildren answered ${JSON.stringify(children)}`);
    return children.length;
  } catch (error) {
    throw new Error(`the AT-SPI registry (${REGISTRY_NAME}) does not answer on the accessibility bus: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    bus.disconnect();
  }
}
