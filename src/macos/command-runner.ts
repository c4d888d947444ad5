// Runs external programs (swift, codesign, security, openssl, open) for the macOS setup.
// Callers take a CommandRunner so tests can record the commands instead of running them.
import { spawn } from "node:child_process";

export interface CommandResult {
  status: number;
  stdout: string;
  stderr: string;
}

export interface CommandOptions {
  /** Show the program's output to the user as it runs (swift build is slow), instead of capturing it. */
  inherit?: boolean;
  cwd?: string;
  /** Extra environment variables (added to the current ones). */
  env?: Record<string, string>;
}

export type CommandRunner = (command: string, args: readonly string[], options?: CommandOptions) => Promise<CommandResult>;

/** The real runner. A program that cannot be started answers status 127 with the reason in stderr. */
export const runCommand: CommandRunner = (command, args, options = {}) =>
  new Promise((resolve) => {
    const child = spawn(command, [...args], {
      cwd: options.cwd,
      env: options.env ? { ...process.env, ...options.env } : process.env,
      stdio: options.inherit ? ["ignore", "inherit", "inherit"] : ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", (error) => resolve({ status: 127, stdout, stderr: `${stderr}${error.message}` }));
    child.once("close", (code, signal) => resolve({ status: code ?? (signal ? 128 : 1), stdout, stderr }));
  });

/** Runs a command and throws, naming it, when it fails. */
export async function mustRun(run: CommandRunner, command: string, args: readonly string[], options?: CommandOptions): Promise<CommandResult> {
  const result = await run(command, args, options);
  if (result.status !== 0) {
    const output = result.stderr.trim() || result.stdout.trim();
    throw new Error(`${command} ${args.join(" ")} failed (status ${result.status})${output ? `:\n${output}` : ""}`);
  }
  return result;
}
