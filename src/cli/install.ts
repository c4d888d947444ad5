import { execFile } from "node:child_process";
import { constants, existsSync } from "node:fs";
import { access, copyFile, readFile, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { KERNEL_NODE_FLAGS } from "../kernel/node-flags.js";
import { HANDOFF_SHELL_ARGV } from "../kernel/extra-ca-handoff.js";
import { makeDirs } from "../make-dirs.js";

const execFileAsync = promisify(execFile);

export const DEFAULT_KERNEL_NAME = "deskbook";
export const DEFAULT_DISPLAY_NAME = "Deskbook (JavaScript)";
export const PER_KERNEL_NAME = "deskbook-per-kernel";
export const PER_KERNEL_DISPLAY_NAME = "Deskbook (JavaScript, own desktop)";
export const GATEWAY_NAME = "deskbook-gateway";
export const GATEWAY_DISPLAY_NAME = "Deskbook (JavaScript, Enterprise Gateway)";
/** Enterprise Gateway's process proxy for kernels it starts on its own host (EG 3.3.0's module path). */
export const LOCAL_PROCESS_PROXY = "enterprise_gateway.services.processproxies.processproxy.LocalProcessProxy";
const FALLBACK_PYTHON = "/usr/bin/python3";
// jupyter_client rejects kernel directory names outside this set.
const KERNEL_NAME = /^[a-z0-9._-]+$/i;

export const INSTALL_USAGE = `usage: deskbook install [--user | --sys-prefix | --prefix DIR] [--name NAME] [--display-name NAME] [--per-kernel-desktop | --gateway]

  --user              install for this user (default): $JUPYTER_DATA_DIR or the platform's Jupyter data dir
  --sys-prefix        install into the Python environment of the \`jupyter\` on PATH
  --prefix DIR        install into DIR/share/jupyter
  --name NAME         kernelspec directory name (default: ${DEFAULT_KERNEL_NAME})
  --display-name NAME name shown in Jupyter's kernel picker (default: "${DEFAULT_DISPLAY_NAME}")
  --per-kernel-desktop
                      the kernelspec whose every kernel gets its own virtual desktop and helper,
                      stopped with the kernel (default name ${PER_KERNEL_NAME}, "${PER_KERNEL_DISPLAY_NAME}")
  --gateway           the kernelspec for Jupyter Enterprise Gateway: a desktop per kernel, started
                      through EG's LocalProcessProxy (default name ${GATEWAY_NAME}, "${GATEWAY_DISPLAY_NAME}");
                      install it where the gateway looks for kernelspecs
`;

export type InstallTarget = { kind: "user" } | { kind: "sys-prefix" } | { kind: "prefix"; dir: string };

export interface InstallOptions {
  target: InstallTarget;
  name: string;
  displayName: string;
  /** Kernels of this spec get their own desktop (env DESKBOOK_DESKTOP=per-kernel). */
  perKernelDesktop: boolean;
  /** Enterprise Gateway's kernelspec: per-kernel desktop, launched by its LocalProcessProxy. */
  gateway: boolean;
}

export interface KernelSpecJson {
  argv: string[];
  display_name: string;
  language: string;
  interrupt_mode: "message" | "signal";
  env: Record<string, string>;
  metadata: { debugger: boolean; process_proxy?: ProcessProxy };
}

/** What Enterprise Gateway reads from a kernelspec's metadata to know how to start its kernels. */
export interface ProcessProxy {
  class_name: string;
  config?: Record<string, unknown>;
}

export interface DataDirContext {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  homeDir: string;
  /** Python's sys.prefix; required only for the sys-prefix target. */
  sysPrefix?: string;
}

/** Everything install() takes from the outside world, replaceable in tests. */
export interface InstallContext {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  homeDir: string;
  nodePath: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** `deskbook install ...`; resolves to the process exit code. */
export async function install(args: string[], context: Partial<InstallContext> = {}): Promise<number> {
  const ctx = withDefaults(context);
  let options: InstallOptions | "help";
  try {
    options = parseInstallArgs(args);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    ctx.stderr(`deskbook install: ${err.message}\n\n${INSTALL_USAGE}`);
    return 2;
  }
  if (options === "help") {
    ctx.stdout(INSTALL_USAGE);
    return 0;
  }
  try {
    await writeKernelSpec(options, ctx);
    return 0;
  } catch (err) {
    ctx.stderr(`deskbook install: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

/** Parses install flags; throws UsageError for anything it does not understand. */
export function parseInstallArgs(args: string[]): InstallOptions | "help" {
  let target: InstallTarget | undefined;
  let name: string | undefined;
  let displayName: string | undefined;
  let perKernelDesktop = false;
  let gateway = false;
  const setTarget = (next: InstallTarget): void => {
    if (target && target.kind !== next.kind) {
      throw new UsageError("--user, --sys-prefix and --prefix are mutually exclusive");
    }
    target = next;
  };
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = splitFlag(args[i]!);
    const value = (): string => {
      const v = inline ?? args[++i];
      if (v === undefined || v === "" || (inline === undefined && v.startsWith("--"))) {
        throw new UsageError(`${flag} needs a value`);
      }
      return v;
    };
    if (inline !== undefined && !["--prefix", "--name", "--display-name"].includes(flag)) {
      throw new UsageError(`${flag} takes no value`);
    }
    switch (flag) {
      case "-h":
      case "--help":
        return "help";
      case "--user":
        setTarget({ kind: "user" });
        break;
      case "--sys-prefix":
        setTarget({ kind: "sys-prefix" });
        break;
      case "--prefix":
        setTarget({ kind: "prefix", dir: value() });
        break;
      case "--name":
        name = value();
        break;
      case "--display-name":
        displayName = value();
        break;
      case "--per-kernel-desktop":
        perKernelDesktop = true;
        break;
      case "--gateway":
        gateway = true;
        break;
      default:
        throw new UsageError(`unknown argument ${JSON.stringify(flag)}`);
    }
  }
  if (gateway && perKernelDesktop) throw new UsageError("--gateway already gives every kernel its own desktop: drop --per-kernel-desktop");
  name ??= gateway ? GATEWAY_NAME : perKernelDesktop ? PER_KERNEL_NAME : DEFAULT_KERNEL_NAME;
  displayName ??= gateway ? GATEWAY_DISPLAY_NAME : perKernelDesktop ? PER_KERNEL_DISPLAY_NAME : DEFAULT_DISPLAY_NAME;
  if (!KERNEL_NAME.test(name)) {
    throw new UsageError(`--name ${JSON.stringify(name)} may contain only letters, digits, ".", "_" and "-"`);
  }
  if (!displayName.trim()) throw new UsageError("--display-name must not be blank");
  return { target: target ?? { kind: "user" }, name, displayName, perKernelDesktop: perKernelDesktop || gateway, gateway };
}

export function kernelJson(opts: { nodePath: string; mainPath: string; displayName?: string; perKernelDesktop?: boolean; gateway?: boolean; platform?: NodeJS.Platform }): KernelSpecJson {
  // Through sh, which moves NODE_EXTRA_CA_CERTS aside for the kernel's start (src/kernel/extra-ca-handoff.ts); Windows has no /bin/sh.
  const shell = (opts.platform ?? process.platform) === "win32" ? [] : HANDOFF_SHELL_ARGV;
  return {
    argv: [...shell, opts.nodePath, ...KERNEL_NODE_FLAGS, opts.mainPath, "kernel", "-f", "{connection_file}"],
    display_name: opts.displayName ?? DEFAULT_DISPLAY_NAME,
    language: "javascript",
    interrupt_mode: "message",
    env: opts.perKernelDesktop || opts.gateway ? { DESKBOOK_DESKTOP: "per-kernel" } : {},
    metadata: opts.gateway ? { debugger: false, process_proxy: { class_name: LOCAL_PROCESS_PROXY } } : { debugger: false },
  };
}

/** The Jupyter data directory (the parent of kernels/) for an install target, as jupyter_core computes it. */
export function dataDirFor(target: InstallTarget, ctx: DataDirContext): string {
  switch (target.kind) {
    case "prefix":
      return join(resolve(target.dir), "share", "jupyter");
    case "sys-prefix":
      if (!ctx.sysPrefix) throw new Error("sys.prefix is needed for --sys-prefix");
      return join(ctx.sysPrefix, "share", "jupyter");
    case "user":
      return userDataDir(ctx);
  }
}

/**
 * The interpreter a launcher script runs under, from its `#!` line (or pip's
 * `'''exec'` trampoline used when the path is too long for a shebang).
 * A bare name (from `#!/usr/bin/env python3`) still has to be looked up on PATH.
 */
export function pythonFromLauncher(script: string): string | null {
  const [first = "", second = ""] = script.split("\n", 2);
  const trampoline = /^'''exec' "?([^"\s]+)"?/.exec(second);
  if (first.startsWith("#!/bin/sh") && trampoline) return trampoline[1]!;
  if (!first.startsWith("#!")) return null;
  const words = first.slice(2).trim().split(/\s+/);
  if (words[0] && /(^|\/)env$/.test(words[0])) {
    return words.slice(1).find((w) => !w.startsWith("-") && !w.includes("=")) ?? null;
  }
  return words[0] || null;
}

// ---------------------------------------------------------------------------

function userDataDir(ctx: DataDirContext): string {
  const { env, platform, homeDir } = ctx;
  if (env.JUPYTER_DATA_DIR) return resolve(env.JUPYTER_DATA_DIR);
  if (platform === "darwin") return join(homeDir, "Library", "Jupyter");
  if (platform === "win32") {
    return env.APPDATA ? join(env.APPDATA, "jupyter") : join(homeDir, ".jupyter", "data");
  }
  return join(env.XDG_DATA_HOME || join(homeDir, ".local", "share"), "jupyter");
}

async function writeKernelSpec(options: InstallOptions, ctx: InstallContext): Promise<void> {
  const root = findPackageRoot();
  const mainPath = join(root, "dist", "src", "cli", "main.js");
  const sysPrefix = options.target.kind === "sys-prefix" ? await findSysPrefix(ctx.env) : undefined;
  const kernelDir = join(dataDirFor(options.target, { ...ctx, sysPrefix }), "kernels", options.name);
  const spec = kernelJson({ nodePath: ctx.nodePath, mainPath, displayName: options.displayName, perKernelDesktop: options.perKernelDesktop, gateway: options.gateway, platform: ctx.platform });

  await makeDirs(kernelDir).catch((err: unknown) => {
    throw new Error(`cannot create ${kernelDir}: ${describeError(err)}${permissionHint(err)}`);
  });
  await writeFile(join(kernelDir, "kernel.json"), JSON.stringify(spec, null, 2) + "\n");
  await copyLogos(join(root, "kernelspec"), kernelDir);

  if (!existsSync(mainPath)) {
    ctx.stderr(`warning: ${mainPath} does not exist yet; run \`npm run build\` before starting the kernel\n`);
  }
  ctx.stdout(successMessage(options, kernelDir));
}

async function copyLogos(from: string, to: string): Promise<void> {
  // Jupyter serves logo-* files as resources; logo-svg.svg is the name front ends ask for.
  const files: [string, string][] = [
    ["logo-32x32.png", "logo-32x32.png"],
    ["logo-64x64.png", "logo-64x64.png"],
    ["logo.svg", "logo-svg.svg"],
  ];
  for (const [src, dest] of files) await copyFile(join(from, src), join(to, dest));
}

function successMessage(options: InstallOptions, kernelDir: string): string {
  const lines = [`Installed kernelspec "${options.name}" (${options.displayName}) in ${kernelDir}`];
  if (options.target.kind === "prefix") {
    const dataDir = dirname(dirname(kernelDir));
    lines.push(`Verify with: JUPYTER_PATH=${dataDir} jupyter kernelspec list`);
    lines.push(`(Jupyter only finds it if ${dataDir} is on its search path; see \`jupyter --paths\`.)`);
  } else {
    lines.push("Verify with: jupyter kernelspec list");
  }
  return lines.join("\n") + "\n";
}

/** The repo root: the nearest ancestor of this module holding package.json and kernelspec/ (from dist/src/cli or src/cli). */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "kernelspec", "logo.svg"))) return dir;
    dir = dirname(dir);
  }
  throw new Error("cannot find the deskbook package root (package.json next to kernelspec/) above this module");
}

/** sys.prefix of the Python behind the `jupyter` on PATH, falling back to the system Python. */
async function findSysPrefix(env: NodeJS.ProcessEnv): Promise<string> {
  const candidates = [await jupyterPython(env), FALLBACK_PYTHON].filter((p): p is string => p !== null);
  const failures: string[] = [];
  for (const python of new Set(candidates)) {
    try {
      const { stdout } = await execFileAsync(python, ["-c", "import sys; print(sys.prefix)"], {
        env,
        timeout: 15_000,
      });
      const prefix = stdout.trim();
      if (prefix && isAbsolute(prefix)) return prefix;
      failures.push(`${python} printed ${JSON.stringify(prefix)}`);
    } catch (err) {
      failures.push(`${python}: ${describeError(err)}`);
    }
  }
  throw new Error(
    `cannot determine Python's sys.prefix for --sys-prefix (${failures.join("; ")}). ` +
      `Install Jupyter, or use --user or --prefix DIR instead.`,
  );
}

async function jupyterPython(env: NodeJS.ProcessEnv): Promise<string | null> {
  const jupyter = await findOnPath("jupyter", env.PATH);
  if (!jupyter) return null;
  const head = await readFile(jupyter, "utf8").then((t) => t.slice(0, 1024), () => "");
  const python = pythonFromLauncher(head);
  if (!python) return null;
  return python.includes("/") ? python : findOnPath(python, env.PATH);
}

async function findOnPath(command: string, pathEnv: string | undefined): Promise<string | null> {
  for (const dir of (pathEnv ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return null;
}

function splitFlag(arg: string): [flag: string, inline: string | undefined] {
  const eq = arg.indexOf("=");
  return arg.startsWith("--") && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
}

function withDefaults(context: Partial<InstallContext>): InstallContext {
  return {
    env: process.env,
    platform: process.platform,
    homeDir: homedir(),
    nodePath: process.execPath,
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    ...context,
  };
}

function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function permissionHint(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === "EACCES" || code === "EPERM" ? " (no permission; try --user or --prefix DIR)" : "";
}
