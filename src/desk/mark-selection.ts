// Which elements get a set-of-marks label. By default the ones a person or a model would name:
// elements that act (buttons, fields, anything with an action or a settable value) and elements
// that carry text. Groups, panes and scroll areas only frame other elements; marking them
// buried the very labels a person wants to read. `marks: "all"` marks every element.
import type { AXNode, Frame } from "../helper/protocol.js";
import { isPressable } from "./roles.js";
import type { Mark } from "./marks.js";

export type MarksOption = boolean | "all";

// Roles that take input without a press action of their own.
const INPUT_ROLES: ReadonlySet<string> = new Set(["AXTextField", "AXTextArea", "AXComboBox", "AXSlider", "AXIncrementor", "AXCheckBox", "AXRadioButton", "AXTab", "AXColorWell", "AXDateField", "AXTimeField"]);

/** The marks to draw for `nodes` (frames already in image pixels); empty when marks are off. */
export function selectMarks(nodes: readonly AXNode[], option: MarksOption | undefined): Mark[] {
  if (option !== true && option !== "all") return [];
  const marks: Mark[] = [];
  for (const node of nodes) {
    if (!node.frame || node.d === 0) continue; // the window itself: the whole image
    const text = bearsText(node);
    if (option === "all" || text || isActionable(node)) marks.push({ index: node.i, frame: node.frame as Frame, text });
  }
  return marks;
}

export function isActionable(node: AXNode): boolean {
  if (node.disabled) return false;
  return isPressable(node.role) || INPUT_ROLES.has(node.role) || node.settable === true || (node.actions?.length ?? 0) > 0;
}

export function bearsText(node: AXNode): boolean {
  return [node.title, node.value, node.desc].some((t) => typeof t === "string" && t.trim() !== "");
}
