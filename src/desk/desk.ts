import type { AppInfo } from "../helper/protocol.js";
import { DeskError } from "../helper/desk-error.js";
import { App } from "./app.js";
import type { DeskContext } from "./desk-context.js";

export interface GetAppOptions {
  /** Always bring this app forward for input (for apps that ignore background input). */
  foreground?: boolean;
}

/** The `desk` global (alias `cua`): the way into apps. */
export class Desk {
  constructor(private readonly ctx: DeskContext) {}

  /**
   * An app by name, bundle or desktop id, `pid:N`, or path; launched when it is not running.
   */
  async getApp(query: string, options: GetAppOptions = {}): Promise<App> {
    if (typeof query !== "string" || query.trim() === "") throw new TypeError('getApp takes an app name, id, "pid:N" or path');
    this.ctx.control.checkStopped();
    const client = await this.ctx.client();
    let info: AppInfo = await client.request("resolveApp", { query });
    if (!info.running || info.pid === undefined) {
      info = await client.request("launch", { bundleId: info.bundleId, path: info.path, name: info.name, activate: false });
    }
    if (info.pid === undefined) throw new DeskError("not_running", `${info.name} did not start`);
    const app = new App({ ...info, pid: info.pid }, this.ctx);
    if (options.foreground) app.preferForeground();
    return app;
  }

  /** Running and installed apps. */
  async listApps(): Promise<AppInfo[]> {
    this.ctx.control.checkStopped();
    return (await this.ctx.client()).request("listApps", {});
  }
}
