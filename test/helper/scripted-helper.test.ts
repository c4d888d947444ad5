// Contract tests of the scripted helper itself: it must obey docs/backend-protocol.md, since
// the client's and the desk API's tests trust it. Every reply is checked against the schema.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HelperClient } from "../../src/helper/client.js";
import { DeskError } from "../../src/helper/desk-error.js";
import {
  GATED_METHODS,
  MAX_LINE_BYTES,
  PROTOCOL_VERSION,
  type MethodName,
  type MethodParams,
} from "../../src/helper/protocol.js";
import { validateEnvelope, validateResult } from "../../src/helper/schema.js";
import { RawHelperConnection, type RawReply } from "../fixtures/raw-helper-connection.js";
import { startScriptedHelper, type ScriptedHelper } from "../fixtures/start-scripted-helper.js";

const CALC = 4242;
const EDITOR = 5151;
const TERMINAL = 6161;
const CALC_WINDOW = 1001;
const EDITOR_WINDOW = 2001;

/** Valid params for every gated method, aimed at `pid`. */
function sampleParams(pid: number, windowId: number): { [M in MethodName]?: MethodParams<M> } {
  return {
    launch: { bundleId: "terminal" },
    activate: { pid },
    isActive: { pid },
    quit: { pid },
    hide: { pid },
    windows: { pid },
    windowAction: { pid, windowId, action: "focus" },
    axTree: { pid },
    hitTest: { pid, x: 10, y: 10 },
    elementFrame: { pid, index: 1 },
    actionNames: { pid, index: 1 },
    performAction: { pid, index: 1, action: "AXPress" },
    setValue: { pid, index: 1, value: "x" },
    focusElement: { pid, index: 1 },
    selectText: { pid, index: 1, start: 0, length: 0 },
    menu: { pid, path: ["Edit", "Copy"] },
    keys: { pid, chords: [{ key: "a", mods: [] }] },
    keyDown: { pid, key: "a" },
    keyUp: { pid, key: "a" },
    type: { pid, text: "x" },
    paste: { pid, text: "x" },
    click: { pid, x: 10, y: 10 },
    scroll: { pid, x: 10, y: 10, dy: 1 },
    drag: { pid, path: [[10, 10], [20, 20]] },
    move: { pid, x: 10, y: 10 },
    makeKey: { pid, windowId },
    screenshot: { pid, windowId, width: 10, height: 10 },
    readText: { pid, windowId, width: 10, height: 10 },
    waitChange: { pid, timeoutMs: 0 },
    inputHandled: { pid, timeoutMs: 0 },
  };
}

/** A reply that obeys the schema: the envelope, and the method's result when there is one. */
function expectValid(method: string, reply: RawReply): void {
  expect(validateEnvelope("Reply", reply)).toEqual({ ok: true });
  if (reply.error === undefined) expect(validateResult(method, reply.result)).toEqual({ ok: true });
}

let helper: ScriptedHelper;
let raw: RawHelperConnection;

beforeAll(async () => {
  helper = await startScriptedHelper();
  raw = await RawHelperConnection.open(helper.socketPath);
});
afterAll(async () => {
  raw?.close();
  await helper?.stop();
});

/** A helper of its own, with a client and a raw connection, for blocks that change app state. */
async function fresh(args: string[] = []): Promise<{ helper: ScriptedHelper; client: HelperClient; raw: RawHelperConnection }> {
  const h = await startScriptedHelper({ args });
  const client = await HelperClient.connect({ socketPath: h.socketPath, clientName: "fixture-test" });
  const r = await RawHelperConnection.open(h.socketPath);
  return { helper: h, client, raw: r };
}

async function dispose(f: { helper: ScriptedHelper; client: HelperClient; raw: RawHelperConnection }): Promise<void> {
  f.raw.close();
  await f.client.close();
  await f.helper.stop();
}

