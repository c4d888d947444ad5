import type { AppInfo } from "../helper/protocol.js";
import { DeskError } from "../helper/desk-error.js";
import { App } from "./app.js";
import { hideInternals } from "../doc.js";
import { viewBundle, type ShownView, type ViewCellOptions } from "./view-output.js";
import { withProgressLine } from "./progress-line.js";
import type { ActionRecorder, DeskContext } from "./desk-context.js";

/** How a new process of the app starts: `desk.launch` always uses these, `getApp` when it starts the app. */
export interface StartOptions {
  /** Arguments for the program, after its own (files to open, flags). */
  args?: string[];
  /** Variables added to the app's environment, over the desktop's. */
  env?: Record<string, string>;
  /** The app's working directory (an absolute path). */
  cwd?: string;
}

/** How `desk.launch` starts an app: with args, env or cwd it starts even when the app runs. */
export interface LaunchOptions extends StartOptions {
  /** Always bring this app forward for input, as `getApp`'s option. */
  foreground?: boolean;
}

export interface ListAppsOptions {
  /** Also list installed apps that are not running. Default false: running apps only. */
  installed?: boolean;
}

export interface GetAppOptions extends StartOptions {
  /** Always bring this app forward for input (for apps that ignore background input). */
  foreground?: boolean;
  /**
   * Start the app with a fresh profile (its own settings, removed when it exits). Default:
   * config.json's `freshApps`, or on under `deskbook run`. An app already running with its own
   * settings is refused rather than reused.
   */
  fresh?: boolean;
}

/** The `desk` global (alias `cua`): the way into apps. */
export class Desk {
  constructor(private readonly ctx: DeskContext) {
    hideInternals(this);
  }

  /**
   * An app by name, bundle or desktop id, `pid:N`, or path; launched when it is not running.
   */
  async getApp(query: string, options: GetAppOptions = {}): Promise<App> {
    if (typeof query !== "string" || query.trim() === "") throw new TypeError('getApp takes an app name, id, "pid:N" or path');
    if (options.fresh !== undefined && typeof options.fresh !== "boolean") throw new TypeError("getApp's fresh option is true or false");
    this.ctx.control.checkStopped();
    const client = await this.ctx.client();
    let info: AppInfo = await client.request("resolveApp", { query });
    // A pid names one process: there is nothing to start, fresh or not.
    const fresh = !query.startsWith("pid:") && (options.fresh ?? this.ctx.freshApps());
    const start = startParams(options, "getApp");
    if (!info.running || info.pid === undefined || fresh) {
      const wasRunning = info.running && info.pid !== undefined;
      // The start options apply only to a process getApp starts: a running app is used as it is.
      const params = { bundleId: info.bundleId, path: info.path, name: info.name, activate: false, ...(fresh && { fresh: true }), ...(wasRunning ? {} : start) };
      info = this.noted(await this.starting(info.name, () => client.request("launch", params)));
      if (!wasRunning && info.pid !== undefined) this.ctx.launched(info.pid);
    }
    return this.bind(info, options);
  }

  /**
   * Starts an app (or finds it running, when no `args`, `env` or `cwd` are given) and returns
   * it bound. `args` go to the program after its own; a single-instance app may pass them to
   * its running instance, which is then the app returned.
   */
  async launch(query: string, options: LaunchOptions = {}): Promise<App> {
    if (typeof query !== "string" || query.trim() === "") throw new TypeError('launch takes an app name, id, "pid:N" or path');
    const start = startParams(options, "launch");
    this.ctx.control.checkStopped();
    const client = await this.ctx.client();
    const found = await client.request("resolveApp", { query });
    const params = { bundleId: found.bundleId, path: found.path, name: found.name, activate: false, ...start };
    return this.bind(this.noted(await this.starting(found.name, () => client.request("launch", params))), options);
  }

  /**
   * The desktop the helper drives: `DISPLAY`, `DBUS_SESSION_BUS_ADDRESS`, `AT_SPI_BUS_ADDRESS`,
   * `XAUTHORITY` (Linux; those it has). A cell's own processes already get them in
   * `process.env` once `desk` is connected; this is for passing them on by hand.
   */
  async env(): Promise<Record<string, string>> {
    this.ctx.control.checkStopped();
    return { ...((await this.ctx.client()).helper.env ?? {}) };
  }

  /** Running apps, front to back; with `{ installed: true }` also the installed ones that are not running. */
  async listApps(options: ListAppsOptions = {}): Promise<AppInfo[]> {
    this.ctx.control.checkStopped();
    const apps = await (await this.ctx.client()).request("listApps", {});
    return options.installed === true ? apps : apps.filter((a) => a.running);
  }

  /** The clipboard's text: `read()` needs `clipboard.read` in config.json (off by default), `write(text)` `clipboard.write`. */
  readonly clipboard = {
    read: async (): Promise<string> => {
      this.ctx.control.checkStopped();
      return (await (await this.ctx.client()).request("clipboardRead", {})).text;
    },
    write: async (text: string): Promise<void> => {
      if (typeof text !== "string") throw new TypeError("clipboard.write takes a string");
      this.ctx.control.checkStopped();
      await (await this.ctx.client()).request("clipboardWrite", { text });
    },
  };

  /** Runs AppleScript through the helper (macOS only; Linux answers `unsupported`). Returns what the script returned. */
  async appleScript(source: string): Promise<string> {
    return this.script("applescript", source);
  }

