// Types of the helper protocol (docs/backend-protocol.md). The JSON schema next to this
// file is the machine-readable twin; both must change together.

/** Bumped on any incompatible change; `hello` refuses a mismatch. */
export const PROTOCOL_VERSION = 1;

/** Every error code a helper may answer with. Codes stay these strings all the way up. */
export const ERROR_CODES = [
  "blocked",
  "denied",
  "not_allowed",
  "not_granted",
  "confirmation_required",
  "background_unavailable",
  "background_unconfirmed",
  "no_window",
  "no_frame",
  "stale_index",
  "action_failed",
  "activate_failed",
  "not_found",
  "ambiguous",
  "not_running",
  "permission",
  "bad_key",
  "unsupported",
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
  /** From `launch` only: what the helper changed to start the app (a flag it added, and why). */
  notes?: string[];
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
  /** Said when the tree cannot be what the caller expects: the app exposes no accessibility. */
  note?: string;
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

/**
 * Unsolicited messages from the helper. `escape`: the user pressed Escape. `stop`: the user
 * asked the helper itself to stop running scripts (the macOS menu-bar item); `reason` is the
 * sentence the stopped cell shows.
 */
export type HelperEvent = { event: "escape" } | { event: "stop"; reason: string } | ApprovalEvent;

/**
 * Sent to the one connection whose call waits on an approval dialog: `pending` when the dialog
 * opens, then `allowed` or `denied` when it closes. Where the dialog is (`screen`) lets the
 * client tell the person where to answer it.
 */
export interface ApprovalEvent {
  event: "approval";
  state: "pending" | "allowed" | "denied";
  /** The app as people know it. */
  app: string;
  /** The name `deskbook allow` takes for it. */
  allow: string;
  /** "virtual": Deskbook's virtual desktop, seen only through the live view; "real": the user's screen. */
  screen: "virtual" | "real";
  display?: string;
  /** With `pending`: how long the dialog waits for an answer. */
  timeoutS?: number;
}

// ---------------------------------------------------------------------------
// Transport

/** Longest line either side may send, in bytes, without its newline. A screenshot reply is the biggest. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** Codes on which the client retries an input call on the foreground route instead of failing. */
export const BACKGROUND_FALLBACK_CODES = [
  "background_unavailable",
  "background_unconfirmed",
] as const satisfies readonly ErrorCode[];

export type RequestId = number | string;

export interface RequestEnvelope<M extends MethodName = MethodName> {
  id: RequestId;
  method: M;
  params: MethodParams<M>;
  /** The title of the notebook step that made this call; the helper copies it into actions.log. */
  step?: string;
}

export interface HelperErrorBody {
  message: string;
  code: ErrorCode;
}

export type ReplyEnvelope<R = unknown> =
  | { id: RequestId; result: R }
  /** `id` is null when the helper could not read the request's id (bad JSON). */
  | { id: RequestId | null; error: HelperErrorBody };

// ---------------------------------------------------------------------------
// Method params and results

/** Params of methods that take none. */
export type EmptyParams = Record<string, never>;

/** Results of methods that only act. A helper may add fields; clients ignore them. */
export type EmptyResult = Record<string, never>;

export interface PidParams {
  pid: number;
}

export interface ElementParams extends PidParams {
  /** An `i` from `axTree` or `hitTest`. */
  index: number;
}

export interface HelloParams {
  /** Shown in approval dialogs and written to actions.log. */
  client: string;
  protocol: number;
}

export interface HelloResult {
  /** The helper's own version, free text. */
  version: string;
  protocol: number;
  platform: string;
  pid: number;
  /**
   * Linux: the desktop the helper drives (DISPLAY, DBUS_SESSION_BUS_ADDRESS, AT_SPI_BUS_ADDRESS,
   * XAUTHORITY, those it has), so that a client's own processes open where the helper looks.
   */
  env?: Record<string, string>;
}

export interface PingResult {
  version: string;
  platform: string;
  pid: number;
  /** Which private functions background input needs were found. Informational only. */
  background: Record<string, boolean>;
  /** The helper paints `screenshot`'s `marks` itself (absent: it does not, the client does). */
  marks?: boolean;
}

/** The grants `permissions` reports, by their result field. */
export type PermissionName = "accessibility" | "screenRecording" | "inputMonitoring";

export interface PermissionsParams {
  /** `true`: ask the OS to prompt for what is missing; a permission's name: for that one only. */
  prompt?: boolean | PermissionName;
  /** With `prompt: true`, also ask for Input Monitoring (macOS). */
  inputMonitoring?: boolean;
}

export interface PermissionsResult {
  accessibility: boolean;
  screenRecording: boolean;
  escapeWatcher: boolean;
  inputMonitoring: boolean;
}

export interface ResolveAppParams {
  /** A name, a bundle id, `pid:N`, or a path. */
  query: string;
}

export interface LaunchParams {
  bundleId?: string;
  path?: string;
  name?: string;
  /** Bring the app forward once it runs. Default false. */
  activate?: boolean;
  /**
   * Arguments for the program, after those its desktop entry (or bundle) gives. With args the
   * app is started even when it runs already; a single-instance app may hand them to the
   * running one, which is then the answer.
   */
  args?: string[];
  /** Start it with a fresh profile (its own XDG directories, removed when it exits). Linux only. */
  fresh?: boolean;
  /** Variables added to the app's environment (over the helper's). With env the app is started even when it runs. */
  env?: Record<string, string>;
  /** The app's working directory, absolute. With cwd the app is started even when it runs. */
  cwd?: string;
}

export interface QuitParams extends PidParams {
  /** End the process (SIGTERM, then SIGKILL; macOS forceTerminate) instead of asking it to quit. */
  force?: boolean;
}

export interface QuitResult {
  /** The process is gone. False when the app kept running, for instance to ask about unsaved work. */
  exited: boolean;
}

export interface IsActiveResult {
  active: boolean;
}

export interface AXTreeParams extends PidParams {
  /** `index` from `windows`; default: the focused window, else the main one, else the first. */
  window?: number;
  maxNodes?: number;
  maxDepth?: number;
  /** Longer strings are cut to this many characters, ending in "…". */
  maxText?: number;
  /** Include the menu bar. Default false. */
  menus?: boolean;
}

export interface PointParams extends PidParams {
  x: number;
  y: number;
}

export interface HitElement {
  index: number;
  role: string;
  actions: string[];
  frame: Frame;
}
/** Nothing accessible at that point: the helper answers `{}`. */
export interface NoHit {
  index?: undefined;
}
export type HitTestResult = HitElement | NoHit;

export interface ElementFrameResult {
  frame: Frame;
}

export interface ActionNamesResult {
  actions: string[];
}

export interface PerformActionParams extends ElementParams {
  /** An AX action name: AXPress, AXIncrement, AXShowMenu, … */
  action: string;
}

export interface SetValueParams extends ElementParams {
  value: string | number | boolean;
  /** Default AXValue. */
  attribute?: string;
}

export interface SelectTextParams extends ElementParams {
  start: number;
  length: number;
}

export interface MenuParams extends PidParams {
  /** Menu titles from the menu bar down: ["File", "Save As…"]. */
  path: string[];
  /** `index` from `windows`, as for axTree; default the focused window, else the main one. */
  window?: number;
}

export interface MenuResult {
  /** The items pressed, named as the app shows them ("Save As..." for a path that said "Save As…"). */
  path: string[];
}

export type WindowActionName = "focus" | "move" | "resize" | "minimize" | "close";

export interface WindowActionParams extends PidParams {
  windowId: number;
  action: WindowActionName;
  /** move: the new top-left of the window's content, in screen points. */
  x?: number;
  y?: number;
  /** resize: the new content size, in screen points. */
  width?: number;
  height?: number;
}

export interface WindowActionResult {
  /** The window as read back afterwards (the app or window manager may have clamped or refused); absent once it is gone. */
  window?: WindowInfo;
}

export interface RunScriptParams {
  /** AppleScript, or JavaScript for Automation. */
  language: "applescript" | "jxa";
  source: string;
}

export interface RunScriptResult {
  output: string;
}

export interface KeyHoldParams extends PidParams, InputOptions {
  /** One key name, as in a chord (a modifier too: "Shift_L", "Control_L"). */
  key: string;
}

export interface PasteParams extends PidParams, InputOptions {
  /** Put on the clipboard, pasted with the platform's paste key, and the clipboard restored. */
  text: string;
}

export interface ClipboardReadResult {
  /** The clipboard's text; empty when it holds none (or only non-text data). */
  text: string;
}

export interface ClipboardWriteParams {
  text: string;
}

export interface KeysParams extends PidParams, InputOptions {
  chords: KeyChord[];
  /** How long each key stays down, in ms (0 to 10 000; default 0). */
  holdMs?: number;
}

export interface TypeParams extends PidParams, InputOptions {
  text: string;
}

export interface ClickParams extends PointParams, InputOptions {
  button?: MouseButton;
  count?: number;
  mods?: Modifier[];
}

export interface ScrollParams extends PointParams, InputOptions {
  /** Wheel lines; positive scrolls toward the end of the content (down). */
  dy?: number;
  /** Wheel lines; positive scrolls toward the right. */
  dx?: number;
}

export interface DragParams extends PidParams, InputOptions {
  /** At least two points in global screen points: press at the first, release at the last. */
  path: [number, number][];
  button?: MouseButton;
}

export interface CursorParams {
  enabled?: boolean;
  hide?: boolean;
  x?: number;
  y?: number;
  windowId?: number;
}

export interface CursorResult {
  enabled: boolean;
}

export interface MakeKeyParams extends PidParams {
  windowId: number;
}

export interface MakeKeyResult {
  keyed: boolean;
}

export type ImageFormat = "png" | "jpeg";

export interface ScreenshotParams extends PidParams {
  windowId: number;
  /** Image size in pixels; the helper returns exactly this size. */
  width: number;
  height: number;
  /** Default png. */
  format?: ImageFormat;
  /** JPEG quality 1..100, default 80; ignored for PNG. */
  quality?: number;
  /**
   * Set-of-marks to paint into the image before its only encode, in image pixels. Only to a
   * helper whose `ping` says `marks: true`; the others are sent none and the client paints.
   */
  marks?: ImageMark[];
}

/** One set-of-marks box: an element's index, its frame in image pixels, whether it bears text. */
export interface ImageMark {
  index: number;
  frame: Frame;
  /** The element bears text: its label keeps off that text where it can. */
  text?: boolean;
}

/** The most marks one screenshot paints (a window's tree is capped lower); the schema's `maxItems` for screenshot's marks, which test/helper/schema.test.ts holds equal. */
export const MAX_MARKS = 10_000;

export interface ReadTextParams extends PidParams {
  windowId: number;
  /** The window image's size, as for screenshot: frames come back in its pixels. */
  width: number;
  height: number;
  /** [x, y, width, height] of the image to read; default all of it. */
  region?: [number, number, number, number];
  /** How many times the image is enlarged before reading (1 to 8; Linux default 3). */
  scale?: number;
  /** Black text on white first (a threshold chosen from the image; light text on dark is inverted). */
  binarize?: boolean;
  /** Straight lines (button borders, grid and box edges) are wiped before reading; implies binarize. */
  removeLines?: boolean;
  /** How the text is laid out: default "auto" for a whole window, "block" for a region. */
  layout?: OcrLayout;
  /** Only these characters are read ("0123456789.-" for a number). */
  chars?: string;
}

/** readText's layouts: columns and scattered labels, one block, one line, one word, labels anywhere. */
export type OcrLayout = "auto" | "block" | "line" | "word" | "sparse";
export const OCR_LAYOUTS: readonly OcrLayout[] = ["auto", "block", "line", "word", "sparse"];

/** waitChange: wait for the app's next accessibility event (a change in its tree or windows). */
export interface WaitChangeParams extends PidParams {
  /** The `seq` of an earlier answer; the call returns at once when the app changed since. */
  after?: number;
  /** 0 to 60 000; 0 answers at once with the current `seq`. */
  timeoutMs: number;
}

export interface WaitChangeResult {
  /** The app's accessibility events seen so far; pass it as `after` next time. */
  seq: number;
  /** seq moved past `after` (or an event came within the timeout). */
  changed: boolean;
  /** false: the helper receives no events for this app, so the client must poll. */
  watching: boolean;
}

/**
 * inputHandled: proof that the app has handled every input event sent to it so far (the settle
 * after an action). Linux pings the app's window (_NET_WM_PING) after the input; GTK answers a
 * ping only once every X event before it has been dispatched.
 */
export interface InputHandledParams extends PidParams {
  /** 0 to 60 000: how long to wait for the app's answer. */
  timeoutMs: number;
}

export interface InputHandledResult {
  /** The app answered: every input event sent before the call has been handled. */
  handled: boolean;
  /** How the helper asked: `x11-ping`, or `none` when it has no way to ask this app (handled is then false at once). */
  via: "x11-ping" | "none";
  /** How long the call waited for the answer, in ms. */
  waitedMs: number;
}

export interface TextWord {
  text: string;
  /** In the window image's pixels. */
  frame: Frame;
  /** 0 to 1. */
  confidence: number;
}

export interface TextLine extends TextWord {
  /** The line's words, left to right, each with its own frame (Linux; macOS answers lines only). */
  words?: TextWord[];
}

export interface ReadTextResult {
  /** Top to bottom. */
  lines: TextLine[];
}

/** Method name → its params and result. The client's `request` is typed from this map. */
export interface Methods {
  hello: { params: HelloParams; result: HelloResult };
  ping: { params: EmptyParams; result: PingResult };
  permissions: { params: PermissionsParams; result: PermissionsResult };
  listApps: { params: EmptyParams; result: AppInfo[] };
  resolveApp: { params: ResolveAppParams; result: AppInfo };
  launch: { params: LaunchParams; result: AppInfo };
  activate: { params: PidParams; result: EmptyResult };
  isActive: { params: PidParams; result: IsActiveResult };
  quit: { params: QuitParams; result: QuitResult };
  hide: { params: PidParams; result: EmptyResult };
  windows: { params: PidParams; result: WindowInfo[] };
  windowAction: { params: WindowActionParams; result: WindowActionResult };
  axTree: { params: AXTreeParams; result: AXTreeResult };
  hitTest: { params: PointParams; result: HitTestResult };
  elementFrame: { params: ElementParams; result: ElementFrameResult };
  actionNames: { params: ElementParams; result: ActionNamesResult };
  performAction: { params: PerformActionParams; result: EmptyResult };
  setValue: { params: SetValueParams; result: EmptyResult };
  focusElement: { params: ElementParams; result: EmptyResult };
  selectText: { params: SelectTextParams; result: EmptyResult };
  menu: { params: MenuParams; result: MenuResult };
  keys: { params: KeysParams; result: InputResult };
  keyDown: { params: KeyHoldParams; result: InputResult };
  keyUp: { params: KeyHoldParams; result: InputResult };
  type: { params: TypeParams; result: InputResult };
  paste: { params: PasteParams; result: InputResult };
  click: { params: ClickParams; result: InputResult };
  scroll: { params: ScrollParams; result: InputResult };
  drag: { params: DragParams; result: InputResult };
  move: { params: PointParams; result: EmptyResult };
  inputHandled: { params: InputHandledParams; result: InputHandledResult };
  cursor: { params: CursorParams; result: CursorResult };
  clipboardRead: { params: EmptyParams; result: ClipboardReadResult };
  clipboardWrite: { params: ClipboardWriteParams; result: EmptyResult };
  runScript: { params: RunScriptParams; result: RunScriptResult };
  makeKey: { params: MakeKeyParams; result: MakeKeyResult };
  screenshot: { params: ScreenshotParams; result: ScreenshotResult };
  readText: { params: ReadTextParams; result: ReadTextResult };
  waitChange: { params: WaitChangeParams; result: WaitChangeResult };
  forget: { params: PidParams; result: EmptyResult };
}

export type MethodName = keyof Methods;
export type MethodParams<M extends MethodName> = Methods[M]["params"];
export type MethodResult<M extends MethodName> = Methods[M]["result"];

/** Every method, in the order of docs/backend-protocol.md. */
export const METHOD_NAMES = [
  "hello",
  "ping",
  "permissions",
  "listApps",
  "resolveApp",
  "launch",
  "activate",
  "isActive",
  "quit",
  "hide",
  "windows",
  "windowAction",
  "axTree",
  "hitTest",
  "elementFrame",
  "actionNames",
  "performAction",
  "setValue",
  "focusElement",
  "selectText",
  "menu",
  "keys",
  "keyDown",
  "keyUp",
  "type",
  "paste",
  "click",
  "scroll",
  "drag",
  "move",
  "inputHandled",
  "cursor",
  "clipboardRead",
  "clipboardWrite",
  "runScript",
  "makeKey",
  "screenshot",
  "readText",
  "waitChange",
  "forget",
] as const satisfies readonly MethodName[];

// Compile-time guard: adding a method to `Methods` without listing it above fails the build.
type UnlistedMethod = Exclude<MethodName, (typeof METHOD_NAMES)[number]>;
const everyMethodListed: [UnlistedMethod] extends [never] ? true : UnlistedMethod = true;
void everyMethodListed;

/** Methods that never pass the approval gate: they read only the app list or the helper's own state. */
export const UNGATED_METHODS = [
  "hello",
  "ping",
  "permissions",
  "listApps",
  "resolveApp",
  "forget",
  "cursor",
  "clipboardRead",
  "clipboardWrite",
  "runScript",
] as const satisfies readonly MethodName[];

/** Methods the helper enforces approval on: everything naming a pid, and `launch`. */
export const GATED_METHODS: readonly MethodName[] = METHOD_NAMES.filter(
  (name) => !(UNGATED_METHODS as readonly string[]).includes(name),
);

/** Input methods: they take InputOptions and answer InputResult. */
export const INPUT_METHODS = ["keys", "keyDown", "keyUp", "type", "paste", "click", "scroll", "drag"] as const satisfies readonly MethodName[];
