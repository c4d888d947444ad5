// windowAction: focus, move, resize, minimize or close one of the app's windows (window-actions.ts).
import type { HandlerTable } from "./method-types.js";
import { windowAction } from "./window-actions.js";

export const windowActions: Pick<HandlerTable, "windowAction"> = {
  windowAction: (params) => windowAction(params),
};