describe("lines and envelopes", () => {
  it("answers a line that is not JSON with bad_request and id null, and keeps the connection", async () => {
    raw.sendRaw("this is not json\n");
    const reply = (await raw.next()) as RawReply;
    expectValid("ping", reply);
    expect(reply).toMatchObject({ id: null, error: { code: "bad_request" } });
    expect(reply.error!.message).toMatch(/not JSON/);
    const ping = await raw.call("ping");
    expectValid("ping", ping);
    expect(ping.result).toMatchObject({ platform: "linux" });
  });

  it("answers a request without a method with its id", async () => {
    raw.sendRaw('{"id": "abc"}\n');
    const reply = (await raw.next()) as RawReply;
    expect(reply).toMatchObject({ id: "abc", error: { code: "bad_request", message: "request: missing `method`" } });
  });

  it("answers an unknown method with bad_request and keeps the connection", async () => {
    const reply = await raw.call("frobnicate", {});
    expectValid("frobnicate", reply);
    expect(reply.error).toEqual({ code: "bad_request", message: 'unknown method "frobnicate"' });
    expect((await raw.call("isActive", { pid: CALC })).result).toEqual({ active: false });
  });

  it("answers invalid params with bad_request naming the field", async () => {
    const reply = await raw.call("click", { pid: CALC, x: 1 });
    expect(reply.error).toEqual({ code: "bad_request", message: "click params: missing `y`" });
  });

  it("takes params left out as {}", async () => {
    raw.sendRaw('{"id": 77, "method": "listApps"}\n');
    const reply = (await raw.next()) as RawReply;
    expectValid("listApps", reply);
  });

  it("answers a line over 16 MiB with bad_request, skips it, and serves the next line", async () => {
    const big = await RawHelperConnection.open(helper.socketPath);
    try {
      big.sendRaw(Buffer.alloc(MAX_LINE_BYTES + 1, 0x20));
      big.sendRaw("tail of the long line\n");
      expect(await big.next()).toMatchObject({ id: null, error: { code: "bad_request" } });
      expect((await big.call("ping")).result).toMatchObject({ platform: "linux" });
      expect(big.closed).toBe(false);
    } finally {
      big.close();
    }
  });

  it("requires hello first, and refuses another protocol naming both versions", async () => {
    const bare = await RawHelperConnection.open(helper.socketPath, false);
    try {
      expect((await bare.call("ping")).error).toEqual({ code: "bad_request", message: "send hello before ping" });
      const mismatch = await bare.call("hello", { client: "old", protocol: PROTOCOL_VERSION + 1 });
      expect(mismatch.error?.code).toBe("bad_request");
      expect(mismatch.error?.message).toBe(`this helper speaks protocol ${PROTOCOL_VERSION}; the client speaks protocol ${PROTOCOL_VERSION + 1}`);
      const hello = await bare.call("hello", { client: "new", protocol: PROTOCOL_VERSION });
      expectValid("hello", hello);
      expect(hello.result).toMatchObject({ protocol: PROTOCOL_VERSION, pid: helper.process!.pid });
    } finally {
      bare.close();
    }
  });

  it("answers every ungated method with a result that obeys the schema", async () => {
    const calls: [MethodName, unknown][] = [
      ["ping", {}],
      ["permissions", { prompt: false }],
      ["listApps", {}],
      ["resolveApp", { query: "Calculator" }],
      ["cursor", { enabled: true, x: 5, y: 5 }],
      ["forget", { pid: 999 }],
    ];
    for (const [method, params] of calls) {
      const reply = await raw.call(method, params);
      expectValid(method, reply);
      expect(reply.error).toBeUndefined();
    }
  });
});

describe("the approval gate", () => {
  it("refuses every gated method on the terminal with blocked", async () => {
    const samples = sampleParams(TERMINAL, 3001);
    for (const method of GATED_METHODS) {
      const reply = await raw.call(method, samples[method]);
      expectValid(method, reply);
      expect(reply.error, method).toMatchObject({ code: "blocked" });
    }
  });

  it("still lists and resolves the terminal (those are not gated)", async () => {
    const resolved = await raw.call("resolveApp", { query: "terminal" });
    expect(resolved.result).toMatchObject({ name: "Terminal", pid: TERMINAL, running: true });
    expect((await raw.call("forget", { pid: TERMINAL })).result).toEqual({});
  });

  it("answers not_running for a pid nobody has", async () => {
    expect((await raw.call("windows", { pid: 99999 })).error?.code).toBe("not_running");
  });

  it("can be scripted to answer denied or not_allowed", async () => {
    await raw.script({ op: "policy", pid: EDITOR, policy: "denied" });
    expect((await raw.call("windows", { pid: EDITOR })).error?.code).toBe("denied");
    await raw.script({ op: "policy", pid: EDITOR, policy: "not_allowed" });
    expect((await raw.call("windows", { pid: EDITOR })).error?.code).toBe("not_allowed");
    await raw.script({ op: "policy", pid: EDITOR, policy: "allowed" });
    expect((await raw.call("windows", { pid: EDITOR })).error).toBeUndefined();
  });
});

