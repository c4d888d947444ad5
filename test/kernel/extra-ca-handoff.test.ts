/**
 * The kernel starts without NODE_EXTRA_CA_CERTS (Node would parse the whole CA store before
 * any of its code ran) and gives it back to the executor, whose cells still trust the extra
 * CAs (src/kernel/extra-ca-handoff.ts). Checked with a real CA made here, a real TLS server
 * and a real kernel, plus the kernel's module graph: nothing in it can open a TLS connection.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { EXTRA_CA_VAR, HANDED_OFF_VAR, HANDOFF_SHELL_ARGV, kernelLaunchEnv, restoreExtraCaCerts } from "../../src/kernel/extra-ca-handoff.js";
import { REPO_ROOT, resultText, startKernel, type RunningKernel } from "../support/kernel-process.js";

/** The environment a process was started with (what Node read at its start), from /proc. */
function startEnv(pid: number): Map<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
  return new Map(entries.map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]));
}

function executorPid(kernelPid: number): number {
  const children = readFileSync(`/proc/${kernelPid}/task/${kernelPid}/children`, "utf8").trim().split(/\s+/).map(Number);
  const executor = children.find((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(join("executor", "main.js")));
  if (executor === undefined) throw new Error(`no executor among the kernel's children ${children.join(", ")}`);
  return executor;
}

describe("moving NODE_EXTRA_CA_CERTS aside and back", () => {
  it("moves a non-empty value into the carrier and back, and leaves an empty or missing one alone", () => {
    const launched = kernelLaunchEnv({ PATH: "/bin", [EXTRA_CA_VAR]: "/etc/proxy ca.pem" });
    expect(launched).toEqual({ PATH: "/bin", [HANDED_OFF_VAR]: "/etc/proxy ca.pem" });
    restoreExtraCaCerts(launched);
    expect(launched).toEqual({ PATH: "/bin", [EXTRA_CA_VAR]: "/etc/proxy ca.pem" });
    expect(kernelLaunchEnv({ [EXTRA_CA_VAR]: "" })).toEqual({ [EXTRA_CA_VAR]: "" });
    const none: NodeJS.ProcessEnv = { PATH: "/bin" };
    restoreExtraCaCerts(none);
    expect(none).toEqual({ PATH: "/bin" });
  });

  it("the kernelspec's sh prefix does the same and execs the kernel in its own process", () => {
    const value = `/certs/it's "a" $path with spaces.pem`;
    const show = "process.stdout.write(JSON.stringify([process.pid, process.ppid, process.env.NODE_EXTRA_CA_CERTS ?? null, process.env.DESKBOOK_NODE_EXTRA_CA_CERTS ?? null]))";
    const run = (env: NodeJS.ProcessEnv) => {
      const result = spawnSync(HANDOFF_SHELL_ARGV[0]!, [...HANDOFF_SHELL_ARGV.slice(1), process.execPath, "-e", show], { env, encoding: "utf8" });
      expect(result.status, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as [number, number, string | null, string | null];
    };
    const [pid, parent, extra, carried] = run({ PATH: process.env.PATH, [EXTRA_CA_VAR]: value });
    expect([extra, carried]).toEqual([null, value]);
    expect(parent).toBe(process.pid); // exec: node replaced the shell, so it is the launcher's own child
    expect(pid).toBeGreaterThan(0);
    expect(run({ PATH: process.env.PATH }).slice(2)).toEqual([null, null]);
  });
});

describe("the kernel's own code makes no TLS connection", () => {
  // Every package the kernel's processes load; a new one must be checked for TLS before it joins.
  const KNOWN_PACKAGES = ["acorn", "acorn-walk", "x11", "zeromq"];
  const TLS_BUILTINS = /^(node:)?(tls|https|http2)$/;

  it.each(["dist/src/cli/kernel.js", "dist/src/cli/gateway-kernel.js"])("%s and everything it imports, lazily too", async (entry) => {
    const result = await build({
      entryPoints: [join(REPO_ROOT, entry)],
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      packages: "external",
      outdir: join(tmpdir(), "deskbook-kernel-graph"),
      write: false,
      metafile: true,
      logLevel: "error",
    });
    const external = new Set<string>();
    const fetches: string[] = [];
    for (const [path, input] of Object.entries(result.metafile.inputs)) {
      for (const imported of input.imports) if (imported.external) external.add(imported.path);
      for (const call of readFileSync(join(REPO_ROOT, path), "utf8").match(/\bfetch\([^)]*\)|new WebSocket\(/g) ?? []) fetches.push(call);
    }
    expect([...external].filter((name) => TLS_BUILTINS.test(name))).toEqual([]);
    expect([...external].filter((name) => !name.startsWith("node:")).sort()).toEqual(KNOWN_PACKAGES);
    // The live view's readiness probe is the one fetch: plain HTTP to this machine.
    for (const call of fetches) expect(call).toMatch(/^fetch\(`http:\/\/127\.0\.0\.1:/);
  });
});

describe("a kernel started with NODE_EXTRA_CA_CERTS", () => {
  let dir: string;
  let caFile: string;
  let trusted: Server;
  let untrusted: Server;
  let kernel: RunningKernel;
  const port = (server: Server) => (server.address() as AddressInfo).port;
  const listen = (server: Server) => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "deskbook-extra-ca-"));
    const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
    const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    const san = ["-addext", "subjectAltName=IP:127.0.0.1"];
    openssl("req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Deskbook test CA");
    openssl("req", ...ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1", ...san);
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem", "-days", "2", "-copy_extensions", "copy");
    openssl("req", "-x509", ...ec, "-keyout", "other.key", "-out", "other.pem", "-days", "2", "-subj", "/CN=127.0.0.1", ...san);
    caFile = join(dir, "ca.pem");
    const read = (name: string) => readFileSync(join(dir, name));
    trusted = createServer({ key: read("server.key"), cert: read("server.pem") }, (_req, res) => res.end("through the extra CA"));
    untrusted = createServer({ key: read("other.key"), cert: read("other.pem") }, (_req, res) => res.end("should not be trusted"));
    await Promise.all([listen(trusted), listen(untrusted)]);
    kernel = await startKernel({ env: { [EXTRA_CA_VAR]: caFile } });
  });
  afterAll(async () => {
    await kernel?.stop();
    trusted?.close();
    untrusted?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("starts the kernel process without it and the executor with it", () => {
    const pid = kernel.process.pid!;
    expect(startEnv(pid).has(EXTRA_CA_VAR)).toBe(false);
    expect(startEnv(pid).get(HANDED_OFF_VAR)).toBe(caFile);
    const executor = startEnv(executorPid(pid));
    expect(executor.get(EXTRA_CA_VAR)).toBe(caFile);
    expect(executor.has(HANDED_OFF_VAR)).toBe(false);
  });

  it("shows cells the variable as given, and their fetch trusts the extra CA and nothing more", async () => {
    const env = await kernel.client.execute("JSON.stringify([process.env.NODE_EXTRA_CA_CERTS, process.env.DESKBOOK_NODE_EXTRA_CA_CERTS ?? null])");
    expect(resultText(env.iopub)).toBe(`'${JSON.stringify([caFile, null])}'`);
    const ok = await kernel.client.execute(`await (await fetch("https://127.0.0.1:${port(trusted)}/")).text()`);
    expect(ok.reply.content.status).toBe("ok");
    expect(resultText(ok.iopub)).toBe("'through the extra CA'");
    const refused = await kernel.client.execute(`await fetch("https://127.0.0.1:${port(untrusted)}/").then(() => "trusted", (e) => e.cause?.code)`);
    expect(resultText(refused.iopub)).toMatch(/SELF_SIGNED/);
  });
});
