/**
 * What the desk API needs from the session it runs in. The executor implements it; the
 * desk never stops a cell itself, it asks the kernel's one stop path to.
 */
export interface CellControl {
  /** The running cell's id, or undefined between cells. */
  runningCell(): number | undefined;
  /** Throws if the calling cell has been stopped: every action checks this first. */
  checkStopped(): void;
  /** Ends the running cell through the kernel's stop path ("Stopped: <reason>"), and throws. */
  stop(reason: string): never;
}

/** Thrown by an action that found its cell stopped; the kernel reports the real reason. */
export class StoppedError extends Error {
  override readonly name = "Stopped";
  constructor(reason: string) {
    super(`Stopped: ${reason}`);
  }
}
