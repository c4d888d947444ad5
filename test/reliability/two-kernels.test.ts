/**
 * Two real kernels on one Linux helper and one virtual desktop, as two notebooks of one user
 * share them. What docs/security.md promises with several clients:
 * - approvals belong to a connection: one kernel's "Allow for this session" is not the other's,
 *   and the other kernel's Deny is remembered for it alone;
 * - the user's Escape goes to every client: it stops the cell each kernel is running, and a
 *   kernel that was idle runs its next cell as usual;
 * - the Escape that answers an approval dialog stops no cell, in either kernel.
 * The person is played through AT-SPI (the dialog's buttons) and xdotool (the keyboard).
 */
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Atspi } from "../../helper/linux/atspi.js";
import { ESCAPE_GRACE_MS } from "../../helper/linux/input-floor.js";
import { resultText, startKernel, type RunningKernel } from "../support/kernel-process.js";
import { focusWindowOf } from "../linux/focus-window-of.js";
import { missingTools, sleep, startHelperDesktop, waitFor, type HelperDesktop, type RunningHelper } from "../linux/helper-harness.js";

const missing = missingTools(["Xvfb", "openbox", "dbus-daemon", "xdotool", "xprop", "galculator", "mousepad", "zenity"]);
if (missing.length > 0) console.warn(`test/reliability/two-kernels.test.ts skipped: ${missing.join(", ")} missing`);

const ESCAPED = "Stopped: the user pressed Escape.";

