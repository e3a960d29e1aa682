import pg from 'pg';

/**
 * Runs `body` with a jest spy on a group batch's `run` (libs/posting GroupBatch), and restores it
 * after, whatever happens: the group tests count the groups that ran it.
 */
export async function withBatchSpies<T>(batch: { run: (...args: never[]) => unknown }, body: (spies: { run: jest.SpyInstance }) => Promise<T>): Promise<T> {
  const run = jest.spyOn(batch as unknown as Record<'run', (...args: unknown[]) => unknown>, 'run');
  try {
    return await body({ run });
  } finally {
    run.mockRestore();
  }
}

/**
 * Runs `body` while every statement sent through pg is logged by connection. `transactionOf(name)`:
 * the statements (a named one by its name, any other by its text without a final `;`) of the last
 * transaction that ran the named statement `name`, from its BEGIN to its COMMIT or ROLLBACK; the
 * round trips of a unit of work, whose statements all run on its transaction's connection.
 */
export async function withStatementLog<T>(body: (log: { transactionOf: (name: string) => string[] }) => Promise<T>): Promise<T> {
  const byClient = new Map<unknown, string[]>();
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = proto.query;
  const spy = jest.spyOn(proto, 'query').mockImplementation(function (this: unknown, ...args: unknown[]) {
    const config = args[0] as string | { name?: string; text?: string } | null;
    const label = typeof config === 'string' ? config : (config?.name ?? config?.text);
    if (typeof label === 'string') {
      const labels = byClient.get(this) ?? [];
      labels.push(label.trim().replace(/;$/, ''));
      byClient.set(this, labels);
    }
    return query.apply(this, args);
  });
  const transactionOf = (name: string) => {
    const labels = [...byClient.values()].find((l) => l.includes(name)) ?? [];
    const at = labels.lastIndexOf(name);
    const start = labels.slice(0, at).reduce((last, l, i) => (/^begin\b/i.test(l) ? i : last), -1); // the last BEGIN before it
    const end = labels.findIndex((l, i) => i > at && /^(commit|rollback)$/i.test(l));
    return at < 0 ? [] : labels.slice(Math.max(start, 0), end < 0 ? undefined : end + 1);
  };
  try {
    return await body({ transactionOf });
  } finally {
    spy.mockRestore();
  }
}
