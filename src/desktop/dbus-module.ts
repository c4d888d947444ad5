// dbus-next, loaded on first use. The kernel and the executor import the desktop modules for
// small things (is a desktop alive, where its home is) and talk D-Bus only when they start a
// desktop; importing dbus-next costs each of them ~3 MB and ~150 ms at start.
import { loadOnce } from "../load-once.js";

type DbusModule = typeof import("dbus-next");

/** dbus-next, loaded once on the first call; a failed load is tried again on the next. */
export const loadDbus: () => Promise<DbusModule> = loadOnce<DbusModule>("dbus-next");
