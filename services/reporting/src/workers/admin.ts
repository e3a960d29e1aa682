import { adminSubject } from '@acct/contracts';
import { type ServiceWiring, type Worker, encodeJson, logRetriedFailure } from '@acct/kit';
import { type RebuildTarget, rebuild } from '../flows/rebuild';

/**
 * Operator commands over NATS (`npm run admin -- reporting rebuild`): one replica of the queue
 * group answers each request with `{ ok: true, applied, last_seq }` or `{ ok: false, error }`.
 */
export function adminWorker(wiring: Pick<ServiceWiring, 'nc' | 'prefix' | 'orm' | 'log'>, state: RebuildTarget, rebuildTimeoutMs: number): Worker {
  let close = () => Promise.resolve();
  return {
    name: 'admin',
    start: () => {
      const s = wiring.nc.subscribe(adminSubject(wiring.prefix, 'reporting', 'rebuild'), {
        queue: `${wiring.prefix}.reporting-admin`,
        callback: (_err, msg) => {
          void rebuild(wiring, state, rebuildTimeoutMs).then(
            (r) => msg.respond(encodeJson({ ok: true, ...r })),
            (e: Error) => {
              logRetriedFailure(wiring.log, e, {}, 'rebuild failed');
              msg.respond(encodeJson({ ok: false, error: e.message }));
            },
          );
        },
      });
      close = () => s.drain();
      return Promise.resolve();
    },
    stop: () => close(),
  };
}
