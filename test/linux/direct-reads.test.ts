// Tree reads through an app's own socket (Application.GetApplicationBusAddress), skipping the
// bus daemon: galculator's at-spi2-atk offers one. The reads must equal reads through the bus,
// before and after a real change; the connection itself answers, fails its waiting calls when
// closed, and is not opened to a socket of another user or an address that is no Unix path.
import { spawn, type ChildProcess } from "node:child_process";
import dbus from "dbus-next";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDesktop, stopDesktop, type DesktopEnv } from "../../src/desktop/virtual-desktop.js";
import type { AXNode } from "../../src/helper/protocol.js";
import { Atspi } from "../../helper/linux/atspi.js";
import { AtspiBus, Iface } from "../../helper/linux/atspi-bus.js";
import { readCache } from "../../helper/linux/atspi-records.js";
import { CACHE_ITEMS_SIGNATURE, decodeCacheItems } from "../../helper/linux/atspi-cache-decoder.js";
import { DBusDecodeError, decodeBody } from "../../helper/linux/dbus-body-decoder.js";
import type { RawMessage } from "../../helper/linux/dbus-message-reader.js";
import { DirectConnection, DirectLost, peerSocketPath } from "../../helper/linux/direct-connection.js";
import { bodyOf, libraryReply, messageWithFields } from "../helper/dbus-reference.js";
import { startFakePeer } from "./fake-peer.js";
import { missingTools, sleep } from "./helper-harness.js";

const missing = missingTools(["Xvfb", "galculator"]);
if (missing.length > 0) console.warn(`test/linux/direct-reads.test.ts skipped: ${missing.join(", ")} not installed`);

/** Nodes without their index (each connection numbers its own). */
function shape(nodes: readonly AXNode[]): string[] {
  return nodes.map(({ i: _i, ...rest }) => JSON.stringify(rest));
}

