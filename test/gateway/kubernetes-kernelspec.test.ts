/**
 * The shipped Kubernetes kernelspec (kernelspecs/deskbook_kubernetes) and the image's entrypoint.
 * No Kubernetes and no Docker here, so this checks what can be checked without them: the
 * kernel.json is what Enterprise Gateway 3.3.0 reads (its process proxy class exists in the
 * installed package and is a remote one), it launches through EG's Kubernetes launcher with
 * the values that launcher needs, it names the image the Dockerfile builds, and that image's
 * entrypoint runs `deskbook gateway-kernel` in a kernel pod's environment and the given
 * command anywhere else.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/kernel-process.js";

const SPEC_DIR = join(REPO_ROOT, "kernelspecs", "deskbook_kubernetes");
const GATEWAY_PYTHON = join(REPO_ROOT, ".venv/gateway/bin/python");
const ENTRYPOINT = join(REPO_ROOT, "scripts", "container-start.sh");

interface Spec {
  argv: string[];
  language: string;
  interrupt_mode: string;
  env: Record<string, string>;
  metadata: { process_proxy: { class_name: string; config: { image_name: string } } };
}
const spec = JSON.parse(readFileSync(join(SPEC_DIR, "kernel.json"), "utf8")) as Spec;

describe("the Kubernetes kernelspec", () => {
  it("launches through EG's Kubernetes launcher with every value it passes on to the pod", () => {
    expect(spec.argv.slice(0, 2)).toEqual(["python", "/usr/local/share/jupyter/kernels/python_kubernetes/scripts/launch_kubernetes.py"]);
    for (const value of ["kernel-id", "port-range", "response-address", "public-key"]) {
      const at = spec.argv.indexOf(`--RemoteProcessProxy.${value}`);
      expect(spec.argv[at + 1], value).toBe(`{${value.replace("-", "_")}}`);
    }
    expect(spec).toMatchObject({ language: "javascript", interrupt_mode: "message", env: { DESKBOOK_DESKTOP: "per-kernel" } });
    for (const logo of ["logo-32x32.png", "logo-64x64.png", "logo-svg.svg"]) expect(existsSync(join(SPEC_DIR, logo)), logo).toBe(true);
  });

  it("names the image the Dockerfile builds", () => {
    const dockerfile = readFileSync(join(REPO_ROOT, "Dockerfile"), "utf8");
    const [name] = spec.metadata.process_proxy.config.image_name.split(":");
    expect(dockerfile).toContain(`docker build -t ${name} .`);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["\/opt\/deskbook\/scripts\/container-start\.sh"\]$/m);
  });

  it.skipIf(!existsSync(GATEWAY_PYTHON))("names a remote process proxy that Enterprise Gateway 3.3.0 has", () => {
    const check = spawnSync(GATEWAY_PYTHON, [join(REPO_ROOT, "test/gateway/proxy_class.py"), spec.metadata.process_proxy.class_name], { encoding: "utf8" });
    expect(check.stderr).toBe("");
    expect(check.stdout.trim()).toBe("3.3.0 ContainerProcessProxy True");
  });
});

describe("the image's entrypoint", () => {
  const run = (env: Record<string, string>, args: string[]) => spawnSync("sh", [ENTRYPOINT, ...args], { encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, timeout: 30_000 });

  it("runs the given command outside a kernel pod", () => {
    const ran = run({}, ["echo", "single-user server"]);
    expect(ran.stdout).toBe("single-user server\n");
  });

  it("runs deskbook gateway-kernel in a kernel pod, from the pod's environment", () => {
    // Without PUBLIC_KEY it stops at once, and says what is missing: it read the other two.
    const ran = run({ KERNEL_ID: "0b7a2c1e-3f4d-4e5f-8a9b-0c1d2e3f4a5b", RESPONSE_ADDRESS: "10.0.0.5:8877" }, ["echo", "not this"]);
    expect(ran.status).toBe(2);
    expect(ran.stdout).toBe("");
    expect(ran.stderr).toContain("deskbook gateway-kernel: --public-key (or PUBLIC_KEY) is required");
  });
});
