// What in an app's environment keeps it off the desktop's accessibility bus: only what is sure
// to, so a launch never stops waiting for an app that would have joined.
import { describe, expect, it } from "vitest";
import { environmentBlocker } from "../../helper/linux/registration-check.js";

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

  it("judges no session when the helper itself has none to compare with", () => {
    expect(environmentBlocker({ DBUS_SESSION_BUS_ADDRESS: "unix:path=/elsewhere/bus" }, {}, true)).toBeNull();
  });
});
