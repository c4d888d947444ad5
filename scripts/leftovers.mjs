// What a test run left behind. scripts/test.sh gives the run a private TMPDIR; afterwards every
// process still running that names it (in its command line or environment: desktops, helpers,
// kernels, apps, dbus-daemon and at-spi started for a test) and every file still in it is a
// leftover. Prints each one, then ends them all so the machine is clean again.
//   node scripts/leftovers.mjs RUN_DIR   → exit 0 when nothing was left, 1 otherwise
import { readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";

const runDir = process.argv[2];
if (!runDir) {
  console.error("usage: node scripts/leftovers.mjs RUN_DIR");
  process.exit(2);
}

/** True when `text` names the run's directory itself or a path in it (a sibling whose name only starts the same, such as run-x2 for run-x, does not count). */
function namesRunDir(text) {
  for (let at = text.indexOf(runDir); at !== -1; at = text.indexOf(runDir, at + 1)) {
    if (!/[^\s\0/:;'"=]/.test(text[at + runDir.length] ?? "")) return true;
  }
  return false;
}

/** Where a process writes its output, when that is in the run's directory: it names whose it is (a desktop's desktop.log is in its DESKBOOK_HOME). */
function outputOf(pid) {
  try {
    const target = readlinkSync(`/proc/${pid}/fd/1`);
    return namesRunDir(target) ? target : "";
  } catch {
    return "";
  }
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
    if (namesRunDir(cmdline) || namesRunDir(read("environ"))) {
      const output = outputOf(name);
      const command = cmdline.split("\0").join(" ").trim().slice(0, 160);
      found.push({ pid: Number(name), command: output ? `${command} [output: ${output}]` : command });
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
