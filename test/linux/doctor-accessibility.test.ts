// `deskbook doctor` on Linux reads org.a11y.Status from the session the helper would use: the
// virtual desktop switches both flags on, and a session with accessibility off is reported with
// its fix. Real desktop and accessibility bus.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import dbus from "dbus-next";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { a11yStatus } from "../../src/desktop/a11y-status.js";
import { accessibilityCheck, type Check } from "../../src/cli/doctor.js";
import { desktopStatus, startDesktop, stopDesktop, type DesktopEnv } from "../../src/desktop/virtual-desktop.js";
import { missingTools } from "./helper-harness.js";

const missing = missingTools(["Xvfb", "openbox", "dbus-daemon"]);
if (missing.length > 0) console.warn(`test/linux/doctor-accessibility.test.ts skipped: ${missing.join(", ")} missing`);

describe.skipIf(missing.length > 0)("doctor: accessibility switched on", () => {
  let home: string;
  let env: DesktopEnv;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "deskbook-doctor-a11y-"));
    env = (await startDesktop({ home })).env;
  });
  afterAll(async () => {
    if (!home) return;
    await stopDesktop({ home });
    await rm(home, { recursive: true, force: true });
  });

  async function check(env: NodeJS.ProcessEnv): Promise<Check> {
    return accessibilityCheck(await desktopStatus({ home }), env);
  }

  it("finds both flags on in the virtual desktop it started", async () => {
    expect(await a11yStatus(env.DBUS_SESSION_BUS_ADDRESS)).toEqual({ IsEnabled: true, ScreenReaderEnabled: true });
    const found = await check({});
    expect(found.ok).toBe(true);
    expect(found.detail).toBe("org.a11y.Status IsEnabled=true, ScreenReaderEnabled=true (virtual desktop)");
  });

  it("reports a session with accessibility off, with the fix", async () => {
    await setIsEnabled(env.DBUS_SESSION_BUS_ADDRESS, false);
    try {
      const found = await check({ DISPLAY: env.DISPLAY, DBUS_SESSION_BUS_ADDRESS: env.DBUS_SESSION_BUS_ADDRESS });
      expect(found.ok).toBe(false);
      expect(found.detail).toMatch(/^org\.a11y\.Status IsEnabled=false, .*Qt apps \(and other toolkits that wait for it\) show no elements$/);
      expect(found.fix).toMatch(/toolkit-accessibility true/);
    } finally {
      await setIsEnabled(env.DBUS_SESSION_BUS_ADDRESS, true);
    }
  });

  it("says so when the session bus has no accessibility bus to ask", async () => {
    const found = await check({ DISPLAY: env.DISPLAY, DBUS_SESSION_BUS_ADDRESS: "unix:path=/nonexistent/bus" });
    expect(found.ok).toBe(false);
    expect(found.detail).toMatch(/no org\.a11y\.Bus/);
  });

  it("tells a headless machine without a desktop yet that the desktop will switch it on", async () => {
    expect(await accessibilityCheck(undefined, {})).toMatchObject({ ok: true, detail: "the virtual desktop switches it on when it starts" });
  });
});

async function setIsEnabled(address: string, value: boolean): Promise<void> {
  const bus = dbus.sessionBus({ busAddress: address });
  bus.on("error", () => undefined);
  try {
    await bus.call(new dbus.Message({ destination: "org.a11y.Bus", path: "/org/a11y/bus", interface: "org.freedesktop.DBus.Properties", member: "Set", signature: "ssv", body: ["org.a11y.Status", "IsEnabled", new dbus.Variant("b", value)] }));
  } finally {
    bus.disconnect();
  }
}
