/**
 * Two frontends on one kernel, and a 1 000-cell soak with the memory of the kernel and the
 * executor sampled along the way. The figures are printed; only correctness is asserted.
 */
import { afterAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { startKernel, resultText, streams, type RunningKernel } from "../support/kernel-process.js";
import { KernelClient } from "../../src/client/kernel-client.js";
import { printTable, round, slope, type Row } from "../../bench/report.js";

const rows: Row[] = [];
let kernel: RunningKernel | undefined;
afterAll(async () => {
  printTable(rows);
  await kernel?.stop();
});

function rssKiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? NaN);
}

describe("kernel concurrency", () => {
  it("two frontends: both see every cell's iopub, and each gets its own replies in the order it sent them", async () => {
    kernel = await startKernel();
    const a = kernel.client;
    const b = await KernelClient.connect(kernel.info, { username: "second" });
    try {
      await a.execute("let total = 0");
      // Both send at once, interleaved, without waiting for replies.
      const fromA = Array.from({ length: 20 }, (_, i) => a.execute(`total += 1; console.log('a${i}'); total`));
      const fromB = Array.from({ length: 20 }, (_, i) => b.execute(`total += 1; console.log('b${i}'); total`));
      const [repliesA, repliesB] = [await Promise.all(fromA), await Promise.all(fromB)];
      const counts = (list: typeof repliesA) => list.map((r) => r.reply.content.execution_count as number);
      // A shell channel answers in order: each frontend's counts rise in the order it sent.
      for (const list of [counts(repliesA), counts(repliesB)]) expect(list).toEqual([...list].sort((x, y) => x - y));
      expect(new Set([...counts(repliesA), ...counts(repliesB)]).size).toBe(40);
      // Each cell's output reached both frontends' iopub, under that cell's request.
      for (const [i, r] of repliesA.entries()) {
        expect(streams(r.iopub)).toBe(`a${i}\n`);
        expect(streams(b.iopubFor(r.reply.parent_header.msg_id as string))).toBe(`a${i}\n`);
      }
      for (const [i, r] of repliesB.entries()) expect(streams(a.iopubFor(r.reply.parent_header.msg_id as string))).toBe(`b${i}\n`);
      expect(resultText((await b.execute("total")).iopub)).toBe("40");
    } finally {
      await b.close();
    }
  });

  it("a 1 000-cell soak: every cell answers, and the memory trend is printed", async () => {
    kernel ??= await startKernel();
    const k = kernel;
    const executor = Number(resultText((await k.client.execute("process.pid")).iopub));
    await k.client.execute("const soak = []");
    const samples: { cell: number; kernel: number; executor: number }[] = [];
    const started = performance.now();
    for (let cell = 0; cell < 1000; cell++) {
      // A typical small cell: a binding, some output, a result.
      const { reply } = await k.client.execute(`soak.push(${cell}); if (${cell} % 10 === 0) console.log('cell ${cell}'); soak.length`);
      expect(reply.content.status).toBe("ok");
      if (cell % 100 === 0 || cell === 999) samples.push({ cell, kernel: rssKiB(k.process.pid!), executor: rssKiB(executor) });
    }
    const elapsed = performance.now() - started;
    expect(resultText((await k.client.execute("soak.length")).iopub)).toBe("1000");
    const xs = samples.map((s) => s.cell);
    const kib = (s: number) => round(s / 1024, 1);
    rows.push(
      { metric: "soak: 1 000 cells, mean time per cell", value: elapsed / 1000, unit: "ms", target: "", verdict: "-" },
      { metric: "soak: kernel RSS first → last sample", value: kib(samples.at(-1)!.kernel), unit: `MiB (from ${kib(samples[0]!.kernel)})`, target: "", verdict: "-" },
      { metric: "soak: executor RSS first → last sample", value: kib(samples.at(-1)!.executor), unit: `MiB (from ${kib(samples[0]!.executor)})`, target: "", verdict: "-" },
      { metric: "soak: kernel RSS trend", value: slope(xs, samples.map((s) => s.kernel)) * 100, unit: "KiB / 100 cells", target: "", verdict: "-" },
      { metric: "soak: executor RSS trend", value: slope(xs, samples.map((s) => s.executor)) * 100, unit: "KiB / 100 cells", target: "", verdict: "-" },
    );
  }, 240_000);
});
