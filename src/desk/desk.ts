import type { AppInfo } from "../helper/protocol.js";
import { DeskError } from "../helper/desk-error.js";
import { App } from "./app.js";
import { hideInternals } from "../doc.js";
import { startLiveView, viewUrl } from "../desktop/live-view.js";
import { viewBundle, type ShownView, type ViewCellOptions } from "./view-output.js";
import type { ActionRecorder, DeskContext } from "./desk-context.js";

/**
 * How `desk.launch` starts an app. An object so that more can join (`env`, `cwd`) without
 * changing the call.
 */
export interface LaunchOptions {
  /** Arguments for the program (files to open, flags); with them the app is started even when it runs. */
  args?: string[];
  /** Always bring this app forward for input, as `getApp`'s option. */
  foreground?: boolean;
}

export interface ListAppsOptions {
  /** Also list installed apps that are not running. Default false: running apps only. */
  installed?: boolean;
}

export interface GetAppOptions {
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
    if (!info.running || info.pid === undefined || fresh) {
      const wasRunning = info.running && info.pid !== undefined;
      info = await client.request("launch", { bundleId: info.bundleId, path: info.path, name: info.name, activate: false, ...(fresh && { fresh: true }) });
      if (!wasRunning && info.pid !== undefined) this.ctx.launched(info.pid);
    }
    return this.bind(info, options);
  }

  /**
   * Starts an app (or finds it running, when no `args` are given) and returns it bound.
   * `args` go to the program after its own; a single-instance app may pass them to its running
   * instance, which is then the app returned.
   */
  async launch(query: string, options: LaunchOptions = {}): Promise<App> {
    if (typeof query !== "string" || query.trim() === "") throw new TypeError('launch takes an app name, id, "pid:N" or path');
    const args = checkArgs(options.args);
    this.ctx.control.checkStopped();
    const client = await this.ctx.client();
    const found = await client.request("resolveApp", { query });
    const params = { bundleId: found.bundleId, path: found.path, name: found.name, activate: false, ...(args ? { args } : {}) };
    return this.bind(await client.request("launch", params), options);
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
    const live = await startLiveView();
    const interactive = options.interactive === true;
    const proxyBase = options.proxy === true ? (process.env.JUPYTERHUB_SERVICE_PREFIX ?? "/") : typeof options.proxy === "string" ? options.proxy : undefined;
    const shown: ShownView = { url: viewUrl(live, { interactive, proxyBase }), display: live.display, interactive };
    this.ctx.show(viewBundle(shown, options.height ?? 520), shown);
    return shown;
  }
}

function checkArgs(args: unknown): string[] | undefined {
  if (args === undefined) return undefined;
  if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) throw new TypeError("launch's args is a list of strings");
  return args;
}
