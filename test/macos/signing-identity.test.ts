// Reading `security find-identity -p codesigning` for the local identity.
import { describe, expect, it } from "vitest";
import { findSigningIdentity, parseFindIdentity } from "../../src/macos/signing-identity.js";

const SHA = "4E587951B705280CBB8086325CD134D4CDA04977";
const OTHER = "1111111111111111111111111111111111111111";

// The shape `security` prints (Apple's forum post "Fixing an untrusted code signing certificate").
const UNTRUSTED = `Policy: Code Signing
  Matching identities
  1) ${OTHER} "Deskbook Local Signing 2"
  2) ${SHA} "Deskbook Local Signing" (CSSMERR_TP_NOT_TRUSTED)
     2 identities found

  Valid identities only
  1) ${OTHER} "Deskbook Local Signing 2"
     1 valid identities found
`;

describe("parseFindIdentity", () => {
  it("finds a self-signed identity that is listed only under Matching identities", () => {
    expect(parseFindIdentity(UNTRUSTED)).toEqual({ name: "Deskbook Local Signing", sha1: SHA, status: "CSSMERR_TP_NOT_TRUSTED" });
  });

  it("matches the whole name only, and answers undefined when it is absent", () => {
    expect(parseFindIdentity(UNTRUSTED.replace(`${SHA} "Deskbook Local Signing" (CSSMERR_TP_NOT_TRUSTED)`, ""))).toBeUndefined();
    expect(parseFindIdentity("Policy: Code Signing\n  Matching identities\n     0 identities found\n")).toBeUndefined();
  });

  it("reads a trusted identity without a status", () => {
    expect(parseFindIdentity(`  1) ${SHA.toLowerCase()} "Deskbook Local Signing"\n`)).toEqual({ name: "Deskbook Local Signing", sha1: SHA });
  });
});

describe("findSigningIdentity", () => {
  it("asks without -v (which hides untrusted identities) and reports a failing security", async () => {
    const calls: string[][] = [];
    const found = await findSigningIdentity(async (command, args) => {
      calls.push([command, ...args]);
      return { status: 0, stdout: UNTRUSTED, stderr: "" };
    });
    expect(found?.sha1).toBe(SHA);
    expect(calls).toEqual([["security", "find-identity", "-p", "codesigning"]]);
    await expect(findSigningIdentity(async () => ({ status: 1, stdout: "", stderr: "no keychain" }))).rejects.toThrow(/no keychain/);
  });
});
