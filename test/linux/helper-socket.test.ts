// The real Linux helper's transport: where and how it listens, one helper per socket, clean
// shutdown, and the framing rules of docs/backend-protocol.md (every bad line answered, the
// connection kept).
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_LINE_BYTES, PROTOCOL_VERSION } from "../../src/helper/protocol.js";
import { HelperClient } from "../../src/helper/client.js";
import { validateResult } from "../../src/helper/schema.js";
import { HELPER_ENTRY, missingTools, startHelperDesktop, waitFor, type HelperDesktop, type RunningHelper } from "./helper-harness.js";
import { createSecondUser, secondUserUnavailable } from "../support/second-user.js";

/** Connects, says hello and prints the first line the helper sends back (run as another user). */
const PEER_SCRIPT = `
const socket = require("node:net").createConnection(process.argv[1]);
let text = "";
socket.on("connect", () => socket.write(JSON.stringify({ id: 1, method: "hello", params: { client: "intruder", protocol: ${PROTOCOL_VERSION} } }) + "\\n"));
socket.on("data", (chunk) => { text += chunk; if (text.includes("\\n")) { process.stdout.write(text.split("\\n")[0]); process.exit(0); } });
socket.on("error", (error) => { process.stdout.write("error " + error.code); process.exit(0); });
socket.on("close", () => { process.stdout.write(text || "closed"); process.exit(0); });
`;

const missing = missingTools(["Xvfb", "openbox", "dbus-daemon"]);
if (missing.length > 0) console.warn(`test/linux/helper-socket.test.ts skipped: ${missing.join(", ")} missing`);

