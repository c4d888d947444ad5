/**
 * mkdir -p that always ends (src/make-dirs.ts). Node's `recursive: true` spins forever where
 * mkdir keeps answering ENOENT (under /proc); Deskbook's own fails at once with a coded error
 * naming the directory. A regression would spin the caller's thread, so the /proc cases run in a
 * child process with a time limit: a hang fails the test instead of stalling the run.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { makeDirs, MakeDirsError, makeDirsSync } from "../src/make-dirs.js";
import { CLI, REPO_ROOT } from "./support/kernel-process.js";

const MAKE_DIRS_JS = pathToFileURL(join(REPO_ROOT, "dist", "src", "make-dirs.js")).href;
/** Far above the few milliseconds a failing mkdir takes, far below the test's own limit. */
const CHILD_LIMIT_MS = 10_000;

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Runs `call` ("makeDirsSync(…)" or "await makeDirs(…)") in plain node; prints the error's name, code and path. */
function inChild(call: string): { error: { name: string; code: string; path: string; message: string }; signal: NodeJS.Signals | null } {
  const script = `import { makeDirs, makeDirsSync } from ${JSON.stringify(MAKE_DIRS_JS)};
    try { ${call}; console.log("{}") } catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, path: e.path, message: e.message })) }`;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: CHILD_LIMIT_MS });
  return { error: child.stdout ? JSON.parse(child.stdout) : {}, signal: child.signal };
}

describe("makeDirs where mkdir answers ENOENT for good", () => {
  it.skipIf(process.platform !== "linux")("fails at once under /proc with ENOENT naming the first directory it could not make, sync and async", () => {
    for (const call of ['makeDirsSync("/proc/self/deskbook-none/a/b", 0o700)', 'await makeDirs("/proc/self/deskbook-none/a/b")']) {
      const { error, signal } = inChild(call);
      // Killed by the time limit means it spun, as Node's recursive mkdir does.
      expect(signal, call).toBeNull();
      expect(error).toEqual({
        name: "MakeDirsError",
        code: "ENOENT",
        path: "/proc/self/deskbook-none",
        message: "cannot create directory /proc/self/deskbook-none: ENOENT, although /proc/self exists: that filesystem (such as /proc or /sys) takes no new directories",
      });
    }
  });

  it.skipIf(process.platform !== "linux")("a DESKBOOK_HOME under /proc: `deskbook allow` says why and exits, instead of spinning", () => {
    const child = spawnSync(process.execPath, [CLI, "allow", "galculator"], {
      encoding: "utf8",
      timeout: CHILD_LIMIT_MS,
      env: { ...process.env, DESKBOOK_HOME: "/proc/self/deskbook-none/home" },
    });
    expect(child.signal).toBeNull();
    expect(child.status).toBe(1);
    expect(child.stderr).toContain("cannot create directory /proc/self/deskbook-none: ENOENT, although /proc/self exists");
  });
});

describe("makeDirs on an ordinary filesystem", () => {
  it("makes every missing parent with the mode given, and accepts a directory already there", async () => {
    dir = await mkdtemp(join(tmpdir(), "deskbook-make-dirs-"));
    const deep = join(dir, "a", "b", "c");
    makeDirsSync(deep, 0o700);
    for (const path of [join(dir, "a"), join(dir, "a", "b"), deep]) expect(((await stat(path)).mode & 0o777).toString(8)).toBe("700");
    makeDirsSync(deep, 0o700);
    await makeDirs(join(deep, "d"));
    expect((await stat(join(deep, "d"))).isDirectory()).toBe(true);
  });

  it("refuses a file in the way with ENOTDIR, naming it", async () => {
    dir = await mkdtemp(join(tmpdir(), "deskbook-make-dirs-"));
    await writeFile(join(dir, "file"), "");
    const error = (() => {
      try {
        makeDirsSync(join(dir, "file", "sub"));
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(MakeDirsError);
    expect((error as MakeDirsError).code).toBe("ENOTDIR");
    expect((error as MakeDirsError).path).toBe(join(dir, "file"));
    await expect(makeDirs(join(dir, "file"))).rejects.toThrow(`cannot create directory ${join(dir, "file")}: ${join(dir, "file")} exists and is not a directory`);
  });
});
