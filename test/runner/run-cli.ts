/**
 * Runs `deskbook run` as a user does — the built CLI as a child process — and reads back the
 * notebook it wrote; validates it with Debian's nbformat (the reference validator).
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { CLI } from "../support/kernel-process.js";
import type { Notebook } from "../support/notebook-file.js";

const execFileAsync = promisify(execFile);

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function deskbookRun(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<CliRun> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [CLI, "run", ...args], { env: { ...process.env, ...options.env }, cwd: options.cwd, timeout: options.timeoutMs ?? 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number | string; stdout?: string; stderr?: string; killed?: boolean };
    if (typeof e.code !== "number") throw error;
    return { code: e.code, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

export interface CodeCellSpec {
  source: string;
  tags?: string[];
}

/** A notebook file for the Deskbook kernel, cells given as sources ("# …" makes a markdown cell). */
export function notebookJson(cells: (string | CodeCellSpec)[]): string {
  return JSON.stringify({
    nbformat: 4,
    nbformat_minor: 5,
    metadata: { kernelspec: { name: "deskbook", display_name: "Deskbook (JavaScript)", language: "javascript" } },
    cells: cells.map((cell, i) => {
      const spec = typeof cell === "string" ? { source: cell } : cell;
      if (spec.source.startsWith("# ")) return { id: `md-${i}`, cell_type: "markdown", metadata: {}, source: spec.source };
      return { id: `c-${i}`, cell_type: "code", metadata: spec.tags ? { tags: spec.tags } : {}, source: spec.source, outputs: [], execution_count: null };
    }),
  });
}

export class Scratch {
  private constructor(readonly dir: string) {}
  static async create(): Promise<Scratch> {
    return new Scratch(await mkdtemp(join(tmpdir(), "deskbook-run-")));
  }
  /** Writes a notebook; returns its path. */
  async notebook(name: string, cells: (string | CodeCellSpec)[]): Promise<string> {
    const path = join(this.dir, name);
    await writeFile(path, notebookJson(cells));
    return path;
  }
  async file(name: string, text: string): Promise<string> {
    const path = join(this.dir, name);
    await writeFile(path, text);
    return path;
  }
  async read(path: string): Promise<Notebook & { nbformat: number; metadata: Record<string, unknown> }> {
    return JSON.parse(await readFile(path, "utf8"));
  }
  cleanup(): Promise<void> {
    return rm(this.dir, { recursive: true, force: true });
  }
}

/** Debian's nbformat validator's verdict on a file: "" when valid, else its complaint. */
export function nbformatProblems(path: string): string {
  const script = "import sys, nbformat\nnb = nbformat.read(sys.argv[1], as_version=4)\nnbformat.validate(nb)\nprint('valid')";
  const result = spawnSync("/usr/bin/python3", ["-c", script, path], { encoding: "utf8" });
  return result.stdout.trim() === "valid" && result.status === 0 ? "" : `${result.stdout}${result.stderr}`;
}
