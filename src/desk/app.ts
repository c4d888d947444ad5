import { createHash } from "node:crypto";
import { MAX_MARKS, type TextLine, type AppInfo, type AXNode, type InputResult, type KeyChord, type MethodName, type MethodParams, type MethodResult, type MouseButton, type Modifier, type PidParams, type WindowInfo } from "../helper/protocol.js";
import { DeskError, isDeskError } from "../helper/desk-error.js";
import { ImageSpace, type Point } from "./image-space.js";
import { AXHistory, windowKey } from "./ax-diff.js";
import { axTextToHtml, type FormatInput } from "./ax-text.js";
import { drawMarks, type Mark } from "./marks.js";
import { selectMarks, type MarksOption } from "./mark-selection.js";
import { ProgressJudge } from "./no-progress.js";
import { isPressable } from "./roles.js";
import { describeQuery, matches, validateQuery, type Query } from "./query.js";
import { locatorSource, validateLocator, type Locator } from "./locator.js";
import { locatorFor, pickOne, textMeets, tiersFor, withAncestors, type Tier, type TreeEntry } from "./locate.js";
import { expectationFailure, WaitTimeout, type ExpectOptions } from "./expectation.js";
import { markBudgetProblem } from "../image/mark-budget.js";
import { offersMarks } from "./helper-offers.js";
import { InputRouter, type InputMethod, type WindowIdSource } from "./input-route.js";
import { ChangeWait, pollTimings, type WaitOptions } from "./change-wait.js";
import { sentence, withProgressLine } from "./progress-line.js";
import { parseKeys } from "./keys.js";
import { checkRegion, cropZoomed, zoomCapture } from "./zoom.js";
import { checkOcrOptions, type ReadTextOptions } from "./ocr-options.js";
import { AppWindow, type WindowActionSender } from "./app-window.js";
import type { Bundle, DeskContext } from "./desk-context.js";
import { TextRead, untrustedMetadata } from "./text-read.js";
import { hideInternals } from "../doc.js";
import type { DeskbookConfig } from "../config/config.js";
import { setTimeout as sleep } from "node:timers/promises";

/** An element: its index, a locator (which must name exactly one), or the first element matching a query. */
export type ElementTarget = number | Locator | { find: Query };

/** Where an action lands: an element, or an image point `[x, y]`. */
export type Target = ElementTarget | Point;

/** The protocol's methods about one app (their params carry its pid), input aside: that goes through the InputRouter. */
type AppMethod = Exclude<{ [M in MethodName]: MethodParams<M> extends PidParams ? M : never }[MethodName], InputMethod>;

/** A window the app's reads and clicks use, and the image space of its screenshots. */
interface View {
  window: WindowInfo;
  space: ImageSpace;
}

/** An element target, resolved once: its index and, when a read found it, that read's node (screen frame) and window. */
interface ResolvedElement {
  kind: "element";
  index: number;
  node?: AXNode;
  view?: View;
}

/** Where one action lands, resolved once (an image point is checked when it is turned into screen points). */
type Resolved = ResolvedElement | { kind: "point"; point: Point };

export interface ClickOptions {
  button?: MouseButton;
  count?: number;
  mods?: Modifier[];
  /** Bring the app forward for this action even if background input is possible. */
  foreground?: boolean;
  /** How long a disabled element may take to turn enabled, in ms (default 5000). */
  timeout?: number;
  /** Click an element even while it reads as disabled. */
  force?: boolean;
}

export interface AXStateOptions {
  frames?: boolean;
  menus?: boolean;
  disableDiffing?: boolean;
  emit?: boolean;
  maxNodes?: number;
  maxDepth?: number;
}

export interface ScreenshotOptions {
  format?: "png" | "jpeg";
  quality?: number;
  /** true: actionable and text-bearing elements; "all": every element. */
  marks?: MarksOption;
  emit?: boolean;
}

/**
 * What `getAXState` returns: the text shown, usable as a string (`.match`, `.includes`,
 * template literals …), and the elements behind it as properties.
 */
export class AXState extends TextRead {
  constructor(
    readonly app: string,
    readonly window: WindowInfo,
    readonly image: { width: number; height: number },
    text: string,
    /** Elements with frames in image pixels. */
    readonly nodes: AXNode[],
    readonly truncated: boolean,
    /** True when this read is a diff against the previous read of the window. */
    readonly diff: boolean,
  ) {
    super(text, app);
  }

  override bundle(): Bundle {
    return { "text/plain": this.text, "text/html": axTextToHtml(this.text) };
  }
}

export interface Screenshot {
  data: Buffer;
  width: number;
  height: number;
  mimeType: "image/png" | "image/jpeg";
  window: WindowInfo;
}

/** What `elementAt` finds: the element's index, role, actions and image frame, and what the last read knew of it. */
export type ElementAtPoint = Omit<AXNode, "d" | "frame"> & { frame: [number, number, number, number] };

export interface ZoomOptions {
  /** How many times larger than the window image, 1 to 8 (default 2). */
  scale?: number;
  format?: "png" | "jpeg";
  quality?: number;
  emit?: boolean;
}

