// desk.record(path) … desk.stopRecording(): every cell that runs in between — from a notebook
// frontend, `deskbook run` or an MCP agent, all of which run cells here — is appended to a
// recipe notebook with its outputs, written after each cell so a crash loses nothing. Index
// literals become locators (taken before the action, from the tree it acted on), secrets
// become parameters and are blotted out of the outputs. Cells that fail or are stopped are
// not written: a recipe holds what worked.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import * as acorn from "acorn";
import type { ActionRecorder, IndexUse } from "../desk/desk-context.js";
import type { Locator } from "../desk/locator.js";
import { cellTitle } from "../cell-title.js";
import { codeCell, hasTag, joinSource, markdownCell, newCellId, parseNotebook, serialiseNotebook, splitLines, type Cell, type Notebook } from "../runner/notebook.js";
import type { ExecuteOutcome, FromExecutor } from "./ipc-messages.js";
import { appBindings, recipeSource } from "./recipe-source.js";
import { blot, blotText, recordedOutputs } from "./recorded-outputs.js";
import { PARSE_OPTIONS } from "./rewrite.js";
import { makeDirsSync } from "../make-dirs.js";

interface Recording {
  path: string;
  notebook: Notebook;
  /** Parameters the recipe declares for its secrets. */
  secretNames: Set<string>;
  /** Execution count of the next recorded cell. */
  count: number;
}

interface Capture {
  recording: Recording;
  cellId: number;
  code: string;
  step: string | undefined;
  messages: FromExecutor[];
  uses: IndexUse[];
}

const KERNELSPEC = { name: "deskbook", display_name: "Deskbook (JavaScript)", language: "javascript" };
const LANGUAGE_INFO = { name: "javascript", file_extension: ".js", mimetype: "text/javascript" };
const PARAMETERS_HEAD = "// parameters\n// Secrets: a notebook frontend asks for each; deskbook run takes it as -p NAME VALUE.\n";

export class Recorder implements ActionRecorder {
  private current: Recording | undefined;
  private capture: Capture | undefined;
  /** Every secret value the session was given: never written, whatever cell shows it. */
  private readonly secretValues = new Set<string>();
  /** Top-level declarations that bound apps, by name: the recipe's first cell binds them again. */
  private readonly bindings = new Map<string, string>();

  /** `warn`: where a failure to write the recipe is reported (the cell's stderr). */
  constructor(
    private readonly baseDir: string,
    private readonly warn: (text: string) => void,
  ) {}

  recording(): boolean {
    return this.current !== undefined;
  }

  usedIndex(use: IndexUse): void {
    this.capture?.uses.push(use);
  }

  secret(value: string): void {
    if (value !== "") this.secretValues.add(value);
  }

  /** Starts recording to `path` (relative to the notebook's folder); appends when it is already a notebook. */
  start(path: string): string {
    if (typeof path !== "string" || !path.endsWith(".ipynb")) throw new TypeError(`desk.record takes the path of a notebook to write, ending in .ipynb, not ${JSON.stringify(path)}`);
    if (this.current) throw new Error(`already recording to ${this.current.path}; desk.stopRecording() first`);
    const full = resolve(this.baseDir, path);
    const notebook = existsSync(full) ? readRecipe(full) : newRecipe(full, [...this.bindings.values()]);
    const secretNames = new Set(notebook.cells.filter((c) => hasTag(c, "parameters")).flatMap((c) => declaredNames(joinSource(c.source))));
    const count = 1 + Math.max(0, ...notebook.cells.map((c) => (typeof c.execution_count === "number" ? c.execution_count : 0)));
    const recording = { path: full, notebook, secretNames, count };
    const failed = this.write(recording);
    if (failed) throw new Error(`desk.record cannot write ${full}: ${failed}`);
    this.current = recording;
    return full;
  }

  /** Stops recording; the cell that calls it is still written when it ends. Returns the recipe's path. */
  stop(): string | undefined {
    const path = this.current?.path;
    this.current = undefined;
    return path;
  }

  cellStarting(cellId: number, code: string, step: string | undefined): void {
    this.capture = this.current ? { recording: this.current, cellId, code, step, messages: [], uses: [] } : undefined;
  }

  /** Every message the executor sends: the recorded cell's outputs are kept. */
  observe(message: FromExecutor): void {
    const capture = this.capture;
    if (!capture || !("cell" in message) || message.cell !== capture.cellId) return;
    if (message.type === "stream" || message.type === "display" || message.type === "clear_output") capture.messages.push(message);
  }

  cellEnded(code: string, outcome: ExecuteOutcome): void {
    const capture = this.capture;
    this.capture = undefined;
    if (outcome.status !== "ok") return;
    for (const binding of appBindings(code)) this.bindings.set(binding.name, binding.text);
    if (capture) this.append(capture, outcome);
  }

