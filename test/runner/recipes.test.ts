/**
 * Every Linux recipe in notebooks/ runs with `deskbook run` as CI would: no display (the
 * virtual desktop starts by itself), the recipes' apps pre-approved with `deskbook allow`,
 * parameters from the command line. A deliberately failing recipe exits 1 naming its cell.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endHomeProcesses } from "../../src/client/home-processes.js";
import { REPO_ROOT } from "../support/kernel-process.js";
import { text } from "../support/notebook-file.js";
import { deskbookRun, nbformatProblems, Scratch } from "./run-cli.js";

const NOTEBOOKS = join(REPO_ROOT, "notebooks");
const APPS = ["galculator", "mousepad", "zenity"];

/** Recipes for Linux: every notebook whose metadata does not say it is for another platform. */
const linuxRecipes = readdirSync(NOTEBOOKS)
  .filter((name) => name.endsWith(".ipynb"))
  .filter((name) => {
    const nb = JSON.parse(readFileSync(join(NOTEBOOKS, name), "utf8")) as { metadata: { deskbook?: { platform?: string } } };
    return (nb.metadata.deskbook?.platform ?? "linux") === "linux";
  })
  .sort();

const missing = ["Xvfb", "openbox", "dbus-daemon", ...APPS].filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0);
if (missing.length > 0) console.warn(`test/runner/recipes.test.ts skipped: ${missing.join(", ")} not installed`);

