// Deskbook's own API documentation, attached to the values it describes so
// that inspection (Shift-Tab) shows it. A registered symbol is used so that
// values living in the vm context (another realm) carry the same key.

export const DOC: unique symbol = Symbol.for("deskbook.doc");

export interface Doc {
  /** e.g. `click(target, options?)` */
  signature: string;
  /** One line. */
  summary: string;
  /** Markdown. */
  details?: string;
}

/** Attaches `doc` to `target` (non-enumerable, so it never shows up in listings) and returns `target`. */
export function documented<T extends object>(target: T, doc: Doc): T {
  Object.defineProperty(target, DOC, { value: Object.freeze({ ...doc }), enumerable: false, configurable: true, writable: false });
  return target;
}

/** The doc attached directly to `value` (inherited docs would describe a different thing). */
export function docOf(value: unknown): Doc | undefined {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return undefined;
  let candidate: unknown;
  try {
    candidate = Object.getOwnPropertyDescriptor(value, DOC)?.value;
  } catch {
    return undefined; // a hostile Proxy
  }
  return isDoc(candidate) ? candidate : undefined;
}

function isDoc(value: unknown): value is Doc {
  if (typeof value !== "object" || value === null) return false;
  const doc = value as Record<string, unknown>;
  return (
    typeof doc["signature"] === "string" &&
    typeof doc["summary"] === "string" &&
    (doc["details"] === undefined || typeof doc["details"] === "string")
  );
}

export const PUBLIC_API: unique symbol = Symbol.for("deskbook.publicApi");

/** What completion and inspection show for a Deskbook object: its documented members and what it is. */
export interface PublicApi {
  /** Member names from docs/api.md, in the reference's order. */
  members: readonly string[];
  /** The object itself, for Shift-Tab on it (`desk`, `calc`). */
  doc: Doc;
}

/**
 * Declares `target`'s public API (on a prototype, it covers every instance). Everything else
 * such an object holds is an internal: `hideInternals` makes those non-enumerable, so the
 * only enumerable own properties left are the ones the user adds.
 */
export function publishApi(target: object, api: PublicApi): void {
  const frozen: PublicApi = Object.freeze({ members: Object.freeze([...api.members]), doc: Object.freeze({ ...api.doc }) });
  Object.defineProperty(target, PUBLIC_API, { value: frozen, enumerable: false, configurable: true, writable: false });
}

/** The public API declared on `value` or its prototype chain. */
export function publicApiOf(value: unknown): PublicApi | undefined {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return undefined;
  try {
    for (let current: object | null = value; current !== null; current = Object.getPrototypeOf(current) as object | null) {
      const candidate: unknown = Object.getOwnPropertyDescriptor(current, PUBLIC_API)?.value;
      if (isPublicApi(candidate)) return candidate;
    }
  } catch {
    // a hostile Proxy
  }
  return undefined;
}

/** Marks every own property `target` has now as internal (non-enumerable); call at the end of a constructor. */
export function hideInternals(target: object): void {
  for (const name of Object.getOwnPropertyNames(target)) {
    const descriptor = Object.getOwnPropertyDescriptor(target, name);
    if (descriptor?.configurable) Object.defineProperty(target, name, { ...descriptor, enumerable: false });
  }
}

function isPublicApi(value: unknown): value is PublicApi {
  if (typeof value !== "object" || value === null) return false;
  const api = value as Record<string, unknown>;
  return Array.isArray(api["members"]) && api["members"].every((m) => typeof m === "string") && isDoc(api["doc"]);
}
