import { loadConfig } from "../config/config.js";
import { deskbookHome, desktopHome } from "../config/home.js";
import { HelperClient } from "../helper/client.js";
import { closeApp } from "../helper/close-app.js";
import { launchHelper } from "../helper/launch.js";
import { helperSocketPath } from "../helper/socket-path.js";
import { App } from "../desk/app.js";
import { Desk } from "../desk/desk.js";
import { StoppedError, type CellControl } from "../desk/cell-control.js";
import type { ActionRecorder, Bundle, DeskContext, LiveOutput } from "../desk/desk-context.js";
import { watchApprovals } from "./approval-line.js";
import { randomUUID } from "node:crypto";
import { apiMembers, documentMembers, helpText, objectDoc } from "../desk/reference.js";
import { documented, publishApi } from "../doc.js";
import type { FromExecutor } from "./protocol.js";

/** What the session tells the desk about cells. */
export interface CellState {
  runningCell(): number | undefined;
  /** The cell last stopped; its leftover code must not act. */
  stoppedCell(): number | undefined;
  /** The cell output goes to: the running one, else the last one that ran. */
  lastCell(): number;
  /** The running cell's title (its first comment line): the action log's `step`. */
  currentStep(): string | undefined;
}

/**
 * Builds the `desk` (alias `cua`) and `help` globals and connects them to the session:
 * one lazily connected helper client per executor, reads shown in the current cell, and
 * stops routed to the kernel's stop path.
 */
/** What the session lends the desk API beyond cells and output: its recorder and its secrets. */
export interface SessionServices {
  recorder: ActionRecorder;
  secret(name: string, prompt: string): Promise<string>;
}

export function createDeskGlobals(
  send: (message: FromExecutor) => void,
  services: SessionServices,
  cells: CellState,
  show: (bundle: Bundle, value: object, metadata?: Record<string, unknown>) => void,
  print: (text: string) => void,
  display: (bundle: Bundle, displayId: string, update: boolean) => void,
): { globals: Record<string, unknown>; closeLaunchedApps: () => Promise<void> } {
  const live = (): LiveOutput => {
    const id = randomUUID();
    let shown = false;
    return {
      show: (bundle) => {
        display(bundle, id, shown);
        shown = true;
      },
    };
  };
  const home = deskbookHome();
  const socketPath = helperSocketPath(process.env, desktopHome());
  let client: Promise<HelperClient> | undefined;
  /** Apps getApp started in this session: closed (request, SIGTERM, SIGKILL) when it ends. */
  const launched = new Set<number>();
  const connect = async (): Promise<HelperClient> => {
    const connected = await HelperClient.connect({
      socketPath,
      clientName: process.env.DESKBOOK_CLIENT ?? "deskbook",
      launch: () => launchHelper(socketPath),
      step: () => cells.currentStep(),
    });
    // Processes a cell starts itself (child_process) open on the desktop the helper drives.
    Object.assign(process.env, connected.helper.env ?? {});
    send({ type: "helper_connected", socketPath });
    watchApprovals(connected, live);
    return connected;
  };
  const control: CellControl = {
    runningCell: () => cells.runningCell(),
    checkStopped: () => {
      if (cells.runningCell() === undefined && cells.stoppedCell() === cells.lastCell()) throw new StoppedError("this cell was stopped");
    },
    stop: (reason) => {
      send({ type: "stop_request", reason });
      throw new StoppedError(reason);
    },
  };
  const context: DeskContext = {
    client: () => {
      client ??= connect().catch((error: unknown) => {
        client = undefined; // the next call tries again
        throw error;
      });
      return client;
    },
    config: () => loadConfig(home),
    control,
    show,
    freshApps: () => freshByDefault(home),
    launched: (pid) => launched.add(pid),
    live,
    recorder: services.recorder,
    secret: (name, prompt) => services.secret(name, prompt),
  };
  const desk = new Desk(context);
  publishDeskApi(desk);
  const help = documented((name?: string) => print(`${helpText(name)}\n`), {
    signature: "help(name?)",
    summary: "Prints the Deskbook reference, or one entry of it: help(\"click\").",
  });
  const closeLaunchedApps = async (): Promise<void> => {
    if (launched.size === 0 || client === undefined) return;
    const connected = await client.catch(() => undefined);
    if (!connected) return;
    const pids = [...launched];
    launched.clear();
    // An app already gone answers not_running; one the user took over is still closed.
    await Promise.all(pids.map((pid) => closeApp(connected, pid, "end of session").catch(() => undefined)));
  };
  return { globals: { desk, cua: desk, help }, closeLaunchedApps };
}

/** DESKBOOK_FRESH_APPS ("1" or "0", set by deskbook run) wins over config.json's freshApps. */
function freshByDefault(home: string): boolean {
  const env = process.env.DESKBOOK_FRESH_APPS;
  if (env === "1") return true;
  if (env === "0") return false;
  return loadConfig(home).freshApps;
}

/**
 * Docs for Shift-Tab, and the public API completion offers: exactly what docs/api.md
 * documents as `desk.…` and `app.…`, so a new verb shows up once it is documented.
 */
function publishDeskApi(desk: Desk): void {
  const deskMembers = apiMembers("desk");
  const appMembers = apiMembers("app");
  documentMembers(desk, deskMembers);
  documentMembers(App.prototype, appMembers);
  publishApi(desk, { members: deskMembers, doc: objectDoc("desk", "desk", "The desktop: desk.getApp(name) binds an app (alias cua).") });
  publishApi(App.prototype, {
    members: appMembers,
    doc: objectDoc("app", "App", "An app bound by desk.getApp: read it with getAXState and getScreenshot, act with click, pressKey, typeText …"),
  });
}
