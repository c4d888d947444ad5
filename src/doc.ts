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
