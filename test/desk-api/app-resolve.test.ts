// An App action resolves its target once, reads config.json once and asks the helper nothing it
// does not need, counted at the seams: every helper request it makes (the input router's own
// included) on the scripted helper's calculator, and the context's config() calls. Two helpers:
// one without a background route, as the Linux helper's ping reports, and one with it (macOS).
// A regression that adds a call to any of these paths fails here.
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG, type DeskbookConfig } from "../../src/config/config.js";
import { App } from "../../src/desk/app.js";
import type { DeskContext } from "../../src/desk/desk-context.js";
import { HelperClient } from "../../src/helper/client.js";
import type { AppInfo, ScreenshotParams } from "../../src/helper/protocol.js";
import { startScriptedHelper, type ScriptedHelper } from "../fixtures/start-scripted-helper.js";

interface Counted {
  helper: ScriptedHelper;
  client: HelperClient;
  calc: App;
  requests: string[];
  /** The params of every screenshot request, in order. */
  screenshots: ScreenshotParams[];
  /** The image bytes of every screenshot reply, as the helper sent them. */
  replies: Buffer[];
  configReads: number;
  cell: number;
  /** The last marked screenshot's pixels (set-of-marks tests). */
  pixels?: Buffer;
  /** The text of every read shown in the cell, in order. */
  shown: string[];
}

async function countedApp(args: string[]): Promise<Counted> {
  const helper = await startScriptedHelper({ args });
  const client = await HelperClient.connect({ socketPath: helper.socketPath, clientName: "resolve-test" });
  const seen: Counted = { helper, client, calc: undefined as unknown as App, requests: [], screenshots: [], replies: [], configReads: 0, cell: 1, shown: [] };
  const request = client.request.bind(client);
  client.request = ((method, params, options) => {
    seen.requests.push(method);
    if (method !== "screenshot") return request(method, params, options);
    seen.screenshots.push(params as ScreenshotParams);
    return request(method, params, options).then((reply) => {
      seen.replies.push(Buffer.from((reply as { data: string }).data, "base64"));
      return reply;
    });
  }) as HelperClient["request"];
  const ctx: DeskContext = {
    client: async () => client,
    config: (): DeskbookConfig => {
      seen.configReads += 1;
      return { ...DEFAULT_CONFIG, settleMs: 0 };
    },
    control: { runningCell: () => seen.cell, checkStopped: () => undefined, stop: (reason: string) => { throw new Error(reason); } },
    show: (bundle) => void seen.shown.push(String(bundle["text/plain"] ?? "")),
    freshApps: () => false,
    launched: () => undefined,
    live: () => ({ show: () => undefined }),
  };
  const info: AppInfo = await client.request("resolveApp", { query: "Calculator" });
  seen.calc = new App(info as AppInfo & { pid: number }, ctx);
  // The router asks ping once per connection; that question is asked here, out of the counts.
  await seen.calc.typeText("");
  return seen;
}

/** Every request and config read of one action, run in cell `cell` (a new cell: the router activates the app first). */
async function counted(app: Counted, action: (calc: App) => Promise<unknown>, cell = app.cell): Promise<{ requests: string[]; configReads: number }> {
  app.cell = cell;
  app.requests.length = 0;
  app.configReads = 0;
  await action(app.calc);
  return { requests: [...app.requests], configReads: app.configReads };
}

async function close(app: Counted | undefined): Promise<void> {
  await app?.client.close();
  await app?.helper.stop();
}

