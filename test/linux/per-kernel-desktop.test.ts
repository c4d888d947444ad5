/**
 * A desktop per kernel, four side by side: four real kernels of one DESKBOOK_HOME with
 * `"desktop": "per-kernel"`, each binding its own galculator on its own virtual desktop and
 * pressing a different product at the same time. Nothing may cross over: results, elements,
 * listApps, the clipboard, Escape, approval dialogs and actions.log lines stay with their
 * kernel. Then each kernel ends in another way (shutdown, restart, SIGKILL, SIGTERM) and
 * nothing of its desktop may be left running.
 */
import { execFile, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endHomeProcesses, pidsWithEnv } from "../../src/client/home-processes.js";
import { isAlive } from "../../src/process-signals.js";
import { desktopStatus, type DesktopState } from "../../src/desktop/virtual-desktop.js";
import type { JupyterMessage } from "../../src/jupyter/message.js";
import { runDesktop } from "../../src/cli/desktop.js";
import type { DesktopListing } from "../../src/desktop/desktop-list.js";
import { headlessEnv, resultText, startKernel, streams, type RunningKernel } from "../support/kernel-process.js";
import { focusWindowOf } from "./focus-window-of.js";

const execFileAsync = promisify(execFile);
const KERNELS = 4;
const missing = ["Xvfb", "openbox", "dbus-daemon", "xdotool", "xprop", "galculator", "zenity"].filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0);
if (missing.length > 0) console.warn(`test/linux/per-kernel-desktop.test.ts skipped: ${missing.join(", ")} not installed`);

interface Side {
  kernel: RunningKernel;
  /** $DESKBOOK_HOME/desktops/<id>/ */
  dir: string;
  state: DesktopState;
  calcPid: number;
}

const status = (m: { reply: JupyterMessage }): unknown => m.reply.content.status;
const errorOf = (m: { reply: JupyterMessage }): string => `${String(m.reply.content.ename)}: ${String(m.reply.content.evalue)}`;

/** The product's digits: kernel i computes (i + 2) × 7. */
const factor = (i: number): number => i + 2;

