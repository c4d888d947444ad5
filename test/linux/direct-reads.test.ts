// Tree reads through an app's own socket (Application.GetApplicationBusAddress), skipping the
// bus daemon: galculator's at-spi2-atk offers one. The reads must equal reads through the bus,
// before and after a real change; the connection itself answers, fails its waiting calls when
// closed, and is not opened to a socket of another user or an address that is no Unix path.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDesktop, stopDesktop, type DesktopEnv } from "../../src/desktop/virtual-desktop.js";
import type { AXNode } from "../../src/helper/protocol.js";
import { Atspi } from "../../helper/linux/atspi.js";
import { AtspiBus, Iface } from "../../helper/linux/atspi-bus.js";
import { DirectConnection, DirectLost, peerSocketPath } from "../../helper/linux/direct-connection.js";
import { missingTools, sleep } from "./helper-harness.js";

const missing = missingTools(["Xvfb", "galculator"]);
if (missing.length > 0) console.warn(`test/linux/direct-reads.test.ts skipped: ${missing.join(", ")} not installed`);

/** Nodes without their index (each connection numbers its own). */
function shape(nodes: readonly AXNode[]): string[] {
  return nodes.map(({ i: _i, ...rest }) => JSON.stringify(rest));
}

describe("peerSocketPath", () => {
  let dir: string;
  let server: Server;
  let socket: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "deskbook-peer-path-test-"));
    socket = join(dir, "peer.sock");
    server = createServer();
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    await writeFile(join(dir, "plain"), "not a socket");
  });

  afterAll(async () => {
    server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("takes a Unix socket of the app's own user, and nothing else", () => {
    const uid = process.getuid?.() ?? 0;
    expect(peerSocketPath(`unix:path=${socket}`, uid)).toBe(socket);
    expect(peerSocketPath(`unix:path=${socket}`, uid + 1)).toBeUndefined();
    expect(peerSocketPath(`unix:path=${join(dir, "plain")}`, uid)).toBeUndefined();
    expect(peerSocketPath(`unix:path=${join(dir, "absent")}`, uid)).toBeUndefined();
    expect(peerSocketPath("tcp:host=127.0.0.1,port=1", uid)).toBeUndefined();
    expect(peerSocketPath(`unix:path=${socket},guid=1;unix:path=${socket}`, uid)).toBeUndefined();
    expect(peerSocketPath("", uid)).toBeUndefined();
  });

  it("a socket that does not speak D-Bus fails to open, with a deadline", async () => {
    await expect(DirectConnection.open(socket)).rejects.toBeDefined();
  });
});

describe.skipIf(missing.length > 0)("reads through the app's direct connection (galculator)", () => {
  let home: string;
  let env: DesktopEnv;
  let direct: Atspi;
  let viaBus: Atspi;
  let calc: ChildProcess;
  const pid = (): number => calc.pid ?? -1;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "deskbook-direct-reads-test-"));
    env = await ensureDesktop({ home });
    const bus = { a11yBusAddress: env.AT_SPI_BUS_ADDRESS, sessionBusAddress: env.DBUS_SESSION_BUS_ADDRESS };
    direct = await Atspi.connect(bus);
    viaBus = await Atspi.connect({ ...bus, direct: false });
    calc = spawn("galculator", [], {
      stdio: "ignore",
      env: { ...process.env, ...env, NO_AT_BRIDGE: "0", XDG_CONFIG_HOME: join(home, "config"), GSETTINGS_BACKEND: "memory" },
    });
    const deadline = Date.now() + 15_000;
    while (!(await direct.tree(pid()).catch(() => undefined))?.nodes.some((n) => n.title === "7")) {
      if (Date.now() > deadline) throw new Error("galculator's tree did not show its keys");
      await sleep(100);
    }
  }, 60_000);

  afterAll(async () => {
    calc?.kill("SIGKILL");
    direct?.close();
    viaBus?.close();
    if (home) {
      await stopDesktop({ home });
      await rm(home, { recursive: true, force: true });
    }
  });

  /** The two connections' reads, once two bus reads in a row agree (the app has settled). */
  async function expectSame(): Promise<AXNode[]> {
    let before: string[] = [];
    for (let attempt = 0; attempt < 20; attempt++) {
      const now = shape((await viaBus.tree(pid())).nodes);
      if (JSON.stringify(now) === JSON.stringify(before)) break;
      before = now;
      await sleep(100);
    }
    const read = await direct.tree(pid());
    expect(shape(read.nodes)).toEqual(before);
    expect(shape((await viaBus.tree(pid())).nodes)).toEqual(before);
    return read.nodes;
  }

  async function press(connection: Atspi, title: string): Promise<void> {
    const key = (await connection.tree(pid())).nodes.find((n) => n.title === title && n.role === "AXButton");
    if (!key) throw new Error(`no key ${title}`);
    await connection.performAction(key.i, "AXPress");
  }

  it("galculator is read through its own socket; the bus-only connection is not", async () => {
    expect(await direct.readsDirect(pid())).toBe(true);
    expect(await viaBus.readsDirect(pid())).toBe(false);
  });

  it("reads equal reads through the bus, before and after a calculation", async () => {
    await expectSame();
    for (const key of ["C", "4", "2", "+", "8", "="]) await press(direct, key);
    const nodes = await expectSame();
    expect(nodes.some((n) => n.value?.trim() === "50")).toBe(true);
  });

  it("the connection answers calls, and a closed one fails its waiting calls and takes no more", async () => {
    const bus = await AtspiBus.connect({ a11yBusAddress: env.AT_SPI_BUS_ADDRESS });
    try {
      const apps = await bus.call({ bus: "org.a11y.atspi.Registry", path: "/org/a11y/atspi/accessible/root" }, Iface.accessible, "GetChildren");
      const refs = (apps[0] as [string, string][]).map(([name, path]) => ({ bus: name, path }));
      const pids = await Promise.all(refs.map((ref) => bus.connectionPid(ref.bus)));
      const app = refs[pids.indexOf(pid())];
      if (!app) throw new Error("galculator is not registered");
      const [address] = await bus.call(app, Iface.application, "GetApplicationBusAddress");
      const socket = peerSocketPath(String(address), process.getuid?.() ?? 0);
      expect(socket).toBeDefined();
      const connection = await DirectConnection.open(socket as string);
      const role = await connection.call(app.bus, app.path, Iface.accessible, "GetRole", "", []);
      expect(role?.body[0]).toBe(75); // ROLE_APPLICATION
      const waiting = connection.call(app.bus, app.path, Iface.accessible, "GetChildren", "", []);
      connection.close();
      // Not a D-Bus error: the bus is asked instead, and its answer says whether the app is gone.
      await expect(waiting).rejects.toBeInstanceOf(DirectLost);
      expect(connection.closed).not.toBeNull();
      expect(connection.call(app.bus, app.path, Iface.accessible, "GetRole", "", [])).toBeUndefined();
    } finally {
      bus.close();
    }
  });

  it("an app that exits is reported not running, not waited on", async () => {
    calc.kill("SIGKILL");
    const deadline = Date.now() + 5_000;
    let error: unknown;
    while (Date.now() < deadline) {
      error = await direct.tree(pid()).then(() => undefined, (e: unknown) => e);
      if (error) break;
      await sleep(50);
    }
    expect(error).toMatchObject({ code: "not_running" });
  });
});
