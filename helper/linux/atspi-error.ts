// Errors of the AT-SPI service carry the protocol's codes, so that a user can search the docs
// for exactly what they see.
import type { ErrorCode } from "../../src/helper/protocol.js";

export class AtspiError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = "AtspiError";
    this.code = code;
  }
}

/** The D-Bus error name of a failed call (dbus-next's DBusError.type), if it is one. */
export function dbusErrorName(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const type = (error as { type?: unknown }).type;
  return typeof type === "string" ? type : undefined;
}

// The object or its whole connection no longer exists. NoReply is not here: a slow app
// produces it too, so callers check the bus name before calling an element gone.
const GONE_ERRORS = new Set([
  "org.freedesktop.DBus.Error.ServiceUnknown",
  "org.freedesktop.DBus.Error.NameHasNoOwner",
  "org.freedesktop.DBus.Error.UnknownObject",
  "org.freedesktop.DBus.Error.Disconnected",
]);

export function isGoneError(error: unknown): boolean {
  const name = dbusErrorName(error);
  return name !== undefined && GONE_ERRORS.has(name);
}

/** The object exists but does not implement the interface or method that was called. */
export function isUnsupportedError(error: unknown): boolean {
  const name = dbusErrorName(error);
  return name === "org.freedesktop.DBus.Error.UnknownMethod" || name === "org.freedesktop.DBus.Error.UnknownInterface";
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message.trim();
  return String(error);
}
