// `deskbook setup [--rebuild] [--restart]` (macOS): build, sign and install Deskbook Helper.app,
// then walk through its permissions. Exits 1 if Accessibility or Screen Recording stays off.
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { deskbookHome, ensureHome } from "../config/home.js";
import { HelperClient } from "../helper/client.js";
import { helperSocketPath } from "../helper/socket-path.js";
import { executeBuildPlan } from "../macos/build-app.js";
import { planBuild } from "../macos/build-plan.js";
import { runCommand, type CommandRunner } from "../macos/command-runner.js";
import { helperAppState, helperAppPaths, helperSourceDir } from "../macos/helper-app.js";
import { launchMacHelper } from "../macos/launch-app.js";
import { notMacosMessage } from "../macos/not-macos.js";
import { walkPermissions } from "../macos/permission-walk.js";
import { quitRunningHelper } from "../macos/quit-helper.js";
import { findSigningIdentity } from "../macos/signing-identity.js";
import { helperSourceHash } from "../macos/source-hash.js";
import { DESKBOOK_VERSION } from "../version.js";

const USAGE = "usage: deskbook setup [--rebuild] [--restart]\n";
const POLL_MS = 2_000;
const WAIT_MS = 180_000;
const OPTIONAL_WAIT_MS = 60_000;

export async function runSetup(args: string[]): Promise<number> {
  const unknown = args.filter((arg) => arg !== "--rebuild" && arg !== "--restart");
  if (unknown.length) {
    process.stderr.write(`deskbook setup: unknown option ${unknown[0]}\n${USAGE}`);
    return 2;
  }
  if (process.platform !== "darwin") {
    process.stderr.write(notMacosMessage("setup"));
    return 1;
  }
  return setupMac({ rebuild: args.includes("--rebuild"), restart: args.includes("--restart") }, runCommand);
}

async function setupMac(options: { rebuild: boolean; restart: boolean }, run: CommandRunner): Promise<number> {
  const say = (line: string): void => void process.stdout.write(`${line}\n`);
  const home = deskbookHome();
  const socketPath = helperSocketPath();
  await ensureHome(home);
  const sourceDir = helperSourceDir();
  if (!sourceDir) {
    process.stderr.write("deskbook setup: the helper's Swift source (helper/macos) is not part of this installation\n");
    return 1;
  }
  if ((await run("xcrun", ["--find", "swift"])).status !== 0) {
    process.stderr.write("deskbook setup: Swift is missing; install the Xcode command line tools with `xcode-select --install`, then run setup again\n");
    return 1;
  }
  const paths = helperAppPaths(home);
  const sourceHash = helperSourceHash(sourceDir);
  const identity = await findSigningIdentity(run).catch((error: unknown) => {
    say(`could not ask the keychain for a signing identity (${error instanceof Error ? error.message : String(error)}); signing ad hoc`);
    return undefined;
  });
  const plan = planBuild({ state: helperAppState(paths, sourceHash).state, rebuild: options.rebuild, identity });
  const quit = async (): Promise<void> => {
    const pid = await quitRunningHelper(socketPath);
    if (pid !== undefined) say(`quit the running helper (pid ${pid})`);
  };
  if (plan.reason) {
    say(`building ${paths.app}: ${plan.reason}`);
    say(plan.signing);
    await executeBuildPlan(plan, { paths, sourceDir, scratchDir: join(home, "swift-build"), sourceHash, version: DESKBOOK_VERSION, run, quitHelper: quit, log: say });
  } else {
    say(`${paths.app} is up to date (${plan.signing})`);
    if (options.restart) await quit();
  }
  return walk(socketPath, paths.app, run, say);
}

/** Launches the helper and asks for each permission in turn. */
async function walk(socketPath: string, appPath: string, run: CommandRunner, say: (line: string) => void): Promise<number> {
  const client = await HelperClient.connect({ socketPath, clientName: "deskbook setup", launch: () => launchMacHelper(socketPath) });
  try {
    const result = await walkPermissions({
      permissions: (params) => client.request("permissions", params),
      restartHelper: async () => void (await quitRunningHelper(socketPath)),
      openUrl: async (url) => void (await run("open", [url])),
      print: say,
      sleep: (ms) => sleep(ms),
      pollMs: POLL_MS,
      waitMs: WAIT_MS,
      optionalWaitMs: OPTIONAL_WAIT_MS,
      appPath,
    });
    if (result.missing.length) {
      say(`\nstill missing: ${result.missing.join(", ")}. Switch them on for Deskbook Helper, then run \`deskbook setup\` again (or \`deskbook setup --restart\` if they already show as on).`);
      return 1;
    }
    say("\nDeskbook Helper is ready.");
    return 0;
  } finally {
    await client.close();
  }
}
