// Notices an agent repeating an action that does nothing (a click that misses, a key the
// app ignores), so the read can say so instead of letting the loop spin.
//
// Definition. Actions split time into rounds: `afterAction(key)` ends the current round and
// starts one for `key`. An observation compares a fingerprint with the last one of the same
// kind ("tree" or "image"); the first of a kind has nothing to compare with and counts as a
// change. A round is *still* when it has at least one observation and none of them changed.
// The streak is the number of consecutive still rounds for the same key, ending with the
// current one; a round for another key, a round without observations, or any change breaks
// it. When an observation leaves the streak at 2 or more, `observe` returns the note, once
// per round.

export type ObservationKind = "tree" | "image";

interface Round {
  key: string;
  observed: boolean;
  changed: boolean;
  noted: boolean;
}

export class ProgressJudge {
  private readonly last = new Map<ObservationKind, string>();
  private round: Round | undefined;
  /** Still rounds for `streakKey` that ended right before the current round. */
  private priorStill = 0;
  private streakKey: string | undefined;

  /** Call after each action; `key` names it for the note, e.g. `click 14`. */
  afterAction(key: string): void {
    this.closeRound();
    this.round = { key, observed: false, changed: false, noted: false };
  }

  /** Call after each read; returns the note when the same action again changed nothing. */
  observe(kind: ObservationKind, fingerprint: string): string | undefined {
    const previous = this.last.get(kind);
    this.last.set(kind, fingerprint);
    const round = this.round;
    if (!round) return undefined;
    round.observed = true;
    if (previous !== fingerprint) round.changed = true;
    if (round.changed || round.noted) return undefined;
    const streak = round.key === this.streakKey ? this.priorStill + 1 : 1;
    if (streak < 2) return undefined;
    round.noted = true;
    return `nothing changed after ${round.key} (${times(streak)})`;
  }

  /** Forgets everything, e.g. when the agent moves to another window. */
  reset(): void {
    this.last.clear();
    this.round = undefined;
    this.priorStill = 0;
    this.streakKey = undefined;
  }

  private closeRound(): void {
    const round = this.round;
    if (!round) return;
    const still = round.observed && !round.changed;
    if (!still) {
      this.priorStill = 0;
      this.streakKey = undefined;
    } else if (round.key === this.streakKey) {
      this.priorStill += 1;
    } else {
      this.priorStill = 1;
      this.streakKey = round.key;
    }
  }
}

function times(n: number): string {
  return n === 2 ? "twice" : `${n} times`;
}