export interface Zoom {
  data: Buffer;
  width: number;
  height: number;
  mimeType: "image/png" | "image/jpeg";
  /** The region, in the window's image pixels (the ones clicks take). */
  region: [number, number, number, number];
  /** Zoomed pixels per image pixel. */
  scale: number;
}

/** A running app, bound in a cell and usable in later ones. */
export class App {
  private readonly router: InputRouter;
  private readonly history = new AXHistory();
  private readonly judge = new ProgressJudge();
  /** The latest node seen for each index, to tell a pressable element without asking again. */
  private readonly known = new Map<number, AXNode>();

  constructor(
    readonly info: AppInfo & { pid: number },
    private readonly ctx: DeskContext,
  ) {
    this.router = new InputRouter({ pid: info.pid, name: info.name, bundleId: info.bundleId }, ctx);
    hideInternals(this); // completion shows the documented API and the user's own properties
  }

  get name(): string {
    return this.info.name;
  }

  get pid(): number {
    return this.info.pid;
  }

  /** Send this app's input on the foreground route from now on. */
  preferForeground(): void {
    this.router.alwaysForeground = true;
  }

  /** The route the last input took: "background", "foreground", … */
  get lastRoute(): string | undefined {
    return this.router.lastRoute;
  }

  /** The app's windows, front to back, each with focus/move/resize/minimize/close. */
  async windows(): Promise<AppWindow[]> {
    const send: WindowActionSender = async (params) => {
      const result = await this.call("windowAction", params);
      await this.acted(`window ${params.action}`, this.ctx.config());
      return result;
    };
    return (await this.call("windows", {})).map((info) => new AppWindow(info, send));
  }

  /**
   * Asks the app to quit, as closing its windows does; `{ force: true }` ends the process.
   * Returns whether it exited: an app with unsaved work may keep running to ask about it.
   */
  async quit(options: { force?: boolean } = {}): Promise<boolean> {
    const quitting = { waiting: `for ${this.name} to quit`, done: ({ exited }: { exited: boolean }, took: string) => (exited ? `${this.name} quit after ${took}.` : `${this.name} is still running after ${took}: it may be asking about unsaved work.`) };
    const { exited } = await withProgressLine(() => this.ctx.live(), quitting, () => this.call("quit", { force: options.force === true }));
    await this.acted(options.force ? "quit (forced)" : "quit", this.ctx.config());
    return exited;
  }

  /** Hides the app (Linux: minimizes its windows); `activate` or a window's focus() shows it again. */
  async hide(): Promise<void> {
    await this.call("hide", {});
    await this.acted("hide", this.ctx.config());
  }

  /**
   * Presses a menu item by its titles from the menu bar down: `menu(["File", "Save As…"])`.
   * Exact titles first, then a tolerant match (case, "…" or "...", spacing); a wrong title fails
   * with not_found listing the items that are there. Returns the titles as the app shows them.
   */
  async menu(path: string[], options: { window?: number } = {}): Promise<string[]> {
    if (!Array.isArray(path) || path.length === 0 || !path.every((p) => typeof p === "string" && p.trim() !== "")) {
      throw new TypeError('menu takes a path of titles from the menu bar down, like ["File", "Save As…"]');
    }
    const result = await this.call("menu", { path, ...(options.window !== undefined ? { window: options.window } : {}) });
    await this.acted(`menu ${JSON.stringify(path)}`, this.ctx.config());
    return result.path;
  }

  async click(target: Target, options: ClickOptions = {}): Promise<InputResult | undefined> {
    const config = this.ctx.config();
    const count = options.count ?? 1;
    const button = options.button ?? "left";
    const plain = button === "left" && count === 1 && !options.mods?.length;
    const found = await this.resolve(target, "click", config);
    const aim = found.kind === "point" || options.force ? found : await this.enabled(target as ElementTarget, found, options, config);
    if (plain && aim.kind === "element" && (await this.isPressable(aim))) {
      await this.call("performAction", { index: aim.index, action: "AXPress" });
      await this.acted(`click ${aim.index}`, config);
      return undefined;
    }
    const { point, windowId } = await this.screenPoint(aim, config);
    const result = await this.router.send("click", { pid: this.pid, x: point[0], y: point[1], button, count, mods: options.mods ?? [] }, { foreground: options.foreground, windowId, config });
    await this.acted(`click ${JSON.stringify(target)}`, config);
    return result;
  }

  async pressKey(keys: string | string[], options: { foreground?: boolean; duration?: number } = {}): Promise<InputResult> {
    const chords: KeyChord[] = parseKeys(keys);
    const holdMs = options.duration ?? 0;
    if (!Number.isInteger(holdMs) || holdMs < 0 || holdMs > 10_000) throw new RangeError(`duration is whole milliseconds from 0 to 10000, not ${String(options.duration)}`);
    const config = this.ctx.config();
    const windowId = this.windowIdWhenAsked(config);
    const params = { pid: this.pid, chords, ...(holdMs > 0 ? { holdMs } : {}) };
    const held = holdMs > 0 ? `, each held ${holdMs} ms` : "";
    const result = await this.lasting(`pressing ${JSON.stringify(keys)} in ${this.name}${held}`, `Pressed ${JSON.stringify(keys)} in ${this.name}${held}`, () => this.router.send("keys", params, { foreground: options.foreground, windowId, config }));
    await this.acted(`pressKey ${JSON.stringify(keys)}`, config);
    return result;
  }

