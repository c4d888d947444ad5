import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** package.json: two levels up once built (dist/src), one level up from the sources (as tests load them). */
const PACKAGE_JSON = ["../../package.json", "../package.json"]
  .map((path) => fileURLToPath(new URL(path, import.meta.url)))
  .find((path) => existsSync(path) && (JSON.parse(readFileSync(path, "utf8")) as { name?: string }).name === "deskbook");

/** The package's version, read once from package.json. */
export const DESKBOOK_VERSION: string = PACKAGE_JSON ? (JSON.parse(readFileSync(PACKAGE_JSON, "utf8")) as { version: string }).version : "0.0.0";
