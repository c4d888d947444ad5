// Pending confirmations, shared by the helper (which refuses a destructive-looking press and
// writes one) and `deskbook confirm TOKEN` (which approves it). One 0600 JSON file per token in
// $DESKBOOK_HOME/confirmations/ (0700). The helper keeps its own list of the tokens it issued
// and only honours those, so a file it did not write approves nothing.
import { randomInt } from "node:crypto";
import { chmodSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeDirsSync } from "../make-dirs.js";

export const CONFIRMATIONS_DIR = "confirmations";
/** How long a token waits for the person, and then for the call to be repeated. */
export const CONFIRMATION_TTL_MS = 10 * 60_000;
/** Letters and digits that cannot be misread for one another (no 0/O, 1/I/L, U/V). */
const TOKEN_ALPHABET = "ABCDEFGHJKMNPQRSTWXYZ23456789";
export const TOKEN_PATTERN = /^[ABCDEFGHJKMNPQRSTWXYZ2-9]{4}-[ABCDEFGHJKMNPQRSTWXYZ2-9]{4}$/;

export interface PendingConfirmation {
  token: string;
  /** The app's name, the method and the element's label: what the person is asked to approve. */
  app: string;
  pid?: number;
  method: string;
  label: string;
  /** The word of the label that made the press look destructive. */
  word: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  approved: boolean;
}

export function newToken(): string {
  const pick = (): string => TOKEN_ALPHABET[randomInt(TOKEN_ALPHABET.length)]!;
  const half = (): string => Array.from({ length: 4 }, pick).join("");
  return `${half()}-${half()}`;
}

export function writePending(home: string, pending: PendingConfirmation): void {
  const dir = join(home, CONFIRMATIONS_DIR);
  makeDirsSync(dir, 0o700);
  chmodSync(dir, 0o700);
  const path = join(dir, `${pending.token}.json`);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(pending)}\n`, { mode: 0o600 });
  renameSync(temp, path);
}

/** The pending confirmation of `token`, or undefined when there is none (or it does not parse). */
export function readPending(home: string, token: string): PendingConfirmation | undefined {
  if (!TOKEN_PATTERN.test(token)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(join(home, CONFIRMATIONS_DIR, `${token}.json`), "utf8")) as PendingConfirmation;
    return parsed.token === token ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function removePending(home: string, token: string): void {
  if (TOKEN_PATTERN.test(token)) rmSync(join(home, CONFIRMATIONS_DIR, `${token}.json`), { force: true });
}

export type ApproveOutcome =
  | { ok: true; pending: PendingConfirmation }
  | { ok: false; reason: "malformed" | "unknown" | "expired" };

/** `deskbook confirm`: marks the token approved, unless it is unknown or has expired. */
export function approvePending(home: string, token: string, now: number = Date.now()): ApproveOutcome {
  const normalized = token.trim().toUpperCase();
  if (!TOKEN_PATTERN.test(normalized)) return { ok: false, reason: "malformed" };
  const pending = readPending(home, normalized);
  if (!pending) return { ok: false, reason: "unknown" };
  if (pending.expiresAt <= now) {
    removePending(home, normalized);
    return { ok: false, reason: "expired" };
  }
  const approved = { ...pending, approved: true };
  writePending(home, approved);
  return { ok: true, pending: approved };
}

/** The presses still waiting for the person, oldest deadline first (for `deskbook confirm` without a token). */
export function listPending(home: string, now: number = Date.now()): PendingConfirmation[] {
  let names: string[];
  try {
    names = readdirSync(join(home, CONFIRMATIONS_DIR));
  } catch {
    return [];
  }
  return names
    .flatMap((name) => readPending(home, name.replace(/\.json$/, "")) ?? [])
    .filter((pending) => !pending.approved && pending.expiresAt > now)
    .sort((a, b) => a.expiresAt - b.expiresAt);
}
