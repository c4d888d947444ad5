/**
 * JupyterHub (the pinned one in .venv/peers) with configurable-http-proxy (npm), PAM and the
 * LocalProcessSpawner, serving two real local users this test creates. Both log in with their
 * passwords, start their single-user servers and a Deskbook kernel (the per-kernel-desktop
 * kernelspec) through the Hub's REST API, and run the same notebook at the same time: each
 * drives its own galculator on its own desktop, as its own uid, with its own DESKBOOK_HOME,
 * helper and approvals; one user's cell cannot open the other's helper socket or X display.
 * CI runs as root, which the Hub needs to spawn servers as other users.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { request as httpRequestRaw } from "node:http";
import { chmodSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePorts } from "../../src/client/free-ports.js";
import { endPids } from "../../src/client/home-processes.js";
import { AttachedSession } from "../../src/mcp/attached-session.js";
import type { RunResult } from "../../src/mcp/js-session.js";
import { missingDesktopTools } from "../support/desktop-home.js";
import { resultOf, streamOf } from "../support/run-result.js";
import { CLI, REPO_ROOT } from "../support/kernel-process.js";

const VENV_BIN = join(REPO_ROOT, ".venv/peers/bin");
const CHP = join(REPO_ROOT, "node_modules/.bin/configurable-http-proxy");
const KERNEL_NAME = "deskbook-per-kernel";

function unavailable(): string | null {
  if (process.getuid?.() !== 0) return "not running as root (the Hub spawns servers as other users)";
  const tools = ["useradd", "userdel", "chpasswd", "xdpyinfo", ...missingDesktopTools()].filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0);
  if (tools.length > 0) return `${tools.join(", ")} missing`;
  if (!existsSync(join(VENV_BIN, "jupyterhub"))) return ".venv/peers/bin/jupyterhub missing (bash scripts/setup-python.sh)";
  if (!existsSync(CHP)) return "configurable-http-proxy missing (npm ci)";
  return null;
}
const reason = unavailable();
if (reason) console.warn(`test/hub/jupyterhub.test.ts skipped: ${reason}`);

/**
 * The Hub cannot be told port 0 for its three ports: it hands the hub API's URL to the proxy
 * and the servers, and talks to the proxy's API at the URL it was given. So they are picked
 * free and closed before the Hub and configurable-http-proxy bind them, and another process
 * can take one in between: the Hub then exits ("Address already in use"), or the proxy logs
 * EADDRINUSE and keeps running without that listener. Either way the Hub is stopped and
 * started again on fresh ports.
 */
const HUB_STARTS = 3;
const lostPort = (log: string): boolean => /Address already in use|EADDRINUSE/.test(log);

/** SIGTERM, which the Hub answers by ending its proxy; SIGKILL if it is still there 20 s later. */
async function stopHub(hub: ChildProcess): Promise<void> {
  if (hub.exitCode !== null || hub.signalCode !== null) return;
  const exited = new Promise((resolve) => hub.once("exit", resolve));
  hub.kill("SIGTERM");
  const timer = setTimeout(() => hub.kill("SIGKILL"), 20_000);
  await exited;
  clearTimeout(timer);
}

interface HubUser {
  name: string;
  password: string;
  uid: number;
  home: string;
  factor: number;
  token?: string;
  session?: AttachedSession;
  /** What the user's kernel said about itself. */
  self?: { uid: number; deskbookHome: string; desktopDir: string; display: string; socket: string };
}

