// `deskbook confirm TOKEN`: approves one destructive-looking press the helper refused with
// confirmation_required (config.json `confirm: "ask"`). The call must then be run again.
import { approvePending, listPending, type PendingConfirmation } from "../config/confirmations.js";
import { deskbookHome } from "../config/home.js";

export function runConfirm(args: string[]): number {
  if (args.length === 0) return listWaiting();
  if (args.length !== 1 || args[0]!.startsWith("-")) {
    process.stderr.write("usage: deskbook confirm [TOKEN]   (the token a confirmation_required error names; without one, what waits)\n");
    return 2;
  }
  const outcome = approvePending(deskbookHome(), args[0]!);
  if (!outcome.ok) {
    const why = {
      malformed: "is not a confirmation token (it looks like ABCD-EF23)",
      unknown: "is not waiting for confirmation (it was used already, or the helper never asked for it)",
      expired: "has expired; run the call again for a new token",
    }[outcome.reason];
    process.stderr.write(`deskbook confirm: ${args[0]} ${why}\n`);
    return 1;
  }
  const { pending } = outcome;
  process.stdout.write(`approved: ${describe(pending)}, once; run the call again to do it\n`);
  return 0;
}

/** Without a token: the presses waiting, so the person need not copy the token from the cell. */
function listWaiting(): number {
  const waiting = listPending(deskbookHome());
  if (waiting.length === 0) {
    process.stdout.write("no press is waiting for confirmation\n");
    return 0;
  }
  for (const pending of waiting) process.stdout.write(`${pending.token}  ${describe(pending)}, ${minutesLeft(pending)}\n`);
  process.stdout.write("deskbook confirm TOKEN approves one of them, once\n");
  return 0;
}

function describe(pending: PendingConfirmation): string {
  return `${pending.method} on ${JSON.stringify(pending.label)} in ${pending.app}`;
}

function minutesLeft(pending: PendingConfirmation): string {
  const minutes = Math.max(1, Math.ceil((pending.expiresAt - Date.now()) / 60_000));
  return `expires in ${minutes} min`;
}
