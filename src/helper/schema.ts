// Runtime validation against protocol.schema.json: the client checks params before sending and
// replies after receiving; the scripted helper checks what it receives with the same code.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import { METHOD_NAMES, type MethodName } from "./protocol.js";

export type Validation = { ok: true } | { ok: false; message: string };

export type EnvelopeKind = "Request" | "Reply" | "Event";

// The schema is read at runtime rather than imported: JSON module imports are still
// experimental on Node 20 (a warning on every start) and tsc does not copy .json files.
// Candidates, first hit wins:
//   1. next to this module: src/helper/ when run from source (vitest);
//   2. from dist/src/helper/ back up to the repo's src/helper/: the compiled build. The package
//      ships src/ next to dist/ (package.json has no "files" list), so this holds once installed.
const SCHEMA_CANDIDATES: readonly URL[] = [
  new URL("./protocol.schema.json", import.meta.url),
  new URL("../../../src/helper/protocol.schema.json", import.meta.url),
];

const SCHEMA_KEY = "deskbook-helper-protocol";

interface SchemaDocument {
  definitions: Record<string, unknown>;
}

interface Compiled {
  document: SchemaDocument;
  ajv: Ajv;
  definitions: ReadonlySet<string>;
  validators: Map<string, ValidateFunction>;
}

let compiled: Compiled | null = null;

/** Where the schema was found; throws naming every place looked at. */
export function schemaPath(): string {
  for (const url of SCHEMA_CANDIDATES) {
    const path = fileURLToPath(url);
    if (existsSync(path)) return path;
  }
  const tried = SCHEMA_CANDIDATES.map((url) => fileURLToPath(url)).join(", ");
  throw new Error(`protocol.schema.json not found; looked at ${tried}`);
}

/** The parsed schema document (read once). */
export function protocolSchema(): SchemaDocument {
  return load().document;
}

function load(): Compiled {
  if (compiled) return compiled;
  const document = JSON.parse(readFileSync(schemaPath(), "utf8")) as SchemaDocument;
  // ajv is required here, on the first check, not imported at the top: it costs ~3 MB and
  // ~150 ms, and the kernel and the executor load this module long before (or without) a
  // helper call. It is CommonJS, so a synchronous require keeps these checks synchronous.
  const { Ajv: AjvClass } = createRequire(import.meta.url)("ajv") as typeof import("ajv");
  // allowUnionTypes: ids are integer | string, setValue's value is string | number | boolean.
  const ajv = new AjvClass({ allowUnionTypes: true });
  ajv.addSchema(document, SCHEMA_KEY);
  compiled = { document, ajv, definitions: new Set(Object.keys(document.definitions)), validators: new Map() };
  return compiled;
}

/** Compiled once per definition, on first use. */
function validator(definition: string): ValidateFunction {
  const state = load();
  let validate = state.validators.get(definition);
  if (!validate) {
    if (!state.definitions.has(definition)) throw new Error(`the schema has no definition "${definition}"`);
    validate = state.ajv.getSchema(`${SCHEMA_KEY}#/definitions/${definition}`)!;
    state.validators.set(definition, validate);
  }
  return validate;
}

const KNOWN_METHODS: ReadonlySet<string> = new Set(METHOD_NAMES);

export function isKnownMethod(name: unknown): name is MethodName {
  return typeof name === "string" && KNOWN_METHODS.has(name);
}

export function validateParams(method: string, params: unknown): Validation {
  if (!isKnownMethod(method)) return { ok: false, message: `unknown method "${method}"` };
  return check(`${method}.params`, params, `${method} params`);
}

export function validateResult(method: string, result: unknown): Validation {
  if (!isKnownMethod(method)) return { ok: false, message: `unknown method "${method}"` };
  return check(`${method}.result`, result, `${method} result`);
}

/** Checks a whole line's object: a request, a reply, or an event. */
export function validateEnvelope(kind: EnvelopeKind, value: unknown): Validation {
  return check(kind, value, kind.toLowerCase());
}

function check(definition: string, value: unknown, label: string): Validation {
  const validate = validator(definition);
  if (validate(value)) return { ok: true };
  return { ok: false, message: `${label}: ${describeErrors(validate.errors ?? [])}` };
}

// ---------------------------------------------------------------------------
// Messages. Ajv's raw output ("must have required property 'x'" plus a trail of anyOf noise)
// is turned into one short sentence naming the field.

/** One readable sentence for ajv's errors (first relevant error wins). */
export function describeErrors(errors: readonly ErrorObject[]): string {
  if (errors.length === 0) return "is invalid";
  const alternatives = describeAlternatives(errors);
  if (alternatives) return alternatives;
  return describeError(errors[0]!);
}

/** anyOf/oneOf over `required` only (launch's bundleId|path|name, a reply's result|error). */
function describeAlternatives(errors: readonly ErrorObject[]): string | null {
  const last = errors[errors.length - 1]!;
  if (last.keyword !== "anyOf" && last.keyword !== "oneOf") return null;
  const branches = errors.filter((e) => e.instancePath === last.instancePath && e !== last);
  if (branches.length === 0 || !branches.every((e) => e.keyword === "required")) return null;
  const names = branches.map((e) => `\`${(e.params as { missingProperty: string }).missingProperty}\``);
  const how = last.keyword === "oneOf" ? "exactly one of" : "one of";
  return `${at(last.instancePath)}needs ${how} ${names.join(", ")}`;
}

function describeError(error: ErrorObject): string {
  const where = at(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return `${where}missing \`${String(params.missingProperty)}\``;
    case "additionalProperties":
      return `${where}unknown field \`${String(params.additionalProperty)}\``;
    case "enum":
      return `${where}must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "dependencies":
      return `${where}needs \`${String(params.missingProperty)}\` when \`${String(params.property)}\` is given`;
    default:
      return `${where}${error.message ?? "is invalid"}`;
  }
}

/** "/chords/0/key" → "chords[0].key " (empty for the top level). */
function at(instancePath: string): string {
  if (!instancePath) return "";
  const parts = instancePath
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  const path = parts.map((p, n) => (/^\d+$/.test(p) ? `[${p}]` : n === 0 ? p : `.${p}`)).join("");
  return `${path} `;
}
