import { type RebuildProgress, adminSubject, inboxPrefixOf } from '@acct/contracts';
import { decodeJson, encodeJson } from '@acct/kit';
import { type NatsConnection, createInbox } from 'nats';

/** How long the CLI waits for a reporting replica's first message (a running replica answers at once). */
export const FIRST_ANSWER_MS = 30_000;
/** What the CLI waits beyond the replica's own bound (REPORTING_REBUILD_TIMEOUT_MS, sent in each progress message) for its answer. */
export const ANSWER_MARGIN_MS = 30_000;

const group = (n: number) => Math.round(n).toLocaleString('en-US');

/** A duration in seconds as `45 s`, `12 min 5 s`, `2 h 3 min`. */
export function formatSeconds(s: number): string {
  const t = Math.max(0, Math.round(s));
  if (t < 60) return `${t} s`;
  if (t < 3600) return `${Math.floor(t / 60)} min ${t % 60} s`;
  return `${Math.floor(t / 3600)} h ${Math.floor((t % 3600) / 60)} min`;
}

/** One progress line: `rebuild: 1,200 of 5,000 events applied (24.0%), 310.5/s, ETA 13 s`. */
export function formatRebuildProgress(p: RebuildProgress): string {
  const pct = p.total > 0 ? ((100 * p.applied) / p.total).toFixed(1) : '100.0';
  const eta = p.eta_s === null ? 'ETA unknown' : `ETA ${formatSeconds(p.eta_s)}`;
  return `rebuild: ${group(p.applied)} of ${group(p.total)} events applied (${pct}%), ${p.rate_per_s.toFixed(1)}/s, ${eta}`;
}

/** The final answer of a rebuild replica. */
export interface RebuildAnswer {
  ok: boolean;
  applied?: number;
  last_seq?: number;
  error?: string;
}

/**
 * Asks a reporting replica to rebuild with progress (`{ "progress": true }`), hands each progress
 * message to onProgress and resolves with the final answer. Waits FIRST_ANSWER_MS for a first
 * message, then the replica's own timeout_ms plus ANSWER_MARGIN_MS from the start: one setting
 * (REPORTING_REBUILD_TIMEOUT_MS on the service) bounds both.
 */
export async function requestRebuild(nc: NatsConnection, prefix: string, onProgress: (p: RebuildProgress) => void, firstAnswerMs = FIRST_ANSWER_MS): Promise<RebuildAnswer> {
  // The admin user's own inbox prefix: on a bus with users it may subscribe there only.
  const inbox = createInbox(inboxPrefixOf('admin'));
  const sub = nc.subscribe(inbox);
  const started = Date.now();
  let deadline = started + firstAnswerMs;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => sub.unsubscribe(), Math.max(0, deadline - Date.now()));
  };
  arm();
  try {
    nc.publish(adminSubject(prefix, 'reporting', 'rebuild'), encodeJson({ progress: true }), { reply: inbox });
    for await (const m of sub) {
      const msg = decodeJson<RebuildAnswer & { progress?: RebuildProgress }>(m.data);
      if (!msg.progress) return msg;
      onProgress(msg.progress);
      deadline = started + msg.progress.timeout_ms + ANSWER_MARGIN_MS;
      arm();
    }
    throw new Error(
      deadline === started + firstAnswerMs
        ? `no reporting replica answered within ${firstAnswerMs} ms (is the reporting service running on this NATS_PREFIX?)`
        : `the rebuild did not answer within its timeout (REPORTING_REBUILD_TIMEOUT_MS) plus ${ANSWER_MARGIN_MS} ms`,
    );
  } finally {
    clearTimeout(timer);
    sub.unsubscribe();
  }
}
