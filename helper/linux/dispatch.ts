// One call after hello, its params checked by the server: for gated methods the target app found
// (not_running / not_found), the gate passed, the method run, and the action logged.
import { DeskError } from "../../src/helper/desk-error.js";
import { UNGATED_METHODS, type InputResult, type LaunchParams, type MethodParams } from "../../src/helper/protocol.js";
import { ActionLogWriter, LOGGED_METHODS, type ActionRecord } from "./action-log.js";
import type { AppCatalog, AppRecord } from "./app-catalog.js";
import type { Gate } from "./approval.js";
import { releaseHeldKeys } from "./input.js";
import { Confirmations, type Approval } from "./confirmation.js";
import { appGrant, destructiveWord, READ_METHODS, tierRefusal } from "./grant.js";
import type { CallContext, GatedMethod, Handler, HandlerTable, ServedMethod, UngatedMethod } from "./method-types.js";
import type { PolicyApp } from "./policy.js";
import { pressTarget, type PressTarget } from "./press-target.js";
import type { Services } from "./services.js";
import type { Session } from "./session.js";

export interface CallRequest {
  method: ServedMethod;
  params: unknown;
  step?: string;
}

const REFUSALS: ReadonlySet<string> = new Set(["blocked", "denied", "not_allowed", "not_granted", "confirmation_required"]);

/** What the action log names as the app of an ungated call that acts. */
const NO_APP: Partial<Record<ServedMethod, string>> = { clipboardWrite: "(clipboard)" };

export class Dispatcher {
  readonly #actionLog = new ActionLogWriter();
  readonly #confirmations: Confirmations;

  constructor(
    private readonly services: Services,
    private readonly catalog: AppCatalog,
    private readonly gate: Gate,
    private readonly methods: HandlerTable,
  ) {
    this.#confirmations = new Confirmations(services.home);
  }

  /** One call whose params the server has checked against the schema. */
  async call(session: Session, request: CallRequest): Promise<unknown> {
    const ctx: CallContext = { services: this.services, catalog: this.catalog, client: session.client ?? "" };
    if (isUngated(request.method)) {
      this.ungatedTier(session, request);
      return this.run(request.method, request.params, ctx);
    }
    return this.gated(session, request as CallRequest & { method: GatedMethod }, ctx);
  }

  /** A client that went away while holding keys (keyDown) must not leave them down. */
  closed(): void {
    void releaseHeldKeys().catch(() => undefined);
  }

  /**
   * Calls that name no app and act (clipboardWrite) pass the top-level grant. Only those read
   * config.json: ping, listApps, cursor… answer even while it is invalid (a failed ping would
   * pass for a dead helper). runScript does nothing on Linux and says so before any tier.
   */
  private ungatedTier(session: Session, request: CallRequest): void {
    if (READ_METHODS.has(request.method) || request.method === "runScript") return;
    const message = tierRefusal(this.services.config().grant, request.method, request.params as Record<string, unknown>, "calls that name no app");
    if (message === undefined) return;
    const app = NO_APP[request.method] ?? "(none)";
    this.log(session, request, { info: { name: app, running: false } }, { refused: "not_granted" });
    throw new DeskError("not_granted", message);
  }

  /**
   * The grant tier (not_granted) before the approval gate, so no dialog asks about a call that
   * would be refused anyway; the confirmation of a destructive-looking press after it.
   */
  private async gated(session: Session, request: CallRequest & { method: GatedMethod }, ctx: CallContext): Promise<unknown> {
    const app = await this.target(request);
    const pid = app.info.pid;
    const identity = this.catalog.identity(app);
    let pressed: ApprovedPress | undefined;
    try {
      const grant = appGrant(this.services.config(), identity);
      const refusal = tierRefusal(grant.grant, request.method, request.params as Record<string, unknown>, identity.name);
      if (refusal !== undefined) throw new DeskError("not_granted", refusal);
      await this.gate.admit(session, { app: identity, detail: describe(app) });
      if (grant.confirm === "ask") pressed = await this.confirmPress(request, identity, pid, { ...ctx, app });
    } catch (error) {
      if (error instanceof DeskError && REFUSALS.has(error.code)) this.log(session, request, app, { refused: error.code });
      throw error;
    }
    const runCtx: CallContext = { ...ctx, app, ...(pressed?.target.menuItem && { menuItem: pressed.target.menuItem }) };
    let result: unknown;
    try {
      result = await this.run(request.method, request.params, runCtx);
    } catch (error) {
      pressed?.approval.notSent();
      throw error;
    }
    pressed?.approval.sent();
    const launchedPid = request.method === "launch" ? (result as { pid?: number }).pid : pid;
    this.log(session, request, app, { route: (result as Partial<InputResult>).route, pid: launchedPid });
    return result;
  }

  /** Throws confirmation_required for a destructive-looking press not yet approved; the approval and target otherwise. */
  private async confirmPress(request: CallRequest, identity: PolicyApp, pid: number | undefined, ctx: CallContext): Promise<ApprovedPress | undefined> {
    const target = await pressTarget(request.method, request.params as Record<string, unknown>, ctx);
    const word = target && destructiveWord(target.label);
    if (!target) return undefined;
    // A resolved menu item is handed on even when its label is harmless: the handler presses what was checked.
    if (word === undefined) return { target, approval: NOTHING_TO_APPROVE };
    return { target, approval: this.#confirmations.check({ app: identity.name, ...(pid !== undefined && { pid }), method: request.method, target, word }) };
  }

  /** The app a gated call is about: the pid's, or for launch the one it would start. */
  private target(request: CallRequest & { method: GatedMethod }): Promise<AppRecord> {
    if (request.method === "launch") return this.catalog.launchTarget(request.params as LaunchParams);
    return this.catalog.appOfPid((request.params as { pid: number }).pid);
  }

  private run<M extends ServedMethod>(method: M, params: unknown, ctx: CallContext): Promise<unknown> {
    const handler = this.methods[method] as Handler<M>;
    return handler(params as MethodParams<M>, ctx);
  }

  private log(
    session: Session,
    request: CallRequest,
    app: AppRecord,
    extra: { route?: InputResult["route"]; refused?: string; pid?: number },
  ): void {
    if (!LOGGED_METHODS.has(request.method)) return;
    const record: ActionRecord = {
      client: session.client ?? "",
      ...(this.services.desktop !== undefined && { desktop: this.services.desktop }),
      app: app.info.name,
      action: request.method,
      params: request.params as Record<string, unknown>,
    };
    if (request.step !== undefined) record.step = request.step;
    const pid = extra.pid ?? app.info.pid;
    if (pid !== undefined) record.pid = pid;
    if (extra.route) record.route = extra.route;
    if (extra.refused) record.refused = extra.refused;
    this.#actionLog.write(this.services.home, () => this.services.config().log, record);
  }
}

interface ApprovedPress {
  target: PressTarget;
  approval: Approval;
}

const NOTHING_TO_APPROVE: Approval = { sent: () => undefined, notSent: () => undefined };

function isUngated(method: ServedMethod): method is UngatedMethod {
  return (UNGATED_METHODS as readonly string[]).includes(method);
}

/** For the dialog: which process or program the helper means. */
function describe(app: AppRecord): string {
  const program = app.process?.exe || app.info.path || app.entry?.executable;
  const where = app.info.pid !== undefined ? `pid ${app.info.pid}` : "not running yet";
  return program ? `${program} (${where})` : where;
}
