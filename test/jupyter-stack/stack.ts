/**
 * Shared scaffolding for tests that drive the kernel through Debian's real Jupyter
 * programs: a scratch directory with the kernelspec installed under a temp prefix,
 * an environment that points Jupyter at it (and nowhere else), and process
 * bookkeeping so nothing a test started outlives it.
 *
 * Jupyter starts kernels in their own process group, so killing a server's group
 * does not reach them. Every process started here carries this stack's unique
 * DESKBOOK_HOME in its environment, which is how cleanup finds the kernels (and
 * their executors) that Jupyter launched on our behalf.
 *
 * Kernels that a Jupyter launcher starts for a test run on Unix sockets (transport "ipc") under
 * `kernelSockets`, not on TCP ports: jupyter_client picks free ports by binding and closing them,
 * another process on the machine can be given one before the kernel binds it, and the kernel
 * then exits with code 3 (docs/kernel.md); nbclient, jupyter_console and a bare KernelManager
 * run no restarter to start it again. Nobody else names paths in the stack's directory, and
 * cleanup() removes the directory, sockets and all.
 */
import { execFile, spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { endHomeProcesses } from "../../src/client/home-processes.js";
import { signal } from "../../src/process-signals.js";
import { CLI, REPO_ROOT } from "../support/kernel-process.js";

export { CLI, REPO_ROOT };
export { freePorts } from "../../src/client/free-ports.js";

/** Debian's Python, which has jupyter_client; the `python3` on PATH may not. */
export const SYSTEM_PYTHON = "/usr/bin/python3";
export const JUPYTER = "/usr/bin/jupyter";
export const TOUR_NOTEBOOK = join(REPO_ROOT, "notebooks", "kernel-tour.ipynb");

const execFileAsync = promisify(execFile);

/**
 * The longest Unix socket path: sun_path holds 108 bytes on Linux, the last one the NUL.
 * jupyter_client names the sockets `${ip}-N`; N stays one digit for a kernel's five.
 */
const MAX_SOCKET_PATH = 107;
const SOCKET_SUFFIX = "-9";

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface RunOptions {
  cwd?: string;
  /** Written to stdin, which is then closed. Without it stdin is /dev/null. */
  input?: string;
  /** The whole process group is killed after this long. */
  timeoutMs: number;
}

/** Stacks not yet cleaned up, for the last-resort exit hook below. */
const liveStacks = new Set<JupyterStack>();

// If the test process exits without afterAll running (a crash, process.exit), still
// take down what it started. Synchronous, because that is all an exit hook can do.
process.once("exit", () => {
  for (const stack of liveStacks) stack.killAllSync();
});

export class JupyterStack {
  private readonly children = new Set<ChildProcess>();

  private constructor(
    /** Scratch directory removed by cleanup(). */
    readonly dir: string,
    /** The JUPYTER_PATH entry holding kernels/deskbook. */
    readonly jupyterPath: string,
    /** The kernel's DESKBOOK_HOME, unique to this stack. */
    readonly home: string,
    readonly env: NodeJS.ProcessEnv,
  ) {}

  /** A scratch dir with `deskbook install --prefix` done into it (with `installArgs` added: `["--gateway"]` installs that kernelspec instead). */
  static async create(installArgs: string[] = []): Promise<JupyterStack> {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
    const dir = await mkdtemp(join(tmpdir(), "deskbook-jstack-"));
    const prefix = join(dir, "prefix");
    await execFileAsync(process.execPath, [CLI, "install", "--prefix", prefix, ...installArgs], { timeout: 30_000 });
    const jupyterPath = join(prefix, "share", "jupyter");
    const home = join(dir, "home");
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // Debian's jupyter-* subcommands first, ahead of any other Python on PATH.
      PATH: `/usr/bin:/bin:${process.env.PATH ?? ""}`,
      JUPYTER_PATH: jupyterPath,
      DESKBOOK_HOME: home,
      // Keep the user's Jupyter config, data and runtime files out of the test, and ours out of theirs.
      JUPYTER_CONFIG_DIR: join(dir, "jupyter-config"),
      JUPYTER_DATA_DIR: join(dir, "jupyter-data"),
      JUPYTER_RUNTIME_DIR: join(dir, "jupyter-runtime"),
      IPYTHONDIR: join(dir, "ipython"),
      PYTHONDONTWRITEBYTECODE: "1",
    };
    const stack = new JupyterStack(dir, jupyterPath, home, env);
    liveStacks.add(stack);
    return stack;
  }

  /**
   * The `ip` of a kernel launched over ipc: its sockets are the files `${kernelSockets}-N`,
   * inside this stack's directory. One launched kernel at a time per stack: jupyter_client
   * numbers the sockets from the files that already exist, and a second launch before the
   * first kernel has bound would pick the same numbers. Throws when a TMPDIR too long for a
   * socket path put the stack's directory there.
   */
  get kernelSockets(): string {
    const prefix = join(this.dir, "kernel");
    socketPathFits(prefix);
    return prefix;
  }

  /** Starts a long-running process in its own process group; cleanup() ends it. */
  spawn(command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
    const child = spawn(command, args, { env: this.env, detached: true, ...options });
    this.children.add(child);
    child.once("exit", () => this.children.delete(child));
    return child;
  }

  /**
   * Executes `notebook` with `jupyter nbconvert --execute` into this stack's folder, the kernel
   * on Unix sockets at `kernelSockets`, and returns the executed notebook's text; a failed run
   * throws with nbconvert's stderr and whatever `diagnose` adds (a helper log, say).
   * `debugLog` puts nbconvert's log at DEBUG, which names the address of each channel it
   * connects; it also logs every iopub message in full (screenshots too), so only on request.
   */
  async executeNotebook(
    notebook: string,
    options: { cellTimeoutS: number; timeoutMs: number; diagnose?: () => Promise<string>; debugLog?: boolean },
  ): Promise<{ run: RunResult; executed: string }> {
    const out = join(this.dir, `${basename(notebook, ".ipynb")}.executed.ipynb`);
    const args = ["nbconvert", "--to", "notebook", "--execute", notebook, "--output", out, `--ExecutePreprocessor.timeout=${options.cellTimeoutS}`];
    args.push("--KernelManager.transport=ipc", `--KernelManager.ip=${this.kernelSockets}`);
    if (options.debugLog) args.push("--log-level=DEBUG");
    const run = await this.run(JUPYTER, args, { timeoutMs: options.timeoutMs });
    if (run.code !== 0) {
      const extra = options.diagnose ? `\n${await options.diagnose()}` : "";
      throw new Error(`nbconvert exited with ${run.code ?? run.signal}${run.timedOut ? " (timed out)" : ""}:\n${run.stderr}${extra}`);
    }
    return { run, executed: await readFile(out, "utf8") };
  }

  /** Runs a command to completion (or until timeoutMs, when its group is killed). */
  run(command: string, args: string[], options: RunOptions): Promise<RunResult> {
    const child = this.spawn(command, args, {
      cwd: options.cwd ?? REPO_ROOT,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (text: string) => (stdout += text));
    child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
    if (options.input !== undefined) {
      child.stdin!.on("error", () => undefined); // the program may exit before reading everything
      child.stdin!.end(options.input);
    }
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void stopProcess(child);
    }, options.timeoutMs);
    return new Promise((resolve, reject) => {
      child.once("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once("close", (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, stdout, stderr, timedOut });
      });
    });
  }

  /** PIDs of live processes started for this stack (kernels, executors, servers …). */
  async ownProcesses(): Promise<number[]> {
    const pids: number[] = [];
    for (const entry of await readdir("/proc")) {
      const pid = Number(entry);
      if (!Number.isInteger(pid) || pid === process.pid) continue;
      try {
        if (this.carriesMarker(await readFile(`/proc/${pid}/environ`)) && !(await isZombie(pid))) pids.push(pid);
      } catch {
        // gone, or not ours to read
      }
    }
    return pids;
  }

  /**
   * Ends every process this stack started, then removes the scratch directory: the servers
   * (so their kernels shut down as Jupyter shuts them down), then all its home's kernels
   * started, which outlive a kernel on purpose (the helper, its apps, the virtual desktop).
   * The one teardown a test calls: it needs no helper or desktop stopping of its own.
   */
  async cleanup(): Promise<void> {
    await Promise.all([...this.children].map((child) => stopProcess(child)));
    await endHomeProcesses(this.home);
    await rm(this.dir, { recursive: true, force: true });
    liveStacks.delete(this);
  }

  /** SIGKILL for everything this stack started, without waiting (for the exit hook). */
  killAllSync(): void {
    for (const child of this.children) if (child.pid !== undefined) signal(-child.pid, "SIGKILL");
    for (const entry of readdirSync("/proc")) {
      const pid = Number(entry);
      if (!Number.isInteger(pid) || pid === process.pid) continue;
      try {
        if (this.carriesMarker(readFileSync(`/proc/${pid}/environ`))) signal(pid, "SIGKILL");
      } catch {
        // gone, or not ours to read
      }
    }
  }

  private carriesMarker(environ: Buffer): boolean {
    // Framed by NULs so a longer path that starts with ours cannot match.
    return Buffer.concat([Buffer.from("\0"), environ, Buffer.from("\0")]).includes(`\0DESKBOOK_HOME=${this.home}\0`);
  }
}

/** Throws, naming the way out, when a socket at `${prefix}-N` would not fit a Unix socket path. */
function socketPathFits(prefix: string): void {
  const length = Buffer.byteLength(prefix + SOCKET_SUFFIX);
  if (length > MAX_SOCKET_PATH) {
    throw new Error(`the kernel's ipc socket ${prefix}${SOCKET_SUFFIX} would be ${length} bytes, over the ${MAX_SOCKET_PATH} a Unix socket path holds: set TMPDIR to a shorter directory`);
  }
}

/** SIGTERM to the child's process group, SIGKILL after a grace period. */
export async function stopProcess(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  signal(-child.pid, "SIGTERM");
  const timer = setTimeout(() => signal(-child.pid!, "SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

async function isZombie(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls until fn returns a value other than undefined, or throws after timeoutMs with the last error. */
export async function waitFor<T>(what: string, timeoutMs: number, fn: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await fn();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await sleep(200);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ""}`);
}
