// Why an app whose toolkit joins AT-SPI (GTK, Qt, Chromium: toolkit-probe.ts) shows a window
// but no accessible tree. A launch stops waiting as soon as the answer is certain, and a read
// answers the window alone with this reason instead of "no accessibility" (docs/linux.md,
// "When something goes wrong"). The bus is the ground truth: an app connected to the
// accessibility bus is still joining; one that is not, and whose environment shows why, never will.
import { readFile } from "node:fs/promises";
import type { Services } from "./services.js";
import { sharedX11 } from "./x11-client.js";

export interface NotRegistered {
  /** What the user reads: the cause, and what to do. */
  reason: string;
  /** True when the environment shows the app cannot join (no point waiting); false: it has not yet. */
  certain: boolean;
}

/** Why `pid` is not in the AT-SPI registry, or null while it is connected to the bus (joining, or the registry is slow). */
export async function whyNotRegistered(pid: number, services: Services): Promise<NotRegistered | null> {
  const atspi = await services.atspi().catch(() => null);
  if (atspi && (await atspi.connected(pid).catch(() => false))) return null;
  const [environ, maps, rootBus] = await Promise.all([readFile(`/proc/${pid}/environ`, "utf8").catch(() => null), readFile(`/proc/${pid}/maps`, "utf8").catch(() => ""), rootBusAddress()]);
  const blocker = environ === null ? null : environmentBlocker(parseEnviron(environ), services.env, QT.test(maps), rootBus);
  if (blocker) return { reason: `${blocker}, so it cannot join this desktop's accessibility tree`, certain: true };
  return { reason: "it has not connected to the accessibility bus (deskbook doctor checks the bus and its registry)", certain: false };
}

const QT = /\/libQt[56]Gui\.so/;

/** The accessibility bus at-spi-bus-launcher names on the X root window (AT_SPI_BUS), or null. */
async function rootBusAddress(): Promise<string | null> {
  try {
    const x = await sharedX11();
    return (await x.property(x.root, "AT_SPI_BUS"))?.data.toString("utf8") || null;
  } catch {
    return null;
  }
}

/**
 * What in the app's environment keeps it off the helper's accessibility bus, said plainly; null
 * when nothing does. GTK tries AT_SPI_BUS_ADDRESS, then its session bus's org.a11y.Bus; Qt needs
 * its session bus whatever AT_SPI_BUS_ADDRESS says (seen with speedcrunch: on a wrong session bus
 * it never joins, and with only a wrong AT_SPI_BUS_ADDRESS it joins all the same). libatspi (GTK)
 * without AT_SPI_BUS_ADDRESS reads the X root window's AT_SPI_BUS first (`rootBus`), so on this
 * desktop's display it reaches the bus whatever its session bus.
 */
export function environmentBlocker(app: NodeJS.ProcessEnv, helper: NodeJS.ProcessEnv, qt: boolean, rootBus: string | null = null): string | null {
  if (app.NO_AT_BRIDGE === "1") return "its environment switches the toolkit's accessibility bridge off (NO_AT_BRIDGE=1)";
  if (helper.DBUS_SESSION_BUS_ADDRESS === undefined || sameBus(app.DBUS_SESSION_BUS_ADDRESS, helper.DBUS_SESSION_BUS_ADDRESS) === true) return null;
  if (!qt && sameBus(app.AT_SPI_BUS_ADDRESS, helper.AT_SPI_BUS_ADDRESS) === true) return null;
  if (!qt && reachesByRoot(app, helper, rootBus)) return null;
  const session = app.DBUS_SESSION_BUS_ADDRESS === undefined ? "with no DBUS_SESSION_BUS_ADDRESS" : `on another D-Bus session (DBUS_SESSION_BUS_ADDRESS=${app.DBUS_SESSION_BUS_ADDRESS}; this desktop's is ${helper.DBUS_SESSION_BUS_ADDRESS})`;
  return `it was started ${session} (start it with desk.env's variables)`;
}

/** Whether libatspi in `app` takes the root window's bus address, and it is the helper's bus (as far as can be told). */
function reachesByRoot(app: NodeJS.ProcessEnv, helper: NodeJS.ProcessEnv, rootBus: string | null): boolean {
  if (rootBus === null || app.AT_SPI_BUS_ADDRESS || app.WAYLAND_DISPLAY || !app.DISPLAY || app.DISPLAY !== helper.DISPLAY) return false;
  return sameBus(rootBus, helper.AT_SPI_BUS_ADDRESS) !== false;
}

/** Whether two D-Bus addresses name one bus (the guid left out); undefined when either is unset. */
function sameBus(a: string | undefined, b: string | undefined): boolean | undefined {
  if (!a || !b) return undefined;
  const plain = (address: string): string =>
    address
      .split(";")[0]!
      .split(",")
      .filter((part) => !part.startsWith("guid="))
      .sort()
      .join(",");
  return plain(a) === plain(b);
}

function parseEnviron(text: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const entry of text.split("\0")) {
    const at = entry.indexOf("=");
    if (at > 0) env[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return env;
}
