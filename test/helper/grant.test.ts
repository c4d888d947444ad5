// The safety tiers and the destructive-label rule both helpers share (test/fixtures/grant-vectors.json).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { appGrant, destructiveWord, tierRefusal } from "../../helper/linux/grant.js";
import type { PolicyApp } from "../../helper/linux/policy.js";
import { parseConfig } from "../../src/config/config.js";
import type { MethodName } from "../../src/helper/protocol.js";

interface TierVector {
  name: string;
  config: Record<string, unknown>;
  app: PolicyApp | null;
  method: MethodName;
  params: Record<string, unknown>;
  expect: "allowed" | "not_granted";
  confirm: "ask" | "off";
}

const fixture = JSON.parse(readFileSync(new URL("../fixtures/grant-vectors.json", import.meta.url), "utf8")) as {
  tiers: TierVector[];
  labels: { label: string; word: string | null }[];
};

describe("grant tiers", () => {
  it.each(fixture.tiers)("$name", ({ config, app, method, params, expect: outcome, confirm }) => {
    // Through the real config parser, so the vectors' configs are ones a user could write.
    const parsed = parseConfig(JSON.stringify(config), "vector").config;
    const grant = appGrant(parsed, app ?? undefined);
    const refusal = tierRefusal(grant.grant, method, params, app?.name ?? "this call");
    expect(refusal === undefined ? "allowed" : "not_granted").toBe(outcome);
    expect(grant.confirm).toBe(confirm);
  });

  it("names the tier and the way out in a refusal", () => {
    expect(tierRefusal("read-only", "click", {}, "Galculator")).toMatch(/^click acts, and "grant" for Galculator is "read-only".*"act"/);
    expect(tierRefusal("act", "quit", { force: true }, "Galculator")).toMatch(/^quit with force needs "grant": "full".*Galculator is "act"/);
  });
});

describe("destructive labels", () => {
  it.each(fixture.labels)("$label → $word", ({ label, word }) => {
    expect(destructiveWord(label) ?? null).toBe(word);
  });
});
