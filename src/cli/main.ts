#!/usr/bin/env node
import { DESKBOOK_VERSION } from "../version.js";
import { restoreExtraCaCerts } from "../kernel/extra-ca-handoff.js";
import { connectionFileArg } from "./connection-file-arg.js";
import { desktopModeFromEnv } from "../desktop/desktop-mode-env.js";

// Each command is loaded when it is run: the kernel Jupyter starts must not pay for the MCP
// server, the runner or the doctor (their modules cost the kernel ~40 MB and its start time).

const HELP = `Deskbook ${DESKBOOK_VERSION} — a Jupyter kernel for desktop automation

usage: deskbook <command> [options]

commands:
  install [--user | --sys-prefix | --prefix DIR] [--name NAME]
                      register the kernel with Jupyter (default --user)
  kernel -f FILE      run the kernel on a Jupyter connection file (Jupyter does this)
  gateway-kernel --kernel-id ID --response-address HOST:PORT --public-key KEY
                      a kernel Enterprise Gateway starts remotely (a Kubernetes pod): it sends
                      the gateway its connection info (docs/scale-out.md)
  run NOTEBOOK [-p NAME VALUE]… [-f FILE] [--out PATH] [--timeout MS] [--quiet]
                      run a notebook headless (a recipe): exit 0 when every cell ran,
                      1 when one failed, 2 for usage errors, 3 when the kernel died;
                      \`deskbook run --help\` for every option
  desktop start|stop|status [--json]
                      a virtual desktop (Xvfb, D-Bus, AT-SPI, openbox) for headless machines
  mcp [--server URL --token TOKEN --kernel ID]
                      an MCP server on stdio for agents: tools js and js_reset, in a kernel
                      of its own or in one open in JupyterLab (docs/agents.md)
  doctor [--json]     what this machine has for Deskbook, and the fix for what is missing
  setup [--rebuild] [--restart]
                      macOS: build, sign and install Deskbook Helper.app, then walk through
                      its permissions (--rebuild: build even if unchanged; --restart: quit the
                      running helper so it starts again with new grants)
  signing [--create]  macOS: is the local code-signing identity there (--create: make it)
  allow APP…          approve apps for the desk API without asking (config.json "allow")
  deny APP…           always refuse apps (config.json "deny"; wins over allow)
  confirm [TOKEN]     approve one destructive-looking press the helper refused with
                      confirmation_required (config.json "confirm": "ask"); without a
                      token, list the presses waiting

options:
  --version           print the version
  --help              print this help

environment:
  DESKBOOK_HOME       state directory: config.json, history, helper socket (default ~/.deskbook)
  DESKBOOK_SOCKET     the helper's socket (default $DESKBOOK_HOME/helper.sock; a per-kernel
                      desktop's helper listens in $DESKBOOK_HOME/desktops/<id>/)
  DESKBOOK_CLIENT     the name approval dialogs and actions.log show for this kernel
  DESKBOOK_TIME_LIMIT_MS
                      the kernel's cell time limit for the whole session (deskbook run --timeout)
  DESKBOOK_DESKTOP    "per-kernel": this kernel gets its own virtual desktop and helper, ended
                      with it; "shared" (default, or config.json "desktop"): one per DESKBOOK_HOME
`;

/**
 * Whether `deskbook kernel` forks the executor first, before the kernel's own modules load: its
 * start is the longer one. Not for a per-kernel desktop, whose environment the executor gets
 * only later (it forks then), nor for a bad DESKBOOK_DESKTOP, which the kernel refuses. When
 * only config.json asks for a desktop of its own, the kernel learns it later and ends the early
 * fork (src/cli/kernel.ts): reading config.json here delayed every kernel's fork by ~4–8 ms
 * (docs/design.md, "The executor is forked at the CLI's first line").
 */
function forksEarly(mode: ReturnType<typeof desktopModeFromEnv>): boolean {
  return mode === undefined || mode === "shared";
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "install":
      return (await import("./install.js")).install(rest);
    case "kernel":
      if (connectionFileArg(rest) !== undefined && forksEarly(desktopModeFromEnv(process.env))) {
        (await import("../kernel/executor-fork.js")).forkExecutorEarly();
      }
      return (await import("./kernel.js")).runKernel(rest);
    case "gateway-kernel":
      return (await import("./gateway-kernel.js")).runGatewayKernel(rest);
    case "run":
      return (await import("./run.js")).runRun(rest);
    case "desktop":
      return (await import("./desktop.js")).runDesktop(rest);
    case "doctor":
      return (await import("./doctor.js")).runDoctor(rest);
    case "mcp":
      return (await import("./mcp.js")).runMcp(rest);
    case "setup":
      return (await import("./setup.js")).runSetup(rest);
    case "signing":
      return (await import("./signing.js")).runSigning(rest);
    case "allow":
    case "deny":
      return (await import("./policy.js")).runPolicy(command, rest);
    case "confirm":
      return (await import("./confirm.js")).runConfirm(rest);
    case "--version":
    case "-V":
      process.stdout.write(`${DESKBOOK_VERSION}\n`);
      return 0;
    case undefined:
    case "--help":
    case "-h":
    case "help":
      process.stdout.write(HELP);
      return 0;
    default:
      process.stderr.write(`deskbook: unknown command ${JSON.stringify(command)}\n\n${HELP}`);
      return 2;
  }
}

// A kernel launcher may have moved NODE_EXTRA_CA_CERTS aside (src/kernel/extra-ca-handoff.ts):
// back it goes, before any command starts a process.
restoreExtraCaCerts();
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`deskbook: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