describe.skipIf(missing.length > 0)("two kernels on one helper", () => {
  let desk: HelperDesktop;
  let helper: RunningHelper;
  let atspi: Atspi;
  let calcPid: number;
  let a: RunningKernel;
  let b: RunningKernel;
  /** zenity pids already answered: each wait is for a new dialog. */
  const answered = new Set<number>();

  const kernelFor = (client: string): Promise<RunningKernel> =>
    startKernel({ home: desk.home, env: { ...desk.env, DESKBOOK_SOCKET: helper.socket, DESKBOOK_CLIENT: client } });

  const xdotool = (...args: string[]): void => {
    const run = spawnSync("xdotool", args, { env: desk.env, timeout: 10_000 });
    if (run.status !== 0) throw new Error(`xdotool ${args.join(" ")}: ${run.stderr.toString()}`);
  };

  const nextDialog = async (): Promise<{ pid: number; text: string; press: (button: string) => Promise<void> }> => {
    const dialog = await waitFor(async () => (await atspi.listApplications()).find((app) => app.name === "zenity" && !answered.has(app.pid)), "an approval dialog", 30_000);
    answered.add(dialog.pid);
    const tree = await waitFor(async () => {
      const t = await atspi.tree(dialog.pid);
      return t.nodes.some((n) => n.title === "Deny") ? t : null;
    }, "the dialog's buttons");
    return {
      pid: dialog.pid,
      text: tree.nodes.map((n) => n.value ?? "").join("\n"),
      press: (button) => atspi.performAction(tree.nodes.find((n) => n.title === button)!.i, "AXPress"),
    };
  };

  /** Runs `code` in `kernel`; resolves once the cell runs (its execute_input was sent) with the cell's end. */
  const runInBackground = async (kernel: RunningKernel, code: string) => {
    const started = kernel.client.waitForIopub((m) => m.header.msg_type === "execute_input" && (m.content as { code?: string }).code === code);
    const running = kernel.client.execute(code, { timeoutMs: 60_000 });
    await started;
    // Wrapped: an async function would otherwise wait for the cell itself.
    return { ended: running };
  };

  /** The user presses Escape on the desktop, long enough after any dialog for it to be a stop. */
  const pressEscape = async (): Promise<void> => {
    await sleep(ESCAPE_GRACE_MS + 200);
    xdotool("key", "Escape");
  };

  beforeAll(async () => {
    desk = await startHelperDesktop();
    desk.writeConfig({ approval: "ask" });
    helper = await desk.startHelper();
    atspi = await Atspi.connect({ a11yBusAddress: desk.desktop.AT_SPI_BUS_ADDRESS });
    calcPid = desk.spawnApp("galculator").pid!;
    await waitFor(async () => (await atspi.listApplications()).some((app) => app.pid === calcPid), "galculator on the accessibility bus");
    [a, b] = await Promise.all([kernelFor("kernel-a"), kernelFor("kernel-b")]);
  }, 90_000);

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    atspi?.close();
    await desk?.stop();
  }, 60_000);

  it("keeps each kernel's approval to itself: A's Allow for this session, B's Deny", async () => {
    const bind = `const calc = await desk.getApp("pid:${calcPid}"); (await calc.windows()).length`;
    const fromA = a.client.execute(bind, { timeoutMs: 60_000 });
    const dialogA = await nextDialog();
    expect(dialogA.text).toContain("kernel-a wants to control Galculator");
    await dialogA.press("Allow for this session");
    expect(resultText((await fromA).iopub)).toBe("1");

    // B's connection has no answer yet: a dialog of its own, naming B.
    const fromB = b.client.execute(bind, { timeoutMs: 60_000 });
    const dialogB = await nextDialog();
    expect(dialogB.text).toContain("kernel-b wants to control Galculator");
    await dialogB.press("Deny");
    const deniedB = (await fromB).reply.content;
    expect(deniedB).toMatchObject({ status: "error" });
    expect(JSON.stringify(deniedB)).toContain("denied");

    // Remembered per connection: B is refused at once, without a dialog; A goes on.
    const againB = await b.client.execute(`(await desk.getApp("pid:${calcPid}").then((app) => app.windows())).length`, { timeoutMs: 20_000 });
    expect(JSON.stringify(againB.reply.content)).toContain("denied");
    expect((await atspi.listApplications()).some((app) => app.name === "zenity" && !answered.has(app.pid))).toBe(false);
    expect(resultText((await a.client.execute("(await calc.windows()).length")).iopub)).toBe("1");
  }, 90_000);

  it("stops the running cell of both kernels when the user presses Escape; the bindings stay", async () => {
    await a.client.execute("let spins = 0");
    const spinning = await runInBackground(a, "while (true) { spins++ }");
    const waiting = await runInBackground(b, "await new Promise((r) => setTimeout(r, 30_000))");
    await pressEscape();
    const [stoppedA, stoppedB] = await Promise.all([spinning.ended, waiting.ended]);
    expect(stoppedA.reply.content).toMatchObject({ status: "error", ename: "Stopped", evalue: ESCAPED });
    expect(stoppedB.reply.content).toMatchObject({ status: "error", ename: "Stopped", evalue: ESCAPED });
    expect(resultText((await a.client.execute("typeof calc + ' ' + (spins > 0)")).iopub)).toBe("'object true'");
  }, 60_000);

  it("leaves an idle kernel alone: its next cell runs after another kernel's cell was stopped by Escape", async () => {
    const spinning = await runInBackground(a, "while (true) {}");
    await pressEscape();
    expect((await spinning.ended).reply.content).toMatchObject({ evalue: ESCAPED });
    const next = await b.client.execute("await new Promise((r) => setTimeout(r, 300)); 'ran'", { timeoutMs: 20_000 });
    expect(resultText(next.iopub), JSON.stringify(next.reply.content)).toBe("'ran'");
  }, 60_000);

  it("stops no cell in either kernel with the Escape that answers one kernel's dialog", async () => {
    const spinning = await runInBackground(a, "while (true) {}");
    // B asks for an app its connection was never asked about: a new dialog, for B alone.
    const asking = b.client.execute('await desk.getApp("mousepad")', { timeoutMs: 60_000 });
    const dialog = await nextDialog();
    expect(dialog.text).toContain("kernel-b wants to control");
    // The user's keyboard goes to the dialog (as a click on it would), and Escape closes it.
    await focusWindowOf(desk.env, dialog.pid);
    xdotool("key", "Escape");
    const refused = (await asking).reply.content;
    expect(JSON.stringify(refused)).toContain("denied");
    expect(refused.ename).not.toBe("Stopped");
    // Well past the time an Escape event would take: A's cell still runs, so no stop reached it.
    await sleep(ESCAPE_GRACE_MS + 1_000);
    const stillRunning = await Promise.race([spinning.ended.then(() => "ended"), sleep(0).then(() => "running")]);
    expect(stillRunning).toBe("running");
    expect((await a.client.request("control", "interrupt_request", {})).content.status).toBe("ok");
    expect((await spinning.ended).reply.content).toMatchObject({ ename: "Stopped", evalue: "Stopped: interrupted." });
    expect(resultText((await b.client.execute("'b still here'")).iopub)).toBe("'b still here'");
  }, 90_000);
});