describe.skipIf(missing.length > 0)("the recipes in notebooks/, run by deskbook run", () => {
  let scratch: Scratch;
  let env: NodeJS.ProcessEnv;
  let home: string;

  const run = async (args: string[]) => {
    const result = await deskbookRun(args, { env, timeoutMs: 240_000 });
    const log = await import("node:fs/promises").then((fs) => fs.readFile(join(home, "helper.log"), "utf8")).catch(() => "");
    return { ...result, diagnosis: `${result.stderr}\n--- helper.log ---\n${log.slice(-3000)}` };
  };
  const resultOf = (path: string, id: string): string => {
    const nb = JSON.parse(readFileSync(path, "utf8")) as { cells: { id: string; outputs?: { output_type: string; data?: Record<string, string | string[]> }[] }[] };
    const cell = nb.cells.find((c) => c.id === id);
    return text(cell?.outputs?.find((o) => o.output_type === "execute_result")?.data?.["text/plain"]);
  };

  const actionLog = (): Record<string, unknown>[] =>
    readFileSync(join(home, "actions.log"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
  const alive = (pid: number): boolean => {
    try {
      return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
    } catch {
      return false;
    }
  };
  const until = async (probe: () => boolean, what: string): Promise<void> => {
    const deadline = Date.now() + 5000;
    while (!probe()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  beforeAll(async () => {
    scratch = await Scratch.create();
    home = join(scratch.dir, "home");
    // TMPDIR: what recipes write to os.tmpdir() by default stays in the scratch directory.
    env = { DESKBOOK_HOME: home, TMPDIR: scratch.dir };
    for (const name of ["DISPLAY", "WAYLAND_DISPLAY", "AT_SPI_BUS_ADDRESS"]) delete process.env[name];
    const allow = spawnSync(process.execPath, [join(REPO_ROOT, "dist", "src", "cli", "main.js"), "allow", ...APPS], { env: { ...process.env, ...env }, encoding: "utf8" });
    expect(allow.status, allow.stderr).toBe(0);
  }, 60_000);

  afterAll(async () => {
    await endHomeProcesses(home);
    await scratch.cleanup();
  }, 60_000);

  it("finds the Linux recipes and leaves the macOS ones out", () => {
    expect(linuxRecipes).toEqual(expect.arrayContaining(["galculator.ipynb", "mousepad-save.ipynb", "zenity-dialog.ipynb"]));
    expect(linuxRecipes).not.toContain("macos-calculator.ipynb");
    expect(linuxRecipes).not.toContain("macos-textedit.ipynb");
  });

  it.each(linuxRecipes)("%s runs with its defaults: exit 0, valid nbformat", async (name) => {
    const out = join(scratch.dir, "out", name);
    const result = await run([join(NOTEBOOKS, name), "--out", out]);
    expect(result.code, result.diagnosis).toBe(0);
    expect(nbformatProblems(out)).toBe("");
  }, 250_000);

  it("galculator.ipynb takes a, b and op", async () => {
    const out = join(scratch.dir, "out", "galculator-12-3.ipynb");
    const result = await run([join(NOTEBOOKS, "galculator.ipynb"), "-p", "a", "12", "-p", "b", "3", "-p", "op", "/", "--out", out, "--quiet"]);
    expect(result.code, result.diagnosis).toBe(0);
    expect(resultOf(out, "check")).toBe("'12 / 3 = 4'");
  }, 250_000);

  it("mousepad-save.ipynb saves to the path it is given, content checked on disk", async () => {
    const path = join(scratch.dir, "saved note.txt");
    const result = await run([join(NOTEBOOKS, "mousepad-save.ipynb"), "-p", "path", path, "-p", "text", "from the CI ✓", "--out", join(scratch.dir, "out", "ms.ipynb"), "--quiet"]);
    expect(result.code, result.diagnosis).toBe(0);
    expect(readFileSync(path, "utf8")).toBe("from the CI ✓");
  }, 250_000);

  it("zenity-dialog.ipynb answers the dialog with the name it is given", async () => {
    const out = join(scratch.dir, "out", "zenity-ada.ipynb");
    const result = await run([join(NOTEBOOKS, "zenity-dialog.ipynb"), "-p", "name", "Ada Lovelace", "--out", out, "--quiet"]);
    expect(result.code, result.diagnosis).toBe(0);
    expect(resultOf(out, "check")).toBe(`'zenity printed "Ada Lovelace"'`);
  }, 250_000);

  it("a failing recipe exits 1 and names the cell that failed", async () => {
    const out = join(scratch.dir, "out", "failing.ipynb");
    const result = await run([join(REPO_ROOT, "test", "runner", "failing-recipe.ipynb"), "--out", out]);
    expect(result.code, result.diagnosis).toBe(1);
    expect(result.stderr).toContain('deskbook run: cell 3 ("expect 41 on the display") failed: Error: the display shows 42, not 41');
    expect(nbformatProblems(out)).toBe("");
    // The recipe never reached its quit cell: the end of the run closed galculator, and its fresh profile went with it.
    const quits = actionLog().filter((l) => l.action === "quit" && l.step === "end of session" && l.app === "Galculator");
    expect(quits.length).toBeGreaterThan(0);
    for (const { pid } of quits) expect(alive(pid as number), `pid ${pid}`).toBe(false);
    await until(() => readdirSync(join(home, "profiles")).length === 0, "every fresh profile to be removed");
  }, 250_000);

  it("deskbook desktop stop closes the apps left on the desktop through the helper's quit", async () => {
    // galculator started by the cell itself, not by getApp: the run leaves it open.
    const input = await scratch.notebook("leave-open.ipynb", [
      "// start galculator outside the session\nimport { spawn } from 'node:child_process'\nawait desk.listApps()\nconst env = { ...process.env, ...JSON.parse(require('node:fs').readFileSync(process.env.DESKBOOK_HOME + '/desktop.json', 'utf8')).env }\nconst child = spawn('galculator', [], { env, detached: true, stdio: 'ignore' }); child.unref()\nawait desk.getApp('pid:' + child.pid).catch(() => null)\nlet calc; for (let i = 0; i < 50 && !calc; i++) { calc = (await desk.listApps()).find((a) => a.running && a.pid === child.pid); if (!calc) await new Promise((r) => setTimeout(r, 200)) }\ncalc.pid",
    ]);
    const out = join(scratch.dir, "out", "leave-open.ipynb");
    const result = await run([input, "--out", out, "--quiet"]);
    expect(result.code, result.diagnosis).toBe(0);
    const pid = Number(resultOf(out, "c-0"));
    expect(alive(pid)).toBe(true);
    const stop = spawnSync(process.execPath, [join(REPO_ROOT, "dist", "src", "cli", "main.js"), "desktop", "stop"], { env: { ...process.env, ...env }, encoding: "utf8" });
    expect(stop.status, stop.stderr).toBe(0);
    expect(alive(pid)).toBe(false);
    expect(actionLog()).toContainEqual(expect.objectContaining({ action: "quit", pid, step: "deskbook desktop stop", client: "deskbook desktop stop" }));
  }, 250_000);
});
