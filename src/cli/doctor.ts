// `deskbook doctor`: what this machine has for Deskbook, and how to fix what is missing.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { HelperClient } from "../helper/client.js";
import { helperSocketPath } from "../helper/socket-path.js";
import { a11yBusAddress, a11yStatus } from "../desktop/a11y-status.js";
import { registeredApps } from "../desktop/atspi-registry.js";
import { desktopStatus, type DesktopStatus } from "../desktop/virtual-desktop.js";
import { deskbookHome } from "../config/home.js";
import { jupyterLabCheck } from "./jupyterlab-check.js";
import { runCommand } from "../macos/command-runner.js";
import { macosChecks } from "../macos/doctor-checks.js";
import { gatherMacFacts } from "../macos/doctor-facts.js";

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  /** What to run or do when the check fails. */
  fix?: string;
  /** A missing optional item is reported as a note and does not fail doctor. */
  optional?: boolean;
  /** A failure's code, to search the docs' troubleshooting tables for. */
  code?: string;
}

const LINUX_HELPER = fileURLToPath(new URL("../../helper/linux/main.js", import.meta.url));

export async function runDoctor(args: string[]): Promise<number> {
  const checks = [...baseChecks(), await jupyterLabCheck(which("jupyter-lab")), ...(await platformChecks())];
  if (args.includes("--json")) {
    process.stdout.write(`${JSON.stringify(checks, null, 2)}\n`);
  } else {
    for (const c of checks) process.stdout.write(`${label(c)}  ${c.name}: ${c.detail}${!c.ok && c.code ? ` [${c.code}]` : ""}${!c.ok && c.fix ? `\n         fix: ${c.fix}` : ""}\n`);
  }
  return checks.every((c) => c.ok || c.optional) ? 0 : 1;
}

function label(check: Check): string {
  if (check.ok) return "ok     ";
  return check.optional ? "note   " : "MISSING";
}

async function platformChecks(): Promise<Check[]> {
  if (process.platform === "darwin") {
    return macosChecks(await gatherMacFacts(deskbookHome(), helperSocketPath(), runCommand));
  }
  return [...(process.platform === "linux" ? await linuxChecks() : []), await helperCheck()];
}

function baseChecks(): Check[] {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  const jupyter = which("jupyter");
  const spec = jupyter ? spawnSync("jupyter", ["kernelspec", "list", "--json"], { encoding: "utf8" }) : undefined;
  const installed = Boolean(spec?.stdout?.includes('"deskbook"'));
  return [
    { name: "Node.js", ok: major > 20 || (major === 20 && minor >= 9), detail: process.versions.node, fix: "install Node.js 20.9 or newer" },
    { name: "Jupyter", ok: Boolean(jupyter), detail: jupyter ?? "not on PATH", fix: "apt-get install jupyter-notebook jupyter-nbconvert (or pip install jupyterlab)" },
    { name: "kernelspec", ok: installed, detail: installed ? "deskbook is installed" : "Jupyter does not list deskbook", fix: "deskbook install --user" },
  ];
}

async function linuxChecks(): Promise<Check[]> {
  const desktop = await desktopStatus().catch(() => undefined);
  const display = process.env.DISPLAY
    ? { ok: true, detail: `DISPLAY=${process.env.DISPLAY}` }
    : { ok: true, detail: desktop?.running ? `no DISPLAY; the virtual desktop is running (${desktop.state?.display})` : "no DISPLAY; the virtual desktop starts on first use" };
  return [
    { name: "display", ...display },
    program("Xvfb", "Xvfb", "apt-get install xvfb"),
    program("D-Bus", "dbus-daemon", "apt-get install dbus"),
    { name: "AT-SPI", ok: existsSync("/usr/libexec/at-spi-bus-launcher"), detail: "/usr/libexec/at-spi-bus-launcher", fix: "apt-get install at-spi2-core" },
    await accessibilityCheck(desktop),
    await registryCheck(desktop),
    program("window manager", "openbox", "apt-get install openbox"),
    { name: "Linux helper", ok: existsSync(LINUX_HELPER), detail: LINUX_HELPER, fix: "npm run build" },
    program("galculator (demo)", "galculator", "apt-get install galculator"),
    program("mousepad (demo)", "mousepad", "apt-get install mousepad"),
    program("zenity (approval dialogs)", "zenity", "apt-get install zenity"),
  ];
}

/**
 * org.a11y.Status on the session the helper uses: your own (DISPLAY set) or the virtual desktop.
 * Qt exposes no tree while IsEnabled is off.
 */