describe("on a helper without a background route (Linux)", () => {
  let app: Counted;
  let cell = 10;
  beforeAll(async () => {
    app = await countedApp(["--no-background-route"]);
  });
  afterAll(() => close(app));

  it("presses a { find } button after one tree read (which names its window), reading config once", async () => {
    const seen = await counted(app, (calc) => calc.click({ find: { role: "button", label: "7", exact: true } }));
    expect(seen).toEqual({ requests: ["axTree", "performAction"], configReads: 1 });
  });

  it("presses a locator target after one tree read: the read names the front window, so no windows call", async () => {
    const seen = await counted(app, (calc) => calc.click({ role: "button", label: "9" }));
    expect(seen).toEqual({ requests: ["axTree", "performAction"], configReads: 1 });
  });

  it("reads the window list first only when the locator names a window by title", async () => {
    const seen = await counted(app, (calc) => calc.click({ role: "button", label: "9", window: "Calculator" }));
    expect(seen.requests).toEqual(["windows", "axTree", "performAction"]);
  });

  it("looks a locator up in the menus with a second read only when the first read lacks it", async () => {
    const seen = await counted(app, (calc) => calc.locate({ role: "menu item", label: "Copy" }));
    expect(seen.requests).toEqual(["axTree", "axTree"]);
  });

  it("aims a pointer click on a { find } target at its read's frame: activate once per cell, then the click", async () => {
    const first = await counted(app, (calc) => calc.click({ find: { role: "button", label: "8", exact: true } }, { button: "right" }), ++cell);
    expect(first).toEqual({ requests: ["axTree", "activate", "click"], configReads: 1 });
    const again = await counted(app, (calc) => calc.click({ find: { role: "button", label: "8", exact: true } }, { button: "right" }));
    expect(again.requests).toEqual(["axTree", "isActive", "click"]);
  });

  it("aims a pointer click on a locator target with one read", async () => {
    const seen = await counted(app, (calc) => calc.click({ role: "button", label: "8" }, { button: "right" }), ++cell);
    expect(seen.requests).toEqual(["axTree", "activate", "click"]);
  });

  it("asks for an index's frame, which no read of this action gave, and no window", async () => {
    const seven = await app.calc.find({ role: "button", label: "7", exact: true });
    const seen = await counted(app, (calc) => calc.click(seven!.i, { button: "right" }), ++cell);
    expect(seen).toEqual({ requests: ["elementFrame", "activate", "click"], configReads: 1 });
  });

  it("turns an image point into screen points with the window list, the one call that has the frame", async () => {
    const seen = await counted(app, (calc) => calc.click([20, 20]), ++cell);
    expect(seen).toEqual({ requests: ["windows", "activate", "click"], configReads: 1 });
  });

  it("types, presses keys and pastes without looking the window up", async () => {
    expect((await counted(app, (calc) => calc.typeText("12"), ++cell)).requests).toEqual(["activate", "type"]);
    expect((await counted(app, (calc) => calc.typeText("3"))).requests).toEqual(["isActive", "type"]);
    expect((await counted(app, (calc) => calc.pressKey("Escape"))).requests).toEqual(["isActive", "keys"]);
    expect((await counted(app, (calc) => calc.keyDown("Shift_L"))).requests).toEqual(["isActive", "keyDown"]);
    expect((await counted(app, (calc) => calc.keyUp("Shift_L"))).requests).toEqual(["isActive", "keyUp"]);
  });
});

describe("on a helper with a background route (macOS)", () => {
  let app: Counted;
  beforeAll(async () => {
    app = await countedApp([]);
  });
  afterAll(() => close(app));

  it("sends a pointer click on a found element in the background with the read's window id, nothing else", async () => {
    const seen = await counted(app, (calc) => calc.click({ role: "button", label: "8" }, { button: "right" }));
    expect(seen).toEqual({ requests: ["axTree", "click"], configReads: 1 });
  });

  it("looks the window up once for typing in the background, where its id is needed", async () => {
    expect((await counted(app, (calc) => calc.typeText("12"))).requests).toEqual(["windows", "type"]);
    expect((await counted(app, (calc) => calc.click(3, { button: "right" }))).requests).toEqual(["elementFrame", "windows", "click"]);
  });

  it("still presses an element through accessibility, with one read", async () => {
    const seen = await counted(app, (calc) => calc.click({ role: "button", label: "7" }));
    expect(seen.requests).toEqual(["axTree", "performAction"]);
  });
});

