import { type RebuildProgress, adminSubject } from '@acct/contracts';
import { decodeJson, encodeJson } from '@acct/kit';
import { type NatsConnection, createInbox } from 'nats';

/** What a rebuild answers last, on the bus. */
export interface RebuildReply {
  ok: boolean;
  applied?: number;
  last_seq?: number;
  error?: string;
}

/**
 * A rebuild as an operator asks for it on the admin subject (`{ "progress": true }`): the progress
 * messages a replica sends on the reply subject, then its answer. Bounded by the test's timeout.
 */
export async function rebuildOverBus(nc: NatsConnection, prefix: string): Promise<{ reply: RebuildReply; progress: RebuildProgress[] }> {
  const inbox = createInbox();
  const sub = nc.subscribe(inbox);
  const progress: RebuildProgress[] = [];
  try {
    nc.publish(adminSubject(prefix, 'reporting', 'rebuild'), encodeJson({ progress: true }), { reply: inbox });
    for await (const m of sub) {
      const msg = decodeJson<RebuildReply & { progress?: RebuildProgress }>(m.data);
      if (!msg.progress) return { reply: msg, progress };
      progress.push(msg.progress);
    }
    throw new Error('the rebuild subscription closed without an answer');
  } finally {
    sub.unsubscribe();
  }
}
