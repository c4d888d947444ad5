// org.a11y.Status on the session bus: whether accessibility is switched on for the session.
// GTK exposes its tree regardless; Qt and Chromium look at IsEnabled before they do.
import dbus from "dbus-next";

const TIMEOUT_MS = 2_000;
const BUS = { destination: "org.a11y.Bus", path: "/org/a11y/bus" };

/** IsEnabled, or null when the session bus or org.a11y.Bus cannot be asked. */
export async function a11yEnabled(sessionAddress = process.env.DBUS_SESSION_BUS_ADDRESS): Promise<boolean | null> {
  if (!sessionAddress) return null;
  return withSession(sessionAddress, async (bus) => {
    const reply = await bus.call(
      new dbus.Message({ ...BUS, interface: "org.freedesktop.DBus.Properties", member: "Get", signature: "ss", body: ["org.a11y.Status", "IsEnabled"] }),
    );
    const value: unknown = reply?.body[0] instanceof dbus.Variant ? reply.body[0].value : reply?.body[0];
    return value === true;
  }).catch(() => null);
}

/** Switches IsEnabled on, as a screen reader does, so every toolkit exposes its tree. */
export async function enableA11y(sessionAddress = process.env.DBUS_SESSION_BUS_ADDRESS): Promise<boolean> {
  if (!sessionAddress) return false;
  return withSession(sessionAddress, async (bus) => {
    await bus.call(
      new dbus.Message({
        ...BUS,
        interface: "org.freedesktop.DBus.Properties",
        member: "Set",
        signature: "ssv",
        body: ["org.a11y.Status", "IsEnabled", new dbus.Variant("b", true)],
      }),
    );
    return true;
  }).catch(() => false);
}

/** Opens the session bus for one exchange, bounded in time. */
async function withSession<T>(address: string, use: (bus: dbus.MessageBus) => Promise<T>): Promise<T> {
  const bus = dbus.sessionBus({ busAddress: address });
  bus.on("error", () => undefined);
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("org.a11y.Bus did not answer")), TIMEOUT_MS);
    });
    return await Promise.race([use(bus), timeout]);
  } finally {
    clearTimeout(timer);
    bus.disconnect();
  }
}