  /** Presses one key and leaves it down until keyUp (a modifier such as "Shift_L", an arrow for a game). */
  async keyDown(key: string, options: { foreground?: boolean } = {}): Promise<InputResult> {
    return this.holdKey("keyDown", key, options);
  }

  /** Releases a key keyDown pressed. Keys still down when the kernel's helper connection closes are released then. */
  async keyUp(key: string, options: { foreground?: boolean } = {}): Promise<InputResult> {
    return this.holdKey("keyUp", key, options);
  }

  private async holdKey(method: "keyDown" | "keyUp", key: string, options: { foreground?: boolean }): Promise<InputResult> {
    if (typeof key !== "string" || key === "" || key.includes("+")) throw new TypeError(`${method} takes one key name ("Shift_L", "a", "Left"), not ${JSON.stringify(key)}`);
    const config = this.ctx.config();
    const windowId = this.windowIdWhenAsked(config);
    const result = await this.router.send(method, { pid: this.pid, key }, { foreground: options.foreground, windowId, config });
    await this.acted(`${method} ${key}`, config);
    return result;
  }

  async typeText(text: string, options: { foreground?: boolean } = {}): Promise<InputResult> {
    if (typeof text !== "string") throw new TypeError("typeText takes a string");
    const config = this.ctx.config();
    const windowId = this.windowIdWhenAsked(config);
    const result = await this.lasting(`typing ${text.length} characters into ${this.name}`, `Typed ${text.length} characters into ${this.name}`, () => this.router.send("type", { pid: this.pid, text }, { foreground: options.foreground, windowId, config }));
    await this.acted(`typeText (${text.length} characters)`, config);
    return result;
  }

  /**
   * Pastes text into the focused element of the app: the clipboard takes the text, the paste
   * key is pressed, and the clipboard gets back what it held. Faster than typeText for long
   * text, and exact whatever the keyboard layout. Needs `clipboard.write` (on by default).
   */
  async paste(text: string, options: { foreground?: boolean } = {}): Promise<InputResult> {
    if (typeof text !== "string") throw new TypeError("paste takes a string");
    const config = this.ctx.config();
    const windowId = this.windowIdWhenAsked(config);
    const result = await this.router.send("paste", { pid: this.pid, text }, { foreground: options.foreground, windowId, config });
    await this.acted(`paste (${text.length} characters)`, config);
    return result;
  }

  async scroll(target: Target, options: { dy?: number; dx?: number; foreground?: boolean } = {}): Promise<InputResult> {
    const config = this.ctx.config();
    const { point, windowId } = await this.screenPoint(await this.resolve(target, "scroll", config), config);
    const result = await this.router.send("scroll", { pid: this.pid, x: point[0], y: point[1], dy: options.dy ?? 0, dx: options.dx ?? 0 }, { foreground: options.foreground, windowId, config });
    await this.acted(`scroll ${JSON.stringify(target)}`, config);
    return result;
  }

  async drag(path: Point[], options: { button?: MouseButton; foreground?: boolean } = {}): Promise<InputResult> {
    if (!Array.isArray(path) || path.length < 2) throw new TypeError("drag takes a path of at least two image points [[x, y], …]");
    const config = this.ctx.config();
    const { space, window } = await this.imageSpace(config);
    const screen = path.map((p) => {
      space.assertInside(p);
      return space.toScreen(p);
    });
    const send = () => this.router.send("drag", { pid: this.pid, path: screen, button: options.button ?? "left" }, { foreground: options.foreground, windowId: window.windowId, config });
    const result = await this.lasting(`dragging through ${path.length} points in ${this.name}`, `Dragged through ${path.length} points in ${this.name}`, send);
    await this.acted(`drag ${JSON.stringify(path)}`, config);
    return result;
  }

  async setValue(target: ElementTarget, value: string | number | boolean): Promise<void> {
    const config = this.ctx.config();
    const index = await this.elementIndex(target, "setValue", config);
    try {
      await this.call("setValue", { index, value });
    } catch (error) {
      // A text field the helper can only type into (web content): focus, select all, type.
      if (!(error instanceof DeskError && error.code === "unsupported" && typeof value === "string")) throw error;
      await this.typeInto(index, value, config);
    }
    await this.acted(`setValue ${index}`, config);
  }

  private async typeInto(index: number, text: string, config: DeskbookConfig): Promise<void> {
    await this.call("focusElement", { index });
    const windowId = this.windowIdWhenAsked(config);
    await this.router.send("keys", { pid: this.pid, chords: parseKeys("ctrl+a") }, { windowId, config });
    if (text === "") await this.router.send("keys", { pid: this.pid, chords: parseKeys("BackSpace") }, { windowId, config });
    else await this.router.send("type", { pid: this.pid, text }, { windowId, config });
  }

