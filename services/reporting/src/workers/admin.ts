import { type RebuildProgress, adminSubject } from '@acct/contracts';
import { type ServiceWiring, type Worker, decodeJson, encodeJson, logRetriedFailure } from '@acct/kit';
import { type RebuildTarget, rebuild } from '../flows/rebuild';

function safeDecode(data: Uint8Array): { progress?: unknown } | undefined {
  try {
    return decodeJson<{ progress?: unknown }>(data);
  } catch {
    return undefined;
  }
}

/**
 * Operator commands over NATS (`npm run admin -- reporting rebuild`): one replica of the queue
 * group answers each request with `{ ok: true, applied, last_seq }` or `{ ok: false, error }`; a request
 * `{ "progress": true }` first gets `{ progress: RebuildProgress }` messages about once a second.
 */
export function adminWorker(wiring: Pick<ServiceWiring, 'nc' | 'prefix' | 'orm' | 'log'>, state: RebuildTarget, rebuildTimeoutMs: number): Worker {
  let close = () => Promise.resolve();
  return {
    name: 'admin',
    start: () => {
      const s = wiring.nc.subscribe(adminSubject(wiring.prefix, 'reporting', 'rebuild'), {
        queue: `${wiring.prefix}.reporting-admin`,
        callback: (_err, msg) => {
          // `{ "progress": true }` asks for progress messages on the reply subject before the answer.
          const wantsProgress = msg.data.length > 0 && safeDecode(msg.data)?.progress === true;
          const progress = wantsProgress && msg.reply ? (p: RebuildProgress) => wiring.nc.publish(msg.reply!, encodeJson({ progress: p })) : undefined;
          void rebuild(wiring, state, rebuildTimeoutMs, progress).then(
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
