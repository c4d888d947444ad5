// Runs the helper contract suite (test/contract/) against one helper. Builds nothing.
//
//   npm run test:contract -- --socket PATH [--default-config] [vitest args]
//       A helper already listening at PATH, on any OS. The apps the suite drives (apps.ts)
//       must be startable by `launch` and pass its gate without a dialog (config.json
//       {"approval": "allow-all"}), and processes started here must reach the helper's
//       desktop (on Linux: DISPLAY) because xdotool and xterm play the user.
//       --default-config says that config.json has no `allow` list, so the blocked-app test
//       may use this helper; without it that test is skipped.
//
//   npm run test:contract [vitest args]
//       Starts the Linux helper from dist/ (run `npm run build` first) on a private virtual
//       desktop with a temporary DESKBOOK_HOME whose config.json is {"approval": "allow-all"}.
//
// vitest args pass through, e.g. `-t "Escape"` or `editor` (a file filter). Test files run one at
// a time (test/contract/vitest.config.ts): they share one helper and one desktop.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { hasCommand, startLinuxHelper } from "../test/contract/linux-helper.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const VITEST = join(ROOT, "node_modules/vitest/vitest.mjs");
const CONFIG = join(ROOT, "test/contract/vitest.config.ts");

function parse(argv) {
  const options = { socket: undefined, defaultConfig: false, rest: [] };
  for (let k = 0; k < argv.length; k++) {
    const arg = argv[k];
    if (arg === "--socket") options.socket = argv[++k] ?? "";
    else if (arg.startsWith("--socket=")) options.socket = arg.slice("--socket=".length);
    else if (arg === "--default-config") options.defaultConfig = true;
    else options.rest.push(arg);
  }
  if (options.socket === "") throw new Error("--socket needs a path");
  return options;
}

function runVitest(args, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [VITEST, "run", "--config", CONFIG, ...args], {
      cwd: ROOT,
      env,
      stdio: "inherit",
    });
    // Ctrl+C reaches vitest through the terminal by itself, and a SIGTERM is passed on: either
    // way the wrapper lives on to stop the helper and the desktop after vitest.
    const ignore = () => undefined;
    const forward = () => child.kill("SIGTERM");
    process.on("SIGINT", ignore);
    process.on("SIGTERM", forward);
    child.once("exit", (code, signal) => {
      process.off("SIGINT", ignore);
      process.off("SIGTERM", forward);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

async function main() {
  const options = parse(process.argv.slice(2));
  const env = { ...process.env };
  // Settings meant for the test files only; a caller's leftovers must not leak in.
  delete env.DESKBOOK_CONTRACT_PRIVATE_DESKTOP;
  delete env.DESKBOOK_CONTRACT_DEFAULT_CONFIG;

  if (options.socket) {
    env.DESKBOOK_CONTRACT_SOCKET = options.socket;
    if (options.defaultConfig) env.DESKBOOK_CONTRACT_DEFAULT_CONFIG = "1";
    console.log(`contract: testing the helper at ${options.socket}`);
    return runVitest(options.rest, env);
  }

  if (process.platform !== "linux" || !hasCommand("Xvfb")) {
    console.error("contract: no --socket given, and the Linux helper cannot be started here (needs Linux with Xvfb)");
    return 2;
  }
  if (!existsSync(VITEST)) {
    console.error(`contract: ${VITEST} is missing: run npm ci`);
    return 2;
  }
  const helper = await startLinuxHelper({ config: { approval: "allow-all" } });
  console.log(`contract: started the Linux helper at ${helper.socketPath} on DISPLAY ${helper.desktopEnv.DISPLAY}`);
  try {
    Object.assign(env, helper.desktopEnv, {
      DESKBOOK_CONTRACT_SOCKET: helper.socketPath,
      DESKBOOK_CONTRACT_PRIVATE_DESKTOP: "1",
    });
    const status = await runVitest(options.rest, env);
    if (status !== 0) console.error(`--- the helper's output ---\n${helper.log().trimEnd().split("\n").slice(-80).join("\n")}`);
    return status;
  } finally {
    await helper.stop();
  }
}

main().then(
  (status) => process.exit(status),
  (error) => {
    console.error(`contract: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
