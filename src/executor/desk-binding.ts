import { loadConfig } from "../config/config.js";
import { deskbookHome, desktopHome } from "../config/home.js";
import type { HelperClient } from "../helper/client.js";
import { closeApp } from "../helper/close-app.js";
import { helperSocketPath } from "../helper/socket-path.js";
import { App } from "../desk/app.js";
import { Desk } from "../desk/desk.js";
import { StoppedError, type CellControl } from "../desk/cell-control.js";
import type { Bundle, DeskContext, LiveOutput } from "../desk/desk-context.js";
import { watchApprovals } from "./approval-line.js";
import { cellLiveLine } from "./live-line.js";
import { randomUUID } from "node:crypto";
import { apiMembers, documentMembers, helpText, objectDoc } from "../desk/reference.js";
import { documented, publishApi } from "../doc.js";
import { Recorder } from "./recorder.js";
import type { InjectedGlobals, SessionHost } from "./session-host.js";

/**
 * Builds the `desk` (alias `cua`) and `help` globals on the session they are injected into
 * (main.ts): one lazily connected helper client per executor, reads shown through the
 * session's one output sink, secrets from its bindings or its stdin, desk.record on its
 * cells, and stops routed to the kernel's stop path. `close` closes the apps it started.
 */
export function createDeskGlobals(host: SessionHost, baseDir: string): InjectedGlobals {
  const recorder = new Recorder(baseDir, (text) => host.output.stream("stderr", text));
  host.observe(recorder);
  const live = (): LiveOutput => cellLiveLine(host);
  const show = (bundle: Bundle, value: object, metadata: Record<string, unknown> = {}): void => {
    host.output.shown(value);
    host.output.display(bundle, metadata, randomUUID(), false);
  };
  const home = deskbookHome();
  const socketPath = helperSocketPath(process.env, desktopHome());
  let client: Promise<HelperClient> | undefined;
  /** Apps getApp started in this session: closed (request, SIGTERM, SIGKILL) when it ends. */
  const launched = new Set<number>();
  const connect = async (): Promise<HelperClient> => {
    // The client and its schema checks load with the first desk call, not with every session.
    const { HelperClient } = await import("../helper/client.js");
    const connected = await HelperClient.connect({
      socketPath,
      clientName: process.env.DESKBOOK_CLIENT ?? "deskbook",
      // Loaded when a helper must be started: it brings the virtual desktop's and the macOS app's code.
      launch: async () => (await import("../helper/launch.js")).launchHelper(socketPath),
      step: () => host.step(),
    });
    // Processes a cell starts itself (child_process) open on the desktop the helper drives.
    Object.assign(process.env, connected.helper.env ?? {});
    host.send({ type: "helper_connected", socketPath });
    watchApprovals(connected, live);
    return connected;
  };
  const control: CellControl = {
    runningCell: () => host.runningCell(),
    checkStopped: () => {
      if (host.runningCell() === undefined && host.stoppedCell() === host.lastCell()) throw new StoppedError("this cell was stopped");
    },
    stop: (reason) => {
      host.send({ type: "stop_request", reason });
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
    recorder,
    secret: (name, prompt) => secret(host, recorder, name, prompt),
  };
  const desk = new Desk(context);
  publishDeskApi(desk);
  const help = documented((name?: string) => host.output.stream("stdout", `${helpText(name)}\n`), {
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
  return { values: { desk, cua: desk, help }, close: closeLaunchedApps };
}

/** desk.secret: a binding of that name (a parameter) when the session has one, else asked for. */
async function secret(host: SessionHost, recorder: Recorder, name: string, prompt: string): Promise<string> {
  const bound = host.binding(name);
  if (typeof bound === "string" || typeof bound === "number" || typeof bound === "bigint") {
    const value = String(bound);
    recorder.secret(value);
    return value;
  }
  if (!host.canAsk()) {
    throw new Error(`desk.secret("${name}") has no value: give it as a parameter (deskbook run -p ${name} VALUE), or run the cell in a frontend that can ask for it`);
  }
  return host.ask(prompt, true);
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
