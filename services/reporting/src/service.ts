import { CONSUMERS, adminSubject, eventsSubjectFilter } from '@acct/contracts';
import { EventConsumer, type ServiceDefinition, type ServiceWiring, type Worker, encodeJson, ensureEventsStream } from '@acct/kit';
import { Freshness } from './freshness';
import { registerReportHandlers } from './handlers/reports.handler';
import { migrations } from './migrations';
import { applyEvent } from './projection';
import { type RebuildTarget, rebuild } from './rebuild';

/** What register() and the workers of one wiring share. */
export type ReportingState = RebuildTarget;
const states = new WeakMap<ServiceWiring, ReportingState>();

export function reportingState(w: ServiceWiring): ReportingState {
  const s = states.get(w);
  if (!s) throw new Error('reporting is not wired');
  return s;
}

export function createConsumer(w: Pick<ServiceWiring, 'nc' | 'prefix' | 'orm' | 'log' | 'metrics'>): EventConsumer {
  return new EventConsumer({
    nc: w.nc,
    prefix: w.prefix,
    orm: w.orm,
    log: w.log,
    metrics: w.metrics,
    name: CONSUMERS.reportingPostings,
    filterSubject: eventsSubjectFilter(w.prefix),
    apply: applyEvent,
  });
}

/**
 * The reporting service: a durable consumer of the events stream projects journal entries, invoices'
 * and bills' due dates, customers and vendors into its schema; the ledger reads and reports come from it.
 */
export function reportingService(): ServiceDefinition {
  return {
    name: 'reporting',
    entities: [],
    migrations,
    register(wiring) {
      const state: ReportingState = { consumer: createConsumer(wiring), fresh: new Freshness(wiring.nc, wiring.prefix, CONSUMERS.reportingPostings) };
      states.set(wiring, state);
      registerReportHandlers(wiring.server, wiring.orm, state.fresh);
    },
    workers(wiring): Worker[] {
      const state = reportingState(wiring);
      const sub = { close: () => Promise.resolve() };
      return [
        {
          name: 'consumer',
          start: async () => {
            await ensureEventsStream(wiring.nc, wiring.prefix);
            await state.consumer.start();
          },
          stop: () => state.consumer.stop(),
        },
        {
          name: 'admin',
          start: () => {
            // Operator commands (npm run admin -- reporting rebuild), one replica answers.
            const s = wiring.nc.subscribe(adminSubject(wiring.prefix, 'reporting', 'rebuild'), {
              queue: `${wiring.prefix}.reporting-admin`,
              callback: (_err, msg) => {
                void rebuild(wiring, state).then(
                  (r) => msg.respond(encodeJson({ ok: true, ...r })),
                  (e: Error) => {
                    wiring.log.error({ err: e }, 'rebuild failed');
                    msg.respond(encodeJson({ ok: false, error: e.message }));
                  },
                );
              },
            });
            sub.close = () => s.drain();
            return Promise.resolve();
          },
          stop: () => sub.close(),
        },
      ];
    },
  };
}