describe.skipIf(reason !== null)("JupyterHub: two users, each with their own Deskbook desktop", () => {
  let dir: string;
  let hub: ChildProcess | undefined;
  let hubLog = "";
  let base: string;
  const users: HubUser[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "deskbook-hub-"));
    // The users' servers read the kernelspec from here.
    chmodSync(dir, 0o755);
    for (const factor of [6, 9]) createUser(factor);
    const prefix = join(dir, "prefix");
    const installed = spawnSync(process.execPath, [CLI, "install", "--per-kernel-desktop", "--prefix", prefix], { encoding: "utf8" });
    if (installed.status !== 0) throw new Error(`deskbook install failed: ${installed.stderr}`);
    const jupyterPath = join(prefix, "share", "jupyter");
    for (let start = 1; ; start++) {
      const [port, hubPort, apiPort] = await freePorts(3);
      base = `http://127.0.0.1:${port}`;
      await writeFile(join(dir, "jupyterhub_config.py"), hubConfig({ dir, port: port!, hubPort: hubPort!, apiPort: apiPort!, users, jupyterPath }));
      hubLog = "";
      const child = spawn(join(VENV_BIN, "jupyterhub"), ["-f", join(dir, "jupyterhub_config.py")], { cwd: dir, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, PATH: `${VENV_BIN}:${process.env.PATH ?? ""}` } });
      hub = child;
      // Only the Hub started last writes the log: a stopped one's last lines would say a port was lost.
      const keep = (text: string): void => void (hub === child && (hubLog += text));
      child.stdout!.setEncoding("utf8").on("data", keep);
      child.stderr!.setEncoding("utf8").on("data", keep);
      await waitFor(async () => lostPort(hubLog) || (await fetch(`${base}/hub/api`).catch(() => null))?.ok === true, 60_000, () => `the Hub did not come up:\n${hubLog}`);
      if (!lostPort(hubLog)) break;
      await stopHub(hub);
      if (start === HUB_STARTS) throw new Error(`the Hub lost a port to another process ${HUB_STARTS} times:\n${hubLog}`);
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all(users.map((user) => user.session?.close()));
    // Each server shuts its kernels down, and each kernel its desktop; then the Hub and its proxy go.
    await Promise.all(users.filter((user) => user.token).map((user) => httpRequest(`${base}/hub/api/users/${user.name}/server`, { method: "DELETE", headers: { Authorization: `token ${user.token!}` } }).catch(() => undefined)));
    if (hub) await stopHub(hub);
    // Whatever a user still runs was started by this test.
    for (const user of users) {
      await endPids(pidsOf(user.uid));
      spawnSync("userdel", ["--force", "--remove", user.name]);
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 90_000);

  /** The Hub's own log, for a failure message: the spawner and the servers say there what went wrong. */
  const withHubLog = async <T>(body: () => Promise<T>): Promise<T> => {
    try {
      return await body();
    } catch (error) {
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n--- Hub log (end) ---\n${hubLog.split("\n").slice(-60).join("\n")}`);
    }
  };

  it("lets both users log in, start their servers and run a Deskbook notebook at the same time", () => withHubLog(async () => {
    await Promise.all(users.map(async (user) => {
      const login = await logIn(base, user);
      user.token = await startServer(base, user, login);
      const kernel = await api(base, user, "POST", `/user/${user.name}/api/kernels`, { name: KERNEL_NAME });
      user.session = new AttachedSession({ server: `${base}/user/${user.name}/`, token: user.token, kernel: String(kernel.id), clientName: () => `hub test ${user.name}` });
    }));
    const notebook = (user: HubUser): string[] => [
      'const calc = await desk.getApp("galculator")',
      `for (const key of ["${user.factor}", "*", "7", "="]) await calc.click((await calc.find({ role: "button", label: key, exact: true })).i)`,
      '(await calc.find({ role: "text area" })).value',
      'const fs = require("node:fs"), path = require("node:path"); const dir = process.env.DESKBOOK_DESKTOP_DIR;\n' +
        'console.log(JSON.stringify({ uid: process.getuid(), deskbookHome: path.dirname(path.dirname(dir)), desktopDir: dir, display: JSON.parse(fs.readFileSync(path.join(dir, "desktop.json"), "utf8")).display, socket: path.join(dir, "helper.sock") }))',
    ];
    const results = await Promise.all(users.map(async (user) => {
      const outputs: RunResult[] = [];
      for (const cell of notebook(user)) outputs.push(await user.session!.run(cell, { title: "hub" }));
      return outputs;
    }));
    for (const [i, user] of users.entries()) {
      const outputs = results[i]!;
      expect(outputs.map((o) => o.status), JSON.stringify(outputs)).toEqual(["ok", "ok", "ok", "ok"]);
      expect(resultOf(outputs[2]!)).toBe(`'${user.factor * 7}'`);
      user.self = JSON.parse(streamOf(outputs[3]!)) as HubUser["self"];
      expect(user.self!.uid).toBe(user.uid);
      expect(user.self!.deskbookHome).toBe(join(user.home, ".deskbook"));
    }
    expect(users[0]!.self!.display).not.toBe(users[1]!.self!.display);
  }), 180_000);

  it("keeps each user's approvals their own", async () => {
    const [alice, bob] = users as [HubUser, HubUser];
    // Bob allowed mousepad in his config.json; Alice did not, and hers refuses what it does not list.
    const asked = await alice.session!.run('await desk.getApp("mousepad").then(() => "bound", (e) => e.code)', { title: "hub" });
    expect(resultOf(asked)).toBe("'not_allowed'");
    expect(readFileSync(join(bob.home, ".deskbook", "config.json"), "utf8")).toContain("mousepad");
  });

  it("refuses one user's raw socket client at the other's helper and display", async () => {
    const [alice, bob] = users as [HubUser, HubUser];
    const probe = (other: HubUser) =>
      `await new Promise((resolve) => { const s = require("node:net").connect(${JSON.stringify(other.self!.socket)}); s.on("connect", () => { s.end(); resolve("connected"); }); s.on("error", (e) => resolve(e.code)); })`;
    const x = (other: HubUser) =>
      `const r = require("node:child_process").spawnSync("xdpyinfo", ["-display", ${JSON.stringify(other.self!.display)}], { encoding: "utf8", env: { PATH: "/usr/bin:/bin" } }); r.status + " " + r.stderr.trim().split("\\n")[0]`;
    for (const [me, other] of [[alice, bob], [bob, alice]] as const) {
      expect(resultOf(await me.session!.run(probe(other), { title: "hub" }))).toBe("'EACCES'");
      expect(resultOf(await me.session!.run(x(other), { title: "hub" }))).toMatch(/^'1 Authorization required/);
      // Its own helper is there for it, through the same kind of raw client.
      expect(resultOf(await me.session!.run(probe(me), { title: "hub" }))).toBe("'connected'");
    }
  });

  function createUser(factor: number): HubUser {
    const name = `dbhub${randomBytes(3).toString("hex")}`;
    const password = randomBytes(12).toString("hex");
    const made = spawnSync("useradd", ["--create-home", "--shell", "/bin/sh", name], { encoding: "utf8" });
    if (made.status !== 0) throw new Error(`useradd ${name}: ${made.stderr}`);
    spawnSync("chpasswd", { input: `${name}:${password}\n` });
    const uid = Number(spawnSync("id", ["-u", name], { encoding: "utf8" }).stdout.trim());
    const home = join("/home", name);
    const user: HubUser = { name, password, uid, home, factor };
    // Listed at once, so that afterAll removes it whatever fails next.
    users.push(user);
    const allow = factor === 9 ? ["galculator", "mousepad"] : ["galculator"];
    // Each user's own DESKBOOK_HOME (the default, ~/.deskbook), written as the user.
    const config = JSON.stringify({ approval: "allowlist", allow });
    const wrote = spawnSync("runuser", ["-u", name, "--", "sh", "-c", `mkdir -m 700 -p "$HOME/.deskbook" && printf '%s' '${config}' > "$HOME/.deskbook/config.json"`], { encoding: "utf8", env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin", HOME: home } });
    if (wrote.status !== 0) throw new Error(`writing ${name}'s config: ${wrote.stderr}`);
    return user;
  }
});

