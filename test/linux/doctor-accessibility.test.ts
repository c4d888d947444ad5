// `deskbook doctor` on Linux reads org.a11y.Status from the session the helper would use: the
// virtual desktop switches both flags on, and a session with accessibility off is reported with
// its fix. It also asks the AT-SPI registry for its apps: a registry that is missing or hung is
// reported with a code and its fix. Real desktop, accessibility bus and registry.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import dbus from "dbus-next";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { a11yStatus } from "../../src/desktop/a11y-status.js";
import { accessibilityCheck, registryCheck, type Check } from "../../src/cli/doctor.js";
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

describe.skipIf(missing.length > 0)("doctor: AT-SPI registry answers", () => {
  let home: string;
  let env: DesktopEnv;
  let plain: ChildProcess;
  let plainAddress: string;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "deskbook-doctor-registry-"));
    env = (await startDesktop({ home })).env;
    // A bus with no registry service on it, standing in for an accessibility bus without at-spi2-registryd.
    const socket = join(home, "plain-bus");
    plainAddress = `unix:path=${socket}`;
    plain = spawn("dbus-daemon", ["--session", "--nofork", "--nopidfile", `--address=${plainAddress}`], { stdio: "ignore" });
    for (let n = 0; n < 100 && !existsSync(socket); n++) await new Promise((resolve) => setTimeout(resolve, 50));
  });
  afterAll(async () => {
    plain?.kill();
    if (!home) return;
    await stopDesktop({ home });
    await rm(home, { recursive: true, force: true });
  });

  it("finds the virtual desktop's registry answering", async () => {
    const found = await registryCheck(await desktopStatus({ home }), {});
    expect(found).toMatchObject({ ok: true });
    expect(found.detail).toMatch(/^org\.a11y\.atspi\.Registry lists \d+ apps? \(virtual desktop\)$/);
  });

  it("falls back to org.a11y.Bus's address when AT_SPI_BUS_ADDRESS is stale, as the helper does", async () => {
    const found = await registryCheck(undefined, { DISPLAY: env.DISPLAY, DBUS_SESSION_BUS_ADDRESS: env.DBUS_SESSION_BUS_ADDRESS, AT_SPI_BUS_ADDRESS: "unix:path=/nonexistent/a11y" });
    expect(found.ok).toBe(true);
  });

  it("reports an accessibility bus with no registry on it, coded, with the fix", async () => {
    const found = await registryCheck(undefined, { DISPLAY: env.DISPLAY, DBUS_SESSION_BUS_ADDRESS: "unix:path=/nonexistent/bus", AT_SPI_BUS_ADDRESS: plainAddress });
    expect(found).toMatchObject({ ok: false, code: "registry_silent" });
    expect(found.detail).toMatch(/^the AT-SPI registry \(org\.a11y\.atspi\.Registry\) does not answer on the accessibility bus: .*org\.a11y\.atspi\.Registry.*: apps cannot register/);
    expect(found.fix).toMatch(/at-spi2-core/);
  });

  it("reports a hung registry within its 2 s", async () => {
    const registry = registryPid((await desktopStatus({ home })).state!.leaderPid);
    process.kill(registry, "SIGSTOP");
    try {
      const started = Date.now();
      const found = await registryCheck(await desktopStatus({ home }), {});
      expect(found).toMatchObject({ ok: false, code: "registry_silent" });
      expect(found.detail).toMatch(/does not answer on the accessibility bus: no answer within 2 s \(virtual desktop\)/);
      expect(found.fix).toMatch(/deskbook desktop stop/);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      process.kill(registry, "SIGCONT");
    }
  });

  it("says there is no accessibility bus to ask, coded", async () => {
    const found = await registryCheck(undefined, { DISPLAY: env.DISPLAY, DBUS_SESSION_BUS_ADDRESS: "unix:path=/nonexistent/bus" });
    expect(found).toMatchObject({ ok: false, code: "no_a11y_bus" });
  });

  it("tells a headless machine without a desktop yet that the desktop will start it", async () => {
    expect(await registryCheck(undefined, {})).toMatchObject({ ok: true, detail: "the virtual desktop starts it when it starts" });
  });
});

/** The desktop's at-spi2-registryd: the one in the desktop's process group. */
function registryPid(group: number): number {
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    const stat = (() => {
      try {
        return readFileSync(`/proc/${entry}/stat`, "utf8");
      } catch {
        return "";
      }
    })();
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const fields = stat.slice(close + 2).split(" ");
    if (comm.startsWith("at-spi2-registr") && Number(fields[2]) === group) return Number(entry);
  }
  throw new Error(`no at-spi2-registryd in process group ${group}`);
}

async function setIsEnabled(address: string, value: boolean): Promise<void> {
  const bus = dbus.sessionBus({ busAddress: address });
  bus.on("error", () => undefined);
  try {
    await bus.call(new dbus.Message({ destination: "org.a11y.Bus", path: "/org/a11y/bus", interface: "org.freedesktop.DBus.Properties", member: "Set", signature: "ssv", body: ["org.a11y.Status", "IsEnabled", new dbus.Variant("b", value)] }));
  } finally {
    bus.disconnect();
  }
}
