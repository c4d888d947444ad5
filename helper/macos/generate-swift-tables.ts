// Writes the macOS helper's generated Swift tables (swift-tables.ts) into its sources:
//   npm run generate:swift
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { swiftTables } from "./swift-tables.js";

/** Sources/DeskbookHelperCore/ of the checkout, found from dist/helper/macos/ or helper/macos/. */
const CORE = fileURLToPath(new URL(import.meta.url.includes("/dist/") ? "../../../helper/macos/Sources/DeskbookHelperCore/" : "./Sources/DeskbookHelperCore/", import.meta.url));

for (const [name, text] of Object.entries(swiftTables())) {
  writeFileSync(CORE + name, text);
  process.stdout.write(`wrote helper/macos/Sources/DeskbookHelperCore/${name}\n`);
}
