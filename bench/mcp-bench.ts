/**
 * `deskbook mcp` benchmark (part of `npm run bench`): what a `js` call costs over a direct
 * execute on the same kind of kernel. Both sides are real kernels started through
 * src/client; the MCP side is the real server (createMcpServer + KernelSession) with the MCP
 * SDK's client over an in-memory transport, so what is measured is the server's own work:
 * argument checks, the Jupyter round trip it makes, and building the content.
 * Prints a table and writes the same rows to bench/mcp-results.json.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { startKernel } from "../src/client/kernel-process.js";
import { KernelSession } from "../src/mcp/kernel-session.js";
import { createMcpServer } from "../src/mcp/server.js";
import { atMost, median, percentile, printTable, round, timeAsync, type Row } from "./report.js";

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const RESULTS_FILE = join(REPO_ROOT, "bench/mcp-results.json");
const WARMUP = 100;
const CALLS = 1000;
const CELL = "1 + 1";
const OVERHEAD_P50_TARGET_MS = 2;

async function directExecuteMs(): Promise<number[]> {
  const kernel = await startKernel({ privateHome: true, keepHistory: false });
  try {
    return await timeAsync(CALLS, WARMUP, () => kernel.client.execute(CELL));
  } finally {
    await kernel.stop();
  }
}

async function mcpCallMs(): Promise<number[]> {
  const home = await mkdtemp(join(tmpdir(), "deskbook-mcp-bench-"));
  const session = new KernelSession({ clientName: () => "bench", env: { DESKBOOK_HOME: home } });
  const server = createMcpServer({ session, maxImageBytes: () => 786_432 });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(clientSide);
  try {
    return await timeAsync(CALLS, WARMUP, () => client.callTool({ name: "js", arguments: { code: CELL } }));
  } finally {
    await client.close();
    await session.close();
    await rm(home, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  console.log(`mcp bench: node ${process.version}, ${cpus().length} cpus, load ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  const direct = await directExecuteMs();
  const mcp = await mcpCallMs();
  const overhead = median(mcp) - median(direct);
  const rows: Row[] = [
    { metric: `direct execute "${CELL}", p50`, value: round(median(direct)), unit: "ms", target: "-", verdict: "-" },
    { metric: `js call "${CELL}" through deskbook mcp, p50`, value: round(median(mcp)), unit: "ms", target: "-", verdict: "-" },
    { metric: "js call p95", value: round(percentile(mcp, 95)), unit: "ms", target: "-", verdict: "-" },
    { metric: "js call overhead over a direct execute, p50", value: round(overhead), unit: "ms", target: `≤ ${OVERHEAD_P50_TARGET_MS} ms`, verdict: atMost(overhead, OVERHEAD_P50_TARGET_MS) },
  ];
  printTable(rows);
  console.log(`\nmcp bench took ${((Date.now() - started) / 1000).toFixed(1)} s; results in bench/mcp-results.json`);
  await writeFile(RESULTS_FILE, `${JSON.stringify({ date: new Date().toISOString(), rows }, null, 2)}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