  async focus(target: ElementTarget): Promise<void> {
    const config = this.ctx.config();
    const index = await this.elementIndex(target, "focus", config);
    await this.call("focusElement", { index });
    await this.acted(`focus ${index}`, config);
  }

  async selectText(target: ElementTarget, start: number, length: number): Promise<void> {
    const config = this.ctx.config();
    const index = await this.elementIndex(target, "selectText", config);
    await this.call("selectText", { index, start, length });
    await this.acted(`selectText ${index}`, config);
  }

  async performAction(target: ElementTarget, action: string): Promise<void> {
    const config = this.ctx.config();
    const index = await this.elementIndex(target, "performAction", config);
    await this.call("performAction", { index, action });
    await this.acted(`performAction ${index} ${action}`, config);
  }

  async actions(target: ElementTarget): Promise<string[]> {
    return (await this.call("actionNames", { index: await this.elementIndex(target, "actions", this.ctx.config()) })).actions;
  }

  /**
   * Finds the one element a locator names in a fresh read: exact text first, then the
   * tolerant tiers (docs/api.md). Fails with not_found (listing the nearest elements) or
   * ambiguous (listing the matches). Frames are in the element's window's image pixels.
   */
  async locate(locator: Locator): Promise<AXNode> {
    validateLocator(locator);
    const found = await this.locateWith(locator, tiersFor(locator, false), this.ctx.config());
    return inImage(found.node, found.view.space);
  }

  private async locateWith(locator: Locator, tiers: readonly Tier[], config: DeskbookConfig): Promise<Required<ResolvedElement>> {
    try {
      return await this.locateIn(locator, false, tiers, config);
    } catch (error) {
      // A menu item is only in a read with menus: looked for there when nothing else matched.
      if (!isDeskError(error, "not_found")) throw error;
      try {
        return await this.locateIn(locator, true, tiers, config);
      } catch (withMenus) {
        // Ambiguity among the menus says more than the first read's not_found.
        throw isDeskError(withMenus, "not_found") ? error : withMenus;
      }
    }
  }

  private async locateIn(locator: Locator, menus: boolean, tiers: readonly Tier[], config: DeskbookConfig): Promise<Required<ResolvedElement>> {
    const reads = await this.readWindows(locator.window, menus, config);
    const entries = reads.flatMap((r) => r.entries);
    const where = reads.length === 1 ? `${this.name}'s window ${JSON.stringify(reads[0]!.window.title)}` : `${this.name}'s windows ${reads.map((r) => JSON.stringify(r.window.title)).join(", ")}`;
    const found = pickOne(entries, locator, where, reads.some((r) => r.truncated), tiers);
    const read = reads.find((r) => r.entries.includes(found))!;
    return { kind: "element", index: found.node.i, node: found.node, view: { window: read.window, space: read.space } };
  }

  /**
   * The locator of an element by index: its role, label and id, the window's title, and
   * labelled ancestors or nth when it takes them to name it alone. Read from the front window
   * first, then the others.
   */
  async locatorOf(index: number): Promise<Locator> {
    return this.locatorIn(index, this.ctx.config());
  }

  private async locatorIn(index: number, config: DeskbookConfig): Promise<Locator> {
    checkIndex(index);
    const windows = await this.orderedWindows();
    // Menus last: an element found without them needs no menu read to be found again.
    for (const menus of [false, true]) {
      for (const window of windows) {
        const { entries } = await this.readWindow(window, menus, config);
        const locator = locatorFor(entries, index, window.title || undefined);
        if (locator) return locator;
      }
    }
    throw new DeskError("not_found", `element ${index} is not in any window of ${this.name} now; read the tree again for current indices`);
  }

  /**
   * A postcondition: waits up to `timeout` ms (default 5000) for an element matching `query`
   * (or, with `gone: true`, for none), then fails the cell with what was expected and what
   * the tree holds. Returns the element found.
   */
  async expect(query: Query, options: ExpectOptions = {}): Promise<AXNode | undefined> {
    validateQuery(query);
    const gone = options.gone === true;
    const config = this.ctx.config();
    const read = async () => {
      const tree = await this.readTree({}, config);
      return { tree, hits: tree.nodes.filter((n) => matches(n, query)) };
    };
    const line = gone
      ? { waiting: `for nothing in ${this.name} to match ${describeQuery(query)}`, done: `Nothing in ${this.name} matched ${describeQuery(query)} any more` }
      : { waiting: `for ${describeQuery(query)} in ${this.name}`, done: `${describeQuery(query)} was there in ${this.name}` };
    const { tree, hits } = await this.poll("expect", options, 5000, read, (r) => (gone ? r.hits.length === 0 : r.hits.length > 0), ({ tree, hits }, timeout) => {
      const { window, space, nodes, truncated } = tree;
      const formatted = { app: this.name, window, image: { width: space.width, height: space.height }, nodes, truncated, frames: false, space, maxTextLength: config.ax.maxTextLength };
      return expectationFailure({ app: this.name, query, timeout, gone, hits, tree: formatted });
    }, line);
    return hits[0] && inImage(hits[0], tree.space);
  }

