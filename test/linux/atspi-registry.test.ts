// startRegistry on a bus that cannot start the registry fails at once with the reason, rather
// than leaving the first app to wait on it (the desktop's own case is in virtual-desktop.test.ts).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRegistry } from "../../src/desktop/atspi-registry.js";

const hasDbus = spawnSync("sh", ["-c", "command -v dbus-daemon"]).status === 0;
if (!hasDbus) console.warn("test/linux/atspi-registry.test.ts skipped: dbus-daemon is not installed");

describe.skipIf(!hasDbus)("startRegistry", () => {
  let dir: string;
  let daemon: ChildProcess;
  let address: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "deskbook-registry-test-"));
    const socket = join(dir, "bus");
    address = `unix:path=${socket}`;
    // A session bus knows no org.a11y.atspi.Registry service: activation is refused.
    daemon = spawn("dbus-daemon", ["--session", "--nofork", "--nopidfile", `--address=${address}`], { stdio: "ignore" });
    for (let n = 0; n < 100 && !existsSync(socket); n++) await new Promise((resolve) => setTimeout(resolve, 50));
  });
  afterAll(() => {
    daemon?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it("names the registry and the bus's reason when it cannot be started", async () => {
    await expect(startRegistry(address, 5_000)).rejects.toThrow(/the AT-SPI registry \(org\.a11y\.atspi\.Registry, at-spi2-registryd\) did not start on the accessibility bus: .*org\.a11y\.atspi\.Registry/);
  });

  it("gives up within its timeout when there is no bus there", async () => {
    await expect(startRegistry(`unix:path=${join(dir, "none")}`, 500)).rejects.toThrow(/did not start on the accessibility bus: no answer within 0.5 s/);
  });
});