describe.skipIf(missing.length > 0)("a desktop per kernel, four side by side", () => {
  let dir: string;
  let home: string;
  const sides: Side[] = [];

  const displays = (): string[] => sides.map((side) => side.state.display);
  const xdotool = (side: Side, ...args: string[]) => execFileAsync("xdotool", args, { env: { ...process.env, ...side.state.env }, timeout: 10_000 });
  const press = (side: Side, key: string) => xdotool(side, "key", key);
  /** Waits for the one approval dialog, which must be on `side`'s desktop, and answers it with Escape (Deny) as a person would. */
  const denyDialog = async (side: Side): Promise<void> => {
    expect(await waitFor(() => dialogsOn(displays()).length > 0, 30_000)).toBe(true);
    const dialogs = dialogsOn(displays());
    expect(dialogs.map((dialog) => dialog.display)).toEqual([side.state.display]);
    await focusWindowOf({ ...process.env, ...side.state.env }, dialogs[0]!.pid);
    // The Escape that answers a dialog is the dialog's: it stops no cell.
    await press(side, "Escape");
  };
  const run = async (side: Side, code: string, timeoutMs = 30_000) => {
    const result = await side.kernel.client.execute(code, { timeoutMs });
    return result;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "deskbook-per-kernel-"));
    home = join(dir, "home");
    await mkdir(home, { recursive: true, mode: 0o700 });
    // A generous cell limit: four desktops and galculators starting at once on a loaded 2-core machine take a while.
    await writeFile(
      join(home, "config.json"),
      JSON.stringify({ desktop: "per-kernel", approval: "ask", allow: ["galculator"], clipboard: { read: true, write: true }, timeoutMs: 90_000 }),
    );
    // One after the other: each launch picks its own free ports, and two picking at once can collide.
    const kernels: RunningKernel[] = [];
    for (let i = 0; i < KERNELS; i++) kernels.push(await startKernel({ home, cwd: dir, env: headlessEnv(dir), readyTimeoutMs: 30_000 }));
    // All four bind galculator at once: four desktops and four helpers start side by side.
    const bound = await Promise.all(
      kernels.map((kernel) => kernel.client.execute('const calc = await desk.getApp("galculator"); calc.name', { timeoutMs: 90_000 })),
    );
    for (const [i, kernel] of kernels.entries()) {
      if (status(bound[i]!) !== "ok") throw new Error(`kernel ${i} could not bind galculator: ${errorOf(bound[i]!)}\n${kernel.stderr()}`);
      const own = /its own desktop: (\S+)/.exec(kernel.stderr())?.[1];
      if (!own) throw new Error(`kernel ${i} did not say where its desktop is:\n${kernel.stderr()}`);
      const desktop = await desktopStatus({ home: own });
      if (!desktop.running || !desktop.state) throw new Error(`kernel ${i}'s desktop in ${own} is not running`);
      const apps = await kernel.client.execute("console.log(JSON.stringify((await desk.listApps()).filter(a => a.running).map(a => [a.name, a.pid])))");
      const running = JSON.parse(streams(apps.iopub) || "null") as [string, number][];
      expect(running.map(([name]) => name.toLowerCase())).toEqual(["galculator"]);
      sides.push({ kernel, dir: own, state: desktop.state, calcPid: running[0]![1] });
    }
  }, 150_000);

  afterAll(async () => {
    await Promise.all(sides.map((side) => side.kernel.stop().catch(() => undefined)));
    if (home) await endHomeProcesses(home);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it("gives each kernel its own display, buses, helper and galculator, and listApps sees only its own", async () => {
    expect(new Set(sides.map((s) => s.state.display)).size).toBe(KERNELS);
    expect(new Set(sides.map((s) => s.state.env.DBUS_SESSION_BUS_ADDRESS)).size).toBe(KERNELS);
    expect(new Set(sides.map((s) => s.state.env.AT_SPI_BUS_ADDRESS)).size).toBe(KERNELS);
    expect(new Set(sides.map((s) => s.calcPid)).size).toBe(KERNELS);
    for (const side of sides) {
      expect(existsSync(join(side.dir, "helper.sock"))).toBe(true);
      // The app really is on that kernel's display.
      const environ = await readFile(`/proc/${side.calcPid}/environ`, "utf8");
      expect(environ.split("\0")).toContain(`DISPLAY=${side.state.display}`);
    }
    // Nothing landed on a shared desktop or helper.
    expect(existsSync(join(home, "desktop.json"))).toBe(false);
    expect(existsSync(join(home, "helper.sock"))).toBe(false);
  });

  it("lists the four in `deskbook desktop list`, each with its kernel and display", async () => {
    let out = "";
    expect(await runDesktop(["list", "--json"], { stdout: (text) => void (out += text), stderr: () => undefined, options: { home } })).toBe(0);
    const listed = JSON.parse(out) as DesktopListing[];
    expect(listed.map((l) => [l.kind, l.dir, l.display, l.running]).sort()).toEqual(sides.map((s) => ["per-kernel", s.dir, s.state.display, true]).sort());
    for (const side of sides) expect(listed.find((l) => l.dir === side.dir)?.kernelPid).toBe(side.kernel.process.pid);
  });

  it("lets the four drive their galculators to different results at the same time", async () => {
    const results = await Promise.all(
      sides.map((side, i) =>
        run(
          side,
          `for (const key of ["${factor(i)}", "*", "7", "="]) await calc.click((await calc.find({ role: "button", label: key, exact: true })).i);\n` +
            '(await calc.find({ role: "text area" })).value',
        ),
      ),
    );
    results.forEach((result, i) => expect(resultText(result.iopub), errorOf(result)).toBe(`'${factor(i) * 7}'`));
    // Read again once all are done: no kernel's presses reached another's calculator.
    const again = await Promise.all(sides.map((side) => run(side, '(await calc.find({ role: "text area" })).value')));
    again.forEach((result, i) => expect(resultText(result.iopub)).toBe(`'${factor(i) * 7}'`));
  });

  it("keeps each desktop's clipboard its own", async () => {
    await Promise.all(sides.map((side, i) => run(side, `await desk.clipboard.write("kernel ${i}")`)));
    const read = await Promise.all(sides.map((side) => run(side, "await desk.clipboard.read()")));
    read.forEach((result, i) => expect(resultText(result.iopub), errorOf(result)).toBe(`'kernel ${i}'`));
  });

  it("stops only the kernel whose desktop got the Escape", async () => {
    const others = sides.slice(1).map((side) => run(side, 'await new Promise((r) => setTimeout(r, 3000)); "went on"'));
    // Escape only once the cell spins: pressed earlier, it would find no cell to stop.
    const marker = join(dir, "spinning");
    const spinning = run(sides[0]!, `require("node:fs").writeFileSync(${JSON.stringify(marker)}, ""); while (true) {}`);
    for (let waited = 0; !existsSync(marker); waited += 50) {
      if (waited > 30_000) throw new Error("the spinning cell never started");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await press(sides[0]!, "Escape");
    const stopped = await spinning;
    expect(JSON.stringify(stopped.iopub.map((m) => m.content))).toContain("Stopped: the user pressed Escape.");
    for (const result of await Promise.all(others)) expect(resultText(result.iopub), errorOf(result)).toBe("'went on'");
  });

  it("shows an approval dialog on the asking kernel's desktop only, and its answer stays there", async () => {
    const asking = sides[2]!;
    const asked = run(asking, 'await desk.getApp("mousepad").then(() => "bound", (e) => e.code)', 60_000);
    await denyDialog(asking);
    const answer = await asked;
    expect(resultText(answer.iopub), JSON.stringify(answer.iopub.map((m) => m.content))).toBe("'denied'");
    // The cell's approval line says the dialog is on a virtual desktop, that kernel's own display.
    expect(JSON.stringify(answer.iopub.map((m) => m.content))).toContain(`The dialog is on Deskbook's virtual desktop (${asking.state.display})`);
    // Another kernel meets its own dialog for the same app: the deny was that session's.
    const other = sides[3]!;
    const second = run(other, 'await desk.getApp("mousepad").then(() => "bound", (e) => e.code)', 60_000);
    await denyDialog(other);
    expect(resultText((await second).iopub)).toBe("'denied'");
  }, 90_000);

  it("writes each desktop's actions.log lines with its own desktop and app", async () => {
    const lines = (await readFile(join(home, "actions.log"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { desktop?: string; app: string; pid?: number; action: string });
    for (const side of sides) {
      const id = side.dir.split("/").pop();
      const own = lines.filter((line) => line.desktop === id);
      // Four presses on its own galculator and one clipboard write.
      expect(own.filter((line) => line.action === "performAction").map((line) => line.pid)).toEqual(Array(4).fill(side.calcPid));
      expect(own.filter((line) => line.action === "clipboardWrite")).toHaveLength(1);
      expect(own.filter((line) => line.app.toLowerCase() === "galculator").every((line) => line.pid === side.calcPid)).toBe(true);
    }
    expect(lines.every((line) => typeof line.desktop === "string")).toBe(true);
  });

  it("ends every part of a kernel's desktop with the kernel: shutdown, restart, SIGKILL, SIGTERM", async () => {
    const ends: ((side: Side) => Promise<void>)[] = [
      async (side) => void (await side.kernel.client.request("control", "shutdown_request", { restart: false })),
      async (side) => void (await side.kernel.client.request("control", "shutdown_request", { restart: true })),
      async (side) => void side.kernel.process.kill("SIGKILL"),
      async (side) => void side.kernel.process.kill("SIGTERM"),
    ];
    const parts = sides.map((side) => [...Object.values(side.state.pids), side.calcPid, side.state.leaderPid]);
    await Promise.all(sides.map((side, i) => ends[i]!(side)));
    await Promise.all(sides.map((side) => side.kernel.exited));
    for (const [i, side] of sides.entries()) {
      // The SIGKILLed kernel's reaper polls its pid twice a second, then ends the desktop.
      const gone = await waitFor(() => !existsSync(side.dir) && parts[i]!.every((pid) => !isAlive(pid)), 15_000);
      expect(gone, `kernel ${i}: ${side.dir} ${parts[i]!.filter(isAlive).join(" ")} left`).toBe(true);
      expect(pidsWithEnv("DESKBOOK_DESKTOP_DIR", side.dir)).toEqual([]);
    }
    expect(readdirSync(join(home, "desktops"))).toEqual([]);
  }, 60_000);
});

interface Dialog {
  pid: number;
  display: string;
}

/** The zenity dialogs (approval dialogs) shown now on the displays in `ours`; other tests' desktops are not ours. */
function dialogsOn(ours: string[]): Dialog[] {
  const dialogs: Dialog[] = [];
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() !== "zenity") continue;
      const display = readFileSync(`/proc/${entry}/environ`, "utf8").split("\0").find((line) => line.startsWith("DISPLAY="))?.slice("DISPLAY=".length);
      if (display && ours.includes(display)) dialogs.push({ pid: Number(entry), display });
    } catch {
      // gone, or not ours to read
    }
  }
  return dialogs;
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}
