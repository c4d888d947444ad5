// `deskbook doctor`'s macOS list, from facts.
import { describe, expect, it } from "vitest";
import { macosChecks, type MacFacts } from "../../src/macos/doctor-checks.js";
import { helperAppPaths } from "../../src/macos/helper-app.js";

const paths = helperAppPaths("/Users/me/.deskbook");
const IDENTITY = { name: "Deskbook Local Signing", sha1: "4E587951B705280CBB8086325CD134D4CDA04977", status: "CSSMERR_TP_NOT_TRUSTED" };
const PING = { version: "deskbook macos helper 0.1.0", platform: "darwin", pid: 4242, background: { postEventRecord: true, postToPid: false } };
const ALL = { accessibility: true, screenRecording: true, inputMonitoring: true, escapeWatcher: true };

const healthy: MacFacts = { app: { state: "current", paths, sourceHash: "ab" }, identity: IDENTITY, ping: PING, permissions: ALL };
const byName = (facts: MacFacts) => Object.fromEntries(macosChecks(facts).map((check) => [check.name, check]));
/** What doctor's exit code follows: every check ok or optional. */
const passes = (facts: MacFacts) => macosChecks(facts).every((check) => check.ok || check.optional);

describe("macosChecks", () => {
  it("lists app, identity, helper, background input and the three permissions, in order", () => {
    expect(macosChecks(healthy).map((check) => check.name)).toEqual([
      "helper app", "signing identity", "helper", "background input", "Accessibility", "Screen Recording", "Input Monitoring",
    ]);
    expect(passes(healthy)).toBe(true);
    const checks = byName(healthy);
    expect(checks.helper!.detail).toBe("deskbook macos helper 0.1.0, pid 4242");
    expect(checks["background input"]!.detail).toBe("found postEventRecord");
    expect(checks["signing identity"]!.detail).toContain(IDENTITY.sha1);
  });

  it("fails on a missing or stale app and a silent helper, pointing at setup", () => {
    const facts: MacFacts = { app: { state: "stale", paths, builtFrom: "aa", sourceHash: "bb" }, identity: IDENTITY, ping: { error: "no helper answered" }, permissions: undefined };
    const checks = byName(facts);
    expect(checks["helper app"]).toMatchObject({ ok: false, fix: "deskbook setup" });
    expect(checks.helper).toMatchObject({ ok: false, detail: "does not answer: no helper answered" });
    expect(checks["background input"]).toBeUndefined();
    expect(checks.Accessibility).toMatchObject({ ok: false, detail: "unknown: the helper does not answer" });
    expect(passes(facts)).toBe(false);
    expect(byName({ ...facts, app: { state: "missing", paths } })["helper app"]!.detail).toContain("not built");
  });

  it("fails without Accessibility or Screen Recording; Input Monitoring and the identity are optional", () => {
    expect(passes({ ...healthy, permissions: { ...ALL, accessibility: false } })).toBe(false);
    expect(passes({ ...healthy, permissions: { ...ALL, screenRecording: false } })).toBe(false);
    const optional: MacFacts = { ...healthy, identity: undefined, permissions: { ...ALL, inputMonitoring: false } };
    expect(passes(optional)).toBe(true);
    const checks = byName(optional);
    expect(checks["Input Monitoring"]).toMatchObject({ ok: false, optional: true });
    expect(checks["Input Monitoring"]!.detail).toMatch(/Escape/);
    expect(checks["signing identity"]).toMatchObject({ ok: false, optional: true, fix: "deskbook signing --create && deskbook setup --rebuild" });
  });

  it("says input comes to the front when no background function was found", () => {
    const checks = byName({ ...healthy, ping: { ...PING, background: { postEventRecord: false } } });
    expect(checks["background input"]).toMatchObject({ ok: true });
    expect(checks["background input"]!.detail).toMatch(/brings the app forward/);
  });
});
