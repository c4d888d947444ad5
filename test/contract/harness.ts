// The contract suite's harness: which helper to test, a session on it per test file, apps
// launched through it (and killed after), and small polling and geometry helpers.
//
// The helper under test is the one at $DESKBOOK_CONTRACT_SOCKET when that is set (by
// scripts/contract.mjs); otherwise each test file starts the built Linux helper on a private
// virtual desktop (as `npm test` runs these files).
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { isAlive, signal } from "../../src/process-signals.js";
import { HelperClient } from "../../src/helper/client.js";
import { DeskError } from "../../src/helper/desk-error.js";
import {
  PROTOCOL_VERSION,
  type AppInfo,
  type AXNode,
  type Frame,
  type MethodName,
  type MethodParams,
  type MethodResult,
  type WindowInfo,
} from "../../src/helper/protocol.js";
import { RawHelperConnection } from "../fixtures/raw-helper-connection.js";
import { platformProfile, type AppProfile } from "./apps.js";
import { hasCommand, startLinuxHelper, type LinuxHelper } from "./linux-helper.mjs";

/** The socket of the helper under test. Unset: every file starts its own Linux helper. */
export const SOCKET_ENV = "DESKBOOK_CONTRACT_SOCKET";
/** "1": the wrapper started that helper on a private desktop (the environment names it), so files may start more helpers there. */
export const PRIVATE_DESKTOP_ENV = "DESKBOOK_CONTRACT_PRIVATE_DESKTOP";
/** "1": the runner vouches that the helper's config.json has no `allow` list, so the blocked-app test may use it. */
export const DEFAULT_CONFIG_ENV = "DESKBOOK_CONTRACT_DEFAULT_CONFIG";

export const CLIENT_NAME = "deskbook-contract";
export const profile = platformProfile();

const givenSocket = process.env[SOCKET_ENV] || undefined;
const privateDesktop = process.env[PRIVATE_DESKTOP_ENV] === "1";

/** Why the suite cannot run on this machine, or null. Only a missing Xvfb skips it. */
export const skipReason: string | null =
  givenSocket || hasCommand("Xvfb") ? null : "Xvfb is not installed and no helper socket was given (npm run test:contract -- --socket PATH)";

/** Logs why a file is skipped, so a skip is never silent. */
export function announceSkip(file: string, reason: string | null = skipReason): boolean {
  if (reason) console.warn(`${file} skipped: ${reason}`);
  return reason !== null;
}

/**
 * How the blocked-app test gets a helper whose config allows nothing: its own (started here),
 * the given one when the runner says its config is the default, or none (a skip, with the reason).
 */
export function blockedAppPlan(): { helper: "own" | "given"; skip: null } | { helper: null; skip: string } {
  if (skipReason) return { helper: null, skip: skipReason };
  if (!givenSocket || privateDesktop) return { helper: "own", skip: null };
  if (process.env[DEFAULT_CONFIG_ENV] === "1") return { helper: "given", skip: null };
  return {
    helper: null,
    skip: `the helper at ${givenSocket} may have the blocked app on its allow list; pass --default-config when its config.json has none`,
  };
}

export interface RunningApp {
  pid: number;
  info: AppInfo;
  /** Its main window, once it has a windowId. */
  window: WindowInfo;
}

export interface HelperUnderTestOptions {
  /** Start a helper of our own with this config.json, even when a socket was given. */
  config?: object;
}

/** One test file's view of the helper under test. Use through useHelper(). */
export class HelperUnderTest {
  #client: HelperClient | null = null;
  #helper: LinuxHelper | null = null;
  #socketPath = "";
  #env: NodeJS.ProcessEnv = process.env;
  readonly #raws: RawHelperConnection[] = [];
  readonly #clients: HelperClient[] = [];
  readonly #apps = new Set<number>();
  readonly #processes: ChildProcess[] = [];
  #failed = false;

