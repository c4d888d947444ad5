// One call after hello: params checked, then for gated methods the target app found
// (not_running / not_found), the gate passed, the method run, and the action logged.
import { DeskError } from "../../src/helper/desk-error.js";
import { UNGATED_METHODS, type InputResult, type LaunchParams, type MethodParams } from "../../src/helper/protocol.js";
import { validateParams } from "../../src/helper/schema.js";
import { ActionLogWriter, LOGGED_METHODS, type ActionRecord } from "./action-log.js";
import type { AppCatalog, AppRecord } from "./app-catalog.js";
import type { Gate } from "./approval.js";
import type { CallContext, GatedMethod, Handler, HandlerTable, ServedMethod, UngatedMethod } from "./method-types.js";
import type { Services } from "./services.js";
import type { Session } from "./session.js";

export interface CallRequest {
  method: ServedMethod;
  params: unknown;
  step?: string;
}

const REFUSALS: ReadonlySet<string> = new Set(["blocked", "denied", "not_allowed"]);

export class Dispatcher {
  readonly #actionLog = new ActionLogWriter();

  constructor(
    private readonly services: Services,
    private readonly catalog: AppCatalog,
    private readonly gate: Gate,
    private readonly methods: HandlerTable,
  ) {}

  async call(session: Session, request: CallRequest): Promise<unknown> {
    const valid = validateParams(request.method, request.params);
    if (!valid.ok) throw new DeskError("bad_request", valid.message);
    const ctx: CallContext = { services: this.services, catalog: this.catalog, client: session.client ?? "" };
    if (isUngated(request.method)) return this.run(request.method, request.params, ctx);
    return this.gated(session, request as CallRequest & { method: GatedMethod }, ctx);
  }

  private async gated(session: Session, request: CallRequest & { method: GatedMethod }, ctx: CallContext): Promise<unknown> {
    const app = await this.target(request);
    const pid = app.info.pid;
    try {
      await this.gate.admit(session, { app: this.catalog.identity(app), detail: describe(app) });
    } catch (error) {
      if (error instanceof DeskError && REFUSALS.has(error.code)) this.log(session, request, app, { refused: error.code });
      throw error;
    }
    const result = await this.run(request.method, request.params, { ...ctx, app });
    const launchedPid = request.method === "launch" ? (result as { pid?: number }).pid : pid;
    this.log(session, request, app, { route: (result as Partial<InputResult>).route, pid: launchedPid });
    return result;
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

function isUngated(method: ServedMethod): method is UngatedMethod {
  return (UNGATED_METHODS as readonly string[]).includes(method);
}

/** For the dialog: which process or program the helper means. */
function describe(app: AppRecord): string {
  const program = app.process?.exe || app.info.path || app.entry?.executable;
  const where = app.info.pid !== undefined ? `pid ${app.info.pid}` : "not running yet";
  return program ? `${program} (${where})` : where;
}
