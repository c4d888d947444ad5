/**
 * `npm run bench [-- --peers]`: runs every bench in turn, stopping at the first that fails.
 * npm appends what follows `--` to a script's last command only, so a chain of benches in
 * package.json could not hand `--peers` to the kernel bench; this runner does.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const BENCHES = ["kernel-bench.js", "desk-bench.js", "linux-bench.js", "mcp-bench.js", "scaleout-bench.js"] as const;

/** The flags the runner takes, and the bench each goes to. */
const FLAGS: Record<string, (typeof BENCHES)[number]> = { "--peers": "kernel-bench.js" };

function main(args: readonly string[]): number {
  const unknown = args.filter((a) => !Object.hasOwn(FLAGS, a));
  if (unknown.length) {
    console.error(`bench: unknown argument(s) ${unknown.join(" ")}; usage: npm run bench [-- --peers]`);
    return 2;
  }
  for (const bench of BENCHES) {
    const file = fileURLToPath(new URL(`./${bench}`, import.meta.url));
    const result = spawnSync(process.execPath, [file, ...args.filter((a) => FLAGS[a] === bench)], { stdio: "inherit" });
    if (result.status !== 0) return result.status ?? 1;
  }
  return 0;
}

process.exit(main(process.argv.slice(2)));
