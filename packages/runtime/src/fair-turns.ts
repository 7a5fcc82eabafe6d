/**
 * A service's requests taken by organization in turn, weighted by cost (Operation.cost), with at
 * most `capacity` running at once. Start-time fair queuing: each request gets a start tag, the later
 * of the service's virtual time (the tag of the request that started last) and the finish tag of
 * its organization's previous request, and a finish tag of start + cost; the waiting request with the
 * smallest start tag runs next. An organization with a backlog of 10-cost reports thus gets one turn
 * for every ten of another's 1-cost lists, and an organization arriving at a busy service is served
 * at once, ahead of every backlog, without banking turns while it was idle.
 *
 * It orders only what reached the service: the requests the in-process bus hands over, and over
 * RabbitMQ the prefetch window (RPC_PREFETCH) of which RPC_CONCURRENCY run. The gateway's cap on
 * each organization's cost in flight keeps any one organization's share of a queue short, so that
 * window holds the others' requests too.
 */
export class FairTurns {
  private running = 0;
  private virtualTime = 0;
  private readonly orgs = new Map<number, { finish: number; waiting: Waiting[] }>();

  constructor(private readonly capacity: number) {}

  /**
   * Runs `work` in the organization's turn. A request whose deadline (epoch ms) passed while it
   * waited is not run: `expired` answers it (its caller has given up).
   */
  run<T>(orgId: number, cost: number, deadline: number | undefined, work: () => Promise<T>, expired: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let org = this.orgs.get(orgId);
      if (!org) {
        org = { finish: 0, waiting: [] };
        this.orgs.set(orgId, org);
      }
      const start = Math.max(this.virtualTime, org.finish);
      org.finish = start + Math.max(1, cost);
      org.waiting.push({
        start,
        go: () => {
          if (deadline !== undefined && Date.now() > deadline) {
            resolve(expired());
            return false;
          }
          work()
            .then(resolve, reject)
            .finally(() => this.done());
          return true;
        },
      });
      this.next();
    });
  }

  /** Requests waiting for their turn. */
  waiting(): number {
    let n = 0;
    for (const org of this.orgs.values()) n += org.waiting.length;
    return n;
  }

  private done(): void {
    this.running--;
    this.next();
  }

  private next(): void {
    while (this.running < this.capacity) {
      let first: { orgId: number; head: Waiting } | undefined;
      for (const [orgId, org] of this.orgs) {
        const head = org.waiting[0];
        if (head && (!first || head.start < first.head.start)) first = { orgId, head };
      }
      if (!first) return;
      const org = this.orgs.get(first.orgId) as { finish: number; waiting: Waiting[] };
      org.waiting.shift();
      this.virtualTime = Math.max(this.virtualTime, first.head.start);
      this.running++;
      if (!first.head.go()) this.running--;
    }
    // An organization with nothing waiting whose last finish the service's time has passed is forgotten.
    for (const [orgId, org] of this.orgs) if (org.waiting.length === 0 && org.finish <= this.virtualTime) this.orgs.delete(orgId);
  }
}

interface Waiting {
  start: number;
  /** Starts the request; false when it expired instead. */
  go: () => boolean;
}
