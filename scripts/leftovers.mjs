// What a test run left behind. scripts/test.sh gives the run a private TMPDIR; afterwards every
// process still running that names it (in its command line or environment: desktops, helpers,
// kernels, apps, dbus-daemon and at-spi started for a test) and every file still in it is a
// leftover. Prints each one, then ends them all so the machine is clean again.
//   node scripts/leftovers.mjs RUN_DIR   → exit 0 when nothing was left, 1 otherwise
import { readdirSync, readFileSync, rmSync } from "node:fs";

const runDir = process.argv[2];
if (!runDir) {
  console.error("usage: node scripts/leftovers.mjs RUN_DIR");
  process.exit(2);
}

/** Processes (not this one) whose command line or environment mentions the run's directory. */
function processesOfRun() {
  const found = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const read = (file) => {
      try {
        return readFileSync(`/proc/${name}/${file}`, "latin1");
      } catch {
        return "";
      }
    };
    const cmdline = read("cmdline");
    if (cmdline === "") continue; // a zombie or a kernel thread
    if (cmdline.includes(runDir) || read("environ").includes(runDir)) {
      found.push({ pid: Number(name), command: cmdline.split("\0").join(" ").trim().slice(0, 160) });
    }
  }
  return found;
}

function entriesOfRun() {
  try {
    return readdirSync(runDir);
  } catch {
    return [];
  }
}

// Give processes a test just stopped a moment to finish exiting.
const settleUntil = Date.now() + 3_000;
let processes = processesOfRun();
while (processes.length > 0 && Date.now() < settleUntil) {
  await new Promise((resolve) => setTimeout(resolve, 200));
  processes = processesOfRun();
}
const entries = entriesOfRun();

/** What a leftover process is, for the count. */
function kindOf(command) {
  const kinds = [
    ["Xvfb", /\bXvfb\b/],
    ["helper", /helper\/linux\/main\.js|scripted-helper\.js/],
    ["kernel", /cli\/main\.js kernel|\bkernel\b.*connection/],
    ["dbus-daemon", /dbus-daemon/],
    ["at-spi", /at-spi/],
    ["openbox", /openbox/],
  ];
  return kinds.find(([, pattern]) => pattern.test(command))?.[0] ?? "other";
}

const byKind = {};
for (const p of processes) {
  const kind = kindOf(p.command);
  byKind[kind] = (byKind[kind] ?? 0) + 1;
  console.log(`leftover ${kind} process ${p.pid}: ${p.command}`);
}
for (const entry of entries) console.log(`leftover temp entry: ${entry}`);
const kinds = Object.entries(byKind).map(([kind, n]) => `${n} ${kind}`).join(", ");
console.log(`leftovers: ${processes.length} processes${kinds ? ` (${kinds})` : ""}, ${entries.length} temp entries`);

for (const p of processes) {
  try {
    process.kill(p.pid, "SIGKILL");
  } catch {
    // gone meanwhile
  }
}
rmSync(runDir, { recursive: true, force: true });
process.exit(processes.length + entries.length === 0 ? 0 : 1);
