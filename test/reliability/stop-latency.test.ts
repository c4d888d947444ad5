/**
 * Stop latency: Escape (the helper's escape event) and a Jupyter interrupt, each 50 times on a
 * cell that spins and on a cell that awaits, timed from the stop to the cell being over (its
 * execute_reply and idle). The figures are printed as p50/p99; only correctness is asserted:
 * every stop ends its cell with the right reason and the session's bindings survive each one.
 * (A stop can overtake its cell — the kernel has announced it, the executor has not begun it —
 * and then the cell ends stopped without running; so the cells do not count themselves.)
 */
import { afterAll, describe, expect, it } from "vitest";
import { performance } from "node:perf_hooks";
import { percentile, printTable, round, type Row } from "../../bench/report.js";
import { RawHelperConnection } from "../fixtures/raw-helper-connection.js";
import { startScriptedHelper, SCRIPTED_HELPER_JS } from "../fixtures/start-scripted-helper.js";
import { resultText, startKernel } from "../support/kernel-process.js";

const STOPS_EACH = 50;
// Long enough that the cell is inside its loop or its await when the stop is sent.
const RUNNING_FOR_MS = 20;

const rows: Row[] = [];
afterAll(() => printTable(rows));

describe("stop latency", () => {
  it(`stops a spinning and an awaiting cell ${STOPS_EACH} times each by Escape and by interrupt, keeping the bindings`, async () => {
    const helper = await startScriptedHelper();
    const kernel = await startKernel({ env: { DESKBOOK_SOCKET: helper.socketPath, DESKBOOK_HELPER: SCRIPTED_HELPER_JS } });
    const control = await RawHelperConnection.open(helper.socketPath, false);
    try {
      // A desk call makes the kernel listen to the helper for Escape.
      const bind = await kernel.client.execute("await desk.getApp('Calculator'); let survivor = 'kept'");
      expect(bind.reply.content.status).toBe("ok");
      const causes = {
        Escape: { send: () => control.script({ op: "escape" }), reason: /^Stopped: the user pressed Escape\.$/ },
        interrupt: { send: () => kernel.client.request("control", "interrupt_request", {}), reason: /^Stopped: interrupted\.$/ },
      };
      const cells = { spinning: "while (true) {}", awaiting: "await new Promise(r => setTimeout(r, 60000))" };
      let count = 0;
      for (const [causeName, cause] of Object.entries(causes)) {
        for (const [cellName, body] of Object.entries(cells)) {
          const times: number[] = [];
          for (let i = 0; i < STOPS_EACH; i++) {
            const code = `// ${causeName} ${cellName} ${i}\nsurvivor = 'kept ${count}'\n${body}`;
            const started = kernel.client.waitForIopub((m) => m.header.msg_type === "execute_input" && (m.content as { code?: string }).code === code);
            const running = kernel.client.execute(code, { timeoutMs: 20_000 });
            await started;
            await new Promise((r) => setTimeout(r, RUNNING_FOR_MS));
            const t0 = performance.now();
            await cause.send();
            const { reply } = await running;
            times.push(performance.now() - t0);
            count++;
            expect(String(reply.content.evalue), `${causeName} on ${cellName} cell ${i}\nkernel log:\n${kernel.stderr().slice(-2000)}`).toMatch(cause.reason);
          }
          for (const p of [50, 99]) {
            rows.push({ metric: `${causeName}, ${cellName} cell: stop → cell over, p${p}`, value: round(percentile(times, p), 1), unit: "ms", target: "-", verdict: "-" });
          }
        }
      }
      // The binding came through all the stops, with the value the last cell that ran gave it.
      const kept = await kernel.client.execute("survivor");
      expect(resultText(kept.iopub)).toMatch(/^'kept( \d+)?'$/);
      expect(count).toBe(4 * STOPS_EACH);
      expect(kernel.stderr()).not.toMatch(/executor (failed|killed|exited)|starting a new one/);
    } finally {
      control.close();
      await kernel.stop();
      await helper.stop();
    }
  }, 300_000);
});
