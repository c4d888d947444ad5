// org.a11y.Status on the session bus: whether accessibility is switched on for the session, the
// way assistive technology announces itself. GTK 3 exposes its tree regardless; Qt waits for
// IsEnabled, and apps that adapt to a screen reader look at ScreenReaderEnabled.
import type { MessageBus } from "dbus-next";
import { loadDbus } from "./dbus-module.js";
import { within } from "./within.js";

const TIMEOUT_MS = 2_000;
const BUS = { destination: "org.a11y.Bus", path: "/org/a11y/bus" };
const PROPERTIES = "org.freedesktop.DBus.Properties";
export const A11Y_FLAGS = ["IsEnabled", "ScreenReaderEnabled"] as const;
export type A11yFlag = (typeof A11Y_FLAGS)[number];

export type A11yStatus = Record<A11yFlag, boolean>;

/** Both flags, or null when the session bus or org.a11y.Bus cannot be asked. */
export async function a11yStatus(sessionAddress = process.env.DBUS_SESSION_BUS_ADDRESS): Promise<A11yStatus | null> {
  if (!sessionAddress) return null;
  return withSession(sessionAddress, async (bus) => {
    const [IsEnabled, ScreenReaderEnabled] = await Promise.all(A11Y_FLAGS.map((flag) => readFlag(bus, flag)));
    return { IsEnabled: IsEnabled === true, ScreenReaderEnabled: ScreenReaderEnabled === true };
  }).catch(() => null);
}

/** The accessibility bus's address as org.a11y.Bus gives it, or null when it cannot be asked. */
export async function a11yBusAddress(sessionAddress = process.env.DBUS_SESSION_BUS_ADDRESS): Promise<string | null> {
  if (!sessionAddress) return null;
  const dbus = await loadDbus();
  return withSession(sessionAddress, async (bus) => {
    const reply = await bounded(bus.call(new dbus.Message({ ...BUS, interface: "org.a11y.Bus", member: "GetAddress" })));
    const address = reply?.body[0];
    return typeof address === "string" && address !== "" ? address : null;
  }).catch(() => null);
}

/** IsEnabled, or null when the session bus or org.a11y.Bus cannot be asked. */
export async function a11yEnabled(sessionAddress = process.env.DBUS_SESSION_BUS_ADDRESS): Promise<boolean | null> {
  return (await a11yStatus(sessionAddress))?.IsEnabled ?? null;
}

/** Switches both flags on, as a screen reader does, so every toolkit exposes its tree. */
export async function enableA11y(sessionAddress = process.env.DBUS_SESSION_BUS_ADDRESS): Promise<boolean> {
  if (!sessionAddress) return false;
  return withSession(sessionAddress, async (bus) => {
    await switchOn(bus);
    return true;
  }).catch(() => false);
}

/** Sets both flags on an open session bus, then checks IsEnabled held (it is a GSettings key). */
export async function switchOn(bus: MessageBus): Promise<void> {
  const dbus = await loadDbus();
  for (const flag of A11Y_FLAGS) {
    await bounded(bus.call(new dbus.Message({ ...BUS, interface: PROPERTIES, member: "Set", signature: "ssv", body: ["org.a11y.Status", flag, new dbus.Variant("b", true)] })));
  }
  if ((await readFlag(bus, "IsEnabled")) !== true) throw new Error("org.a11y.Status.IsEnabled stayed false");
}

async function readFlag(bus: MessageBus, flag: A11yFlag): Promise<unknown> {
  const dbus = await loadDbus();
  const reply = await bounded(bus.call(new dbus.Message({ ...BUS, interface: PROPERTIES, member: "Get", signature: "ss", body: ["org.a11y.Status", flag] })));
  return reply?.body[0] instanceof dbus.Variant ? reply.body[0].value : reply?.body[0];
}

function bounded<T>(call: Promise<T>): Promise<T> {
  return within(call, TIMEOUT_MS, "org.a11y.Bus did not answer");
}

/** Opens the session bus for one exchange. */
async function withSession<T>(address: string, use: (bus: MessageBus) => Promise<T>): Promise<T> {
  const dbus = await loadDbus();
  const bus = dbus.sessionBus({ busAddress: address });
  bus.on("error", () => undefined);
  try {
    return await use(bus);
  } finally {
    bus.disconnect();
  }
}
