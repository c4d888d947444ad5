/**
 * Modules loaded on first use (dbus-next, sharp): one import for every caller, and a failed
 * import is not remembered: a later call imports again and gets the module.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { loadDbus } from "../src/desktop/dbus-module.js";
import { loadSharp } from "../src/image/sharp-loader.js";
import { loadOnce } from "../src/load-once.js";

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("loadOnce", () => {
  it("tries a failed import again, and keeps the one that worked", async () => {
    dir = await mkdtemp(join(tmpdir(), "deskbook-load-once-"));
    const url = pathToFileURL(join(dir, "late.mjs")).href;
    let imports = 0;
    const load = loadOnce(async () => {
      imports++;
      return (await import(/* @vite-ignore */ url)) as { answer: number };
    });
    // The module is not there yet: a real import failure.
    await expect(load()).rejects.toThrow(/late\.mjs/);
    await writeFile(join(dir, "late.mjs"), "export const answer = 42;\n");
    expect((await load()).answer).toBe(42);
    const again = load();
    expect(again).toBe(load());
    expect((await again).answer).toBe(42);
    expect(imports).toBe(2);
  });

  it("shares one import between callers that ask at the same time", async () => {
    let imports = 0;
    let finish: (value: string) => void = () => undefined;
    const load = loadOnce(() => {
      imports++;
      return new Promise<string>((resolve) => (finish = resolve));
    });
    const first = load();
    const second = load();
    finish("module");
    expect(await Promise.all([first, second])).toEqual(["module", "module"]);
    expect(imports).toBe(1);
  });
});

describe("the modules loaded on first use", () => {
  it("are dbus-next and sharp themselves", async () => {
    expect(typeof (await loadDbus()).sessionBus).toBe("function");
    expect(typeof (await loadSharp())).toBe("function");
  });
});