describe("the calculator", () => {
  let f: Awaited<ReturnType<typeof fresh>>;
  beforeAll(async () => {
    f = await fresh();
  });
  afterAll(() => dispose(f));

  const display = async (): Promise<string | undefined> =>
    (await f.client.request("axTree", { pid: CALC })).nodes.find((n) => n.id === "display")?.value;

  it("has a window and a tree with stable indices", async () => {
    const windows = await f.client.request("windows", { pid: CALC });
    expect(windows).toEqual([expect.objectContaining({ index: 0, title: "Calculator", frame: [100, 100, 600, 400], windowId: CALC_WINDOW })]);
    const tree = await f.client.request("axTree", { pid: CALC });
    expect(tree.truncated).toBe(false);
    const buttons = tree.nodes.filter((n) => n.role === "AXButton").map((n) => `${n.i}:${n.title}`);
    expect(buttons).toEqual(["3:7", "4:8", "5:9", "6:÷", "7:4", "8:5", "9:6", "10:×", "11:1", "12:2", "13:3", "14:-", "15:C", "16:0", "17:=", "18:+"]);
    expect(tree.nodes.find((n) => n.i === 1)).toMatchObject({ role: "AXStaticText", value: "0" });
    expect(await f.client.request("axTree", { pid: CALC })).toEqual(tree);
  });

  it("computes 6 × 7 = 42 with AXPress", async () => {
    await f.client.request("axTree", { pid: CALC });
    for (const index of [9, 10, 3, 17]) await f.client.request("performAction", { pid: CALC, index, action: "AXPress" });
    expect(await display()).toBe("42");
  });

  it("computes with clicks inside the buttons' frames (foreground, once frontmost)", async () => {
    await f.client.request("performAction", { pid: CALC, index: 15, action: "AXPress" });
    await f.client.request("activate", { pid: CALC });
    const tree = await f.client.request("axTree", { pid: CALC });
    const centre = (label: string): [number, number] => {
      const [x, y, w, h] = tree.nodes.find((n) => n.title === label)!.frame!;
      return [x + w / 2, y + h / 2];
    };
    for (const label of ["1", "2", "+", "3", "0", "="]) {
      const [x, y] = centre(label);
      expect(await f.client.request("click", { pid: CALC, x, y })).toEqual({ route: "foreground", focusRestored: false });
    }
    expect(await display()).toBe("42");
  });

  it("loses foreground input when the user has switched to another app", async () => {
    await f.raw.script({ op: "frontmost", pid: TERMINAL });
    expect(await f.client.request("isActive", { pid: CALC })).toEqual({ active: false });
    await f.client.request("keys", { pid: CALC, chords: [{ key: "C", mods: [] }] });
    expect(await display()).toBe("42");
    expect((await f.raw.script({ op: "state" })) as { lostInput: unknown[] }).toMatchObject({ lostInput: [{ method: "keys", pid: CALC }] });
  });

  it("takes keys and typing in the background without changing the frontmost app", async () => {
    const background = { mode: "background", windowId: CALC_WINDOW } as const;
    await f.client.request("keys", { pid: CALC, chords: [{ key: "Escape", mods: [] }], ...background });
    const typed = await f.client.request("type", { pid: CALC, text: "6*7", ...background });
    expect(typed).toEqual({ route: "background", focusRestored: false });
    await f.client.request("keys", { pid: CALC, chords: [{ key: "Return", mods: [] }], ...background });
    expect(await display()).toBe("42");
    expect(await f.client.request("isActive", { pid: CALC })).toEqual({ active: false });
    expect(await f.raw.script({ op: "state" })).toMatchObject({ frontmost: TERMINAL });
  });

  it("answers background_unavailable or background_unconfirmed when scripted to", async () => {
    const click = { pid: CALC, x: 150, y: 150, mode: "background", windowId: CALC_WINDOW } as const;
    await f.raw.script({ op: "background", pid: CALC, answer: "unavailable" });
    expect((await deskError(f.client.request("click", click))).code).toBe("background_unavailable");
    await f.raw.script({ op: "background", pid: CALC, answer: "unconfirmed" });
    expect(await f.client.request("click", click)).toEqual({ route: "background", focusRestored: false });
    const typing = { pid: CALC, text: "1", mode: "background", windowId: CALC_WINDOW } as const;
    expect((await deskError(f.client.request("type", typing))).code).toBe("background_unconfirmed");
    await f.raw.script({ op: "background", pid: CALC, answer: "restores-focus" });
    expect(await f.client.request("click", click)).toEqual({ route: "background", focusRestored: true });
    await f.raw.script({ op: "background", pid: CALC, answer: "available" });
    expect((await deskError(f.client.request("click", { ...click, windowId: 9 }))).code).toBe("no_window");
  });

  it("honours maxNodes, maxDepth and maxText, saying truncated", async () => {
    const few = await f.client.request("axTree", { pid: CALC, maxNodes: 4 });
    expect(few.nodes.map((n) => n.i)).toEqual([0, 1, 2, 3]);
    expect(few.truncated).toBe(true);
    const shallow = await f.client.request("axTree", { pid: CALC, maxDepth: 1 });
    expect(shallow.nodes.map((n) => n.i)).toEqual([0, 1, 2]);
    expect(shallow.truncated).toBe(true);
    const short = await f.client.request("axTree", { pid: CALC, maxText: 4 });
    expect(short.nodes[0]!.title).toBe("Cal…");
    const menus = await f.client.request("axTree", { pid: CALC, menus: true });
    expect(menus.nodes.map((n) => n.role).slice(-4)).toEqual(["AXMenuBar", "AXMenuBarItem", "AXMenu", "AXMenuItem"]);
    expect((await deskError(f.client.request("axTree", { pid: CALC, window: 1 }))).code).toBe("no_window");
  });

  it("hit-tests, frames and lists actions", async () => {
    expect(await f.client.request("hitTest", { pid: CALC, x: 112, y: 182 })).toEqual({ index: 3, role: "AXButton", actions: ["AXPress"], frame: [112, 182, 141, 73] });
    expect(await f.client.request("hitTest", { pid: CALC, x: 5, y: 700 })).toEqual({});
    expect(await f.client.request("elementFrame", { pid: CALC, index: 1 })).toEqual({ frame: [110, 110, 580, 60] });
    expect(await f.client.request("actionNames", { pid: CALC, index: 0 })).toEqual({ actions: ["AXRaise"] });
    await f.client.request("axTree", { pid: CALC, menus: true });
    expect((await deskError(f.client.request("elementFrame", { pid: CALC, index: 22 }))).code).toBe("no_frame");
    expect((await deskError(f.client.request("performAction", { pid: CALC, index: 1, action: "AXPress" }))).code).toBe("action_failed");
  });

  it("answers stale_index for unknown indices and for indices not read since forget", async () => {
    expect((await deskError(f.client.request("performAction", { pid: CALC, index: 500, action: "AXPress" }))).message).toBe(
      "stale_index: element 500 is gone; read the tree again",
    );
    await f.client.request("forget", { pid: CALC });
    expect((await deskError(f.client.request("elementFrame", { pid: CALC, index: 1 }))).code).toBe("stale_index");
    await f.client.request("axTree", { pid: CALC });
    expect(await f.client.request("elementFrame", { pid: CALC, index: 1 })).toEqual({ frame: [110, 110, 580, 60] });
  });

  it("takes screenshots of exactly the requested size that change with the display", async () => {
    const shot = async (format: "png" | "jpeg"): Promise<Buffer> => {
      const result = await f.client.request("screenshot", { pid: CALC, windowId: CALC_WINDOW, width: 301, height: 199, format, quality: 90 });
      expect(result).toMatchObject({ width: 301, height: 199, mimeType: `image/${format}` });
      const bytes = Buffer.from(result.data, "base64");
      expect(await sharp(bytes).metadata()).toMatchObject({ width: 301, height: 199, format });
      return bytes;
    };
    expect((await shot("jpeg")).length).toBeGreaterThan(0);
    const before = await shot("png");
    expect(await shot("png")).toEqual(before);
    await f.client.request("keys", { pid: CALC, chords: [{ key: "9", mods: [] }], mode: "background", windowId: CALC_WINDOW });
    expect(await shot("png")).not.toEqual(before);
    expect((await deskError(f.client.request("screenshot", { pid: CALC, windowId: 7, width: 10, height: 10 }))).code).toBe("no_window");
  });
});