// Whoever paints, the pixels are the same: the scripted helper paints with the desk API's own code.
describe("set-of-marks: painted by a helper whose ping offers it, else by the desk API", () => {
  let linux: Counted;
  let mac: Counted;
  beforeAll(async () => {
    [linux, mac] = await Promise.all([countedApp(["--no-background-route"]), countedApp(["--platform", "darwin"])]);
  });
  afterAll(async () => {
    await close(linux);
    await close(mac);
  });

  /** A marked screenshot's decoded pixels and the marks its screenshot request carried. */
  async function marked(app: Counted): Promise<{ pixels: Buffer; sent: number | undefined; requests: string[] }> {
    app.screenshots.length = 0;
    await app.calc.getAXState({ emit: false });
    const seen = await counted(app, async (calc) => (app.pixels = (await sharp((await calc.getScreenshot({ marks: true, emit: false })).data).raw().toBuffer())));
    return { pixels: app.pixels!, sent: app.screenshots.at(-1)?.marks?.length, requests: seen.requests };
  }

  it("sends the marks with the one screenshot request where the helper paints, none where it does not, and the pixels are the same", async () => {
    const [byHelper, byDesk] = [await marked(linux), await marked(mac)];
    // The window's id and size, then the capture: no ping (asked once per connection, before) and nothing more.
    expect(byHelper.requests).toEqual(["windows", "screenshot"]);
    expect(byDesk.requests).toEqual(["windows", "screenshot"]);
    expect(byHelper.sent).toBeGreaterThan(3);
    expect(byDesk.sent).toBeUndefined();
    expect(byHelper.pixels.equals(byDesk.pixels)).toBe(true);
    const plain = await sharp((await linux.calc.getScreenshot({ emit: false })).data).raw().toBuffer();
    expect(plain.equals(byHelper.pixels)).toBe(false);
  });

  it("hands back the image a painting helper sent, byte for byte: no decode, second paint or encode", async () => {
    for (const format of ["png", "jpeg"] as const) {
      await linux.calc.getAXState({ emit: false });
      await mac.calc.getAXState({ emit: false });
      const byHelper = await linux.calc.getScreenshot({ marks: true, format, emit: false });
      expect(linux.screenshots.at(-1)?.marks?.length).toBeGreaterThan(3);
      expect(byHelper.data.equals(linux.replies.at(-1)!)).toBe(true);
      // Where the desk paints, what it hands back is its own encode of the plain capture.
      const byDesk = await mac.calc.getScreenshot({ marks: true, format, emit: false });
      expect(byDesk.data.equals(mac.replies.at(-1)!)).toBe(false);
    }
  });

  it("judges progress on the image handed back, marked, whoever painted it", async () => {
    // The same action, each time followed by a screenshot: marked, three plain, marked. A plain
    // and a marked image differ, so a round whose read switches between them changed. Judged on
    // the plain capture where the desk paints, macOS had said "nothing changed" throughout.
    const notes = async (app: Counted): Promise<string[]> => {
      app.shown.length = 0;
      for (const marks of [true, false, false, false, true]) {
        await app.calc.click({ find: { label: "C", exact: true } });
        await app.calc.getScreenshot({ marks });
      }
      // The first round's note depends on what the tests before left; it only aligns the two.
      return app.shown.slice(1).map((text) => /^\((nothing changed .*)\)$/m.exec(text)?.[1] ?? "");
    };
    const [byHelper, byDesk] = [await notes(linux), await notes(mac)];
    expect(byDesk).toEqual(byHelper);
    expect(byHelper).toEqual(["", "", expect.stringMatching(/^nothing changed after click \d+ \(twice\)$/), ""]);
  });

  // Last here: it swaps the Linux helper for one without marks behind the same client.
  it("asks ping again of a helper relaunched behind the same client: one without marks is sent none, and the desk paints", async () => {
    const before = await marked(linux);
    expect(before.sent).toBeGreaterThan(3);
    const dead = linux.helper.process!;
    const exited = new Promise((resolve) => dead.once("exit", resolve));
    dead.kill("SIGKILL");
    await exited;
    // The client sees the hang-up on its socket a moment after the exit.
    while (linux.client.connected) await new Promise((resolve) => setTimeout(resolve, 10));
    const relaunched = await startScriptedHelper({ socketPath: linux.helper.socketPath, args: ["--no-background-route", "--no-marks"] });
    try {
      const after = await marked(linux);
      expect(after.sent).toBeUndefined();
      expect(after.pixels.equals(before.pixels)).toBe(true);
    } finally {
      await relaunched.stop();
    }
  });
});
