/** What `deskbook run` exits with: one number per kind of ending, documented in docs/recipes.md. */
export const EXIT = {
  /** Every code cell ran. */
  ok: 0,
  /** A cell failed or was stopped; the message names it. */
  cellFailed: 1,
  /** Bad command line, or a notebook or parameter file that cannot be read. */
  usage: 2,
  /** The kernel died (or could not start) while the notebook ran. */
  kernelDied: 3,
} as const;

export type ExitStatus = (typeof EXIT)[keyof typeof EXIT];