  async getAXState(options: AXStateOptions = {}): Promise<AXState> {
    const config = this.ctx.config();
    const { window, space, nodes, truncated, note: treeNote } = await this.readTree(options, config);
    const input: FormatInput = { app: this.name, window, image: { width: space.width, height: space.height }, nodes, truncated, frames: options.frames === true, space, maxTextLength: config.ax.maxTextLength };
    const read = this.history.read(windowKey(window, this.pid), input, { disableDiffing: options.disableDiffing });
    const note = this.judge.observe("tree", fingerprint(read.full ? read.text : JSON.stringify(nodes)));
    const text = [read.text, ...[treeNote, note].filter(Boolean).map((n) => `(${n})`)].join("\n");
    const state = new AXState(this.name, window, input.image, text, nodes.map((n) => inImage(n, space)), truncated, !read.full);
    if (options.emit !== false) this.ctx.show(state.bundle(), state, state.metadata());
    return state;
  }

  async getScreenshot(options: ScreenshotOptions = {}): Promise<Screenshot> {
    const config = this.ctx.config();
    const format = options.format ?? config.screenshot.format;
    const quality = options.quality ?? config.screenshot.quality;
    const { space, window } = await this.imageSpace(config);
    if (window.windowId === undefined) throw new DeskError("no_window", `${this.name}'s window has no id to capture`);
    const marks = options.marks ? await this.marksFor(window, space, options.marks, config) : [];
    // A helper that paints marks itself does so before its only encode: no decode and second
    // encode here (~25 ms of CPU on a 1568×980 window, docs/design.md). Work above the
    // helper's budget (a raised maxPixels) is painted here, in this cell's own process.
    const withinBudget = marks.length <= MAX_MARKS && markBudgetProblem(space.width, space.height, marks) === undefined;
    const helperPaints = marks.length > 0 && withinBudget && (await offersMarks(await this.ctx.client()));
    const request = { windowId: window.windowId, width: space.width, height: space.height, format, quality };
    const shot = await this.call("screenshot", helperPaints ? { ...request, marks } : request);
    let data: Buffer = Buffer.from(shot.data, "base64");
    if (marks.length > 0 && !helperPaints) data = await drawMarks(data, format, quality, marks);
    // The image handed back, as the tree's is its text: marked wherever it was painted, so a
    // helper that paints (Linux) and one that does not (macOS) judge the same progress.
    const note = this.judge.observe("image", fingerprint(data));
    const screenshot: Screenshot = { data, width: shot.width, height: shot.height, mimeType: shot.mimeType, window };
    // The caption quotes the window title, which the app chose.
    if (options.emit !== false) this.ctx.show(screenshotBundle(this.name, screenshot, space, note), screenshot, untrustedMetadata(this.name));
    return screenshot;
  }

  /**
   * The deepest element at an image point of the window (the pixels of getScreenshot), or
   * undefined when nothing accessible is there. Its frame is in image pixels.
   */
  async elementAt(point: Point): Promise<ElementAtPoint | undefined> {
    if (!Array.isArray(point) || point.length !== 2 || !point.every((n) => typeof n === "number" && Number.isFinite(n))) {
      throw new TypeError("elementAt takes an image point [x, y]");
    }
    const { space } = await this.imageSpace(this.ctx.config());
    space.assertInside(point);
    const [x, y] = space.toScreen(point);
    const hit = await this.call("hitTest", { x, y });
    if (hit.index === undefined) return undefined;
    const known = this.known.get(hit.index);
    const found: ElementAtPoint = { ...(known ?? {}), i: hit.index, role: hit.role, actions: hit.actions, frame: space.frameToImage(hit.frame) };
    delete (found as Partial<AXNode>).d;
    return found;
  }

  /**
   * A closer look at a region of the window, for reading small text: `region` is
   * [x, y, width, height] in image pixels, captured `scale` times larger (default 2). The
   * zoomed image's pixels are NOT click coordinates: point at `region`'s own pixels instead.
   * Detail beyond the screen's own resolution is interpolated, not real.
   */
  async zoom(region: [number, number, number, number], options: ZoomOptions = {}): Promise<Zoom> {
    const config = this.ctx.config();
    const format = options.format ?? "png";
    const quality = options.quality ?? config.screenshot.quality;
    const { space, window } = await this.imageSpace(config);
    const wanted = checkRegion(region, space.width, space.height);
    const capture = zoomCapture(space.width, space.height, options.scale ?? 2);
    if (window.windowId === undefined) throw new DeskError("no_window", `${this.name}'s window has no id to capture`);
    const shot = await this.call("screenshot", { windowId: window.windowId, width: capture.width, height: capture.height, format: "png" });
    const cut = await cropZoomed(Buffer.from(shot.data, "base64"), wanted, capture.scale, format, quality);
    const zoom: Zoom = { ...cut, mimeType: format === "jpeg" ? "image/jpeg" : "image/png", region: wanted, scale: capture.scale };
    if (options.emit !== false) {
      const note = `Zoom of ${this.name} region ${JSON.stringify(wanted)} ×${capture.scale.toFixed(2)}: ${cut.width}×${cut.height} pixels. These pixels are not click coordinates; the region's are.`;
      this.ctx.show({ [zoom.mimeType]: zoom.data, "text/plain": note }, zoom);
    }
    return zoom;
  }

