// The dialog-and-input rule, as the Swift core's InputFloor.swift: synthetic input and approval
// dialogs never overlap. An input sequence waits while a dialog is shown (XTEST input goes to
// whatever has focus, and a typed Space or Return could answer the dialog) and runs one at a
// time; a dialog waits for the input sequence already running, and a dialog that waits goes
// before input that waits; dialogs do not wait for each other. An Escape while a dialog is
// shown, or just after one closed, dismissed that dialog and is not the user's stop. Both
// helpers' tests run test/fixtures/input-dialog-rule.json against this.
import { DeskError } from "../../src/helper/desk-error.js";

/** How long an Escape after the last dialog closed still counts as the dialog's. */
export const ESCAPE_GRACE_MS = 500;
/** How long input waits for the floor: the dialog's 60 s, and a margin. */
export const INPUT_WAIT_MS = 65_000;

type Kind = "input" | "dialog";
export type FloorAnswer = "go" | "wait";

/** Who holds the floor, who waits, and when the last dialog closed. Pure: the table drives it. */
export class FloorState {
  #input: number | null = null;
  readonly #shown = new Set<number>();
  #waiting: { kind: Kind; id: number }[] = [];
  #lastClosedAt: number | null = null;

  get dialogShown(): boolean {
    return this.#shown.size > 0;
  }

  requestInput(id: number): FloorAnswer {
    if (this.#input === null && this.#shown.size === 0 && this.#waiting.length === 0) {
      this.#input = id;
      return "go";
    }
    this.#waiting.push({ kind: "input", id });
    return "wait";
  }

  requestDialog(id: number): FloorAnswer {
    if (this.#input === null) {
      this.#shown.add(id);
      return "go";
    }
    this.#waiting.push({ kind: "dialog", id });
    return "wait";
  }

  /** The ids that hold the floor now, in order. */
  inputDone(id: number): number[] {
    if (this.#input === id) this.#input = null;
    return this.#grant();
  }

  dialogDone(id: number, now: number): number[] {
    if (this.#shown.delete(id) && this.#shown.size === 0) this.#lastClosedAt = now;
    return this.#grant();
  }

  /** A waiter that stopped waiting (its time ran out). */
  giveUp(id: number): number[] {
    this.#waiting = this.#waiting.filter((entry) => entry.id !== id);
    return this.#grant();
  }

  escapeIsSwallowed(now: number): boolean {
    if (this.#shown.size > 0) return true;
    return this.#lastClosedAt !== null && now - this.#lastClosedAt < ESCAPE_GRACE_MS;
  }

  #grant(): number[] {
    if (this.#input !== null) return [];
    const dialogs = this.#waiting.filter((entry) => entry.kind === "dialog").map((entry) => entry.id);
    if (dialogs.length > 0) {
      this.#waiting = this.#waiting.filter((entry) => entry.kind !== "dialog");
      for (const id of dialogs) this.#shown.add(id);
      return dialogs;
    }
    const next = this.#waiting[0];
    if (this.#shown.size > 0 || !next) return [];
    this.#waiting.shift();
    this.#input = next.id;
    return [next.id];
  }
}

/** The floor itself: the state above, with waiting. One per helper (Services holds it). */
export class InputFloor {
  readonly #state = new FloorState();
  readonly #wakers = new Map<number, () => void>();
  #nextId = 0;

  constructor(
    private readonly inputWaitMs: number = INPUT_WAIT_MS,
    private readonly now: () => number = Date.now,
  ) {}

  get dialogShown(): boolean {
    return this.#state.dialogShown;
  }

  /** Runs one input sequence with the floor held; `failed` when a dialog kept it longer than the wait. */
  async holdInput<T>(body: () => Promise<T>): Promise<T> {
    const id = ++this.#nextId;
    if (this.#state.requestInput(id) === "wait") await this.#waitForTurn(id, this.inputWaitMs);
    try {
      return await body();
    } finally {
      this.#wake(this.#state.inputDone(id));
    }
  }

  /** Shows a dialog with the floor held: after the input sequence running, before input waiting. */
  async holdDialog<T>(body: () => Promise<T>): Promise<T> {
    const id = ++this.#nextId;
    if (this.#state.requestDialog(id) === "wait") await this.#waitForTurn(id, null);
    try {
      return await body();
    } finally {
      this.#wake(this.#state.dialogDone(id, this.now()));
    }
  }

  /** True when an Escape now dismissed a dialog rather than asking to stop. */
  escapeIsSwallowed(): boolean {
    return this.#state.escapeIsSwallowed(this.now());
  }

  #waitForTurn(id: number, limitMs: number | null): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer =
        limitMs === null
          ? null
          : setTimeout(() => {
              this.#wakers.delete(id);
              this.#wake(this.#state.giveUp(id));
              reject(new DeskError("failed", "input is held while an approval dialog is open; answer the dialog, then send the input again"));
            }, limitMs);
      this.#wakers.set(id, () => {
        if (timer) clearTimeout(timer);
        resolve();
      });
    });
  }

  #wake(ids: number[]): void {
    for (const id of ids) {
      const waker = this.#wakers.get(id);
      this.#wakers.delete(id);
      waker?.();
    }
  }
}
