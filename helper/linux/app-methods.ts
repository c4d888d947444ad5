// Apps: listApps, resolveApp, launch, activate, isActive, quit, hide.
import { DeskError } from "../../src/helper/desk-error.js";
import type { AppInfo, WindowInfo } from "../../src/helper/protocol.js";
import type { AppRecord } from "./app-catalog.js";
import { launchApp } from "./app-launcher.js";
import { hideApp, quitApp } from "./app-lifecycle.js";
import type { CallContext, HandlerTable } from "./method-types.js";
import { activate, pidOfActiveWindow, windowsOfPid } from "./windows.js";

type AppMethods = Pick<HandlerTable, "listApps" | "resolveApp" | "launch" | "activate" | "isActive" | "quit" | "hide">;

export const appMethods: AppMethods = {
  listApps: (_params, ctx) => ctx.catalog.list(),
  resolveApp: async ({ query }, ctx) => (await ctx.catalog.resolve(query)).info,
  launch: async ({ activate: bringForward, args, fresh, env, cwd }, ctx) => {
    const target = admitted(ctx);
    // With arguments, an environment or a directory the app is started anyway: they are meant for a new process.
    const startAnyway = args !== undefined || env !== undefined || cwd !== undefined;
    const running = startAnyway ? undefined : target.info.running ? target : await ctx.catalog.runningInstance(target);
    if (fresh === true && running?.info.pid !== undefined && !ctx.services.profiles.isFresh(running.info.pid)) {
      throw new DeskError("failed", `${target.info.name} is already running with its own settings, so it cannot start with a fresh profile; quit it first, or launch without fresh`);
    }
    const launched = running ? { app: running, notes: [] } : await launchApp(target, ctx.services, ctx.catalog, args ?? [], { fresh: fresh === true, env, cwd });
    if (bringForward === true && launched.app.info.pid !== undefined) await activatePid(launched.app.info.pid);
    const info = await refreshed(launched.app, ctx);
    return launched.notes.length > 0 ? { ...info, notes: launched.notes } : info;
  },
  activate: async ({ pid }) => {
    await activatePid(pid);
    return {};
  },
  isActive: async ({ pid }) => ({ active: (await pidOfActiveWindow()) === pid }),
  quit: ({ pid, force }) => quitApp(pid, force === true),
  hide: async ({ pid }) => {
    await hideApp(pid);
    return {};
  },
};

/** Raises and focuses the app's main window (un-minimizing it); activate_failed without one. */
export async function activatePid(pid: number): Promise<void> {
  const windows = await windowsOfPid(pid);
  const target = pickWindowToActivate(windows);
  if (!target?.windowId) throw new DeskError("activate_failed", `pid ${pid} has no window to bring forward`);
  await activate(target.windowId);
}

function pickWindowToActivate(windows: WindowInfo[]): WindowInfo | undefined {
  return windows.find((w) => w.focused) ?? windows.find((w) => w.main && !w.minimized) ?? windows.find((w) => !w.minimized) ?? windows[0];
}

function admitted(ctx: CallContext): AppRecord {
  if (!ctx.app) throw new DeskError("failed", "launch ran without a target (a helper bug)");
  return ctx.app;
}

/** The AppInfo as it is now (active may have changed). */
async function refreshed(app: AppRecord, ctx: CallContext): Promise<AppInfo> {
  if (app.info.pid === undefined) return app.info;
  return (await ctx.catalog.appOfPid(app.info.pid).catch(() => app)).info;
}
