// An App action resolves its target once and reads config.json once, counted at the seams: the
// helper requests it makes (on the scripted helper's calculator) and the context's config() calls.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG, type DeskbookConfig } from "../../src/config/config.js";
import { App } from "../../src/desk/app.js";
import type { DeskContext } from "../../src/desk/desk-context.js";
import { HelperClient } from "../../src/helper/client.js";
import type { AppInfo } from "../../src/helper/protocol.js";
import { startScriptedHelper, type ScriptedHelper } from "../fixtures/start-scripted-helper.js";

let helper: ScriptedHelper;
let client: HelperClient;
let calc: App;
const requests: string[] = [];
let configReads = 0;

beforeAll(async () => {
  helper = await startScriptedHelper();
  client = await HelperClient.connect({ socketPath: helper.socketPath, clientName: "resolve-test" });
  const request = client.request.bind(client);
  client.request = ((method, params, options) => {
    requests.push(method);
    return request(method, params, options);
  }) as HelperClient["request"];
  const ctx: DeskContext = {
    client: async () => client,
    config: (): DeskbookConfig => {
      configReads += 1;
      return { ...DEFAULT_CONFIG, settleMs: 0 };
    },
    control: { runningCell: () => 1, checkStopped: () => undefined, stop: (reason: string) => { throw new Error(reason); } },
    show: () => undefined,
    freshApps: () => false,
    launched: () => undefined,
    live: () => ({ show: () => undefined }),
  };
  const info: AppInfo = await client.request("resolveApp", { query: "Calculator" });
  calc = new App(info as AppInfo & { pid: number }, ctx);
});

afterAll(async () => {
  await client?.close();
  await helper?.stop();
});

/** The input router's own questions (is there a background route, is the app in front), asked around any input. */
const ROUTING = new Set(["ping", "activate", "isActive"]);

/** The requests (the router's left out) and config reads of one action. */
async function counted(action: () => Promise<unknown>): Promise<{ requests: string[]; configReads: number }> {
  requests.length = 0;
  configReads = 0;
  await action();
  return { requests: requests.filter((m) => !ROUTING.has(m)), configReads };
}

describe("an App action resolves its target once", () => {
  it("presses a { find } button after one tree read (which names its window), reading config once", async () => {
    const seen = await counted(() => calc.click({ find: { role: "button", label: "7", exact: true } }));
    expect(seen.requests).toEqual(["axTree", "performAction"]);
    expect(seen.configReads).toBe(1);
  });

  it("aims a pointer click on a { find } target at the frame its read gave, asking for no frame again", async () => {
    const seen = await counted(() => calc.click({ find: { role: "button", label: "8", exact: true } }, { button: "right" }));
    expect(seen.requests).toEqual(["axTree", "click"]);
    expect(seen.configReads).toBe(1);
  });

  it("presses a locator target after one read of the window", async () => {
    const seen = await counted(() => calc.click({ role: "button", label: "9" }));
    expect(seen.requests).toEqual(["windows", "axTree", "performAction"]);
    expect(seen.configReads).toBe(1);
  });

  it("asks for an index's frame, which no read of this action gave", async () => {
    const seven = await calc.find({ role: "button", label: "7", exact: true });
    const seen = await counted(() => calc.click(seven!.i, { button: "right" }));
    expect(seen.requests).toEqual(["windows", "elementFrame", "click"]);
    expect(seen.configReads).toBe(1);
  });
});
