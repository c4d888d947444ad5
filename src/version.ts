import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The package's version, read once from package.json (dist/src → repo root). */
export const DESKBOOK_VERSION: string = (
  JSON.parse(readFileSync(fileURLToPath(new URL("../../package.json", import.meta.url)), "utf8")) as { version: string }
).version;
