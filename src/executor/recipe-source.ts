// A cell's source as the recorder writes it into a recipe: every element verb called with an
// index literal (`calc.click(39)`) gets the element's locator instead, `input.password(…)`
// becomes `desk.secret("password", …)` (a parameter of the recipe, never its value), and the
// statements that control the recording itself are left out. Edits are in place on acorn
// ranges, so the user's comments and layout stay.
import * as acorn from "acorn";
import * as walk from "acorn-walk";
import { PARSE_OPTIONS } from "./rewrite.js";
import { locatorSource, type Locator } from "../desk/locator.js";

/** The verbs whose first argument is an element (docs/api.md). */
const ELEMENT_VERBS = new Set(["click", "scroll", "setValue", "focus", "selectText", "performAction", "actions"]);
const DESK_NAMES = new Set(["desk", "cua"]);
const RECORDING_VERBS = new Set(["record", "stopRecording"]);

export interface RecipeSource {
  source: string;
  /** Secret names the cell asks for (desk.secret), in order: the recipe's parameters. */
  secrets: string[];
  /** How many index literals became locators. */
  located: number;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * `locators` maps the indices the cell's actions used to their elements' locators;
 * `newSecretName` names each `input.password` call's parameter.
 */
export function recipeSource(source: string, locators: ReadonlyMap<number, Locator>, newSecretName: () => string): RecipeSource {
  let program: acorn.Program;
  try {
    program = acorn.parse(source, PARSE_OPTIONS);
  } catch {
    return { source, secrets: [], located: 0 }; // it ran, so this is an object-literal cell: nothing to rewrite
  }
  const edits: Edit[] = [];
  const secrets: string[] = [];
  let located = 0;
  for (const statement of program.body) {
    if (controlsRecording(statement)) edits.push({ start: statement.start, end: statement.end, text: "" });
  }
  walk.simple(program, {
    CallExpression(node) {
      const call = node as acorn.CallExpression;
      const verb = memberName(call.callee);
      const first = call.arguments[0];
      if (verb && ELEMENT_VERBS.has(verb) && first?.type === "Literal" && typeof first.value === "number") {
        const locator = locators.get(first.value);
        if (locator) {
          edits.push({ start: first.start, end: first.end, text: locatorSource(locator) });
          located++;
        }
      }
      if (verb === "password" && objectName(call.callee) === "input") {
        const name = newSecretName();
        secrets.push(name);
        const args = call.arguments.map((a) => source.slice(a.start, a.end));
        edits.push({ start: call.start, end: call.end, text: `desk.secret(${[JSON.stringify(name), ...args].join(", ")})` });
      }
      if (verb === "secret" && DESK_NAMES.has(objectName(call.callee) ?? "") && first?.type === "Literal" && typeof first.value === "string") {
        secrets.push(first.value);
      }
    },
  });
  return { source: applyEdits(source, withoutNested(edits)), secrets, located };
}

/** `desk.record(…)` / `desk.stopRecording()` as a whole statement, awaited or not. */
function controlsRecording(statement: acorn.Statement | acorn.ModuleDeclaration): boolean {
  if (statement.type !== "ExpressionStatement") return false;
  let expression = statement.expression;
  if (expression.type === "AwaitExpression") expression = expression.argument;
  if (expression.type !== "CallExpression") return false;
  return RECORDING_VERBS.has(memberName(expression.callee) ?? "") && DESK_NAMES.has(objectName(expression.callee) ?? "");
}

function memberName(callee: acorn.Expression | acorn.Super): string | undefined {
  if (callee.type !== "MemberExpression" || callee.computed || callee.property.type !== "Identifier") return undefined;
  return callee.property.name;
}

function objectName(callee: acorn.Expression | acorn.Super): string | undefined {
  return callee.type === "MemberExpression" && callee.object.type === "Identifier" ? callee.object.name : undefined;
}

/** A removed statement wins over edits inside it. */
function withoutNested(edits: Edit[]): Edit[] {
  return edits.filter((e) => !edits.some((o) => o !== e && o.start <= e.start && e.end <= o.end && o.end - o.start > e.end - e.start));
}

function applyEdits(source: string, edits: Edit[]): string {
  let out = source;
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

const BINDS_APP = /\b(?:desk|cua)\s*\.\s*(?:getApp|launch)\s*\(/;

/** The cell's top-level declarations that bind an app (`const calc = await desk.getApp(…)`), by name. */
export function appBindings(source: string): { name: string; text: string }[] {
  if (!BINDS_APP.test(source)) return [];
  let program: acorn.Program;
  try {
    program = acorn.parse(source, PARSE_OPTIONS);
  } catch {
    return [];
  }
  const found: { name: string; text: string }[] = [];
  for (const statement of program.body) {
    if (statement.type !== "VariableDeclaration") continue;
    const text = source.slice(statement.start, statement.end);
    if (!BINDS_APP.test(text)) continue;
    const names = statement.declarations.map((d) => (d.id.type === "Identifier" ? d.id.name : source.slice(d.id.start, d.id.end)));
    found.push({ name: names.join(","), text: text.endsWith(";") ? text : `${text};` });
  }
  return found;
}
