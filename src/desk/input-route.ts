import type { DeskbookConfig } from "../config/config.js";
import { DeskError, isDeskError } from "../helper/desk-error.js";
import { BACKGROUND_FALLBACK_CODES, type INPUT_METHODS, type InputOptions, type InputResult, type Methods } from "../helper/protocol.js";
import type { DeskContext } from "./desk-context.js";
import { offersBackgroundRoute } from "./helper-offers.js";

export type InputMethod = (typeof INPUT_METHODS)[number];

/**
 * The longest the settle after input waits for the app to have handled it: an app this far
 * behind (or hung) is left to the read after, which answers or times out on its own.
 */
export const INPUT_HANDLED_TIMEOUT_MS = 5_000;

/** A window id, or how to look it up when the background route needs one. */
export type WindowIdSource = number | undefined | (() => Promise<number | undefined>);

function idOf(source: WindowIdSource): Promise<number | undefined> | number | undefined {
  return typeof source === "function" ? source() : source;
}

export interface RouteTarget {
  pid: number;
  name: string;
  bundleId?: string;
}

/**
 * Delivers input to one app: in the background where the helper can, otherwise in the
 * foreground. On the foreground route the app is brought forward at most once per cell;
 * finding it no longer in front at a later action means the user took over, and the cell
 * stops rather than fight them for focus, unless the app has no window left at all: that
 * is no_window, nobody switched.
 */
export class InputRouter {
  private activatedInCell: number | undefined;
  /** Input went out since the last settle: the next one asks the app whether it has handled it. */
  private unsettled = false;
  lastRoute: InputResult["route"] | undefined;
  /** Set by `getApp(…, { foreground: true })`. */
  alwaysForeground = false;

  constructor(
    private readonly app: RouteTarget,
    private readonly ctx: DeskContext,
  ) {}

  /**
   * `config` is the one read of config.json the calling action made. `windowId` is only for
   * the background route: an action that has not looked its window up passes a function, asked
   * only when that route is tried (never on a helper without one, such as Linux's).
   */
  async send<M extends InputMethod>(method: M, params: Omit<Methods[M]["params"], keyof InputOptions>, options: { foreground?: boolean; windowId?: WindowIdSource; config: DeskbookConfig }): Promise<InputResult> {
    const client = await this.ctx.client();
    const windowId = !options.foreground && !this.prefersForeground(options.config) && (await offersBackgroundRoute(client)) ? await idOf(options.windowId) : undefined;
    if (windowId !== undefined) {
      try {
        const background = { ...params, mode: "background", windowId } as Methods[M]["params"];
        return this.remember(await client.request(method, background));
      } catch (error) {
        if (!BACKGROUND_FALLBACK_CODES.some((code) => isDeskError(error, code))) throw error;
      }
    }
    await this.bringForward();
    this.ctx.control.checkStopped();
    return this.remember(await client.request(method, params as Methods[M]["params"]));
  }

  private prefersForeground(config: DeskbookConfig): boolean {
    if (this.alwaysForeground || config.input === "foreground") return true;
    const names = [this.app.name, this.app.bundleId].filter((n): n is string => Boolean(n)).map((n) => n.toLowerCase());
    return config.foregroundApps.some((entry) => names.includes(entry.toLowerCase()));
  }

  private async bringForward(): Promise<void> {
    const client = await this.ctx.client();
    const cell = this.ctx.control.runningCell();
    if (cell !== undefined && this.activatedInCell === cell) {
      const { active } = await client.request("isActive", { pid: this.app.pid });
      if (active) return;
      // Not in front because it has no window left (it closed its last one): nobody switched.
      if ((await client.request("windows", { pid: this.app.pid })).length === 0) {
        throw new DeskError("no_window", `${this.app.name} has no window left to send input to; open one (or relaunch the app) first`);
      }
      this.ctx.control.stop(`the user switched to ${await this.frontmostName()}`);
      return;
    }
    await client.request("activate", { pid: this.app.pid });
    this.activatedInCell = cell;
  }

  private async frontmostName(): Promise<string> {
    const apps = await (await this.ctx.client()).request("listApps", {});
    return apps.find((a) => a.active)?.name ?? "another app";
  }

  /**
   * Waits until the app has handled the input sent since the last settle (the helper's
   * inputHandled), at most INPUT_HANDLED_TIMEOUT_MS; at once when none was sent. The action
   * itself is done: a helper that cannot tell, or an app that does not answer in time, leaves
   * the pause after it (settleMs) as the only settle, and a read after it shows what is.
   */
  async settle(): Promise<void> {
    if (!this.unsettled) return;
    this.unsettled = false;
    const client = await this.ctx.client();
    try {
      await client.request("inputHandled", { pid: this.app.pid, timeoutMs: INPUT_HANDLED_TIMEOUT_MS }, { timeoutMs: INPUT_HANDLED_TIMEOUT_MS + 10_000 });
    } catch (error) {
      if (!isDeskError(error)) throw error;
    }
  }

  private remember(result: InputResult): InputResult {
    this.lastRoute = result.route;
    this.unsettled = true;
    return result;
  }
}
