/**
 * Cell titles become the action log's `step`: `deskbook run` against the scripted helper
 * (a real process on a real socket) writing actions.log.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startScriptedHelper, SCRIPTED_HELPER_JS, type ScriptedHelper } from "../fixtures/start-scripted-helper.js";
import { deskbookRun, Scratch } from "./run-cli.js";

let helper: ScriptedHelper;
let scratch: Scratch;

beforeAll(async () => {
  scratch = await Scratch.create();
  helper = await startScriptedHelper({ args: ["--actions-log", join(scratch.dir, "actions.log")] });
}, 60_000);
afterAll(async () => {
  await helper.stop();
  await scratch.cleanup();
});

it("writes each cell's title as the step of the actions it took", async () => {
  const input = await scratch.notebook("steps.ipynb", [
    "// bind the calculator\nconst calc = await desk.getApp('Calculator')",
    "// press 6 × 7 =\nfor (const key of ['6', '×', '7', '=']) await calc.click({ find: { role: 'button', label: key, exact: true } })",
    "(await calc.find('display')).value",
  ]);
  const run = await deskbookRun([input, "--no-fresh"], { env: { DESKBOOK_HOME: join(scratch.dir, "home"), DESKBOOK_SOCKET: helper.socketPath, DESKBOOK_HELPER: SCRIPTED_HELPER_JS } });
  expect(run.stderr).toContain("3 cells ran");
  expect(run.code).toBe(0);
  const lines = (await readFile(join(scratch.dir, "actions.log"), "utf8")).trim().split("\n").map((l) => JSON.parse(l) as { step?: string; action: string; axAction?: string; client: string });
  const presses = lines.filter((l) => l.action === "performAction" && l.axAction === "AXPress");
  expect(presses).toHaveLength(4);
  for (const press of presses) expect(press).toMatchObject({ step: "press 6 × 7 =", client: "deskbook run" });
}, 120_000);
