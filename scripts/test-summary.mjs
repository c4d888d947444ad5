// Prints vitest's JSON report as the one closing line CI reads: "N passed, N failed".
//   node scripts/test-summary.mjs VITEST_JSON [EXTRA_FAILURES]
// EXTRA_FAILURES counts checks outside vitest (scripts/test.sh passes 1 when the run left
// processes or temp files behind).
import { readFileSync } from "node:fs";

const file = process.argv[2];
let report;
try {
  report = JSON.parse(readFileSync(file, "utf8"));
} catch (error) {
  console.log(`test report unreadable (${error.message})`);
  console.log("0 passed, 1 failed");
  process.exit(1);
}
// A file that failed to load has no failed tests of its own: count it as one failure.
const loadFailures = (report.testResults ?? []).filter(
  (file) => file.status === "failed" && !file.assertionResults.some((a) => a.status === "failed"),
).length;
const extra = Number(process.argv[3] ?? 0) || 0;
const failed = report.numFailedTests + loadFailures + extra;
const skipped = report.numPendingTests + (report.numTodoTests ?? 0);
console.log(`${report.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);