  get client(): HelperClient {
    if (!this.#client) throw new Error("the contract session is not started (use it inside the describe that called useHelper)");
    return this.#client;
  }

  get socketPath(): string {
    return this.#socketPath;
  }

  /** Environment for processes that play the user on the helper's desktop (xdotool, xterm). */
  get env(): NodeJS.ProcessEnv {
    return this.#env;
  }

  async start(options: HelperUnderTestOptions): Promise<void> {
    if (givenSocket && !options.config) {
      this.#socketPath = givenSocket;
    } else {
      // On the wrapper's desktop when it started one (the environment names it), else on a new one.
      const desktopEnv = privateDesktop ? desktopEnvOf(process.env) : undefined;
      this.#helper = await startLinuxHelper({ config: options.config ?? { approval: "allow-all" }, desktopEnv });
      this.#socketPath = this.#helper.socketPath;
      this.#env = { ...process.env, ...this.#helper.env };
    }
    this.#client = await this.connect();
  }

  async stop(): Promise<void> {
    for (const raw of this.#raws) raw.close();
    await Promise.all(this.#clients.map((client) => client.close()));
    await Promise.all([...this.#apps].map(killApp));
    await Promise.all(this.#processes.map((child) => (child.pid ? killApp(child.pid) : undefined)));
    if (this.#failed && this.#helper) console.warn(`--- the helper's output ---\n${tail(this.#helper.log(), 60)}`);
    await this.#helper?.stop();
  }

  markFailed(): void {
    this.#failed = true;
  }

  /** Another client on the helper; closed after the file. */
  async connect(clientName = CLIENT_NAME): Promise<HelperClient> {
    const client = await HelperClient.connect({ socketPath: this.#socketPath, clientName, requestTimeoutMs: 20_000 });
    this.#clients.push(client);
    return client;
  }

  /** A bare connection for lines HelperClient would never send; says hello unless told not to. */
  async raw(hello = true): Promise<RawHelperConnection> {
    const raw = await RawHelperConnection.open(this.#socketPath, false);
    this.#raws.push(raw);
    if (hello) {
      const reply = await within(10_000, raw.call("hello", { client: CLIENT_NAME, protocol: PROTOCOL_VERSION }), "hello");
      if (reply.error) throw new Error(`hello refused: ${JSON.stringify(reply.error)}`);
    }
    return raw;
  }

  /** One call; a refusal is a DeskError whose message also shows the request. */
  async call<M extends MethodName>(method: M, params: MethodParams<M>, timeoutMs?: number): Promise<MethodResult<M>> {
    try {
      return await this.client.request(method, params, timeoutMs === undefined ? {} : { timeoutMs });
    } catch (error) {
      if (!(error instanceof DeskError)) throw error;
      throw new DeskError(error.code, `${error.detail} [request: ${method} ${brief(params)}]`, method, { cause: error });
    }
  }

  /** Launches an app through the helper and waits for its window. Killed after the file, unless it ran before. */
  async launch(app: AppProfile): Promise<RunningApp> {
    const before = await this.call("resolveApp", { query: app.name }).catch(() => undefined);
    const info = await this.call("launch", app.launch, 30_000);
    if (info.pid === undefined) throw new Error(`launch ${brief(app.launch)} answered no pid: ${brief(info)}`);
    if (!(before?.running && before.pid === info.pid)) this.#apps.add(info.pid);
    return { pid: info.pid, info, window: await this.mainWindow(info.pid) };
  }

  /** The app's main window (or its first), once the helper lists it with a windowId. */
  mainWindow(pid: number): Promise<WindowInfo> {
    return waitFor(
      async () => {
        const usable = (await this.call("windows", { pid })).filter((w) => !w.minimized && w.windowId !== undefined);
        return usable.find((w) => w.main) ?? usable[0];
      },
      `a window of pid ${pid} with a windowId`,
      15_000,
    );
  }

  /** Reads the app's tree until `ready` holds (apps fill their trees in after the window maps). */
  treeWhen(pid: number, ready: (nodes: AXNode[]) => boolean, what: string): Promise<AXNode[]> {
    return waitFor(
      async () => {
        const { nodes } = await this.call("axTree", { pid });
        return ready(nodes) ? nodes : undefined;
      },
      what,
      15_000,
    );
  }

  /** Starts a process as the user would (outside the helper); killed after the file. */
  spawnAsUser(command: string, args: string[]): ChildProcess {
    const child = spawn(command, args, { env: this.#env, stdio: "ignore" });
    child.on("error", () => undefined); // a missing command surfaces as the test's own failure
    this.#processes.push(child);
    return child;
  }

  /** Forgets an app killed on purpose. */
  disown(pid: number): void {
    this.#apps.delete(pid);
  }
}

/** A helper session for the enclosing describe: started before its tests, stopped after. */
export function useHelper(options: HelperUnderTestOptions = {}): HelperUnderTest {
  const session = new HelperUnderTest();
  beforeAll(() => session.start(options), 90_000);
  afterAll(() => session.stop(), 60_000);
  beforeEach(({ onTestFailed }) => onTestFailed(() => session.markFailed()));
  return session;
}

// ---------------------------------------------------------------------------------------------
// Processes

/** Ends an app: SIGTERM, then SIGKILL; resolves once it is gone. */
export async function killApp(pid: number): Promise<void> {
  if (!isAlive(pid)) return;
  signal(pid, "SIGTERM");
  if (await until(() => !isAlive(pid), 3000)) return;
  signal(pid, "SIGKILL");
  await until(() => !isAlive(pid), 3000);
}

function desktopEnvOf(env: NodeJS.ProcessEnv): Record<string, string> {
  const names = ["DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS", "XAUTHORITY"];
  const missing = names.filter((name) => !env[name]);
  if (missing.length > 0) throw new Error(`${PRIVATE_DESKTOP_ENV}=1 but ${missing.join(", ")} unset`);
  return Object.fromEntries(names.map((name) => [name, env[name] as string]));
}

// ---------------------------------------------------------------------------------------------
// Waiting

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `probe` until it gives a truthy value; the timeout error names the last value or error. */
export async function waitFor<T>(probe: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = "nothing yet";
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
      last = `last value ${brief(value)}`;
    } catch (error) {
      last = `last error ${error instanceof Error ? error.message : String(error)}`;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (${last})`);
    await sleep(100);
  }
}

async function until(test: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/** Rejects when `promise` takes longer than `ms`. */
export function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer to ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The next line on a raw connection, or "quiet" when none comes within `ms`. Use last on that connection: a late line is lost. */
export async function nextWithin(raw: RawHelperConnection, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const quiet = new Promise<"quiet">((resolve) => {
    timer = setTimeout(() => resolve("quiet"), ms);
  });
  return Promise.race([raw.next(), quiet]).finally(() => clearTimeout(timer));
}

/** Settles a call into a result or a DeskError, for contracts that allow either. */
export async function outcome<T>(promise: Promise<T>): Promise<{ result: T; error?: undefined } | { result?: undefined; error: DeskError }> {
  try {
    return { result: await promise };
  } catch (error) {
    if (error instanceof DeskError) return { error };
    throw error;
  }
}

/**
 * Repeats a call until the helper refuses it with `code`: what it reports may trail the desktop
 * by a moment (an app telling AT-SPI its window is gone). The timeout names the last answer.
 */
export async function refusedWith(call: () => Promise<unknown>, code: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last: string;
    try {
      last = `the result ${brief(await call())}`;
    } catch (error) {
      if (error instanceof DeskError && error.code === code) return;
      last = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() > deadline) throw new Error(`expected ${code} within ${timeoutMs} ms; the last answer was ${last}`);
    await sleep(100);
  }
}

// ---------------------------------------------------------------------------------------------
// Geometry

export function centre([x, y, width, height]: Frame): [number, number] {
  return [x + width / 2, y + height / 2];
}

/** The node's ancestors, nearest first (nodes are depth-first with depth `d`). */
export function ancestors(nodes: AXNode[], node: AXNode): AXNode[] {
  const found: AXNode[] = [];
  let depth = node.d;
  for (let k = nodes.indexOf(node) - 1; k >= 0 && depth > 0; k--) {
    const candidate = nodes[k] as AXNode;
    if (candidate.d < depth) {
      found.push(candidate);
      depth = candidate.d;
    }
  }
  return found;
}

/** The part of the node's frame inside every ancestor's frame: where it shows (a text view may be taller than its scroll area). */
export function visibleFrame(nodes: AXNode[], node: AXNode): Frame {
  let [left, top, width, height] = node.frame ?? [0, 0, 0, 0];
  let right = left + width;
  let bottom = top + height;
  for (const { frame } of ancestors(nodes, node)) {
    if (!frame) continue;
    left = Math.max(left, frame[0]);
    top = Math.max(top, frame[1]);
    right = Math.min(right, frame[0] + frame[2]);
    bottom = Math.min(bottom, frame[1] + frame[3]);
  }
  return [left, top, Math.max(0, right - left), Math.max(0, bottom - top)];
}

/** JSON, cut short for messages. */
export function brief(value: unknown, max = 300): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text;
}

function tail(text: string, lines: number): string {
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}