  /** Runs JavaScript for Automation, like appleScript. */
  async jxa(source: string): Promise<string> {
    return this.script("jxa", source);
  }

  private async script(language: "applescript" | "jxa", source: string): Promise<string> {
    if (typeof source !== "string" || source.trim() === "") throw new TypeError(`${language === "jxa" ? "jxa" : "appleScript"} takes the script's source`);
    this.ctx.control.checkStopped();
    return (await (await this.ctx.client()).request("runScript", { language, source })).output;
  }

  /**
   * Records every cell run from now on into a recipe notebook at `path` (relative to the
   * notebook's folder; appended to when it exists), with index targets written as locators.
   * Returns the full path.
   */
  record(path: string): string {
    return this.recorder("record").start(path);
  }

  /** Stops the recording (the cell that calls it is still written); returns the recipe's path. */
  stopRecording(): string | undefined {
    return this.recorder("stopRecording").stop();
  }

  /**
   * A secret the recipe needs (a password): the session's binding `name` when a parameter
   * gave it (`deskbook run -p name VALUE`), else asked for without echo. Its value is never
   * recorded; a recording makes it a parameter.
   */
  async secret(name: string, prompt?: string): Promise<string> {
    if (typeof name !== "string" || !/^[A-Za-z_$][\w$]*$/.test(name)) throw new TypeError(`desk.secret takes the parameter name of the secret, a JavaScript identifier like "password", not ${JSON.stringify(name)}`);
    if (prompt !== undefined && typeof prompt !== "string") throw new TypeError("desk.secret's prompt is a string");
    if (!this.ctx.secret) throw new Error("desk.secret needs a kernel session");
    return this.ctx.secret(name, prompt ?? `${name}: `);
  }

  private recorder(verb: string): ActionRecorder {
    if (!this.ctx.recorder) throw new Error(`desk.${verb} needs a kernel session to record`);
    return this.ctx.recorder;
  }

  /** The helper's launch waits for the app's window (and its accessibility tree): a line in the cell while it lasts. */
  private starting(name: string, launch: () => Promise<AppInfo>): Promise<AppInfo> {
    const wait = { waiting: `for ${name} to start and show its window`, done: (app: AppInfo, took: string) => `${app.name} started${app.pid !== undefined ? ` (pid ${app.pid})` : ""} in ${took}.` };
    return withProgressLine(() => this.ctx.live(), wait, launch);
  }

  /** Shows what the helper changed to start the app (a flag added as root, say). */
  private noted(info: AppInfo): AppInfo {
    const { notes, ...rest } = info;
    if (notes && notes.length > 0) {
      const text = notes.map((note) => `${info.name}: ${note}`).join("\n");
      this.ctx.show({ "text/plain": text }, { notes });
    }
    return rest;
  }

  private bind(info: AppInfo, options: { foreground?: boolean }): App {
    if (info.pid === undefined) throw new DeskError("not_running", `${info.name} did not start`);
    const app = new App({ ...info, pid: info.pid }, this.ctx);
    if (options.foreground) app.preferForeground();
    return app;
  }

  /**
   * The live view of the desktop the cells drive: a link, and the view itself embedded in the
   * cell (noVNC in an iframe). Watch only unless `interactive`; `proxy` routes it through
   * jupyter-server-proxy for a JupyterLab that runs on another machine.
   */
  async view(options: ViewCellOptions = {}): Promise<ShownView> {
    this.ctx.control.checkStopped();
    await this.ctx.client(); // the helper (and on a headless machine the virtual desktop) first
    // Loaded here: the live view brings the virtual desktop's code, which a session start does not need.
    const { startLiveView, viewUrl } = await import("../desktop/live-view.js");
    const live = await startLiveView();
    const interactive = options.interactive === true;
    const proxyBase = options.proxy === true ? (process.env.JUPYTERHUB_SERVICE_PREFIX ?? "/") : typeof options.proxy === "string" ? options.proxy : undefined;
    const shown: ShownView = { url: viewUrl(live, { interactive, proxyBase }), display: live.display, interactive };
    this.ctx.show(viewBundle(shown, options.height ?? 520), shown);
    return shown;
  }
}

/** The start options as launch params, checked: a TypeError names the option that is wrong. */
function startParams(options: StartOptions, verb: string): StartOptions {
  if (typeof options !== "object" || options === null) throw new TypeError(`${verb}'s options are an object`);
  const { args, env, cwd } = options as { args?: unknown; env?: unknown; cwd?: unknown };
  const params: StartOptions = {};
  if (args !== undefined) {
    if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) throw new TypeError(`${verb}'s args is a list of strings`);
    params.args = args;
  }
  if (env !== undefined) {
    if (typeof env !== "object" || env === null || Array.isArray(env)) throw new TypeError(`${verb}'s env is an object of variable names to strings`);
    for (const [name, value] of Object.entries(env)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new TypeError(`${verb}'s env: ${JSON.stringify(name)} is not a variable name`);
      if (typeof value !== "string") throw new TypeError(`${verb}'s env: ${name} must be a string`);
    }
    params.env = { ...(env as Record<string, string>) };
  }
  if (cwd !== undefined) {
    if (typeof cwd !== "string" || !cwd.startsWith("/")) throw new TypeError(`${verb}'s cwd is an absolute path`);
    params.cwd = cwd;
  }
  return params;
}