/** The registry's entry for the app with this pid. */
async function registeredApp(bus: AtspiBus, appPid: number): Promise<{ bus: string; path: string }> {
  const apps = await bus.call({ bus: "org.a11y.atspi.Registry", path: "/org/a11y/atspi/accessible/root" }, Iface.accessible, "GetChildren");
  const refs = (apps[0] as [string, string][]).map(([name, path]) => ({ bus: name, path }));
  const pids = await Promise.all(refs.map((ref) => bus.connectionPid(ref.bus)));
  const app = refs[pids.indexOf(appPid)];
  if (!app) throw new Error(`no registered app has pid ${appPid}`);
  return app;
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

  it("a peer that refuses authentication is not used", async () => {
    const peer = await startFakePeer(join(dir, "refusing.sock"), () => undefined, "REJECTED EXTERNAL");
    try {
      await expect(DirectConnection.open(peer.path)).rejects.toThrow(/refused authentication/);
    } finally {
      await peer.close();
    }
  });

  it("a malformed reply fails its own call only; bytes that are not D-Bus close the connection", async () => {
    const answers: Array<(call: RawMessage) => Buffer> = [
      (call) => libraryReply("u", [75], 1, call.serial),
      // A GetItems reply whose array claims more bytes than the body has.
      (call) => {
        const reply = libraryReply(CACHE_ITEMS_SIGNATURE, [[]], 2, call.serial);
        bodyOf(reply).writeUInt32LE(4096, 0);
        return reply;
      },
      (call) => libraryReply("u", [76], 3, call.serial),
      () => Buffer.from("this is not a D-Bus message at all"),
    ];
    const peer = await startFakePeer(join(dir, "scripted.sock"), (call) => answers.shift()?.(call));
    try {
      const connection = await DirectConnection.open(peer.path);
      const first = await connection.call(":1.5", "/a", Iface.accessible, "GetRole", "", []);
      expect(decodeBody("u", first!.body, first!.little)).toEqual([75]);
      const items = await connection.call(":1.5", "/org/a11y/atspi/cache", Iface.cache, "GetItems", "", []);
      expect(() => decodeCacheItems(items!.body, items!.little)).toThrow(DBusDecodeError);
      // Framing was intact: the connection goes on.
      const third = await connection.call(":1.5", "/a", Iface.accessible, "GetRole", "", []);
      expect(decodeBody("u", third!.body, third!.little)).toEqual([76]);
      const garbage = connection.call(":1.5", "/a", Iface.accessible, "GetRole", "", []);
      await expect(garbage).rejects.toBeInstanceOf(DirectLost);
      expect(connection.closed).toMatch(/not D-Bus/);
      expect(peer.calls.map((c) => c.member)).toEqual(["GetRole", "GetItems", "GetRole", "GetRole"]);
    } finally {
      await peer.close();
    }
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
      const app = await registeredApp(bus, pid());
      const [address] = await bus.call(app, Iface.application, "GetApplicationBusAddress");
      const socket = peerSocketPath(String(address), process.getuid?.() ?? 0);
      expect(socket).toBeDefined();
      const connection = await DirectConnection.open(socket as string);
      const role = await connection.call(app.bus, app.path, Iface.accessible, "GetRole", "", []);
      expect(role?.signature).toBe("u");
      expect(decodeBody("u", role?.body ?? Buffer.alloc(0), role?.little ?? true)).toEqual([75]); // ROLE_APPLICATION
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

  it("properties read through the direct connection are plain values, as through the bus", async () => {
    // Until the connection decoded its own replies, a property came back as the other copy of
    // the library's Variant: GTK 3 went unrecognized and every read asked every frame and action.
    const bus = await AtspiBus.connect({ a11yBusAddress: env.AT_SPI_BUS_ADDRESS });
    try {
      const app = await registeredApp(bus, pid());
      const throughBus = await bus.getProperty(app, Iface.application, "ToolkitName");
      await bus.openDirect(app, pid());
      expect(bus.hasDirect(app.bus)).toBe(true);
      expect(throughBus).toBe("gtk");
      expect(await bus.getProperty(app, Iface.application, "ToolkitName")).toBe("gtk");
      expect(await bus.getProperty(app, Iface.accessible, "ChildCount")).toEqual(expect.any(Number));
    } finally {
      bus.close();
    }
  });

  it("a malformed GetItems reply is a coded error that leaves both connections working", async () => {
    const item = [[":1.99", "/a/1"], [":1.99", "/org/a11y/atspi/accessible/root"], ["", "/org/a11y/atspi/null"], 0, 0, [Iface.accessible], "Fake", 75, "", [0, 0]];
    const valid = (serial: number, replySerial: number): Buffer => libraryReply(CACHE_ITEMS_SIGNATURE, [[item]], serial, replySerial);
    // 200 000 variants, each holding the next: the decoder's depth limit, not the stack, stops it.
    const deepVariants = Buffer.concat([Buffer.alloc(200_000 * 3, Buffer.from([1, 0x76, 0])), Buffer.from([1, 0x79, 0, 7])]);
    const answers: Array<(call: RawMessage) => Buffer> = [
      (call) => messageWithFields([[5, "u", call.serial], [8, "g", "v"]], deepVariants, 3),
      (call) => {
        const reply = valid(1, call.serial);
        bodyOf(reply).writeUInt32LE(1 << 20, 0); // an array longer than the body
        return reply;
      },
      (call) => valid(2, call.serial),
      () => Buffer.from("garbage that cannot be framed"),
    ];
    const peer = await startFakePeer(join(home, "fake-app.sock"), (call) => answers.shift()?.(call));
    // A fake app on the real bus: it names the peer's socket as its own, and answers GetItems there too.
    const app = dbus.sessionBus({ busAddress: env.AT_SPI_BUS_ADDRESS });
    await new Promise<void>((resolve, reject) => {
      app.once("connect", () => resolve());
      app.once("error", reject);
    });
    const bus = await AtspiBus.connect({ a11yBusAddress: env.AT_SPI_BUS_ADDRESS });
    try {
      app.addMethodHandler((message: dbus.Message): boolean => {
        if (message.member === "GetApplicationBusAddress") app.send(dbus.Message.newMethodReturn(message, "s", [`unix:path=${peer.path}`]));
        else if (message.member === "GetItems") app.send(dbus.Message.newMethodReturn(message, CACHE_ITEMS_SIGNATURE, [[item]]));
        else return false;
        return true;
      });
      const name = (app as unknown as { name: string }).name; // the library's unique name, untyped
      await bus.openDirect({ bus: name, path: "/org/a11y/atspi/accessible/root" }, process.pid);
      expect(bus.hasDirect(name)).toBe(true);
      await expect(readCache(bus, name)).rejects.toMatchObject({ code: "failed", message: expect.stringMatching(/GetItems is malformed: .*nested/) });
      expect(bus.broken).toBeNull();
      expect(bus.hasDirect(name)).toBe(true);
      expect(await bus.nameHasOwner(name)).toBe(true); // the bus connection still answers
      await expect(readCache(bus, name)).rejects.toMatchObject({ code: "failed", message: expect.stringMatching(/GetItems is malformed/) });
      expect(bus.broken).toBeNull();
      expect(bus.hasDirect(name)).toBe(true);
      const expected = { ref: { bus: ":1.99", path: "/a/1" }, name: "Fake", role: 75 };
      expect(await readCache(bus, name)).toMatchObject([expected]);
      // Bytes that cannot be framed close the direct connection; the call is answered through the bus.
      expect(await readCache(bus, name)).toMatchObject([expected]);
      expect(bus.hasDirect(name)).toBe(false);
      expect(bus.broken).toBeNull();
      expect(peer.calls.map((c) => c.member)).toEqual(["GetItems", "GetItems", "GetItems", "GetItems"]);
    } finally {
      bus.close();
      app.disconnect();
      await peer.close();
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