describe.skipIf(missing.length > 0)("Linux helper: socket and framing", () => {
  let desk: HelperDesktop;
  let helper: RunningHelper;

  beforeAll(async () => {
    desk = await startHelperDesktop();
    desk.writeConfig({ approval: "allow-all" });
    helper = await desk.startHelper();
  });

  afterAll(async () => {
    await desk?.stop();
  });

  it("listens on a 0600 socket in a 0700 directory", () => {
    expect(statSync(helper.socket).mode & 0o777).toBe(0o600);
    expect(statSync(join(desk.dir, "s")).mode & 0o777).toBe(0o700);
  });

  it.skipIf(secondUserUnavailable() !== null)("refuses another user's process with a permission error, even when the socket's modes let it in", async () => {
    const other = createSecondUser();
    const sockDir = join(desk.dir, "s");
    try {
      // The directory is the first wall: another user cannot even reach the socket.
      expect(other.run(process.execPath, ["-e", PEER_SCRIPT, helper.socket]).stdout).toBe("error EACCES");
      // The uid check is the second: open every mode up, and the helper still refuses.
      chmodSync(desk.dir, 0o711);
      chmodSync(sockDir, 0o711);
      chmodSync(helper.socket, 0o666);
      const line = other.run(process.execPath, ["-e", PEER_SCRIPT, helper.socket]).stdout;
      const reply = JSON.parse(line) as { id: null; error: { code: string; message: string } };
      expect(reply.id).toBeNull();
      expect(reply.error.code).toBe("permission");
      expect(reply.error.message).toContain(`uid ${other.uid}`);
      await waitFor(async () => helper.output().includes("refused a connection"), "the refusal on the helper's stderr", 5_000);
      // The owner is still served, on a connection opened after the refusal.
      const raw = await helper.connect();
      expect((await raw.call("ping")).result).toMatchObject({ platform: "linux" });
      raw.close();
    } finally {
      chmodSync(helper.socket, 0o600);
      chmodSync(sockDir, 0o700);
      chmodSync(desk.dir, 0o700);
      other.remove();
    }
  });

  it("says hello with its protocol, platform and pid", async () => {
    const raw = await helper.connect(false);
    try {
      const reply = await raw.call("hello", { client: "socket-test", protocol: PROTOCOL_VERSION });
      expect(reply.result).toMatchObject({ protocol: PROTOCOL_VERSION, platform: "linux", pid: helper.child.pid });
      expect(validateResult("hello", reply.result)).toEqual({ ok: true });
    } finally {
      raw.close();
    }
  });

  it("requires hello first, and refuses another protocol naming both versions", async () => {
    const raw = await helper.connect(false);
    try {
      expect((await raw.call("ping")).error).toEqual({ code: "bad_request", message: "send hello before ping" });
      const mismatch = await raw.call("hello", { client: "old", protocol: PROTOCOL_VERSION + 1 });
      expect(mismatch.error).toEqual({
        code: "bad_request",
        message: `this helper speaks protocol ${PROTOCOL_VERSION}; the client speaks protocol ${PROTOCOL_VERSION + 1}`,
      });
      expect((await raw.call("ping")).error?.code).toBe("bad_request");
      expect((await raw.call("hello", { client: "new", protocol: PROTOCOL_VERSION })).result).toBeDefined();
      expect((await raw.call("ping")).result).toMatchObject({ platform: "linux" });
    } finally {
      raw.close();
    }
  });

  it("answers a line that is not JSON with bad_request and id null, and keeps serving", async () => {
    const raw = await helper.connect();
    try {
      raw.sendRaw("this is not json\n");
      expect(await raw.next()).toMatchObject({ id: null, error: { code: "bad_request" } });
      raw.sendRaw('{"id": 5, "params": {}}\n');
      expect(await raw.next()).toMatchObject({ id: 5, error: { code: "bad_request" } });
      expect((await raw.call("ping")).result).toMatchObject({ platform: "linux" });
    } finally {
      raw.close();
    }
  });

  it("answers an unknown method and invalid params with bad_request, and keeps serving", async () => {
    const raw = await helper.connect();
    try {
      expect((await raw.call("fly", {})).error).toEqual({ code: "bad_request", message: 'unknown method "fly"' });
      expect((await raw.call("click", { pid: 1, x: 1 })).error).toEqual({ code: "bad_request", message: "click params: missing `y`" });
      expect((await raw.call("ping", { extra: true })).error?.code).toBe("bad_request");
      expect((await raw.call("ping")).result).toMatchObject({ platform: "linux" });
    } finally {
      raw.close();
    }
  });

  it("answers a line over 16 MiB with bad_request, skips it, and serves the next line", async () => {
    const raw = await helper.connect();
    try {
      raw.sendRaw(Buffer.alloc(MAX_LINE_BYTES + 1024, 0x78));
      raw.sendRaw("xxxx\n");
      expect(await raw.next()).toMatchObject({ id: null, error: { code: "bad_request" } });
      expect((await raw.call("ping")).result).toMatchObject({ platform: "linux" });
      expect(raw.closed).toBe(false);
    } finally {
      raw.close();
    }
  });

  it("serves concurrent requests, matched by id, with replies the schema accepts", async () => {
    const client = await HelperClient.connect({ socketPath: helper.socket, clientName: "socket-test" });
    try {
      const [ping, apps, permissions] = await Promise.all([client.request("ping", {}), client.request("listApps", {}), client.request("permissions", {})]);
      expect(ping).toMatchObject({ platform: "linux", background: { backgroundInput: false } });
      expect(apps.some((app) => app.bundleId === "galculator")).toBe(true);
      expect(permissions).toEqual({ accessibility: true, screenRecording: true, escapeWatcher: true, inputMonitoring: true });
    } finally {
      await client.close();
    }
  });

  it("exits 0 with a message when another helper already answers on the socket", async () => {
    const second = await desk.startHelper({ socket: helper.socket, waitForListening: false });
    expect(await second.exited).toBe(0);
    expect(second.output()).toContain("another helper is already listening");
    expect((await (await helper.connect()).call("ping")).result).toBeDefined();
  });

  it("tightens a loose socket directory and replaces a stale socket file", async () => {
    const dir = join(desk.dir, "loose");
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    const socket = join(dir, "helper.sock");
    staleSocket(socket);
    const other = await desk.startHelper({ socket });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    expect((await (await other.connect()).call("ping")).result).toBeDefined();
    expect(await other.stop("SIGINT")).toBe(0);
    expect(existsSync(socket)).toBe(false);
  });

  it("refuses to start without DISPLAY, saying why", () => {
    const env = { ...desk.env };
    delete env.DISPLAY;
    const result = spawnSync(process.execPath, [HELPER_ENTRY, "--socket", join(desk.dir, "nodisplay", "h.sock")], { env, encoding: "utf8", timeout: 10_000 });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("DISPLAY is not set");
  });

  it("removes its socket on SIGTERM", async () => {
    const socket = join(desk.dir, "t", "helper.sock");
    const other = await desk.startHelper({ socket });
    expect(existsSync(socket)).toBe(true);
    expect(await other.stop("SIGTERM")).toBe(0);
    expect(existsSync(socket)).toBe(false);
  });
});

/** A socket file nobody listens on: what a helper killed with SIGKILL leaves behind. */
function staleSocket(path: string): void {
  const script = `require("node:net").createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, "SIGKILL"))`;
  spawnSync(process.execPath, ["-e", script], { timeout: 10_000 });
  if (!existsSync(path)) throw new Error("could not leave a stale socket behind");
}
