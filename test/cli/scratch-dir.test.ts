/**
 * scratchDir: a temp directory that goes with its process however the process ends, but for a
 * SIGKILL. Each case is a real Node process using the built module, ended as the case says.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/kernel-process.js";
import { tempDir } from "../support/temp-dir.js";

const MODULE = join(REPO_ROOT, "dist", "src", "cli", "scratch-dir.js");

/** What the process does after making its directory. */
type Mode = "wait" | "own-sigint" | "throw";

interface Owner {
  child: ChildProcess;
  dir: string;
  /** The next line the process prints. */
  line: () => Promise<string>;
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function owner(mode: Mode): Promise<Owner> {
  const tmp = await tempDir("deskbook-scratch-test-");
  const script = `
    const { scratchDir } = await import(${JSON.stringify(MODULE)});
    const dir = scratchDir("deskbook-gateway-kernel-");
    if (${JSON.stringify(mode)} === "own-sigint") process.on("SIGINT", () => console.log("interrupted"));
    console.log(dir);
    if (${JSON.stringify(mode)} === "throw") setTimeout(() => { throw new Error("a bug"); }, 10);
    setInterval(() => undefined, 60_000);
  `;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { env: { ...process.env, TMPDIR: tmp }, stdio: ["ignore", "pipe", "pipe"] });
  const ended = once(child, "exit").then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const line = async () => String((await lines.next()).value);
  const dir = await line();
  expect(dir.startsWith(join(tmp, "deskbook-gateway-kernel-")), dir).toBe(true);
  expect(existsSync(dir)).toBe(true);
  return { child, dir, line, ended };
}

describe("scratchDir", () => {
  it.each(["SIGTERM", "SIGINT", "SIGHUP"] as const)("goes on %s, and the process still ends by it", async (name) => {
    const { child, dir, ended } = await owner("wait");
    child.kill(name);
    expect(await ended).toEqual({ code: null, signal: name });
    expect(existsSync(dir)).toBe(false);
  });

  it("stays while another handler owns the signal (the kernel's SIGINT interrupts), and goes with the process after", async () => {
    const { child, dir, line, ended } = await owner("own-sigint");
    child.kill("SIGINT");
    expect(await line()).toBe("interrupted");
    expect(existsSync(dir)).toBe(true);
    child.kill("SIGTERM");
    expect(await ended).toEqual({ code: null, signal: "SIGTERM" });
    expect(existsSync(dir)).toBe(false);
  });

  it("goes when an error ends the process", async () => {
    const { dir, ended } = await owner("throw");
    expect((await ended).code).toBe(1);
    expect(existsSync(dir)).toBe(false);
  });

  it("stays after a SIGKILL, which no process can handle", async () => {
    const { child, dir, ended } = await owner("wait");
    child.kill("SIGKILL");
    expect(await ended).toEqual({ code: null, signal: "SIGKILL" });
    // The limit the module's comment states; the test's own temp directory removes it.
    expect(readdirSync(join(dir, ".."))).toContain(dir.split("/").pop());
  });
});
