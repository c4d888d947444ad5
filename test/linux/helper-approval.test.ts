// The real Linux helper's approval gate: allowlist, deny over allow, apps blocked by default
// (a terminal started outside the helper; the helper itself), the ask dialog (zenity, answered
// here through AT-SPI as a user would click it), and no dialog at all without zenity.
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Atspi } from "../../helper/linux/atspi.js";
import type { RawHelperConnection, RawReply } from "../fixtures/raw-helper-connection.js";
import { ESCAPE_GRACE_MS } from "../../helper/linux/input-floor.js";
import { CLI } from "../support/kernel-process.js";
import { focusWindowOf } from "./focus-window-of.js";
import { managedWindowOf } from "./managed-window-of.js";
import { missingTools, sleep, startHelperDesktop, waitFor, type HelperDesktop, type RunningHelper } from "./helper-harness.js";

const missing = missingTools(["Xvfb", "openbox", "dbus-daemon", "xdotool", "xprop", "galculator", "zenity"]);
if (missing.length > 0) console.warn(`test/linux/helper-approval.test.ts skipped: ${missing.join(", ")} missing`);
const hasXterm = spawnSync("sh", ["-c", "command -v xterm"]).status === 0;
if (!hasXterm) console.warn("test/linux/helper-approval.test.ts: xterm is not installed (apt-get install xterm); its blocked-app test is skipped");

