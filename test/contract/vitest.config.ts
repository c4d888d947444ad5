// The contract suite on its own, as scripts/contract.mjs runs it: only these files, and one at
// a time, because they share one helper and one desktop and real input to two apps would collide.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: fileURLToPath(new URL("../..", import.meta.url)),
    include: ["test/contract/**/*.test.ts"],
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