describe("the editor", () => {
  let f: Awaited<ReturnType<typeof fresh>>;
  beforeAll(async () => {
    f = await fresh(["--no-background", String(CALC)]);
    await f.client.request("activate", { pid: EDITOR });
    await f.client.request("axTree", { pid: EDITOR });
  });
  afterAll(() => dispose(f));

  const text = async (): Promise<string | undefined> =>
    (await f.client.request("axTree", { pid: EDITOR })).nodes.find((n) => n.role === "AXTextArea")?.value;

  it("sets, types, selects and edits with keys", async () => {
    await f.client.request("setValue", { pid: EDITOR, index: 4, value: "hello" });
    await f.client.request("type", { pid: EDITOR, text: " world" });
    expect(await text()).toBe("hello world");
    await f.client.request("selectText", { pid: EDITOR, index: 4, start: 0, length: 5 });
    await f.client.request("type", { pid: EDITOR, text: "goodbye" });
    expect(await text()).toBe("goodbye world");
    await f.client.request("keys", { pid: EDITOR, chords: [{ key: "a", mods: ["ctrl"] }, { key: "BackSpace", mods: [] }, { key: "H", mods: [] }, { key: "i", mods: [] }, { key: "exclam", mods: [] }] });
    expect(await text()).toBe("Hi!");
    const status = (await f.client.request("axTree", { pid: EDITOR })).nodes.find((n) => n.id === "status");
    expect(status?.value).toBe("3 characters");
  });

  it("answers bad_key for an unknown key name, sending nothing", async () => {
    const error = await deskError(f.client.request("keys", { pid: EDITOR, chords: [{ key: "x", mods: [] }, { key: "Hyper_Q", mods: [] }] }));
    expect(error.message).toBe('bad_key: no key is named "Hyper_Q"');
    expect(await text()).toBe("Hi!");
  });

  it("refuses setValue on elements without a settable value", async () => {
    expect((await deskError(f.client.request("setValue", { pid: EDITOR, index: 2, value: "x" }))).code).toBe("action_failed");
  });

  it("honours --no-background for the calculator only", async () => {
    const bg = { mode: "background", windowId: CALC_WINDOW } as const;
    expect((await deskError(f.client.request("type", { pid: CALC, text: "1", ...bg }))).code).toBe("background_unavailable");
    expect(await f.client.request("type", { pid: EDITOR, text: "", mode: "background", windowId: EDITOR_WINDOW })).toMatchObject({ route: "background" });
  });
});