describe.skipIf(missing.length > 0)("Linux helper: approval gate", () => {
  let desk: HelperDesktop;
  let helper: RunningHelper;
  let raw: RawHelperConnection;
  let atspi: Atspi;
  let calcPid: number;

  beforeAll(async () => {
    desk = await startHelperDesktop();
    desk.writeConfig({ approval: "allow-all" });
    helper = await desk.startHelper();
    raw = await helper.connect();
    atspi = await Atspi.connect({ a11yBusAddress: desk.desktop.AT_SPI_BUS_ADDRESS });
    calcPid = desk.spawnApp("galculator").pid!;
    await waitFor(async () => ((await raw.call("windows", { pid: calcPid })).result as unknown[] | undefined)?.length, "galculator's window");
  });

  afterAll(async () => {
    raw?.close();
    atspi?.close();
    await desk?.stop();
  });

  const logLines = (): Record<string, unknown>[] =>
    readFileSync(join(desk.home, "actions.log"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);

  it("refuses apps not on allow under allowlist, before launching anything", async () => {
    desk.writeConfig({ approval: "allowlist", allow: ["org.xfce.mousepad"] });
    const refused = await raw.call("launch", { name: "galculator" });
    expect(refused.error).toMatchObject({ code: "not_allowed", message: expect.stringContaining('"galculator"') });
    expect((await raw.call("windows", { pid: calcPid })).error?.code).toBe("not_allowed");
    expect(logLines().at(-1)).toMatchObject({ client: "raw-test", app: "Galculator", action: "launch", refused: "not_allowed" });
    const listed = await raw.call("resolveApp", { query: "galculator" });
    expect(listed.result).toMatchObject({ pid: calcPid }); // not gated: it names no pid
  });

  it("lets deny win over allow", async () => {
    desk.writeConfig({ approval: "allowlist", allow: ["galculator"], deny: ["Galculator"] });
    expect((await raw.call("windows", { pid: calcPid })).error?.code).toBe("denied");
    desk.writeConfig({ approval: "allowlist", allow: ["galculator"] });
    expect((await raw.call("windows", { pid: calcPid })).result).toHaveLength(1);
  });

  it("answers not_running for a pid that does not run, before the policy", async () => {
    desk.writeConfig({ approval: "allowlist" });
    expect((await raw.call("activate", { pid: 999_999 })).error?.code).toBe("not_running");
  });

  it.skipIf(!hasXterm)("blocks a terminal started outside the helper until an explicit allow unlocks it", async () => {
    desk.writeConfig({ approval: "allow-all" });
    const xterm = desk.spawnApp("xterm").pid!;
    // windows is gated, so the refusal itself says the process runs; wait with X11 tools until the
    // window manager manages xterm's window (mapped and named is not enough: `windows` lists
    // managed windows, and a loaded openbox takes its time to take a new one on).
    const window = await managedWindowOf(desk.env, xterm);
    const refused = await raw.call("windows", { pid: xterm });
    expect(refused.error).toMatchObject({ code: "blocked", message: expect.stringContaining("blocked by default") });
    expect((await raw.call("launch", { name: "xterm" })).error?.code).toBe("blocked");
    expect((await raw.call("keys", { pid: xterm, chords: [{ key: "a", mods: [] }] })).error?.code).toBe("blocked");
    desk.writeConfig({ approval: "allowlist", allow: ["xterm"] });
    const windows = await raw.call("windows", { pid: xterm });
    expect(windows.result).toEqual([expect.objectContaining({ windowId: window })]);
    desk.writeConfig({ approval: "allow-all", allow: ["xterm"], deny: ["xterm"] });
    expect((await raw.call("windows", { pid: xterm })).error?.code).toBe("denied");
  });

  it("blocks the helper itself, whatever the config allows", async () => {
    desk.writeConfig({ approval: "allow-all", allow: ["node"] });
    const self = await raw.call("windows", { pid: helper.child.pid! });
    expect(self.error).toMatchObject({ code: "blocked", message: expect.stringContaining("helper itself") });
  });

  describe("ask", () => {
    const answered = new Set<number>();
    const ask = async (conn: RawHelperConnection, button: string): Promise<{ reply: RawReply; text: string }> => {
      const pending = conn.call("windows", { pid: calcPid });
      const isNew = (a: { name: string; pid: number }): boolean => a.name === "zenity" && !answered.has(a.pid);
      const dialog = await waitFor(async () => (await atspi.listApplications()).find(isNew), "the approval dialog");
      answered.add(dialog.pid);
      const tree = await waitFor(async () => {
        const t = await atspi.tree(dialog.pid);
        return t.nodes.some((n) => n.title === button) ? t : null;
      }, `the ${button} button`);
      const text = tree.nodes.map((n) => n.value ?? "").join("\n");
      await atspi.performAction(tree.nodes.find((n) => n.title === button)!.i, "AXPress");
      return { reply: await pending, text };
    };

    it("shows a dialog naming the client and the app; Allow for this session lasts the connection", async () => {
      desk.writeConfig({ approval: "ask" });
      const { reply, text } = await ask(raw, "Allow for this session");
      expect(text).toContain("raw-test wants to control Galculator");
      expect(reply.result).toHaveLength(1);
      expect((await raw.call("windows", { pid: calcPid })).result).toHaveLength(1);
      const other = await helper.connect();
      try {
        const { reply: denied } = await ask(other, "Deny");
        expect(denied.error?.code).toBe("denied");
        // Remembered for that connection: no second dialog.
        expect((await other.call("windows", { pid: calcPid })).error?.code).toBe("denied");
      } finally {
        other.close();
      }
    });

    it("tells the waiting connection where the dialog is, and goes on once `deskbook allow` allows the app", async () => {
      desk.writeConfig({ approval: "ask" });
      const fresh = await helper.connect();
      const other = await helper.connect();
      try {
        const pending = fresh.call("windows", { pid: calcPid });
        const announced = await waitFor(async () => fresh.events.find((e) => e.event === "approval"), "the approval event");
        expect(announced).toEqual({ event: "approval", state: "pending", app: "Galculator", allow: "galculator", screen: "real", display: desk.desktop.DISPLAY, timeoutS: 60 });
        expect(other.events).toEqual([]); // only the connection that waits hears of it
        // The person allows the app from a terminal instead of answering the dialog.
        const allowed = spawnSync(process.execPath, [CLI, "allow", "galculator"], { env: { ...desk.env, DESKBOOK_HOME: desk.home }, encoding: "utf8" });
        expect(allowed.status, allowed.stderr).toBe(0);
        const reply = await pending;
        expect(reply.result).toHaveLength(1);
        expect(fresh.events.at(-1)).toMatchObject({ event: "approval", state: "allowed", app: "Galculator" });
        // The dialog is gone with it.
        await waitFor(async () => !(await atspi.listApplications()).some((a) => a.name === "zenity"), "the dialog to close");
      } finally {
        fresh.close();
        other.close();
      }
      desk.writeConfig({ approval: "ask" });
    }, 30_000);

    it("Always allow adds the app to allow in config.json, keeping the other keys", async () => {
      desk.writeConfig({ approval: "ask", log: { text: false }, deny: ["nothing"] });
      const fresh = await helper.connect();
      try {
        const { reply } = await ask(fresh, "Always allow");
        expect(reply.result).toHaveLength(1);
      } finally {
        fresh.close();
      }
      const path = join(desk.home, "config.json");
      expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ approval: "ask", log: { text: false }, deny: ["nothing"], allow: ["galculator"] });
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const later = await helper.connect();
      try {
        expect((await later.call("windows", { pid: calcPid })).result).toHaveLength(1);
      } finally {
        later.close();
      }
    });

    it("holds every call's input while a dialog is up, and the Escape that answers it stops no cell", async () => {
      desk.writeConfig({ approval: "ask" });
      const typist = await helper.connect();
      const asker = await helper.connect();
      const xdotool = (...args: string[]): void => {
        const run = spawnSync("xdotool", args, { env: desk.env, timeout: 10_000 });
        if (run.status !== 0) throw new Error(`xdotool ${args.join(" ")}: ${run.stderr.toString()}`);
      };
      /** The lines the helper sent a connection up to the answer to a ping: events included. */
      const linesUntilPing = async (conn: RawHelperConnection): Promise<unknown[]> => {
        conn.sendRaw('{"id":"probe","method":"ping","params":{}}\n');
        const lines: unknown[] = [];
        for (let line = await conn.next(); line !== null; line = await conn.next()) {
          if ((line as RawReply).id === "probe") return lines;
          lines.push(line);
        }
        return lines;
      };
      try {
        expect((await ask(typist, "Allow for this session")).reply.result).toHaveLength(1);
        // The watcher works here: with no dialog up or just closed, the user's Escape reaches every client.
        await sleep(ESCAPE_GRACE_MS + 200);
        xdotool("key", "Escape");
        await waitFor(async () => (await linesUntilPing(typist)).some((l) => (l as { event?: string }).event === "escape"), "the escape event");

        const asked = asker.call("windows", { pid: calcPid });
        const dialog = await waitFor(async () => (await atspi.listApplications()).find((a) => a.name === "zenity" && !answered.has(a.pid)), "the second dialog");
        answered.add(dialog.pid);
        await waitFor(async () => (await atspi.tree(dialog.pid)).nodes.some((n) => n.title === "Deny"), "the dialog's buttons");
        // Sent raw, so that no reader skips the events that come before its reply.
        typist.sendRaw(`{"id":"move","method":"move","params":{"pid":${calcPid},"x":5,"y":5}}\n`);
        const first = typist.next();
        const early = await Promise.race([first, sleep(1_000).then(() => "nothing yet")]);
        expect(early).toBe("nothing yet"); // held while the dialog is up

        // The user's keyboard goes to the dialog: give it the focus, as a click on it would.
        await focusWindowOf(desk.env, dialog.pid);
        xdotool("key", "Escape");
        expect((await asked).error?.code).toBe("denied");
        await sleep(ESCAPE_GRACE_MS + 200);
        const lines = [await first, ...(await linesUntilPing(typist))];
        expect(lines).toEqual([{ id: "move", result: {} }]); // the move went once the dialog closed; no escape event
      } finally {
        typist.close();
        asker.close();
      }
    });

    it("denies, saying how to allow the app, when no dialog can be shown", async () => {
      desk.writeConfig({ approval: "ask" });
      // A PATH with nothing on it: the helper itself is started by node's absolute path.
      const emptyBin = join(desk.dir, "empty-bin");
      mkdirSync(emptyBin);
      const env = { ...desk.env, PATH: emptyBin };
      const bare = await desk.startHelper({ socket: join(desk.dir, "z", "helper.sock"), env });
      const conn = await bare.connect();
      try {
        const reply = await conn.call("windows", { pid: calcPid });
        expect(reply.error).toMatchObject({ code: "denied", message: expect.stringContaining('add "galculator" to "allow"') });
        expect(reply.error?.message).toContain('run "deskbook allow galculator"');
      } finally {
        conn.close();
        await bare.stop();
      }
    });
  });
});
