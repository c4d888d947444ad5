// `deskbook confirm`: lists the presses waiting, approves one by its token (in any case), and
// tells a malformed, unknown or expired token apart, with exit codes a script can act on.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { newToken, readPending, writePending } from "../../src/config/confirmations.js";
import { CLI } from "../support/kernel-process.js";
import { tempDir } from "../support/temp-dir.js";

const quote = (arg: string): string => `'${arg.replace(/'/g, "'\\''")}'`;
/** Run as a person would: at a terminal (util-linux script gives stdin a pty). */
const deskbook = (home: string, ...args: string[]) => {
  const env: NodeJS.ProcessEnv = { ...process.env, DESKBOOK_HOME: home };
  delete env.DESKBOOK_CELL;
  const command = [process.execPath, CLI, "confirm", ...args].map(quote).join(" ");
  const result = spawnSync("script", ["-qec", command, "/dev/null"], { env, encoding: "utf8" });
  return { ...result, stdout: result.stdout.replace(/\r\n/g, "\n"), stderr: result.stdout.replace(/\r\n/g, "\n") };
};
const piped = (home: string, env: NodeJS.ProcessEnv, ...args: string[]) =>
  spawnSync(process.execPath, [CLI, "confirm", ...args], { env: { ...process.env, DESKBOOK_HOME: home, ...env }, encoding: "utf8" });

const pending = (token: string, expiresAt: number) => ({ token, app: "Mail", pid: 42, method: "performAction", label: "Send now", word: "send", expiresAt, approved: false });

describe("deskbook confirm", () => {
  it("approves only for a person at a terminal: not from a cell, not with stdin piped", async () => {
    const home = await tempDir("deskbook-confirm-");
    const token = newToken();
    writePending(home, pending(token, Date.now() + 60_000));
    expect(piped(home, {}, token)).toMatchObject({ status: 3, stderr: expect.stringContaining("not_a_person: stdin is not a terminal") });
    const fromCell = spawnSync("script", ["-qec", [process.execPath, CLI, "confirm", token].map(quote).join(" "), "/dev/null"], {
      env: { ...process.env, DESKBOOK_HOME: home, DESKBOOK_CELL: "1" },
      encoding: "utf8",
    });
    expect(fromCell).toMatchObject({ status: 3, stdout: expect.stringContaining("not_a_person: run from inside a Deskbook cell") });
    expect(readPending(home, token)?.approved).toBe(false);
    expect(deskbook(home, token)).toMatchObject({ status: 0 });
    expect(readPending(home, token)?.approved).toBe(true);
  });

  it("lists what waits, approves it once, and then lists nothing", async () => {
    const home = await tempDir("deskbook-confirm-");
    expect(deskbook(home)).toMatchObject({ status: 0, stdout: "no press is waiting for confirmation\n" });
    const token = newToken();
    writePending(home, pending(token, Date.now() + 60_000));
    writePending(home, pending(newToken(), Date.now() - 1));
    const listed = deskbook(home);
    expect(listed.status).toBe(0);
    expect(listed.stdout.split("\n")[0]).toBe(`${token}  performAction on "Send now" in Mail, expires in 1 min`);
    // The expired one is not listed.
    expect(listed.stdout.match(/^[A-Z0-9]{4}-[A-Z0-9]{4} {2}/gm)).toHaveLength(1);
    expect(deskbook(home, token.toLowerCase())).toMatchObject({ status: 0, stdout: expect.stringContaining('approved: performAction on "Send now" in Mail, once') });
    expect(readPending(home, token)?.approved).toBe(true);
    expect(deskbook(home).stdout).toBe("no press is waiting for confirmation\n");
  });

  it("exits 1 for an unknown or expired token and 2 for bad usage", async () => {
    const home = await tempDir("deskbook-confirm-");
    const old = newToken();
    writePending(home, pending(old, Date.now() - 1));
    expect(deskbook(home, old)).toMatchObject({ status: 1, stderr: expect.stringContaining("has expired") });
    expect(deskbook(home, "ABCD-EFGH")).toMatchObject({ status: 1, stderr: expect.stringContaining("not waiting") });
    expect(deskbook(home, "nonsense")).toMatchObject({ status: 1, stderr: expect.stringContaining("not a confirmation token") });
    expect(deskbook(home, "--all").status).toBe(2);
    expect(deskbook(home, "A", "B").status).toBe(2);
  });
});