describe("apps", () => {
  it("lists, resolves and launches", async () => {
    const f = await fresh();
    try {
      const apps = await f.client.request("listApps", {});
      expect(apps.map((a) => `${a.name}:${a.running}`)).toEqual(["Calculator:true", "Editor:true", "Terminal:true", "Notes:false"]);
      expect(await f.client.request("resolveApp", { query: `pid:${CALC}` })).toMatchObject({ name: "Calculator" });
      expect((await deskError(f.client.request("resolveApp", { query: "nothing" }))).code).toBe("not_found");
      const notes = await f.client.request("launch", { name: "notes", activate: true });
      expect(notes).toMatchObject({ name: "Notes", running: true, active: true, pid: expect.any(Number) });
      expect(await f.client.request("launch", { bundleId: "notes" })).toEqual(notes);
      expect((await deskError(f.client.request("launch", { path: "/nope" }))).code).toBe("not_found");
      await f.raw.script({ op: "quit", pid: notes.pid! });
      expect((await deskError(f.client.request("windows", { pid: notes.pid! }))).code).toBe("not_running");
    } finally {
      await dispose(f);
    }
  });
});

describe("actions.log", () => {
  it("writes one line per action, with typed text as its length", async () => {
    const dir = await mkdtemp(join(tmpdir(), "dbk-log-"));
    const log = join(dir, "actions.log");
    const logged = await startScriptedHelper({ args: ["--actions-log", log] });
    const client = await HelperClient.connect({ socketPath: logged.socketPath, clientName: "log-test" });
    try {
      await client.request("activate", { pid: EDITOR }, { step: "focus the editor" });
      await client.request("type", { pid: EDITOR, text: "secret" });
      await client.request("axTree", { pid: EDITOR });
      await deskError(client.request("click", { pid: TERMINAL, x: 1, y: 1 }));
      const lines = (await readFile(log, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines).toEqual([
        { ts: expect.any(String), client: "log-test", step: "focus the editor", app: "Editor", pid: EDITOR, action: "activate" },
        { ts: expect.any(String), client: "log-test", app: "Editor", pid: EDITOR, action: "type", length: 6, route: "foreground" },
        { ts: expect.any(String), client: "log-test", app: "Terminal", pid: TERMINAL, action: "click", x: 1, y: 1, refused: "blocked" },
      ]);
      expect(new Date(lines[0]!.ts as string).toISOString()).toBe(lines[0]!.ts);
    } finally {
      await client.close();
      await logged.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

async function deskError(promise: Promise<unknown>): Promise<DeskError> {
  const error = await promise.then(
    (value) => new Error(`expected a DeskError, got ${JSON.stringify(value)}`),
    (e: unknown) => e,
  );
  if (!(error instanceof DeskError)) throw error;
  return error;
}
