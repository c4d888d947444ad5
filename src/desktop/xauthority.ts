// The virtual desktop's X cookie: an Xauthority file with one MIT-MAGIC-COOKIE-1 entry that
// Xvfb reads (-auth) and every client finds through XAUTHORITY. Without it any local user
// could connect to the display, read its screen and type into its apps.
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";

/** libXau's FamilyWild: the entry matches any host. */
const FAMILY_WILD = 0xffff;
const COOKIE_NAME = "MIT-MAGIC-COOKIE-1";
const COOKIE_BYTES = 16;

/** The cookie written, for a client of the launching process that connects before anyone reads the file. */
export interface XCookie {
  name: string;
  data: Buffer;
}

/**
 * Writes a fresh cookie to `path` (mode 0600; the file must not exist yet) and returns it. The entry names no
 * display number, which libXau and the x11 package read as "any display": the number is only
 * known once Xvfb has chosen it.
 */
export async function writeXauthority(path: string): Promise<XCookie> {
  const data = randomBytes(COOKIE_BYTES);
  await writeFile(path, xauthorityEntry(data), { mode: 0o600, flag: "wx" });
  return { name: COOKIE_NAME, data };
}

/** One entry in the Xauthority format: family, then address, number, name and data, each length-prefixed. */
export function xauthorityEntry(cookie: Buffer): Buffer {
  const family = Buffer.alloc(2);
  family.writeUInt16BE(FAMILY_WILD);
  return Buffer.concat([family, ...[Buffer.alloc(0), Buffer.alloc(0), Buffer.from(COOKIE_NAME, "latin1"), cookie].map(counted)]);
}

function counted(field: Buffer): Buffer {
  const length = Buffer.alloc(2);
  length.writeUInt16BE(field.length);
  return Buffer.concat([length, field]);
}
