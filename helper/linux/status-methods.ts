// The helper's own state: ping, permissions, cursor, forget.
import { DESKBOOK_VERSION } from "../../src/version.js";
import type { HandlerTable } from "./method-types.js";
import { checkPermissions } from "./permissions.js";

type StatusMethods = Pick<HandlerTable, "ping" | "permissions" | "cursor" | "forget">;

export const HELPER_VERSION = `deskbook linux helper ${DESKBOOK_VERSION}`;

export const statusMethods: StatusMethods = {
  // No background route on X11 (see input-methods.ts), so nothing it needs is present.
  ping: async () => ({ version: HELPER_VERSION, platform: "linux", pid: process.pid, background: { backgroundInput: false }, marks: true }),
  permissions: (params, ctx) => checkPermissions(ctx.services, params),
  // No drawn agent cursor on Linux yet: always off, and moving it is a no-op.
  cursor: async () => ({ enabled: false }),
  forget: async ({ pid }, ctx) => {
    (await ctx.services.atspiIfConnected())?.forget(pid);
    return {};
  },
};
