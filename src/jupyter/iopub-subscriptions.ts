/**
 * Which topics iopub has subscribers for, from the XPUB socket's subscription frames (first byte
 * 1 = subscribe, 0 = unsubscribe, the rest the topic). The socket is verbose for subscriptions
 * only, so every subscribe arrives but an unsubscribe only once a topic's last subscriber left:
 * a set of topics is exactly "someone listens".
 */
export class IopubSubscriptions {
  private readonly topics = new Set<string>();
  private subscribeFrames = 0;
  private waiters: Array<() => void> = [];

  /** Takes one subscription frame; returns the topic when it was a subscribe. */
  note(frame: Buffer | undefined): string | undefined {
    if (!frame || (frame[0] !== 0 && frame[0] !== 1)) return undefined;
    const topic = frame.subarray(1).toString("utf8");
    if (frame[0] === 0) {
      this.topics.delete(topic);
      return undefined;
    }
    this.topics.add(topic);
    this.subscribeFrames++;
    for (const wake of this.waiters.splice(0)) wake();
    return topic;
  }

  /** Someone is subscribed to iopub now. */
  get any(): boolean {
    return this.topics.size > 0;
  }

  /** Someone is subscribed to exactly this topic now. */
  has(topic: string): boolean {
    return this.topics.has(topic);
  }

  /** Subscribes seen so far: it changes whenever someone (else) subscribes. */
  get subscribes(): number {
    return this.subscribeFrames;
  }

  /** Resolves true as soon as someone subscribes (at once if someone is), false after `timeoutMs`. */
  whenAny(timeoutMs: number): Promise<boolean> {
    if (this.any) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter !== wake);
        resolve(false);
      }, timeoutMs);
      this.waiters.push(wake);
    });
  }
}
