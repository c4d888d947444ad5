// `deskbook doctor`'s JupyterLab line: does the JupyterLab on PATH see the Deskbook kernel?
// It asks the `jupyter` of JupyterLab's own environment (the same bin folder), since that is
// where JupyterLab looks for kernelspecs; a kernelspec in another environment is invisible.
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import type { Check } from "./doctor.js";

const execFileAsync = promisify(execFile);

interface KernelSpecListing {
  kernelspecs?: Record<string, { resource_dir?: string; spec?: { argv?: string[] } }>;
}

export async function jupyterLabCheck(jupyterLab: string | undefined, kernelName = "deskbook"): Promise<Check> {
  const name = "JupyterLab";
  if (!jupyterLab) {
    return { name, ok: false, optional: true, detail: "jupyter-lab is not on PATH", fix: "pip install jupyterlab (in a virtual environment), then deskbook install --sys-prefix" };
  }
  const bin = dirname(jupyterLab);
  const what = `JupyterLab ${labVersion(bin) ?? "(version unknown)"} at ${jupyterLab}`;
  const fix = `with ${bin} first on PATH: deskbook install --sys-prefix (or deskbook install --user)`;
  let listing: KernelSpecListing;
  try {
    const { stdout } = await execFileAsync(join(bin, "jupyter"), ["kernelspec", "list", "--json"], { timeout: 20_000 });
    listing = JSON.parse(stdout) as KernelSpecListing;
  } catch (err) {
    return { name, ok: false, detail: `${what}: its jupyter kernelspec list failed (${err instanceof Error ? err.message.split("\n")[0] : String(err)})`, fix };
  }
  const entry = listing.kernelspecs?.[kernelName];
  if (!entry) return { name, ok: false, detail: `${what} does not see the ${kernelName} kernel`, fix };
  const cli = entry.spec?.argv?.find((arg) => arg.endsWith(".js"));
  if (cli && !existsSync(cli)) {
    return { name, ok: false, detail: `${what} sees ${kernelName} at ${entry.resource_dir}, but its kernel.json runs ${cli}, which is gone`, fix };
  }
  return { name, ok: true, detail: `${what} sees the ${kernelName} kernel at ${entry.resource_dir}` };
}

/** The version JupyterLab's built front end carries (`share/jupyter/lab/static/package.json`). */
function labVersion(bin: string): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(join(bin, "..", "share", "jupyter", "lab", "static", "package.json"), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : undefined;
  } catch {
    return undefined;
  }
}