export async function accessibilityCheck(desktop: DesktopStatus | undefined, env: NodeJS.ProcessEnv = process.env): Promise<Check> {
  const name = "accessibility switched on";
  const own = Boolean(env.DISPLAY);
  const sessionBus = own ? env.DBUS_SESSION_BUS_ADDRESS : desktop?.running ? desktop.state?.env.DBUS_SESSION_BUS_ADDRESS : undefined;
  if (!own && !sessionBus) return { name, ok: true, detail: "the virtual desktop switches it on when it starts" };
  const status = await a11yStatus(sessionBus);
  const fix = "gsettings set org.gnome.desktop.interface toolkit-accessibility true (or start a screen reader), then restart the apps";
  if (!status) return { name, ok: false, detail: `the session bus has no org.a11y.Bus to ask${sessionBus ? "" : " (DBUS_SESSION_BUS_ADDRESS unset)"}`, fix: "apt-get install at-spi2-core, and run inside a D-Bus session (dbus-run-session)" };
  const detail = `org.a11y.Status IsEnabled=${status.IsEnabled}, ScreenReaderEnabled=${status.ScreenReaderEnabled}${own ? "" : " (virtual desktop)"}`;
  // Off is not fatal: GTK 3 apps still work, and the helper's permissions({ prompt }) turns it on.
  return { name, ok: status.IsEnabled, detail: status.IsEnabled ? detail : `${detail}: Qt apps (and other toolkits that wait for it) show no elements`, fix };
}

/** How long the registry has to answer doctor (the helper's own calls wait 2 s too). */
const REGISTRY_TIMEOUT_MS = 2_000;

/**
 * Whether the AT-SPI registry answers on the accessibility bus of the session the helper uses:
 * without it no app registers and every read fails (docs/linux.md, troubleshooting).
 */
export async function registryCheck(desktop: DesktopStatus | undefined, env: NodeJS.ProcessEnv = process.env): Promise<Check> {
  const name = "AT-SPI registry answers";
  const own = Boolean(env.DISPLAY);
  const state = !own && desktop?.running ? desktop.state : undefined;
  if (!own && !state) return { name, ok: true, detail: "the virtual desktop starts it when it starts" };
  const sessionBus = own ? env.DBUS_SESSION_BUS_ADDRESS : state?.env.DBUS_SESSION_BUS_ADDRESS;
  // As the helper does: AT_SPI_BUS_ADDRESS first, then the address org.a11y.Bus gives (a stale variable is common).
  const direct = own ? env.AT_SPI_BUS_ADDRESS : state?.env.AT_SPI_BUS_ADDRESS;
  const looked = await a11yBusAddress(sessionBus);
  const addresses = [...new Set([direct, looked].filter((a): a is string => Boolean(a)))];
  const where = own ? "" : " (virtual desktop)";
  if (addresses.length === 0) {
    return { name, ok: false, code: "no_a11y_bus", detail: `no accessibility bus to ask${where}: AT_SPI_BUS_ADDRESS is unset and org.a11y.Bus does not answer on the session bus`, fix: "apt-get install at-spi2-core, and run inside a D-Bus session (dbus-run-session)" };
  }
  let reason = "";
  for (const address of addresses) {
    try {
      const apps = await registeredApps(address, REGISTRY_TIMEOUT_MS);
      return { name, ok: true, detail: `org.a11y.atspi.Registry lists ${apps} app${apps === 1 ? "" : "s"}${where}` };
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
    }
  }
  const fix = own
    ? "apt-get install at-spi2-core (it has at-spi2-registryd); then log out and in again, or restart the session's accessibility bus, so the registry can be started"
    : "deskbook desktop stop, then start it again (apt-get install at-spi2-core if at-spi2-registryd is missing)";
  return { name, ok: false, code: "registry_silent", detail: `${reason}${where}: apps cannot register, so none shows an accessibility tree`, fix };
}

async function helperCheck(): Promise<Check> {
  const socketPath = helperSocketPath();
  try {
    const client = await HelperClient.connect({ socketPath, clientName: "deskbook doctor", connectTimeoutMs: 1_000 });
    const hello = client.helper;
    await client.close();
    return { name: "helper", ok: true, detail: `${hello.platform} helper ${hello.version}, pid ${hello.pid}, at ${socketPath}` };
  } catch {
    return { name: "helper", ok: true, detail: `not running at ${socketPath}; the first desk call starts it` };
  }
}

function program(name: string, command: string, fix: string): Check {
  const path = which(command);
  return { name, ok: Boolean(path), detail: path ?? `${command} not found`, fix };
}

function which(command: string): string | undefined {
  const result = spawnSync("sh", ["-c", `command -v ${command}`], { encoding: "utf8" });
  return result.status === 0 ? result.stdout.trim() : undefined;
}
