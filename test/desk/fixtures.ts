import type { AXNode, WindowInfo } from "../../src/helper/protocol.js";
import type { FormatInput } from "../../src/desk/ax-text.js";
import { ImageSpace } from "../../src/desk/image-space.js";

export const LIMITS = { maxLongSide: 1568, maxPixels: 1_150_000 };

/** A 232×322-point Calculator window on a Retina display: image 464×644. */
export const CALC_WINDOW: WindowInfo = {
  index: 0,
  title: "Calculator",
  frame: [100, 200, 232, 322],
  scale: 2,
  focused: true,
  main: true,
  minimized: false,
  windowId: 4242,
};

const [WX, WY] = CALC_WINDOW.frame;

/** A button at a grid position of the keypad, in screen points. */
function key(i: number, desc: string, col: number, row: number, title?: string): AXNode {
  return { i, d: 3, role: "AXButton", desc, ...(title ? { title } : {}), frame: [WX + 8 + col * 56, WY + 120 + row * 40, 52, 36] };
}

export function calculatorNodes(): AXNode[] {
  return [
    { i: 0, d: 0, role: "AXWindow", title: "Calculator", frame: [WX, WY, 232, 322], actions: ["AXRaise"] },
    { i: 1, d: 1, role: "AXButton", subrole: "AXCloseButton", frame: [WX + 8, WY + 6, 14, 14] },
    { i: 2, d: 1, role: "AXGroup", frame: [WX, WY + 28, 232, 294] },
    { i: 3, d: 2, role: "AXStaticText", value: "1,234", id: "display", frame: [WX + 8, WY + 40, 216, 60] },
    { i: 4, d: 2, role: "AXGroup", desc: "keypad", frame: [WX, WY + 116, 232, 206] },
    key(5, "all clear", 0, 0, "AC"),
    key(6, "7", 0, 1),
    key(7, "8", 1, 1),
    key(8, "9", 2, 1),
    key(9, "divide", 3, 1),
    key(10, "equals", 3, 2),
    { i: 11, d: 2, role: "AXPopUpButton", title: "Basic", value: "Basic", actions: ["AXPress", "AXShowMenu"], frame: [WX + 150, WY + 6, 70, 18] },
  ];
}

export function calculatorInput(nodes: AXNode[] = calculatorNodes(), frames = false): FormatInput {
  const space = new ImageSpace(CALC_WINDOW, LIMITS);
  return {
    app: "Calculator",
    window: CALC_WINDOW,
    image: { width: space.width, height: space.height },
    nodes,
    truncated: false,
    frames,
    space,
    maxTextLength: 160,
  };
}
