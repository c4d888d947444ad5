// Forking the executor child (src/executor/main.ts) with its stop pipe, life pipe and stop
// directory, and the one fork the CLI makes before it loads the kernel's code: the executor's
// start is the longer of the two processes' starts, so every millisecond the kernel spends
// before forking it is a millisecond more before the first cell can run (issue 12,
// docs/design.md "The executor is forked at the CLI's first line").
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { executorNodeFlags } from "./node-flags.js";

/** The child's file descriptor for the stop pipe (after stdin, stdout, stderr and IPC). */
export const STOP_FD = 4;
/** A pipe the kernel never writes to: its end closing tells the executor's orphan watch the kernel is gone. */
export const LIFE_FD = 5;
/**
 * Stop marks are created and removed at every entry into user code: kept in memory where there
 * is a tmpfs, unless TMPDIR is set, which says where temporary files go (a test run gives its
 * own, and counts whatever is left in it as leaked: scripts/leftovers.mjs).
 */
const STOP_ROOTS = process.env.TMPDIR ? [tmpdir()] : ["/dev/shm", tmpdir()];
const EXECUTOR_MAIN = fileURLToPath(new URL("../executor/main.js", import.meta.url));

/** Where and with what environment an executor runs. */
export interface ExecutorPlace {
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface ForkedExecutor {
  child: ChildProcess;
  stopDir: string;
  /** IPC messages the child sent before its host listened (an early fork's "ready"), in order. */
  held: unknown[];
}

interface EarlyFork extends ForkedExecutor {
  place: ExecutorPlace;
  hold: (message: unknown) => void;
}

let early: EarlyFork | undefined;

export function forkExecutor(place: ExecutorPlace): ForkedExecutor {
  const stopDir = makeStopDir();
  const child = fork(EXECUTOR_MAIN, [`--stop-fd=${STOP_FD}`, `--stop-dir=${stopDir}`, `--life-fd=${LIFE_FD}`], {
    cwd: place.cwd,
    // DESKBOOK_CELL marks code a cell runs, so `deskbook confirm` can refuse it (src/cli/confirm.ts).
    env: { ...place.env, DESKBOOK_CELL: "1" },
    serialization: "advanced",
    stdio: ["ignore", "pipe", "pipe", "ipc", "pipe", "pipe"],
    execArgv: executorNodeFlags(),
    // Its own process group, so killing it also ends what its cells started.
    detached: true,
  });
  return { child, stopDir, held: [] };
}

/**
 * Forks the executor for a kernel about to start here, in this process's directory and
 * environment, before the kernel's modules load; the kernel's ExecutorHost adopts it
 * (takeEarlyExecutor). A child's IPC message with no listener is dropped, so what it says
 * until then is held. Its stdout and stderr wait in their pipes.
 */
export function forkExecutorEarly(): void {
  if (early) return;
  const place = { cwd: process.cwd(), env: { ...process.env } };
  const forked = forkExecutor(place);
  const held: unknown[] = [];
  const hold = (message: unknown) => held.push(message);
  forked.child.on("message", hold);
  early = { ...forked, held, place, hold };
}

/**
 * The early fork, when it runs where `place` says with the same environment; otherwise
 * (a per-kernel desktop's environment, a gateway kernel, none made) undefined, and an early
 * fork that does not fit is ended. Taken once: a restart forks anew. Says which in `log`
 * (an environment key's name, never its value).
 */
export function takeEarlyExecutor(place: ExecutorPlace, log: (line: string) => void): ForkedExecutor | undefined {
  const taken = takeEarly();
  if (!taken) return undefined;
  const misfit = misfitOf(taken, place);
  if (misfit) {
    void discard(taken, misfit, log);
    return undefined;
  }
  log(`adopted the early executor (pid ${taken.child.pid})`);
  return { child: taken.child, stopDir: taken.stopDir, held: taken.held };
}

/**
 * Ends the early fork, if one is still there to adopt: a kernel that exits before its
 * ExecutorHost adopted it must not leave it (and its stop directory) behind.
 */
export async function discardEarlyExecutor(reason: string, log: (line: string) => void): Promise<void> {
  const taken = takeEarly();
  if (taken) await discard(taken, reason, log);
}

/** The early fork, once: it stops holding the child's messages, which its taker now owns. */
function takeEarly(): EarlyFork | undefined {
  const taken = early;
  early = undefined;
  taken?.child.off("message", taken.hold);
  return taken;
}

async function discard(taken: EarlyFork, reason: string, log: (line: string) => void): Promise<void> {
  log(`discarded the early executor (pid ${taken.child.pid}): ${reason}`);
  await endEarly(taken);
}

/** Why the early fork cannot be this place's executor, or undefined when it can. */
function misfitOf(taken: EarlyFork, place: ExecutorPlace): string | undefined {
  const { exitCode, signalCode } = taken.child;
  if (exitCode !== null || signalCode !== null) return `it exited before adoption (${signalCode ?? `code ${exitCode}`})`;
  if (taken.place.cwd !== place.cwd) return "the kernel's directory differs";
  const key = differingEnvKey(taken.place.env, place.env);
  return key === undefined ? undefined : `the environment differs in ${key}`;
}

async function endEarly(taken: EarlyFork): Promise<void> {
  await killChild(taken.child, taken.stopDir);
  // killChild leaves a child that had exited alone; its host never listened, so nothing else removes its directory.
  rmSync(taken.stopDir, { recursive: true, force: true });
}

/** The first environment key whose value differs between the two, or undefined when they match. */
function differingEnvKey(a: NodeJS.ProcessEnv, b: NodeJS.ProcessEnv): string | undefined {
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) if (a[key] !== b[key]) return key;
  return undefined;
}

/** A fresh directory for one child's stop marks (src/executor/stop-marks.ts). */
function makeStopDir(): string {
  for (const root of STOP_ROOTS.slice(0, -1)) {
    try {
      return mkdtempSync(join(root, "deskbook-stop-"));
    } catch {
      // No such tmpfs, or not writable here: the next root.
    }
  }
  return mkdtempSync(join(STOP_ROOTS.at(-1)!, "deskbook-stop-"));
}

/** Tries of the stop directory's removal while its executor runs: each fails only to a mark written meanwhile. */
const STOP_DIR_REMOVE_TRIES = 50;

/**
 * Ends the child's process group, its orphan watch with it. Its stop directory goes first: the
 * watch cannot remove it once killed, and the child's exit handler only after the exit event,
 * so a kernel killed (-9) in between left it for good. Removed while the child runs, which
 * cannot make the directory again (its marks fail, with one warning, until the kill lands), and
 * a kernel killed before the kill below leaves the group, watch and all, to end itself.
 */
export function killChild(child: ChildProcess, stopDir: string): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  removeStopDir(stopDir);
  return new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      child.kill("SIGKILL");
    }
  });
}

/** Removes the directory, again when a mark written between rm's listing and its rmdir failed the removal. */
function removeStopDir(dir: string): void {
  for (let tries = 1; ; tries++) {
    try {
      rmSync(dir, { recursive: true, force: true });
      return;
    } catch {
      // Left for the exit handler's removal after the exit.
      if (tries === STOP_DIR_REMOVE_TRIES) return;
    }
  }
}