  /**
   * Reads the text drawn in the window by OCR (Linux: tesseract; macOS: Vision), for apps
   * whose text is not in their accessibility tree. `region` is [x, y, width, height] in image
   * pixels (default the whole window); `options` prepare the image and describe the text
   * (`scale`, `binarize`, `removeLines`, `layout`, `chars`: see ocr-options.ts). Returns lines
   * top to bottom, each with its words, frames in image pixels, which clicks take.
   */
  async readText(region?: [number, number, number, number] | ReadTextOptions, options?: ReadTextOptions): Promise<TextLine[]> {
    // readText(options) reads the whole window.
    if (region !== undefined && !Array.isArray(region)) [region, options] = [undefined, region];
    const ocr = checkOcrOptions(options);
    const { space, window } = await this.imageSpace(this.ctx.config());
    const wanted = region === undefined ? undefined : checkRegion(region, space.width, space.height);
    if (window.windowId === undefined) throw new DeskError("no_window", `${this.name}'s window has no id to capture`);
    const params = { windowId: window.windowId, width: space.width, height: space.height, ...(wanted ? { region: wanted } : {}), ...ocr };
    return (await this.lasting(`reading ${this.name}'s text by OCR`, `Read ${this.name}'s text by OCR`, () => this.call("readText", params))).lines;
  }

  async find(query: Query): Promise<AXNode | undefined> {
    return (await this.findAll(query))[0];
  }

  async findAll(query: Query): Promise<AXNode[]> {
    validateQuery(query);
    return this.findIn(query, this.ctx.config());
  }

  private async findIn(query: Query, config: DeskbookConfig): Promise<AXNode[]> {
    const { nodes, space } = await this.readTree({}, config);
    return nodes.filter((n) => matches(n, query)).map((n) => inImage(n, space));
  }

  async waitFor(query: Query, options: { timeout?: number; gone?: boolean } & WaitOptions = {}): Promise<AXNode | undefined> {
    validateQuery(query);
    const what = options.gone ? "to disappear" : "to appear";
    const met = (found: AXNode | undefined) => (options.gone ? !found : found !== undefined);
    const line = { waiting: `for ${describeQuery(query)} ${what} in ${this.name}`, done: `${describeQuery(query)} ${options.gone ? "disappeared" : "appeared"} in ${this.name}` };
    const config = this.ctx.config();
    return this.poll("waitFor", options, 10_000, async () => (await this.findIn(query, config))[0], met, (_last, timeout) => new WaitTimeout(`waited ${timeout} ms for ${describeQuery(query)} ${what} in ${this.name}`), line);
  }

  /**
   * The one poll of waitFor and expect: `read` until `met`, waking on the app's accessibility
   * events where the helper watches it, else every `interval` ms; at the deadline, `fail`'s error.
   * A wait that lasts shows `line` in the cell (what is awaited; what came true) until it ends.
   */
  private async poll<R>(verb: string, options: { timeout?: number } & WaitOptions, defaultTimeout: number, read: () => Promise<R>, met: (result: R) => boolean, fail: (last: R, timeout: number) => Error, line: { waiting: string; done: string }): Promise<R> {
    const { timeout, interval } = pollTimings(verb, options, defaultTimeout);
    const deadline = Date.now() + timeout;
    const progress = { waiting: line.waiting, limitMs: timeout, done: (_r: R, took: string) => sentence(`${line.done} after ${took}.`) };
    return withProgressLine(() => this.ctx.live(), progress, async () => {
      const waiting = await this.changeWait(options.events !== false, interval);
      for (;;) {
        const result = await read();
        if (met(result)) return result;
        if (Date.now() >= deadline) throw fail(result, timeout);
        await waiting.next(deadline);
      }
    });
  }

  /** The waiting between two reads of waitFor and expect: on the app's events where the helper watches it. */
  private async changeWait(events: boolean, interval: number): Promise<ChangeWait> {
    const waiting = new ChangeWait((after, timeoutMs) => this.call("waitChange", { timeoutMs, ...(after !== undefined && { after }) }), events, interval);
    await waiting.start();
    return waiting;
  }

  /** An action that can take seconds: a progress line in the cell while it lasts longer than one. */
  private lasting<T>(doing: string, done: string, work: () => Promise<T>): Promise<T> {
    return withProgressLine(() => this.ctx.live(), { doing, done: (_result: T, took: string) => `${done}; it took ${took}.` }, work);
  }

  /** Checks the stop flag, then calls a gated helper method for this app. */
  private async call<M extends AppMethod>(method: M, params: Omit<MethodParams<M>, "pid">): Promise<MethodResult<M>> {
    this.ctx.control.checkStopped();
    const client = await this.ctx.client();
    return client.request(method, { ...params, pid: this.pid } as MethodParams<M>);
  }

