// The helper-protocol fuzz: 10 000 lines over four concurrent connections, against the scripted
// helper and against the real Linux helper on a private virtual desktop with galculator. Every
// line gets a coded error or a valid result (bad_request for every line the helper must refuse),
// nothing crashes, and afterwards every method answers on a fresh connection. The seed is
// printed; DESKBOOK_FUZZ_SEED=<n> repeats a run. The Linux helper runs in allowlist mode with
// only galculator allowed, valid input stays inside galculator's window and uses keys that
// cannot close it: the fuzz touches nothing but the test's own desktop and app.
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { printTable, round, type Row } from "../../bench/report.js";
import { startScriptedHelper, type ScriptedHelper } from "../fixtures/start-scripted-helper.js";
import { missingTools, startHelperDesktop, waitFor, type HelperDesktop, type RunningHelper } from "../linux/helper-harness.js";
import { createSecondUser, secondUserUnavailable, type SecondUser } from "../support/second-user.js";
import { METHOD_NAMES } from "../../src/helper/protocol.js";
import type { FuzzTarget } from "./fuzz-lines.js";
import { everyMethodAnswers, runFuzz, type FuzzReport } from "./fuzz-run.js";

const LINES = 10_000;
const CONNECTIONS = 4;
const WINDOW = 8;
/** No reply within this is a wedge (the slowest honest call, a tree read under load, takes a few seconds). */
const REPLY_TIMEOUT_MS = 30_000;
const SEED = Number(process.env.DESKBOOK_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

const missing = missingTools(["Xvfb", "openbox", "dbus-daemon", "galculator"]);
if (missing.length > 0) console.warn(`test/reliability/helper-fuzz.test.ts: the Linux part is skipped: ${missing.join(", ")} missing`);

/** One valid call per method, for the target; launch finds the running instance. */
function everyMethod(t: FuzzTarget): Array<[string, Record<string, unknown>]> {
  const [fx, fy, w, h] = t.frame;
  const x = Math.round(fx + w / 2);
  const y = Math.round(fy + h * 0.7);
  const { pid, windowId } = t;
  const stale = 2_000_000_000;
  return [
    ["ping", {}],
    ["permissions", {}],
    ["listApps", {}],
    ["resolveApp", { query: "galculator" }],
    ["launch", { name: "galculator" }],
    ["activate", { pid }],
    ["isActive", { pid }],
    ["windows", { pid }],
    ["axTree", { pid, maxNodes: 20 }],
    ["hitTest", { pid, x, y }],
    ["elementFrame", { pid, index: stale }],
    ["actionNames", { pid, index: stale }],
    ["performAction", { pid, index: stale, action: "AXPress" }],
    ["setValue", { pid, index: stale, value: "1" }],
    ["focusElement", { pid, index: stale }],
    ["selectText", { pid, index: stale, start: 0, length: 1 }],
    ["keys", { pid, chords: [{ key: "Escape", mods: [] }] }],
    ["keyDown", { pid, key: "1" }],
    ["keyUp", { pid, key: "1" }],
    ["type", { pid, text: "1" }],
    ["click", { pid, x, y }],
    ["scroll", { pid, x, y, dy: 1 }],
    ["drag", { pid, path: [[x, y], [x + 4, y]] }],
    ["move", { pid, x, y }],
    ["cursor", {}],
    ["makeKey", { pid, windowId }],
    ["screenshot", { pid, windowId, width: 40, height: 30 }],
    ["forget", { pid: t.foreignPids[0]! }],
    // Quitting or hiding the app would end the check: these name a pid that runs nothing.
    ["quit", { pid: NOBODY }],
    ["hide", { pid: NOBODY }],
    ["windowAction", { pid, windowId, action: "focus" }],
    ["menu", { pid, path: ["No Such Menu"] }],
    ["paste", { pid, text: "1" }],
    ["clipboardRead", {}],
    ["clipboardWrite", { text: "fuzz" }],
    ["readText", { pid, windowId, width: 40, height: 30 }],
    ["waitChange", { pid, timeoutMs: 0 }],
    ["inputHandled", { pid, timeoutMs: 1000 }],
    // Linux answers `unsupported`: a coded answer is all the check needs.
    ["runScript", { language: "applescript", source: "return 1" }],
  ];
}

/** A pid no process has: the protocol's largest (Linux's PID_MAX_LIMIT, which pids stay below). */
const NOBODY = 4_194_304;

function fuzzRows(name: string, r: FuzzReport, after: Array<{ method: string; ms: number | null }>): Row[] {
  const slowest = Math.max(...after.map((a) => a.ms ?? Infinity));
  const row = (metric: string, value: number, unit: string, target: string, ok: boolean): Row => ({ metric: `${name}: ${metric}`, value, unit, target, verdict: ok ? "ok" : "MISS" });
  return [
    row("lines sent", r.sent, "lines", String(LINES), r.sent === LINES),
    row("replies", r.replies, "lines", "= sent", r.replies === r.sent),
    row("refusable lines not refused", r.notRefused.length, "lines", "0", r.notRefused.length === 0),
    row("protocol violations", r.violations.length, "replies", "0", r.violations.length === 0),
    row("wedged (no reply in 30 s)", r.unanswered.length, "lines", "0", r.unanswered.length === 0),
    row("mutants naming the param", r.mutants ? round((100 * r.namedField) / r.mutants, 1) : 0, "%", "-", true),
    row("results", r.results, "lines", "-", true),
    row("over-long lines handled", r.overlong.refused + r.overlong.closed, "lines", String(r.overlong.sent), r.overlong.refused + r.overlong.closed === r.overlong.sent),
    row("slowest method after", round(slowest, 0), "ms", "< 10000", slowest < 10_000),
    row("fuzz time", round(r.elapsedMs / 1000, 1), "s", "-", true),
  ];
}

function expectClean(r: FuzzReport, after: Array<{ method: string; ms: number | null; code: string | null }>): void {
  expect(r.unanswered).toEqual([]);
  expect(r.violations).toEqual([]);
  expect(r.notRefused).toEqual([]);
  expect(r.replies).toBe(LINES);
  expect(r.overlong.refused + r.overlong.closed).toBe(r.overlong.sent);
  expect(after.filter((a) => a.ms === null)).toEqual([]);
}

describe("helper-protocol fuzz", () => {
  it("checks every method of the protocol afterwards", () => {
    const listed = everyMethod({ pid: 1, windowId: 1, frame: [0, 0, 10, 10], foreignPids: [1] }).map(([method]) => method);
    expect([...listed].sort()).toEqual(METHOD_NAMES.filter((m) => m !== "hello").sort());
  });

  it(`leaves the scripted helper answering (seed ${SEED})`, async () => {
    console.log(`helper fuzz seed: ${SEED} (DESKBOOK_FUZZ_SEED=${SEED} repeats it)`);
    const helper: ScriptedHelper = await startScriptedHelper();
    try {
      const target: FuzzTarget = { pid: 4242, windowId: 1001, frame: [100, 100, 600, 400], foreignPids: [6161, 1, NOBODY] };
      const report = await runFuzz({ socketPath: helper.socketPath, seed: SEED, lines: LINES, connections: CONNECTIONS, window: WINDOW, target, replyTimeoutMs: REPLY_TIMEOUT_MS });
      const after = await everyMethodAnswers(helper.socketPath, everyMethod(target), 10_000);
      printTable(fuzzRows("scripted", report, after));
      expectClean(report, after);
      expect(helper.process?.exitCode).toBeNull();
    } finally {
      await helper.stop();
    }
  }, 120_000);

  describe.skipIf(missing.length > 0)("the Linux helper on a virtual desktop", () => {
    let desk: HelperDesktop;
    let helper: RunningHelper;
    let target: FuzzTarget;
    let other: SecondUser | null = null;
    let othersSleep: ChildProcess | null = null;

    beforeAll(async () => {
      desk = await startHelperDesktop();
      desk.writeConfig({ approval: "allowlist", allow: ["galculator"] });
      helper = await desk.startHelper();
      const conn = await helper.connect();
      try {
        const launched = await conn.call("launch", { name: "galculator", activate: true });
        const pid = (launched.result as { pid: number }).pid;
        desk.trackPid(pid);
        const window = await waitFor(async () => {
          const reply = await conn.call("windows", { pid });
          return (reply.result as Array<{ windowId?: number; frame: [number, number, number, number] }> | undefined)?.[0];
        }, "galculator's window");
        await conn.call("activate", { pid });
        const foreignPids = [helper.child.pid!, 1, process.pid, NOBODY];
        if (secondUserUnavailable() === null) {
          other = createSecondUser();
          othersSleep = other.start("sleep", ["600"]);
          await waitFor(async () => othersSleep?.pid !== undefined, "another user's process");
          foreignPids.push(othersSleep.pid!);
        }
        target = { pid, windowId: window.windowId!, frame: window.frame, foreignPids };
      } finally {
        conn.close();
      }
    }, 120_000);

    afterAll(async () => {
      if (othersSleep && othersSleep.exitCode === null && othersSleep.signalCode === null) {
        const gone = new Promise((resolve) => othersSleep!.once("exit", resolve));
        othersSleep.kill("SIGKILL");
        await gone;
      }
      other?.remove();
      await desk?.stop();
    });

    it(`leaves the Linux helper answering every method, with galculator running (seed ${SEED})`, async () => {
      console.log(`helper fuzz seed: ${SEED} (DESKBOOK_FUZZ_SEED=${SEED} repeats it)`);
      const before = await everyMethodAnswers(helper.socket, everyMethod(target), 10_000);
      const report = await runFuzz({ socketPath: helper.socket, seed: SEED, lines: LINES, connections: CONNECTIONS, window: WINDOW, target, replyTimeoutMs: REPLY_TIMEOUT_MS });
      // Galculator may have been left in another window state; bring it forward for the check.
      const after = await everyMethodAnswers(helper.socket, everyMethod(target), 10_000);
      printTable([
        ...fuzzRows("linux", report, after),
        ...after.map((a, k): Row => ({
          metric: `linux: ${a.method} before → after`,
          value: a.ms === null ? null : round(a.ms, 0),
          unit: `ms (before ${round(before[k]?.ms ?? -1, 0)})${a.code ? ` ${a.code}` : ""}`,
          target: "< 10000",
          verdict: a.ms !== null && a.ms < 10_000 ? "ok" : "MISS",
        })),
      ]);
      console.log(`linux fuzz error codes: ${JSON.stringify(report.codes)}`);
      expectClean(report, after);
      expect(helper.child.exitCode).toBeNull();
      expect(helper.output()).not.toMatch(/unexpected (error|rejection)/);
      // The fuzz never acted on anything but galculator: every other pid was turned away.
      expect(report.byKind.foreign).toBeGreaterThan(0);
    }, 300_000);
  });
});
