// The helper-process functions live in src/helper/helper-process.ts (the kernel launcher ends
// helpers too); tests import them from here as well.
export { helperPids, stopHelperAt } from "../../src/helper/helper-process.js";
