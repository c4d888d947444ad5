// The net under the range checks: when the x11 or dbus-next library throws in the middle of
// a request, the helper gives that connection up and the next call gets a working new one.
// Here the libraries are handed values past their wire types directly (the protocol would
// have refused them with bad_request before they got this far).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AtspiBus, REGISTRY, Iface } from "../../helper/linux/atspi-bus.js";
import { EscapeWatcher, type EscapePress } from "../../helper/linux/escape-watcher.js";
import { Services } from "../../helper/linux/services.js";
import { windowsOfPid } from "../../helper/linux/windows.js";
import { onDisplayLost, sharedX11 } from "../../helper/linux/x11-client.js";
import { hasX11Tools, mainWindow, startTestDesktop, waitFor, type TestDesktop } from "./x-server.js";

const execFileAsync = promisify(execFile);

describe.skipIf(!hasX11Tools())("connections rebuilt after a library throws mid-request", () => {
  let desktop: TestDesktop;
  let calcPid = 0;

  beforeAll(async () => {
    desktop = await startTestDesktop();
    process.env.AT_SPI_BUS_ADDRESS = desktop.env.AT_SPI_BUS_ADDRESS;
    process.env.DBUS_SESSION_BUS_ADDRESS = desktop.env.DBUS_SESSION_BUS_ADDRESS;
    const app = desktop.launch("galculator");
    calcPid = app.pid ?? 0;
    await mainWindow(calcPid);
  });

  afterAll(async () => {
    await desktop?.stop();
  });

  it("replaces the X connection after XTEST throws, keeps the Escape watcher, and does not call it a lost display", async () => {
    let displayLost = 0;
    const stopListening = onDisplayLost(() => displayLost++);
    const watcher = await EscapeWatcher.start();
    const presses: EscapePress[] = [];
    watcher.onEscape((press) => presses.push(press));
    try {
      const first = await sharedX11();
      // 40000 does not fit XTEST's INT16: the package counted the request, then threw.
      await expect(first.fakeInput("motion", 0, 40_000, 0)).rejects.toMatchObject({ code: "failed" });
      expect(first.isClosed).toBe(true);
      const second = await sharedX11();
      expect(second).not.toBe(first);
      expect(await second.pointer()).toMatchObject({ x: expect.any(Number) });
      expect((await windowsOfPid(calcPid))[0]).toMatchObject({ title: "galculator" });
      await waitFor(async () => {
        await execFileAsync("xdotool", ["key", "Escape"], { env: desktop.env });
        return presses.length > 0;
      }, "the Escape watcher to see Escape on the new connection", 5_000);
      expect(displayLost).toBe(0);
    } finally {
      await watcher.stop();
      stopListening();
    }
  });

  it("replaces a core request's connection too, and every later call answers", async () => {
    const first = await sharedX11();
    // GetImage takes an INT16 x: the package refuses it while packing.
    await expect(first.withRootImage(70_000, 0, 1, 1, async () => undefined)).rejects.toMatchObject({ code: "failed" });
    const second = await sharedX11();
    expect(second).not.toBe(first);
    expect(await second.withRootImage(0, 0, 1, 1, async (image) => image.data.length)).toBeGreaterThan(0);
  });

  it("marks the accessibility bus broken when dbus-next throws, and refuses further calls with a code", async () => {
    const bus = await AtspiBus.connect();
    try {
      // INT32 cannot hold 2^40: dbus-next refuses while marshalling.
      await expect(bus.call(REGISTRY, Iface.accessible, "GetChildAtIndex", "i", [2 ** 40])).rejects.toMatchObject({ code: "failed" });
      expect(bus.broken).toMatch(/GetChildAtIndex/);
      await expect(bus.call(REGISTRY, Iface.accessible, "GetChildCount")).rejects.toMatchObject({ code: "failed" });
    } finally {
      bus.close();
    }
  });

  it("opens a new accessibility connection in Services once the old one is broken", async () => {
    const services = new Services(desktop.dir);
    try {
      const first = await services.atspi();
      first.close();
      expect(first.broken).not.toBeNull();
      const second = await services.atspi();
      expect(second).not.toBe(first);
      expect(second.broken).toBeNull();
      // The test desktop's apps run without the AT-SPI bridge: the registry answers, with no apps.
      expect(await second.listApplications()).toBeInstanceOf(Array);
    } finally {
      await services.close();
    }
  });
});
