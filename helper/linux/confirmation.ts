// `confirm: "ask"`: a press on an element whose label looks destructive (grant.ts) is refused
// with confirmation_required and a one-time token; once the person runs `deskbook confirm
// TOKEN`, the same press (same app, same element or menu item) goes through once. The helper
// remembers which tokens it issued, so only those count.
import {
  CONFIRMATION_TTL_MS,
  newToken,
  readPending,
  removePending,
  writePending,
  type PendingConfirmation,
} from "../../src/config/confirmations.js";
import { DeskError } from "../../src/helper/desk-error.js";
import type { PressTarget } from "./press-target.js";

export interface PressRequest {
  app: string;
  pid?: number;
  method: string;
  target: PressTarget;
  /** The label's word that made the press need confirmation. */
  word: string;
}

interface Issued {
  token: string;
  expiresAt: number;
}

export class Confirmations {
  /** By press (pid and target key): the token issued for it. */
  readonly #issued = new Map<string, Issued>();

  constructor(
    private readonly home: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Returns when the press was approved (and uses the approval up); throws confirmation_required otherwise. */
  check(press: PressRequest): void {
    this.dropExpired();
    const key = `${press.pid ?? ""}\n${press.target.key}`;
    const issued = this.#issued.get(key);
    const pending = issued && readPending(this.home, issued.token);
    if (issued && pending?.approved) {
      this.#issued.delete(key);
      removePending(this.home, issued.token);
      return;
    }
    // Asked again before the person answered: the same token, so their pending approval still counts.
    if (issued && pending) throw refusal(pending);
    const fresh: PendingConfirmation = {
      token: newToken(),
      app: press.app,
      ...(press.pid !== undefined && { pid: press.pid }),
      method: press.method,
      label: press.target.label,
      word: press.word,
      expiresAt: this.now() + CONFIRMATION_TTL_MS,
      approved: false,
    };
    writePending(this.home, fresh);
    this.#issued.set(key, { token: fresh.token, expiresAt: fresh.expiresAt });
    throw refusal(fresh);
  }

  private dropExpired(): void {
    const now = this.now();
    for (const [key, issued] of this.#issued) {
      if (issued.expiresAt > now) continue;
      this.#issued.delete(key);
      removePending(this.home, issued.token);
    }
  }
}

function refusal(pending: PendingConfirmation): DeskError {
  const minutes = Math.round(CONFIRMATION_TTL_MS / 60_000);
  return new DeskError(
    "confirmation_required",
    `pressing ${JSON.stringify(pending.label)} in ${pending.app} needs the person's confirmation ("${pending.word}" looks destructive and confirm is "ask" in config.json): ` +
      `run "deskbook confirm ${pending.token}" to approve this one press, then run the call again within ${minutes} minutes`,
  );
}
