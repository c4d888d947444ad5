// Apps the helper launches on Deskbook's own virtual desktop get that desktop's private runtime
// directory as XDG_RUNTIME_DIR when the helper's environment has none (a root CI job, a
// service: no login session made one), so libraries that need one (libpulse, which Chromium
// links; Qt) do not fall back to shared places like /tmp/pulse-*; one the environment has stays.
// Real helper, real galculator, its environment read from /proc.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HelperClient } from "../../src/helper/client.js";
import { desktopStatus } from "../../src/desktop/virtual-desktop.js";
import { processInfo } from "../../helper/linux/proc-info.js";
import { missingTools, startHelperDesktop, waitFor, type HelperDesktop } from "./helper-harness.js";

const missing = missingTools(["Xvfb", "openbox", "dbus-daemon", "galculator"]);
if (missing.length > 0) console.warn(`test/linux/launch-runtime-dir.test.ts skipped: ${missing.join(", ")} missing`);

const environOf = (pid: number): Record<string, string> =>
  Object.fromEntries(readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean).map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]));

describe.skipIf(missing.length > 0)("the runtime directory of apps the helper launches", () => {
  let desk: HelperDesktop;
  /** The harness's desktop records itself here, apart from DESKBOOK_HOME. */
  let desktopDir: string;
  let runtimeDir: string;
  let helpers = 0;

  beforeAll(async () => {
    desk = await startHelperDesktop();
    desk.writeConfig({ approval: "allow-all" });
    desktopDir = join(desk.dir, "desktop");
    runtimeDir = (await desktopStatus({ home: desktopDir })).state!.runtimeDir;
  });

  afterAll(async () => desk?.stop());

  /** galculator's environment as a helper started with `env` launches it; the app and the helper are ended after. */
  async function launchedEnv(env: NodeJS.ProcessEnv): Promise<Record<string, string>> {
    const helper = await desk.startHelper({ socket: join(desk.dir, `s${++helpers}`, "helper.sock"), env });
    const client = await HelperClient.connect({ socketPath: helper.socket, clientName: "runtime-dir-test", requestTimeoutMs: 30_000 });
    try {
      const calc = await client.request("launch", { name: "galculator" });
      desk.trackPid(calc.pid!);
      const launched = environOf(calc.pid!);
      // The next launch must start a process, not hand back this one.
      process.kill(calc.pid!, "SIGKILL");
      await waitFor(async () => (await processInfo(calc.pid!)) === null, "galculator to exit", 5_000);
      return launched;
    } finally {
      await client.close();
      await helper.stop();
    }
  }

  it("is the desktop's private one when the helper's environment has none, set or empty", async () => {
    // DESKBOOK_DESKTOP_DIR names where the desktop is recorded, as a per-kernel desktop's helper has it.
    const onDesktop = { ...desk.env, DESKBOOK_DESKTOP_DIR: desktopDir };
    expect((await launchedEnv({ ...onDesktop, XDG_RUNTIME_DIR: undefined })).XDG_RUNTIME_DIR).toBe(runtimeDir);
    expect((await launchedEnv({ ...onDesktop, XDG_RUNTIME_DIR: "" })).XDG_RUNTIME_DIR).toBe(runtimeDir);
  });

  it("stays the user's own when the environment has one", async () => {
    const own = desk.env.XDG_RUNTIME_DIR!;
    expect(own).not.toBe(runtimeDir);
    expect((await launchedEnv({ ...desk.env, DESKBOOK_DESKTOP_DIR: desktopDir })).XDG_RUNTIME_DIR).toBe(own);
  });

  it("is not given on a display the helper does not know as Deskbook's desktop", async () => {
    // No desktop.json in this helper's DESKBOOK_HOME: for it, the display is someone else's.
    expect((await launchedEnv({ ...desk.env, XDG_RUNTIME_DIR: undefined })).XDG_RUNTIME_DIR).toBeUndefined();
  });
});