  private append(capture: Capture, outcome: Extract<ExecuteOutcome, { status: "ok" }>): void {
    const recording = capture.recording;
    const locators = new Map<number, Locator>();
    for (const use of capture.uses) if (use.locator && !locators.has(use.index)) locators.set(use.index, use.locator);
    const taken = new Set(recording.secretNames);
    const rewritten = recipeSource(capture.code, locators, () => freeName("password", taken));
    let source = rewritten.source.replace(/\s+$/, "");
    if (!hasStatements(source)) return; // only the recording's own controls were in it
    const title = capture.step === undefined ? "" : oneLine(capture.step);
    if (cellTitle(source) === undefined && title) source = `// ${title}\n${source}`;
    const fresh = rewritten.secrets.filter((name) => !recording.secretNames.has(name));
    if (fresh.length) declareSecrets(recording, fresh);
    const outputs = recordedOutputs(capture.messages, outcome.result, recording.count, this.secretValues);
    recording.notebook.cells.push({ id: newCellId(), cell_type: "code", source: splitLines(blotText(source, this.secretValues)), metadata: {}, outputs, execution_count: recording.count++ });
    // A secret given after a cell that wrote its value (a `deskbook run -p` cell, say) is blotted there too.
    blotCells(recording.notebook, this.secretValues);
    const failed = this.write(recording);
    if (failed) this.warn(`desk.record could not write ${recording.path}: ${failed}\n`);
  }

  /** Writes the recipe whole (a new file renamed over the old); returns why it failed, if it did. */
  private write(recording: Recording): string | undefined {
    try {
      makeDirsSync(dirname(recording.path));
      const temporary = `${recording.path}.recording`;
      writeFileSync(temporary, serialiseNotebook(recording.notebook));
      renameSync(temporary, recording.path);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  }
}

function readRecipe(path: string): Notebook {
  try {
    return parseNotebook(readFileSync(path, "utf8"), path);
  } catch (error) {
    throw new Error(`desk.record appends to ${path}, which is not a notebook it can read: ${(error as Error).message}`);
  }
}

function newRecipe(path: string, bindings: string[]): Notebook {
  const started = new Date().toISOString();
  const cells: Cell[] = [
    markdownCell(`# Recorded recipe\n\nRecorded by Deskbook on ${started.slice(0, 10)}. Run it again with \`deskbook run ${path.split("/").pop()}\`.`),
  ];
  if (bindings.length) cells.push(codeCell(`// bind the apps (as the session bound them before the recording)\n${bindings.join("\n")}`, []));
  return { nbformat: 4, nbformat_minor: 5, metadata: { kernelspec: KERNELSPEC, language_info: LANGUAGE_INFO, deskbook: { recorded: started } }, cells };
}

/** Declares each new secret in the recipe's parameters cell, made after the title when there is none. */
function declareSecrets(recording: Recording, names: string[]): void {
  const cells = recording.notebook.cells;
  let parameters = cells.find((c) => hasTag(c, "parameters"));
  if (!parameters) {
    parameters = codeCell(PARAMETERS_HEAD, ["parameters"]);
    const firstCode = cells.findIndex((c) => c.cell_type === "code");
    cells.splice(firstCode < 0 ? cells.length : firstCode, 0, parameters);
  }
  const text = joinSource(parameters.source).replace(/\s*$/, "\n");
  parameters.source = splitLines(text + names.map((n) => `let ${n} = undefined\n`).join(""));
  for (const name of names) recording.secretNames.add(name);
}

/** A step title as one comment line: control characters (newlines among them) become spaces. */
export function oneLine(text: string): string {
  return text.replace(/[\p{Cc}\u2028\u2029]+/gu, " ").replace(/ {2,}/g, " ").trim();
}

/** Every cell's source and outputs with each secret value replaced. */
function blotCells(notebook: Notebook, secrets: ReadonlySet<string>): void {
  if (secrets.size === 0) return;
  for (const cell of notebook.cells) {
    const source = joinSource(cell.source);
    const blotted = blotText(source, secrets);
    if (blotted !== source) cell.source = splitLines(blotted);
    if (cell.outputs) cell.outputs = blot(cell.outputs, secrets) as typeof cell.outputs;
  }
}

function freeName(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
  taken.add(name);
  return name;
}

function hasStatements(source: string): boolean {
  try {
    return acorn.parse(source, PARSE_OPTIONS).body.length > 0;
  } catch {
    return true;
  }
}

function declaredNames(source: string): string[] {
  return [...source.matchAll(/^\s*(?:let|const|var)\s+([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]!);
}
