/**
 * Whether this process has host work in flight that a cell started: a timer, a socket, a
 * child process, a file request. Node lists what keeps its event loop alive
 * (`process.getActiveResourcesInfo()`, by type); the executor's own share of that (its IPC
 * channel, the stop pipe's read) is the baseline, taken before the first cell runs and
 * lowered whenever fewer of a type are seen (an IPC write that was in flight then).
 *
 * The context runner pumps the context's microtasks while this says so: a host promise that
 * settles queues its continuation in the context, with no other notice.
 */
export class HostActivity {
  private baseline: Map<string, number> | undefined;

  constructor(private readonly resources: () => readonly string[] = () => process.getActiveResourcesInfo()) {}

  /** Takes the baseline: what the executor holds with no cell's work in flight. Once. */
  settle(): void {
    this.baseline ??= countByType(this.resources());
  }

  /** True when some type has more resources than the baseline (always true before it is taken). */
  pending(): boolean {
    const baseline = this.baseline;
    if (!baseline) return true;
    const now = countByType(this.resources());
    let more = false;
    for (const [type, base] of baseline) {
      const count = now.get(type) ?? 0;
      if (count < base) baseline.set(type, count);
    }
    for (const [type, count] of now) if (count > (baseline.get(type) ?? 0)) more = true;
    return more;
  }
}

function countByType(types: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of types) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}
