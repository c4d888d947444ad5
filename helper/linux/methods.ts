// Every method the Linux helper serves, hello aside (the server owns it).
import { appMethods } from "./app-methods.js";
import { changeMethods } from "./change-methods.js";
import { clipboardMethods } from "./clipboard-methods.js";
import { elementMethods } from "./element-methods.js";
import { inputMethods } from "./input-methods.js";
import { menuMethods } from "./menu-methods.js";
import { scriptMethods } from "./script-methods.js";
import type { HandlerTable } from "./method-types.js";
import { statusMethods } from "./status-methods.js";
import { windowActions } from "./window-action-methods.js";
import { windowMethods } from "./window-methods.js";

export const METHODS: HandlerTable = {
  ...statusMethods,
  ...appMethods,
  ...windowMethods,
  ...windowActions,
  ...elementMethods,
  ...menuMethods,
  ...inputMethods,
  ...clipboardMethods,
  ...scriptMethods,
  ...changeMethods,
};
