// `confirm: "ask"`: a press on an element whose label looks destructive (grant.ts) is refused
// with confirmation_required and a one-time token; once the person runs `deskbook confirm
// TOKEN` in their own terminal, the same press (same app, same element, same label) goes
// through once. The approval is used up only when the press is sent: a call that fails before
// (a focus check, a background route the client retries in the foreground) keeps it. The
// helper remembers which tokens it issued, so only those count.
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

/** An approved press on its way: `sent` uses the approval up, `notSent` keeps it for the next try. */
export interface Approval {
  sent(): void;
  notSent(): void;
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

  /** The approval of a press the person approved; throws confirmation_required otherwise. */
  check(press: PressRequest): Approval {
    this.dropExpired();
    // The label is part of the key: an approval of "Send" is not one of the same element relabelled "Delete all".
    const key = `${press.pid ?? ""}\n${press.target.key}\n${press.target.label}`;
    const issued = this.#issued.get(key);
    const pending = issued && readPending(this.home, issued.token);
    if (issued && pending?.approved) {
      // Taken out while the press runs, so a second call at the same time is asked afresh.
      this.#issued.delete(key);
      return {
        sent: () => removePending(this.home, issued.token),
        notSent: () => {
          // A token issued meanwhile for the same press gives way to the approved one.
          const newer = this.#issued.get(key);
          if (newer) removePending(this.home, newer.token);
          this.#issued.set(key, issued);
        },
      };
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
    `pressing ${JSON.stringify(pending.label)} in ${pending.app} needs the person's confirmation ("${pending.word}" looks destructive and confirm is "ask" in config.json). ` +
      `The person approves it in their own terminal: deskbook confirm ${pending.token}; a cell or agent cannot. Once approved, the same call run again within ${minutes} minutes presses it once`,
  );
}
