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
