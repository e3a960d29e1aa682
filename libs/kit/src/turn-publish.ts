import type { NatsConnection, PublishOptions } from 'nats';

/**
 * Publishes of one event-loop turn, written to the socket in one write, through nats.js's public
 * API. nats.js flushes its outbound buffer in a microtask after the first publish of a macrotask:
 * messages published from separate I/O callbacks (requests that arrived on separate HTTP
 * connections, replies after separate database answers) would each cost a socket write here and a
 * read in nats-server. Queued and published together in one setImmediate, they leave in one write
 * (docs/performance.md, "Publishes of one turn").
 */
class TurnQueue {
  private subjects: string[] = [];
  private payloads: Uint8Array[] = [];
  private options: (PublishOptions | undefined)[] = [];
  private onError: (((e: unknown) => void) | undefined)[] = [];
  private scheduled = false;

  constructor(private readonly nc: NatsConnection) {}

  push(subject: string, data: Uint8Array, options: PublishOptions | undefined, onError: ((e: unknown) => void) | undefined): void {
    this.subjects.push(subject);
    this.payloads.push(data);
    this.options.push(options);
    this.onError.push(onError);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.flush);
  }

  private readonly flush = (): void => {
    const { subjects, payloads, options, onError } = this;
    this.subjects = [];
    this.payloads = [];
    this.options = [];
    this.onError = [];
    this.scheduled = false;
    for (let i = 0; i < subjects.length; i++) {
      try {
        this.nc.publish(subjects[i]!, payloads[i], options[i]);
      } catch (e) {
        onError[i]?.(e);
      }
    }
  };
}

const queues = new WeakMap<NatsConnection, TurnQueue>();

/**
 * nc.publish(subject, data, options) at the end of this turn, with the turn's other publishes on nc;
 * `onError` gets what the publish threw (the connection closed meanwhile, ...).
 */
export function publishInTurn(nc: NatsConnection, subject: string, data: Uint8Array, options?: PublishOptions, onError?: (e: unknown) => void): void {
  let q = queues.get(nc);
  if (!q) queues.set(nc, (q = new TurnQueue(nc)));
  q.push(subject, data, options, onError);
}
