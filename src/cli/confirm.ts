// `deskbook confirm TOKEN`: approves one destructive-looking press the helper refused with
// confirmation_required (config.json `confirm: "ask"`), typed by the person at a terminal; the
// call must then be run again. Exit codes: 1 token not approvable, 2 usage, 3 not a person.
import { approvePending, listPending, type PendingConfirmation } from "../config/confirmations.js";
import { deskbookHome } from "../config/home.js";

export function runConfirm(args: string[]): number {
  if (args.length === 0) return listWaiting();
  if (args.length !== 1 || args[0]!.startsWith("-")) {
    process.stderr.write("usage: deskbook confirm [TOKEN]   (the token a confirmation_required error names; without one, what waits)\n");
    return 2;
  }
  const notPerson = whyNotAPerson();
  if (notPerson) {
    process.stderr.write(`deskbook confirm: not_a_person: ${notPerson}; the person runs it in their own terminal\n`);
    return 3;
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

/**
 * Approval is a person's act: refused from inside a Deskbook cell (the executor sets
 * DESKBOOK_CELL) and without a terminal on stdin, so an agent or a cell that follows the
 * refusal's instruction with child_process cannot approve its own press. Not proof against a
 * cell that means harm (it can unset the marker or edit config.json; docs/security.md).
 */
function whyNotAPerson(): string | undefined {
  if (process.env.DESKBOOK_CELL) return "run from inside a Deskbook cell (DESKBOOK_CELL is set), which cannot approve its own press";
  if (!process.stdin.isTTY) return "stdin is not a terminal, and approving a press is for a person at one";
  return undefined;
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
