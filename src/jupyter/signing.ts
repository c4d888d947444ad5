import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * HMAC signing of the four JSON frames of a Jupyter message
 * (header, parent_header, metadata, content), as the wire protocol requires.
 */
export class Signer {
  readonly algorithm: string | null;
  private readonly key: Buffer;

  constructor(scheme: string, key: string) {
    this.key = Buffer.from(key, "utf8");
    // A bad scheme is a configuration error even when unsigned, so check it first;
    // only an unsigned session may leave the scheme empty.
    const algorithm = key === "" && scheme === "" ? null : parseScheme(scheme);
    // An empty key means the session is unsigned.
    this.algorithm = key === "" ? null : algorithm;
  }

  get enabled(): boolean {
    return this.algorithm !== null;
  }

  /** Lowercase hex digest, or "" when signing is disabled. Strings are hashed as UTF-8, as they are sent. */
  sign(parts: readonly (Buffer | string)[]): string {
    if (this.algorithm === null) return "";
    const hmac = createHmac(this.algorithm, this.key);
    for (const part of parts) hmac.update(part);
    return hmac.digest("hex");
  }

  /** Constant-time comparison; never throws, whatever the signature looks like. */
  verify(signature: string, parts: readonly Buffer[]): boolean {
    if (this.algorithm === null) return true;
    const expected = Buffer.from(this.sign(parts), "utf8");
    const given = Buffer.from(signature, "utf8");
    if (given.length !== expected.length) {
      // Still do the comparison work so the length check is not the only cost difference.
      timingSafeEqual(expected, expected);
      return false;
    }
    return timingSafeEqual(given, expected);
  }
}

function parseScheme(scheme: string): string {
  const match = /^hmac-(.+)$/.exec(scheme);
  if (!match) {
    throw new Error(`unsupported signature scheme "${scheme}": expected "hmac-<algorithm>", e.g. "hmac-sha256"`);
  }
  const algorithm = match[1]!;
  try {
    createHmac(algorithm, "probe");
  } catch {
    throw new Error(`unsupported signature scheme "${scheme}": node:crypto has no hash "${algorithm}"`);
  }
  return algorithm;
}
