// Types of the helper protocol (docs/backend-protocol.md). The JSON schema next to this
// file is the machine-readable twin; both must change together.

/** Bumped on any incompatible change; `hello` refuses a mismatch. */
export const PROTOCOL_VERSION = 1;

/** Every error code a helper may answer with. Codes stay these strings all the way up. */
export const ERROR_CODES = [
  "blocked",
  "denied",
  "not_allowed",
  "background_unavailable",
  "background_unconfirmed",
  "no_window",
  "no_frame",
  "stale_index",
  "action_failed",
  "activate_failed",
  "not_found",
  "not_running",
  "permission",
  "bad_key",
  "bad_request",
  "failed",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** [x, y, width, height] in global screen points, top-left origin. */
export type Frame = [number, number, number, number];

/** One accessibility element. `i` is stable for the same element for the helper's life. */
export interface AXNode {
  /** Stable element index. */
  i: number;
  /** Depth below the window (the window itself is 0). */
  d: number;
  /** macOS AX role name on every OS: AXButton, AXTextField, AXStaticText, … */
  role: string;
  subrole?: string;
  title?: string;
  value?: string;
  desc?: string;
  help?: string;
  placeholder?: string;
  /** Developer identifier (AXIdentifier / AT-SPI accessible id). */
  id?: string;
  frame?: Frame;
  /** Action names beyond the obvious one (AXPress for buttons). */
  actions?: string[];
  focused?: boolean;
  selected?: boolean;
  disabled?: boolean;
  settable?: boolean;
}

export interface AppInfo {
  name: string;
  /** macOS bundle id, or the Linux desktop id (e.g. "galculator.desktop" → "galculator"). */
  bundleId?: string;
  pid?: number;
  path?: string;
  running: boolean;
  active?: boolean;
}

export interface WindowInfo {
  index: number;
  title: string;
  frame: Frame;
  /** Backing scale (device pixels per point). */
  scale: number;
  focused: boolean;
  main: boolean;
  minimized: boolean;
  subrole?: string;
  windowId?: number;
}

export interface AXTreeResult {
  window: WindowInfo;
  nodes: AXNode[];
  truncated: boolean;
}

export type InputMode = "background";

/** Options every input method takes. Without `mode` the client has already brought the app forward. */
export interface InputOptions {
  mode?: InputMode;
  windowId?: number;
  windowLocation?: "window" | "screen";
}

export interface InputResult {
  route: "foreground" | "background" | "background-accessibility" | "background-skylight";
  focusRestored: boolean;
}

export interface KeyChord {
  /** An xdotool keysym: Return, Tab, Page_Down, a, A, F5 … */
  key: string;
  mods: Modifier[];
}
export type Modifier = "ctrl" | "shift" | "alt" | "super" | "fn";

export type MouseButton = "left" | "right" | "middle";

export interface ScreenshotResult {
  /** base64 image bytes */
  data: string;
  width: number;
  height: number;
  mimeType: "image/png" | "image/jpeg";
}

/** Unsolicited messages from the helper. */
export type HelperEvent = { event: "escape" };
