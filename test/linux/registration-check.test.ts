// What in an app's environment keeps it off the desktop's accessibility bus: only what is sure
// to, so a launch never stops waiting for an app that would have joined.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { environmentBlocker } from "../../helper/linux/registration-check.js";
import { startDeskOnHelper, type DeskOnHelper } from "./desk-harness.js";
import { missingTools } from "./helper-harness.js";

const helper = { DBUS_SESSION_BUS_ADDRESS: "unix:path=/run/desk/bus", AT_SPI_BUS_ADDRESS: "unix:path=/run/desk/at-spi/bus_0,guid=0123abcd" };

describe("environmentBlocker", () => {
  it("finds nothing in an app started with the desktop's variables, guid or not", () => {
    expect(environmentBlocker({ ...helper }, helper, true)).toBeNull();
    expect(environmentBlocker({ DBUS_SESSION_BUS_ADDRESS: "unix:path=/run/desk/bus,guid=ffee", AT_SPI_BUS_ADDRESS: "unix:path=/run/desk/at-spi/bus_0" }, helper, false)).toBeNull();
  });

  it("names NO_AT_BRIDGE=1, which switches the bridge off", () => {
    expect(environmentBlocker({ ...helper, NO_AT_BRIDGE: "1" }, helper, false)).toMatch(/NO_AT_BRIDGE=1/);
    expect(environmentBlocker({ ...helper, NO_AT_BRIDGE: "0" }, helper, false)).toBeNull();
  });

  it("lets a wrong AT_SPI_BUS_ADDRESS pass on the right session: toolkits ask org.a11y.Bus then", () => {
    expect(environmentBlocker({ ...helper, AT_SPI_BUS_ADDRESS: "unix:path=/elsewhere" }, helper, true)).toBeNull();
  });

  it("names another session bus for Qt, which needs its own session bus, and for others without this desktop's AT_SPI_BUS_ADDRESS", () => {
    const elsewhere = { DBUS_SESSION_BUS_ADDRESS: "unix:path=/elsewhere/bus" };
    expect(environmentBlocker({ ...elsewhere, AT_SPI_BUS_ADDRESS: helper.AT_SPI_BUS_ADDRESS }, helper, true)).toBe(
      "it was started on another D-Bus session (DBUS_SESSION_BUS_ADDRESS=unix:path=/elsewhere/bus; this desktop's is unix:path=/run/desk/bus) (start it with desk.env's variables)",
    );
    expect(environmentBlocker(elsewhere, helper, false)).toMatch(/another D-Bus session/);
    // GTK reaches the accessibility bus by AT_SPI_BUS_ADDRESS alone.
    expect(environmentBlocker({ ...elsewhere, AT_SPI_BUS_ADDRESS: helper.AT_SPI_BUS_ADDRESS }, helper, false)).toBeNull();
    expect(environmentBlocker({}, helper, true)).toMatch(/^it was started with no DBUS_SESSION_BUS_ADDRESS/);
  });

  it("lets a non-Qt app on another session pass when libatspi finds this desktop's bus on the X root window", () => {
    const desk = { ...helper, DISPLAY: ":7" };
    const elsewhere = { DBUS_SESSION_BUS_ADDRESS: "unix:path=/elsewhere/bus", DISPLAY: ":7" };
    const root = "unix:path=/run/desk/at-spi/bus_0,guid=99";
    expect(environmentBlocker(elsewhere, desk, false, root)).toBeNull();
    // Qt does not read it; without the property, on another display, under Wayland, or with an
    // AT_SPI_BUS_ADDRESS of its own (read first), the app cannot get there.
    expect(environmentBlocker(elsewhere, desk, true, root)).toMatch(/another D-Bus session/);
    expect(environmentBlocker(elsewhere, desk, false, null)).toMatch(/another D-Bus session/);
    expect(environmentBlocker({ ...elsewhere, DISPLAY: ":8" }, desk, false, root)).toMatch(/another D-Bus session/);
    expect(environmentBlocker({ ...elsewhere, WAYLAND_DISPLAY: "wayland-0" }, desk, false, root)).toMatch(/another D-Bus session/);
    expect(environmentBlocker({ ...elsewhere, AT_SPI_BUS_ADDRESS: "unix:path=/elsewhere/a11y" }, desk, false, root)).toMatch(/another D-Bus session/);
    // The root window naming another bus than the helper's.
    expect(environmentBlocker(elsewhere, desk, false, "unix:path=/other/a11y")).toMatch(/another D-Bus session/);
  });

  it("judges no session when the helper itself has none to compare with", () => {
    expect(environmentBlocker({ DBUS_SESSION_BUS_ADDRESS: "unix:path=/elsewhere/bus" }, {}, true)).toBeNull();
  });
});

const missing = missingTools(["Xvfb", "openbox", "dbus-daemon", "galculator"]);

describe.skipIf(missing.length > 0)("a GTK app on another session bus, on this desktop's display", () => {
  let run: DeskOnHelper;
  beforeAll(async () => {
    run = await startDeskOnHelper();
  });
  afterAll(async () => run?.stop());

  it("joins the tree by the root window's AT_SPI_BUS (why another session is no certain blocker for GTK), and launch gives no note", async () => {
    // AT_SPI_BUS_ADDRESS empty: libatspi skips it, as when unset, and reads the root window.
    const env = { DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(run.machine.dir, "no-such-bus")}`, AT_SPI_BUS_ADDRESS: "" };
    const calc = await run.desk.launch("galculator", { env });
    run.machine.trackPid(calc.pid);
    expect(run.shown.map((bundle) => String(bundle["text/plain"])).join("\n")).not.toMatch(/no accessibility tree/);
    await calc.waitFor({ role: "button", label: "7", exact: true }, { timeout: 10_000 });
    await calc.quit();
  }, 60_000);
});