  /**
   * One helper call: axTree without a window picks the one imageSpace would (focused, else
   * main, else first) and answers it. A window with no windowId (no window server twin) is
   * what a read without windows met before: imageSpace says so, or names the window to use.
   */
  private async readTree(options: AXStateOptions, config: DeskbookConfig): Promise<View & { nodes: AXNode[]; truncated: boolean; note?: string }> {
    const tree = await this.call("axTree", {
      maxNodes: options.maxNodes ?? config.ax.maxNodes,
      maxDepth: options.maxDepth ?? config.ax.maxDepth,
      maxText: config.ax.maxTextLength,
      menus: options.menus === true,
    });
    const { window, space } = tree.window.windowId === undefined ? await this.imageSpace(config) : { window: tree.window, space: new ImageSpace(tree.window, config.screenshot) };
    for (const node of tree.nodes) this.known.set(node.i, node);
    return { window, space, nodes: tree.nodes, truncated: tree.truncated, ...(tree.note ? { note: tree.note } : {}) };
  }

  private async imageSpace(config: DeskbookConfig): Promise<View> {
    const windows = await this.call("windows", {});
    const window = windows.find((w) => w.focused) ?? windows.find((w) => w.main) ?? windows[0];
    if (!window) throw new DeskError("no_window", `${this.name} has no window`);
    return { window, space: new ImageSpace(window, config.screenshot) };
  }

  /**
   * The front window's id for the input router, looked up (once) only if it tries the
   * background route: input aimed at no point needs no window otherwise, and the foreground
   * route's activate and the helper's own focus check say when there is none to type into.
   */
  private windowIdWhenAsked(config: DeskbookConfig): () => Promise<number | undefined> {
    let id: Promise<number | undefined> | undefined;
    return () => (id ??= this.imageSpace(config).then((view) => view.window.windowId));
  }

  /** Where an action lands; `method` names the action for the recorder. */
  private async resolve(target: Target, method: string, config: DeskbookConfig): Promise<Resolved> {
    if (Array.isArray(target)) return { kind: "point", point: target as Point };
    return this.resolveElement(target, method, config);
  }

  /** An element target's index, and the read that found it; `method` names an action the recorder should hear of. */
  private async resolveElement(target: ElementTarget, method: string | undefined, config: DeskbookConfig): Promise<ResolvedElement> {
    if (typeof target === "number") {
      checkIndex(target);
      if (method !== undefined) await this.noteIndexUse(method, target, config);
      return { kind: "element", index: target };
    }
    if (typeof target !== "object" || target === null || Array.isArray(target)) {
      throw new TypeError("an element is an index, a locator like { role: \"push button\", label: \"OK\" }, or { find: query }");
    }
    if ("find" in target) {
      validateQuery(target.find);
      const { nodes, window, space } = await this.readTree({}, config);
      const node = nodes.find((n) => matches(n, target.find));
      if (!node) throw new DeskError("not_found", `nothing in ${this.name} matches ${describeQuery(target.find)}`);
      return { kind: "element", index: node.i, node, view: { window, space } };
    }
    // An action's locator matches exactly or tolerantly only, unless it says match: "contains".
    validateLocator(target);
    return this.locateWith(target, tiersFor(target, true), config);
  }

  private async elementIndex(target: ElementTarget, method: string, config: DeskbookConfig): Promise<number> {
    return (await this.resolveElement(target, method, config)).index;
  }

  /**
   * The element a click names, once it reads as enabled: a click on a disabled control is
   * lost (GTK's Save turns enabled only a moment after its file name is set). Waits as waitFor
   * does, re-resolving the target on each read; fails with action_failed at the deadline.
   */
  private async enabled(target: ElementTarget, found: ResolvedElement, options: { timeout?: number }, config: DeskbookConfig): Promise<ResolvedElement> {
    const isEnabled = (r: ResolvedElement) => (r.node ?? this.known.get(r.index))?.disabled !== true;
    if (isEnabled(found)) return found;
    const resolve = async (): Promise<ResolvedElement> => {
      if (typeof target !== "number") return this.resolveElement(target, undefined, config);
      await this.readTree({}, config);
      return { kind: "element", index: target };
    };
    const what = typeof target === "number" ? `element ${target}` : "find" in target ? describeQuery(target.find) : locatorSource(target);
    const line = { waiting: `for ${what} in ${this.name} to turn enabled before clicking it`, done: `${what} in ${this.name} turned enabled` };
    return this.poll("click", options, 5000, resolve, isEnabled, (_r, timeout) => new DeskError("action_failed", `${what} in ${this.name} stayed disabled for ${timeout} ms, so the click was not sent; { force: true } clicks it anyway`, "click"), line);
  }

  /** While recording, the locator of an element an action names by index, taken before the action changes the tree. */
  private async noteIndexUse(method: string, index: number, config: DeskbookConfig): Promise<void> {
    const recorder = this.ctx.recorder;
    if (!recorder?.recording()) return;
    const locator = await this.locatorIn(index, config).catch(() => undefined);
    recorder.usedIndex({ app: this.name, method, index, ...(locator ? { locator } : {}) });
  }

