/**
 * Runs `body` with jest spies on a group batch's `read` and `run` (libs/posting GroupBatch), and
 * restores both after it, whatever happens: the one-statement tests count which of them ran.
 */
export async function withBatchSpies<T>(
  batch: { run: (...args: never[]) => unknown; read?: (...args: never[]) => unknown },
  body: (spies: { read: jest.SpyInstance; run: jest.SpyInstance }) => Promise<T>,
): Promise<T> {
  const spied = batch as unknown as Record<'read' | 'run', (...args: unknown[]) => unknown>;
  const read = jest.spyOn(spied, 'read');
  const run = jest.spyOn(spied, 'run');
  try {
    return await body({ read, run });
  } finally {
    read.mockRestore();
    run.mockRestore();
  }
}
