import { AckPolicy, type Consumer, type ConsumerInfo, type ConsumerMessages, DeliverPolicy, type JetStreamManager, type JsMsg } from 'nats';
import { eventsStreamName } from '@acct/contracts';
import { type EventConsumerOptions, NS_PER_MS, settle } from './consumer-event';
import { retryJetStreamSetup } from './jetstream-setup';

/*
 * The pull loop of a consumer: the durable on the events stream, a reader that queues what the
 * server delivers (at most 2 × BATCH_MAX ahead) and an applier that takes everything queued (up to
 * BATCH_MAX, after lingering for more) into one batch, with a heartbeat that keeps every held
 * message this replica's (+WPI) and a stop that hands back what was not taken.
 */

/** Most events applied in one transaction (those already received when the first is taken). */
export const BATCH_MAX = 128;

/**
 * The lingerMs of the consumers that apply every event of a busy stream (reporting's projection, the
 * webhook dispatcher): their events share a batch at the cost of this much delay (figures:
 * docs/performance.md, "Consumer linger"). A posting reaches the projection up to 50 ms later; a
 * report waiting for it cuts that short on its replica (hurry()). deploy/README tells operators this
 * floor of events_consumer_lag_seconds.
 */
export const BATCH_LINGER_MS = 50;

/**
 * How long each pull request waits on the server (nats.js: idle heartbeats every half of it, and a
 * fresh pull after two missed). When the durable goes (a rebuild on another replica deletes and
 * makes it again), the pull requests waiting on it go too, and nats.js, which still counts them,
 * pulls again only after those missed heartbeats: with its default of 30 s, a replica took in
 * nothing for ~30 s after a rebuild (and, were the other replica stopped meanwhile, the projection
 * stood still as long). 5 s: one pull request per 5 s when idle (docs/performance.md, "Consumer pull expiry").
 */
const PULL_EXPIRES_MS = 5_000;

/**
 * The default ack wait: a message delivered to a replica that dies (kill -9, a lost node) goes to
 * another this long after, and reporting's reads, which wait for every event to be acked, answer
 * 503 meanwhile (30 s with the server's default). A live consumer never lets it expire: it says
 * it is working (+WPI) on every message it holds, received or being applied, every third of it.
 */
export const DEFAULT_ACK_WAIT_MS = 5_000;

/** The durable of a consumer on the events stream, made or updated (ack wait) as its options say. */
export interface Durable {
  jsm: JetStreamManager;
  stream: string;
  consumer: Consumer;
}

/** Creates the durable consumer if missing (or gives it the ack wait of `o`) and looks it up. */
export async function openDurable(o: Pick<EventConsumerOptions, 'nc' | 'prefix' | 'name' | 'log' | 'filterSubject' | 'ackWaitMs'>): Promise<Durable> {
  const { nc, prefix, name } = o;
  const stream = eventsStreamName(prefix);
  const retry = <T>(what: string, fn: () => Promise<T>) => retryJetStreamSetup(`${what} (consumer ${name})`, fn, { log: o.log });
  const jsm = await retry('jetstream manager', () => nc.jetstreamManager());
  const config = {
    durable_name: name,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: o.filterSubject,
    ack_wait: (o.ackWaitMs ?? DEFAULT_ACK_WAIT_MS) * NS_PER_MS,
    max_deliver: -1,
  };
  await retry('durable consumer setup', async () => {
    let existing: ConsumerInfo;
    try {
      existing = await jsm.consumers.info(stream, name);
    } catch {
      await jsm.consumers.add(stream, config).catch(async (e) => {
        // Another replica created it in between.
        await jsm.consumers.info(stream, name).catch(() => {
          throw e;
        });
      });
      return;
    }
    // A durable made before with another ack wait (the 30 s of earlier versions) takes this one.
    if (existing.config.ack_wait !== config.ack_wait) await jsm.consumers.update(stream, name, { ack_wait: config.ack_wait });
  });
  const consumer = await retry('durable consumer lookup', () => nc.jetstream().consumers.get(stream, name));
  return { jsm, stream, consumer };
}

/** One start()–stop() of a consumer: stop() sets stopping; backend is the Postgres process of the apply transaction in flight. */
export interface Run {
  stopping: boolean;
  /** The stream sequence hurry() asked for: a queued event at or below it is applied without lingering. */
  hurryTo: number;
  /** Whether the queue holds such an event (or hurry() came with nothing queued at or below it yet). */
  hurried: boolean;
  wake: () => void;
  /** What the reader received and the applier has not taken yet. */
  queue: readonly JsMsg[];
  /** The batch the applier is handling. */
  applying: readonly JsMsg[];
  backend?: number;
}

/** The run of a consumer not started. */
export const idleRun = (): Run => ({ stopping: false, hurryTo: 0, hurried: false, wake: () => undefined, queue: [], applying: [] });

/**
 * Cuts the linger of `run` short for the events up to stream sequence `upTo`: a batch that holds one
 * of them, queued now or arriving later, is applied without waiting lingerMs for more.
 */
