/**
 * Modules loaded on first use (dbus-next, sharp): one module for every caller, and a failed
 * load is not remembered: a later call loads again and gets the module, even when the module's
 * own code threw the first time (Node's ESM loader would keep that error for good).
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { loadDbus } from "../src/desktop/dbus-module.js";
import { loadSharp } from "../src/image/sharp-loader.js";

// The built file, run by plain node: vitest's own module loader would hide how Node's behaves.
const LOAD_ONCE_JS = fileURLToPath(new URL("../dist/src/load-once.js", import.meta.url));

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A CommonJS module whose evaluation throws until the file `ready` exists beside it. */
const FLAKY_MODULE = `
const { existsSync } = require("node:fs");
if (!existsSync(require("node:path").join(__dirname, "ready"))) throw new Error("not ready yet");
globalThis.evaluations = (globalThis.evaluations ?? 0) + 1;
module.exports = { answer: 42 };
`;

/** Loads the flaky module three times: once before `ready` exists, twice after. */
const SCRIPT = `
import { writeFileSync } from "node:fs";
const [loadOnceUrl, modulePath, readyPath] = process.argv.slice(1);
const { loadOnce } = await import(loadOnceUrl);
const load = loadOnce(modulePath);
const first = await load().then(() => "loaded", (error) => error.message);
writeFileSync(readyPath, "");
const second = await load();
const third = await load();
console.log(JSON.stringify({ first, answer: second.answer, same: second === third, evaluations: globalThis.evaluations }));
`;

describe("loadOnce", () => {
  it("loads a module again after its evaluation threw, in plain node, and keeps the one that loaded", async () => {
    dir = await mkdtemp(join(tmpdir(), "deskbook-load-once-"));
    const modulePath = join(dir, "flaky.cjs");
    await writeFile(modulePath, FLAKY_MODULE);
    const run = spawnSync(
      process.execPath,
      ["--input-type=module", "-e", SCRIPT, pathToFileURL(LOAD_ONCE_JS).href, modulePath, join(dir, "ready")],
      { encoding: "utf8", timeout: 30_000 },
    );
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ first: "not ready yet", answer: 42, same: true, evaluations: 1 });
  });

  it("loads a module that was missing once it is there", async () => {
    dir = await mkdtemp(join(tmpdir(), "deskbook-load-once-"));
    const { loadOnce } = await import("../src/load-once.js");
    const load = loadOnce<{ answer: number }>(join(dir, "late.cjs"));
    await expect(load()).rejects.toThrow(/late\.cjs/);
    await writeFile(join(dir, "late.cjs"), "module.exports = { answer: 7 };\n");
    expect((await load()).answer).toBe(7);
  });
});

describe("the modules loaded on first use", () => {
  it("are dbus-next and sharp themselves", async () => {
    expect(typeof (await loadDbus()).sessionBus).toBe("function");
    expect(typeof (await loadSharp())).toBe("function");
  });
});