  /** The app's windows, front one (as reads choose it) first. */
  private async orderedWindows(): Promise<WindowInfo[]> {
    const windows = await this.call("windows", {});
    const front = windows.find((w) => w.focused) ?? windows.find((w) => w.main) ?? windows[0];
    if (!front) throw new DeskError("no_window", `${this.name} has no window`);
    return [front, ...windows.filter((w) => w !== front)];
  }

  /**
   * Reads of the windows a locator's `window` title names (tiers as for elements), or of the
   * front window: that one is a single axTree call, which picks the window as orderedWindows
   * would and names it in its answer, so no `windows` call goes before it.
   */
  private async readWindows(title: string | undefined, menus: boolean, config: DeskbookConfig): Promise<WindowRead[]> {
    if (title === undefined) {
      const { window, space, nodes, truncated } = await this.readTree({ menus }, config);
      return [{ window, space, entries: withAncestors(nodes), truncated }];
    }
    const windows = await this.orderedWindows();
    for (const tier of ["exact", "tolerant", "contains"] as Tier[]) {
      const named = windows.filter((w) => textMeets(w.title, title, tier));
      if (named.length > 0) return Promise.all(named.map((w) => this.readWindow(w, menus, config)));
    }
    throw new DeskError("not_found", `${this.name} has no window titled ${JSON.stringify(title)}; its windows: ${windows.map((w) => JSON.stringify(w.title)).join(", ")}`);
  }

  private async readWindow(window: WindowInfo, menus: boolean, config: DeskbookConfig): Promise<WindowRead> {
    const tree = await this.call("axTree", { window: window.index, maxNodes: config.ax.maxNodes, maxDepth: config.ax.maxDepth, maxText: config.ax.maxTextLength, menus });
    for (const node of tree.nodes) this.known.set(node.i, node);
    return { window, space: new ImageSpace(window, config.screenshot), entries: withAncestors(tree.nodes), truncated: tree.truncated };
  }

  /** Where a resolved target lands on screen: the centre of the element's frame as its read saw it, or the image point's screen point. */
  private async screenPoint(target: Resolved, config: DeskbookConfig): Promise<{ point: Point; windowId: WindowIdSource }> {
    if (target.kind === "element") {
      // An element's frame is in screen points already: its window is looked up only for the background route.
      const windowId = target.view ? target.view.window.windowId : this.windowIdWhenAsked(config);
      const [x, y, w, h] = target.node?.frame ?? (await this.call("elementFrame", { index: target.index })).frame;
      return { point: [x + w / 2, y + h / 2], windowId };
    }
    const { space, window } = await this.imageSpace(config);
    const point = target.point;
    if (point.length !== 2 || !point.every((n) => typeof n === "number" && Number.isFinite(n))) throw new TypeError("an image point is [x, y] with two numbers");
    space.assertInside(point);
    return { point: space.toScreen(point), windowId: window.windowId };
  }

  private async isPressable(target: ResolvedElement): Promise<boolean> {
    const node = target.node ?? this.known.get(target.index);
    if (node) return isPressable(node.role) && !node.disabled;
    return (await this.call("actionNames", { index: target.index })).actions.includes("AXPress");
  }

  /** Marks for the last read of the window (read now if there was none). */
  private async marksFor(window: WindowInfo, space: ImageSpace, option: MarksOption, config: DeskbookConfig): Promise<Mark[]> {
    const nodes = this.history.nodes(windowKey(window, this.pid)) ?? (await this.readTree({}, config)).nodes;
    return selectMarks(nodes.map((n) => inImage(n, space)), option);
  }

  /**
   * The one settle, after every action: a new round for the "nothing changed" judge; then, unless
   * settleMs is 0, a wait until the app has handled the input the action sent (InputRouter.settle)
   * and `settleMs` for the app to react to it.
   */
  private async acted(key: string, config: DeskbookConfig): Promise<void> {
    this.judge.afterAction(key);
    if (config.settleMs <= 0) return;
    await this.router.settle();
    await sleep(config.settleMs);
  }
}

interface WindowRead {
  window: WindowInfo;
  space: ImageSpace;
  entries: TreeEntry[];
  truncated: boolean;
}

function checkIndex(index: unknown): number {
  if (!Number.isInteger(index) || (index as number) < 0) throw new TypeError(`an element index is a whole number from a read, not ${JSON.stringify(index)}`);
  return index as number;
}

function inImage(node: AXNode, space: ImageSpace): AXNode {
  return node.frame ? { ...node, frame: space.frameToImage(node.frame) } : { ...node };
}

function fingerprint(data: string | Buffer): string {
  return createHash("sha1").update(data).digest("hex");
}

function screenshotBundle(app: string, shot: Screenshot, space: ImageSpace, note: string | undefined): Record<string, string | Buffer> {
  const points = (1 / space.scale).toFixed(2);
  const lines = [
    `Screenshot of ${app} — "${shot.window.title}": ${shot.width}×${shot.height} image pixels; 1 pixel = ${points} screen points.`,
    `click([x, y]) and frames use these pixels, (0, 0) at the window's top-left.`,
  ];
  if (note) lines.push(`(${note})`);
  return { [shot.mimeType]: shot.data, "text/plain": lines.join("\n") };
}