export function hurryRun(run: Run, upTo: number): void {
  run.hurryTo = Math.max(run.hurryTo, upTo);
  if (run.queue.some((m) => m.seq <= run.hurryTo)) run.hurried = true;
  run.wake();
}

export interface PullLoopOptions {
  ackWaitMs: number;
  lingerMs?: number;
  /** Handles a batch taken from the queue (the consumer reads the run's stopping and sets its backend). */
  handleBatch: (batch: JsMsg[]) => Promise<void>;
  /** The loop ended on an error (logged by the consumer). */
  onError: (err: unknown) => void;
}

/** The reader and the applier of one run, over the messages of one consume() of the durable. */
export class PullLoop {
  private readonly queue: JsMsg[] = [];
  /** The reader ended (the messages closed). */
  private done = false;
  private wakeApplier?: () => void;
  private wakeReader?: () => void;
  /** Settles when the applier and the reader ended. */
  private readonly ended: Promise<void>;

  private constructor(
    private readonly messages: ConsumerMessages,
    readonly run: Run,
    private readonly o: PullLoopOptions,
  ) {
    run.queue = this.queue;
    const reader = this.read();
    this.run.wake = () => {
      this.wakeApplier?.();
      this.wakeReader?.();
    };
    // Held messages stay this replica's while it lives (and its loop runs), however long a batch lingers or takes.
    const heartbeat = setInterval(() => [...this.run.queue, ...this.run.applying].forEach(settle('working')), Math.max(o.ackWaitMs / 3, 50)).unref();
    this.ended = (async () => {
      await this.applyAll();
      await reader;
    })()
      .catch(o.onError)
      .finally(() => clearInterval(heartbeat));
  }

  /** Pulls from the durable and starts the reader and the applier of `run` (a fresh one: idleRun()). */
  static async start(consumer: Consumer, run: Run, o: PullLoopOptions): Promise<PullLoop> {
    return new PullLoop(await consumer.consume({ max_messages: BATCH_MAX, expires: PULL_EXPIRES_MS }), run, o);
  }

  /** Queues what the server delivers; after stop() hands it back (to another replica now). */
  private async read(): Promise<void> {
    const { run, queue } = this;
    try {
      for await (const m of this.messages) {
        if (run.stopping) {
          settle('nak')(m); // delivered after stop(): to another replica now
          continue;
        }
        queue.push(m);
        if (m.seq <= run.hurryTo) run.hurried = true;
        this.wakeApplier?.();
        while (queue.length >= 2 * BATCH_MAX && !run.stopping) await new Promise<void>((r) => (this.wakeReader = r));
      }
    } finally {
      this.done = true;
      this.wakeApplier?.();
    }
  }

  private async applyAll(): Promise<void> {
    while (await this.waitForWork()) await this.applyNext();
  }

  /** Waits for something queued: true then, false when the loop ends (stopping, or the reader done). */
  private async waitForWork(): Promise<boolean> {
    const { run, queue } = this;
    for (;;) {
      if (run.stopping) {
        // Stopping: what was received and not taken is handed back for redelivery at once.
        queue.splice(0).forEach(settle('nak'));
        this.wakeReader?.();
      }
      if (queue.length > 0) return true;
      if (this.done || run.stopping) return false;
      await new Promise<void>((r) => (this.wakeApplier = r));
      this.wakeApplier = undefined;
    }
  }

  /** Takes a batch (after lingering for more when the queue holds less than BATCH_MAX) and handles it. */
  private async applyNext(): Promise<void> {
    const { run, queue } = this;
    if (this.o.lingerMs && queue.length < BATCH_MAX && !this.done && !run.hurried) {
      await this.linger(() => queue.length >= BATCH_MAX || run.stopping || this.done || run.hurried);
    }
    this.wakeApplier = undefined;
    const batch = queue.splice(0, BATCH_MAX);
    run.hurried = queue.some((m) => m.seq <= run.hurryTo);
    this.wakeReader?.();
    this.wakeReader = undefined;
    run.applying = batch;
    await this.o.handleBatch(batch).finally(() => (run.applying = []));
  }

  /**
   * Waits lingerMs, or less once `enough` (a full batch queued, the consumer stopping, the reader
   * done): the reader and stop() call the waker installed here.
   */
  private linger(enough: () => boolean): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.o.lingerMs);
      this.wakeApplier = () => {
        if (!enough()) return;
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Tells the reader and the applier to hand back what they hold and end. */
  halt(): void {
    this.run.stopping = true;
    this.run.wake();
  }

  /**
   * Closes the pull and waits for the batch being applied at most graceMs: a batch still running
   * then is cancelled (`cancel` its backend) and waited for 300 ms more.
   */
  async close(graceMs: number, cancel: (backend: number) => Promise<void>): Promise<void> {
    const ended = Promise.all([this.messages.close().catch(() => undefined), this.ended]).then(() => true);
    const within = (ms: number) => Promise.race([ended, new Promise<false>((r) => setTimeout(() => r(false), ms).unref())]);
    if (!(await within(graceMs)) && this.run.backend !== undefined) {
      // Abandon the batch: cancel its transaction (rolled back; its messages are handed back).
      await cancel(this.run.backend).catch(() => undefined);
      await within(300);
    }
  }
}
