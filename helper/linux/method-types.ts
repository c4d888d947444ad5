// The shape of a method handler: typed params in, typed result out, with what the call needs.
import type { MethodName, MethodParams, MethodResult, UNGATED_METHODS } from "../../src/helper/protocol.js";
import type { AppCatalog, AppRecord } from "./app-catalog.js";
import type { MenuLeaf } from "./menu-path.js";
import type { Services } from "./services.js";

export interface CallContext {
  services: Services;
  catalog: AppCatalog;
  /** The `client` the connection named in hello, for the action log. */
  client?: string;
  /** The app the gate admitted: the pid's app, or for launch the app to start. Gated calls only. */
  app?: AppRecord;
  /** The menu item the confirmation rule resolved and checked: `menu` presses it, not a second match. */
  menuItem?: MenuLeaf;
}

export type ServedMethod = Exclude<MethodName, "hello">;
export type UngatedMethod = Exclude<(typeof UNGATED_METHODS)[number], "hello">;
export type GatedMethod = Exclude<ServedMethod, UngatedMethod>;

export type Handler<M extends ServedMethod> = (params: MethodParams<M>, ctx: CallContext) => Promise<MethodResult<M>>;

export type HandlerTable = { [M in ServedMethod]: Handler<M> };
