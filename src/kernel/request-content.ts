// The content of each request the kernel handles, checked against the types the Jupyter
// messaging spec gives it before any handler sees it. A request that fails gets an error
// reply (ename "BadRequest", the field named) and nothing of it runs. The table is typed from
// the request map, so a field the types know cannot go unchecked.
import type { RequestType, Requests, StdinMessages } from "../jupyter/requests.js";

/** The error name of a request refused for its form, before any of it ran. */
export const BAD_REQUEST = "BadRequest";

type Check = (value: unknown) => boolean;
/** A field's check, and whether the spec requires the field. */
type Field = { check: Check; what: string; required?: boolean };
type RequiredField = Field & { required: true };

/** Every field of a content type has a check; the ones the type requires are marked required. */
type Schema<C> = { [K in keyof C]-?: undefined extends C[K] ? Field : RequiredField };

/** The content of each message the kernel receives, by msg_type. */
export type Contents = { [T in RequestType]: Requests[T]["content"] } & StdinMessages;

const string: Field = { check: (v) => typeof v === "string", what: "a string" };
const boolean: Field = { check: (v) => typeof v === "boolean", what: "true or false" };
const count: Field = { check: (v) => Number.isSafeInteger(v) && (v as number) >= 0, what: "a whole number, 0 or more" };
const integer: Field = { check: (v) => Number.isSafeInteger(v), what: "a whole number" };
const object: Field = { check: isPlainObject, what: "an object" };
const required = (field: Field): RequiredField => ({ ...field, required: true });
const orNull = (field: Field): Field => ({ check: (v) => v === null || field.check(v), what: `${field.what} or null` });
const oneOf = (...values: unknown[]): Field => ({ check: (v) => values.includes(v), what: `one of ${values.map((v) => JSON.stringify(v)).join(", ")}` });
const stringMap: Field = {
  check: (v) => isPlainObject(v) && Object.values(v as object).every((entry) => typeof entry === "string"),
  what: "an object of strings",
};

const CONTENT: { [T in keyof Contents]: Schema<Contents[T]> } = {
  kernel_info_request: {},
  interrupt_request: {},
  execute_request: {
    code: required(string),
    silent: boolean,
    store_history: boolean,
    user_expressions: stringMap,
    allow_stdin: boolean,
    stop_on_error: boolean,
  },
  complete_request: { code: required(string), cursor_pos: count },
  inspect_request: { code: required(string), cursor_pos: count, detail_level: oneOf(0, 1) },
  is_complete_request: { code: required(string) },
  history_request: {
    output: boolean,
    raw: boolean,
    hist_access_type: oneOf("range", "tail", "search"),
    session: integer,
    start: integer,
    stop: orNull(integer),
    n: orNull(count),
    pattern: string,
    unique: boolean,
  },
  comm_info_request: { target_name: string },
  comm_open: { comm_id: required(string), target_name: required(string), data: object },
  comm_msg: { comm_id: required(string), data: object },
  comm_close: { comm_id: required(string), data: object },
  shutdown_request: { restart: boolean },
  input_reply: { value: required(string) },
};

/** A msg_type the kernel knows the content of. */
export function isKnownMessage(msgType: string): msgType is keyof Contents {
  return Object.hasOwn(CONTENT, msgType);
}

/**
 * The content, typed, when it has the spec's types; else what is wrong with it. Fields the
 * spec does not name are kept (frontends add their own) but never read.
 */
export function checkContent<T extends keyof Contents>(msgType: T, content: Record<string, unknown>): { content: Contents[T] } | { problem: string } {
  const fields: Record<string, Field> = CONTENT[msgType];
  for (const [name, field] of Object.entries(fields)) {
    const present = Object.hasOwn(content, name) && content[name] !== undefined;
    if (!present) {
      if (field.required) return { problem: `${msgType} needs content.${name} (${field.what})` };
      continue;
    }
    if (!field.check(content[name])) return { problem: `${msgType}: content.${name} must be ${field.what}, not ${describe(content[name])}` };
  }
  return { content: content as Contents[T] };
}

function isPlainObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === "object") return "an object";
  return `${typeof value} ${String(value)}`;
}