function hubConfig(o: { dir: string; port: number; hubPort: number; apiPort: number; users: HubUser[]; jupyterPath: string }): string {
  const py = (value: unknown): string => JSON.stringify(value);
  return [
    "c = get_config()  # noqa",
    `c.JupyterHub.bind_url = ${py(`http://127.0.0.1:${o.port}`)}`,
    `c.JupyterHub.hub_bind_url = ${py(`http://127.0.0.1:${o.hubPort}`)}`,
    `c.ConfigurableHTTPProxy.api_url = ${py(`http://127.0.0.1:${o.apiPort}`)}`,
    `c.ConfigurableHTTPProxy.command = [${py(CHP)}]`,
    `c.ConfigurableHTTPProxy.pid_file = ${py(join(o.dir, "proxy.pid"))}`,
    `c.JupyterHub.db_url = ${py(`sqlite:///${join(o.dir, "jupyterhub.sqlite")}`)}`,
    `c.JupyterHub.cookie_secret_file = ${py(join(o.dir, "cookie_secret"))}`,
    'c.JupyterHub.authenticator_class = "pam"',
    `c.Authenticator.allowed_users = set(${py(o.users.map((u) => u.name))})`,
    `c.Spawner.cmd = [${py(join(VENV_BIN, "jupyterhub-singleuser"))}]`,
    `c.Spawner.environment = {"JUPYTER_PATH": ${py(o.jupyterPath)}}`,
    "c.Spawner.start_timeout = 120",
    "c.Spawner.http_timeout = 120",
    "",
  ].join("\n");
}

