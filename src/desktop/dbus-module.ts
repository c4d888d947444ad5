// dbus-next, loaded on first use. The kernel and the executor import the desktop modules for
// small things (is a desktop alive, where its home is) and talk D-Bus only when they start a
// desktop; importing dbus-next costs each of them ~3 MB and ~150 ms at start.
type DbusModule = typeof import("dbus-next");

let loading: Promise<DbusModule> | undefined;

export function loadDbus(): Promise<DbusModule> {
  loading ??= import("dbus-next").then((module) => ((module as { default?: DbusModule }).default ?? module));
  return loading;
}
