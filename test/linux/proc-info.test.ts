// processInfo keeps exe and cmdline per (pid, start time, name): a process that execs keeps its
// pid and start time, so it must be re-read when its name changes, and never served stale.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { processInfo } from "../../helper/linux/proc-info.js";

describe("processInfo", () => {
  it("re-reads a process that exec'd, and says null once it is gone", async () => {
    const child = spawn("sh", ["-c", "read line; exec sleep 30"], { stdio: ["pipe", "ignore", "ignore"] });
    const pid = child.pid as number;
    try {
      const before = await processInfo(pid);
      expect(before).toMatchObject({ pid, comm: "sh", argv: ["sh", "-c", "read line; exec sleep 30"], ppid: process.pid });
      child.stdin.write("go\n");
      while (!readFileSync(`/proc/${pid}/stat`, "utf8").includes("(sleep)")) await new Promise((r) => setTimeout(r, 10));
      expect(await processInfo(pid)).toMatchObject({ pid, comm: "sleep", argv: ["sleep", "30"], exe: expect.stringMatching(/sleep$/) });
    } finally {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill();
      await exited;
    }
    expect(await processInfo(pid)).toBeNull();
  });
});