interface Login {
  cookies: Map<string, string>;
  xsrf: string;
}

/** The login form, as a browser sends it: the page first (it sets _xsrf), then username, password and _xsrf. */
async function logIn(base: string, user: HubUser): Promise<Login> {
  const cookies = new Map<string, string>();
  // The Hub sets its _xsrf cookie on page navigations only, which browsers mark (fetch would say "cors").
  const page = await httpRequest(`${base}/hub/login`, { headers: { "Sec-Fetch-Mode": "navigate" } });
  keepCookies(page.setCookie, cookies);
  const xsrf = cookies.get("_xsrf");
  if (xsrf === undefined) throw new Error(`the login page set no _xsrf cookie (HTTP ${page.status})`);
  const form = new URLSearchParams({ username: user.name, password: user.password, _xsrf: xsrf }).toString();
  const posted = await httpRequest(`${base}/hub/login`, {
    method: "POST",
    body: form,
    headers: { cookie: cookieHeader(cookies), "Sec-Fetch-Mode": "navigate", "content-type": "application/x-www-form-urlencoded" },
  });
  keepCookies(posted.setCookie, cookies);
  if (posted.status !== 302) throw new Error(`${user.name} could not log in: HTTP ${posted.status}\n${posted.text}`);
  // Logged in, the user's xsrf token is another one: the first page after login sets it.
  const home = await httpRequest(`${base}/hub/home`, { headers: { cookie: cookieHeader(cookies), "Sec-Fetch-Mode": "navigate" } });
  keepCookies(home.setCookie, cookies);
  if (home.status !== 200) throw new Error(`${user.name}'s hub home page after login: HTTP ${home.status}`);
  return { cookies, xsrf: cookies.get("_xsrf")! };
}

/** Starts the user's server with their login cookie, waits until it is ready, and gets them an API token. */
async function startServer(base: string, user: HubUser, login: Login): Promise<string> {
  const asUser = (method: string, path: string, body?: object) =>
    httpRequest(`${base}/hub/api${path}`, {
      method,
      headers: { cookie: cookieHeader(login.cookies), "X-XSRFToken": login.xsrf, "content-type": "application/json" },
      ...(body && { body: JSON.stringify(body) }),
    });
  const started = await asUser("POST", `/users/${user.name}/server`);
  if (started.status !== 201 && started.status !== 202) throw new Error(`starting ${user.name}'s server: HTTP ${started.status} ${started.text}`);
  await waitFor(async () => {
    const model = JSON.parse((await asUser("GET", `/users/${user.name}`)).text) as { servers?: Record<string, { ready?: boolean }> };
    return model.servers?.[""]?.ready === true;
  }, 120_000, () => `${user.name}'s server did not become ready`);
  const token = await asUser("POST", `/users/${user.name}/tokens`, { note: "deskbook hub test", expires_in: 3600 });
  if (token.status !== 200 && token.status !== 201) throw new Error(`a token for ${user.name}: HTTP ${token.status} ${token.text}`);
  return String((JSON.parse(token.text) as { token: string }).token);
}

interface HttpAnswer {
  status: number;
  setCookie: string[];
  text: string;
}

/** node:http, not fetch: fetch sets Sec-Fetch-Mode itself, and the Hub's xsrf rules read it. */
function httpRequest(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequestRaw(url, { method: options.method ?? "GET", headers: options.headers ?? {} }, (response) => {
      let text = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, setCookie: response.headers["set-cookie"] ?? [], text }));
    });
    request.on("error", reject);
    request.end(options.body);
  });
}

async function api(base: string, user: HubUser, method: string, path: string, body: object): Promise<Record<string, unknown>> {
  const response = await fetch(`${base}${path}`, { method, headers: { Authorization: `token ${user.token!}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

function keepCookies(lines: string[], cookies: Map<string, string>): void {
  for (const line of lines) {
    const [pair = ""] = line.split(";");
    const eq = pair.indexOf("=");
    if (eq > 0) cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
}

function cookieHeader(cookies: Map<string, string>): string {
  return [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
}

function pidsOf(uid: number): number[] {
  return readdirSync("/proc").filter((name) => /^\d+$/.test(name)).map(Number).filter((pid) => {
    try {
      return /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] === String(uid);
    } catch {
      return false;
    }
  });
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, message: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(message());
}
