// The one-time tokens of `confirm: "ask"`: issued once per press, approved by the file
// `deskbook confirm` writes, used up by the next same press, forgotten when they expire, and
// never honoured when the helper did not issue them.
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Confirmations, type PressRequest } from "../../helper/linux/confirmation.js";
import { approvePending, CONFIRMATION_TTL_MS, newToken, TOKEN_PATTERN, writePending } from "../../src/config/confirmations.js";
import type { DeskError } from "../../src/helper/desk-error.js";

const press: PressRequest = { app: "Mail", pid: 42, method: "performAction", target: { key: "element 7", label: "Send now" }, word: "send" };

function tokenOf(attempt: () => void): string {
  try {
    attempt();
  } catch (error) {
    expect(error).toMatchObject({ code: "confirmation_required" });
    return /deskbook confirm ([A-Z0-9]{4}-[A-Z0-9]{4});/.exec((error as DeskError).message)![1]!;
  }
  throw new Error("the press was not refused");
}

describe("Confirmations", () => {
  let home: string;
  let now: number;
  let gate: Confirmations;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "deskbook-confirm-"));
    now = 1_000_000;
    gate = new Confirmations(home, () => now);
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it("issues one token per press and lets the press through once after approval", () => {
    const token = tokenOf(() => gate.check(press));
    expect(token).toMatch(TOKEN_PATTERN);
    expect(tokenOf(() => gate.check(press))).toBe(token);
    expect(tokenOf(() => gate.check({ ...press, target: { key: "element 8", label: "Send" } }))).not.toBe(token);
    expect(statSync(join(home, "confirmations")).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, "confirmations", `${token}.json`)).mode & 0o777).toBe(0o600);
    expect(approvePending(home, token, now)).toMatchObject({ ok: true, pending: { app: "Mail", label: "Send now", approved: true } });
    gate.check(press).sent();
    expect(tokenOf(() => gate.check(press))).not.toBe(token);
    expect(approvePending(home, token, now)).toEqual({ ok: false, reason: "unknown" });
  });

  it("addresses the person, not the cell", () => {
    expect(() => gate.check(press)).toThrow(/person approves it in their own terminal: deskbook confirm [A-Z0-9-]+; a cell or agent cannot/);
  });

  it("keys the approval by the label too: the same element relabelled is asked again", () => {
    const token = tokenOf(() => gate.check(press));
    approvePending(home, token, now);
    const relabelled = { ...press, target: { key: "element 7", label: "Delete all" }, word: "delete" };
    expect(tokenOf(() => gate.check(relabelled))).not.toBe(token);
    gate.check(press).sent();
  });

  it("keeps the approval when the press was not sent, and lets only one call at a time use it", () => {
    const token = tokenOf(() => gate.check(press));
    approvePending(home, token, now);
    const approval = gate.check(press);
    // Meanwhile a second call of the same press is not let through on the same approval.
    expect(tokenOf(() => gate.check(press))).not.toBe(token);
    approval.notSent();
    gate.check(press).sent();
    expect(approvePending(home, token, now)).toEqual({ ok: false, reason: "unknown" });
  });

  it("forgets tokens once they expire", () => {
    const token = tokenOf(() => gate.check(press));
    expect(approvePending(home, token, now + CONFIRMATION_TTL_MS)).toEqual({ ok: false, reason: "expired" });
    now += CONFIRMATION_TTL_MS;
    expect(tokenOf(() => gate.check(press))).not.toBe(token);
    expect(readdirSync(join(home, "confirmations"))).toHaveLength(1);
  });

  it("honours only tokens it issued", () => {
    const forged = newToken();
    writePending(home, { token: forged, app: "Mail", pid: 42, method: "performAction", label: "Send now", word: "send", expiresAt: now + 1000, approved: true });
    expect(tokenOf(() => gate.check(press))).not.toBe(forged);
  });

  it("tells a malformed token from an unknown one", () => {
    expect(approvePending(home, "hello")).toEqual({ ok: false, reason: "malformed" });
    expect(approvePending(home, "../../x")).toEqual({ ok: false, reason: "malformed" });
    expect(approvePending(home, "ABCD-EFGH")).toEqual({ ok: false, reason: "unknown" });
  });
});
