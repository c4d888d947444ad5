// The local code-signing identity "Deskbook Local Signing": is it in the keychain?
import type { CommandRunner } from "./command-runner.js";

export const SIGNING_IDENTITY_NAME = "Deskbook Local Signing";

export interface SigningIdentity {
  name: string;
  /** The certificate's SHA-1, what codesign -s is given (a name could match twice). */
  sha1: string;
  /** What `security` says about trust, e.g. CSSMERR_TP_NOT_TRUSTED for a self-signed one. */
  status?: string;
}

/**
 * Reads `security find-identity -p codesigning`. Deliberately without `-v`: `-v` lists only
 * identities that chain to a trusted root, and a self-signed certificate does not, although
 * codesign signs with it and TCC accepts the result.
 */
export function parseFindIdentity(output: string, name: string = SIGNING_IDENTITY_NAME): SigningIdentity | undefined {
  for (const line of output.split("\n")) {
    const match = /^\s*\d+\)\s+([0-9A-Fa-f]{40})\s+"(.*)"(?:\s+\(([^)]*)\))?\s*$/.exec(line);
    if (!match || match[2] !== name) continue;
    return { name, sha1: match[1]!.toUpperCase(), ...(match[3] ? { status: match[3] } : {}) };
  }
  return undefined;
}

export async function findSigningIdentity(run: CommandRunner, name: string = SIGNING_IDENTITY_NAME): Promise<SigningIdentity | undefined> {
  const result = await run("security", ["find-identity", "-p", "codesigning"]);
  if (result.status !== 0) throw new Error(`security find-identity failed: ${result.stderr.trim() || `status ${result.status}`}`);
  return parseFindIdentity(result.stdout, name);
}
