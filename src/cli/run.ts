// `deskbook run NOTEBOOK`: a thin command line over src/runner (docs/recipes.md).
import { basename, dirname, join, resolve } from "node:path";
import { EXIT } from "../runner/exit-status.js";
import { readNotebook } from "../runner/notebook.js";
import { checkName, parameterHelp, parseValue, readParameterFile, undeclared, type Parameters } from "../runner/parameters.js";
import { progressFor, type ProgressMode } from "../runner/progress.js";
import { runNotebook } from "../runner/run-notebook.js";
import { RunnerError } from "../runner/runner-error.js";

export const RUN_USAGE = `usage: deskbook run NOTEBOOK [options]

Runs every code cell of NOTEBOOK in a Deskbook kernel and writes the executed notebook.

  --out PATH            where to write it (default: out/NOTEBOOK beside the input)
  -p, --parameter NAME VALUE
                        set a parameter; VALUE is read as JSON when it parses, else as a string
  -f, --parameters-file FILE
                        parameters from a JSON object (-p given too wins)
  --param-help          list the parameters cell's names and defaults, run nothing
  --timeout MS          time limit per cell (default: timeoutMs in config.json, 120000)
  --no-fresh            start apps with the user's own settings (default: a fresh profile per run)
  --quiet               no progress lines, only a failure

exit status: 0 every cell ran; 1 a cell failed or was stopped; 2 usage error or unreadable
notebook; 3 the kernel died.
`;

export interface RunArgs {
  notebook: string;
  out?: string;
  parameters: [string, string][];
  parameterFiles: string[];
  paramHelp: boolean;
  timeoutMs?: number;
  fresh: boolean;
  quiet: boolean;
}

export interface RunIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  isTTY: boolean;
  env?: NodeJS.ProcessEnv;
}

const defaultIo: RunIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTTY: process.stderr.isTTY === true,
};

export async function runRun(argv: string[], io: RunIo = defaultIo): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout(RUN_USAGE);
    return EXIT.ok;
  }
  try {
    const args = parseRunArgs(argv);
    const notebook = await readNotebook(args.notebook);
    if (args.paramHelp) {
      io.stdout(parameterHelp(notebook, args.notebook));
      return EXIT.ok;
    }
    const parameters = await collectParameters(args);
    for (const name of undeclared(notebook, parameters)) io.stderr(`deskbook run: warning: parameter ${name} is not declared in the notebook's parameters cell\n`);
    const mode: ProgressMode = args.quiet ? "quiet" : io.isTTY ? "tty" : "plain";
    const result = await runNotebook({
      notebook,
      inputPath: resolve(args.notebook),
      outPath: resolve(args.out ?? defaultOut(args.notebook)),
      parameters,
      timeoutMs: args.timeoutMs,
      fresh: args.fresh,
      progress: progressFor(mode, io.stderr),
      env: io.env,
    });
    return result.status;
  } catch (error) {
    if (!(error instanceof RunnerError)) throw error;
    io.stderr(`deskbook run: ${error.message}\n`);
    if (error.code === "usage") io.stderr(`\n${RUN_USAGE}`);
    return error.code === "kernel_died" || error.code === "kernel_failed" ? EXIT.kernelDied : EXIT.usage;
  }
}

export function defaultOut(notebook: string): string {
  return join(dirname(notebook), "out", basename(notebook));
}

export function parseRunArgs(argv: string[]): RunArgs {
  // Fresh profiles exist on Linux only (the macOS helper refuses them).
  const args: RunArgs = { notebook: "", parameters: [], parameterFiles: [], paramHelp: false, fresh: process.platform === "linux", quiet: false };
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = (what: string): string => {
      const next = argv[++i];
      if (next === undefined) throw new RunnerError("usage", `${arg} needs ${what}`);
      return next;
    };
    switch (arg) {
      case "--out":
      case "-o":
        args.out = value("a path");
        break;
      case "-p":
      case "--parameter": {
        const name = value("a name and a value");
        args.parameters.push([name, value("a value after the name")]);
        break;
      }
      case "-f":
      case "--parameters-file":
        args.parameterFiles.push(value("a JSON file"));
        break;
      case "--param-help":
        args.paramHelp = true;
        break;
      case "--timeout":
        args.timeoutMs = positiveInteger(value("milliseconds"));
        break;
      case "--no-fresh":
        args.fresh = false;
        break;
      case "--quiet":
      case "-q":
        args.quiet = true;
        break;
      default:
        if (arg.startsWith("-") && arg !== "-") throw new RunnerError("usage", `unknown option ${arg}`);
        positional.push(arg);
    }
  }
  if (positional.length !== 1) throw new RunnerError("usage", positional.length === 0 ? "which notebook? give its path" : `one notebook at a time, not ${positional.length}`);
  args.notebook = positional[0]!;
  for (const [name] of args.parameters) checkName(name);
  return args;
}

function positiveInteger(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new RunnerError("usage", `--timeout takes a whole number of milliseconds, not ${JSON.stringify(text)}`);
  return n;
}

async function collectParameters(args: RunArgs): Promise<Parameters> {
  const values: Parameters = {};
  for (const file of args.parameterFiles) Object.assign(values, await readParameterFile(file));
  for (const [name, text] of args.parameters) values[name] = parseValue(text);
  return values;
}
