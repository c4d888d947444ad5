// Carries out a BuildPlan: swift build, the bundle assembled beside the old one, codesign,
// then swapped into place, so a failed build leaves the previous bundle untouched.
import { chmod, copyFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { BuildPlan, BuildStep } from "./build-plan.js";
import { mustRun, type CommandRunner } from "./command-runner.js";
import type { HelperAppPaths } from "./helper-app.js";
import { HELPER_BUNDLE_ID, HELPER_EXECUTABLE, infoPlist } from "./info-plist.js";
import { makeDirs } from "../make-dirs.js";

export interface BuildContext {
  paths: HelperAppPaths;
  sourceDir: string;
  /**
   * SwiftPM's build directory. Kept under DESKBOOK_HOME rather than in helper/macos/.build,
   * because the package may be installed where the user cannot write (a global npm prefix).
   */
  scratchDir: string;
  sourceHash: string;
  /** Deskbook's version, for the Info.plist. */
  version: string;
  run: CommandRunner;
  /** Quits a running helper, if one answers. */
  quitHelper: () => Promise<void>;
  log: (line: string) => void;
}

export async function executeBuildPlan(plan: BuildPlan, context: BuildContext): Promise<void> {
  // Same directory tree (so rename works) and the same .app name (so codesign sees a bundle).
  const staging = join(dirname(context.paths.app), ".helper-build", basename(context.paths.app));
  let binary: string | undefined;
  for (const step of plan.steps) {
    if (step.kind === "swift-build") binary = await swiftBuild(context);
    else await runStep(step, staging, binary, context);
  }
}

async function runStep(step: Exclude<BuildStep, { kind: "swift-build" }>, staging: string, binary: string | undefined, context: BuildContext): Promise<void> {
  const { run, paths } = context;
  switch (step.kind) {
    case "quit-helper":
      return context.quitHelper();
    case "assemble":
      if (!binary) throw new Error("the helper was not built before assembling the app");
      return assemble(staging, binary, context);
    case "sign":
      context.log(`signing with ${step.identity === "-" ? "an ad hoc signature" : step.identity}`);
      // --identifier pins the signing identifier to the bundle id; no timestamp server is needed locally.
      await mustRun(run, "codesign", ["--force", "--sign", step.identity, "--identifier", HELPER_BUNDLE_ID, "--timestamp=none", staging]);
      return;
    case "verify":
      await mustRun(run, "codesign", ["--verify", "--strict", "--verbose=2", staging]);
      return;
    case "install":
      await rm(paths.app, { recursive: true, force: true });
      await rename(staging, paths.app);
      await rm(dirname(staging), { recursive: true, force: true });
      context.log(`installed ${paths.app}`);
      return;
  }
}

/** Builds with the Xcode command line tools and returns the built executable. */
async function swiftBuild(context: BuildContext): Promise<string> {
  const args = ["build", "-c", "release", "--package-path", context.sourceDir, "--scratch-path", context.scratchDir];
  context.log(`swift ${args.join(" ")}`);
  await mustRun(context.run, "swift", args, { inherit: true });
  const binDir = (await mustRun(context.run, "swift", [...args, "--show-bin-path"])).stdout.trim();
  return join(binDir, HELPER_EXECUTABLE);
}

async function assemble(staging: string, binary: string, context: BuildContext): Promise<void> {
  const executable = join(staging, "Contents", "MacOS", HELPER_EXECUTABLE);
  await rm(staging, { recursive: true, force: true });
  await makeDirs(dirname(executable), 0o755);
  await copyFile(binary, executable);
  await chmod(executable, 0o755);
  await writeFile(join(staging, "Contents", "Info.plist"), infoPlist({ version: context.version, sourceHash: context.sourceHash }));
}
