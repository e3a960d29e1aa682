import type { Column } from '../../components/list';
import { List } from '../../components/list';
import { href } from '../../paths';
import { useAccountNames } from './account-names';
import { RecordLink, dayCol, money } from './parts';
import { entryBalances, entryTotal, linesText, shortId, statusText } from './shaping';
import type { JournalEntry } from './types';

/** Where the record an entry came from has its page (API-DECISIONS §7: the posting source types). */
export const SOURCE_ROUTES: Record<string, string> = {
  invoice: '/invoices',
  payment: '/payments',
  processor_payout: '/processor-payouts',
  bill: '/bills',
  vendor_payment: '/vendor-payments',
};

function Lines({ entry }: { entry: JournalEntry }) {
  const names = useAccountNames();
  return (
    <details class="entry">
      <summary>
        {entry.lines.length} lines
        <span class="visually-hidden">
          {' '}
          of the entry of {entry.entry_date}, {shortId(entry.id)}
        </span>
      </summary>
      <div class="entry-lines">
        <table>
          <caption class="visually-hidden">Lines of entry {entry.id}</caption>
          <thead>
            <tr>
              <th scope="col">Account</th>
              <th scope="col" class="num">
                Debit
              </th>
              <th scope="col" class="num">
                Credit
              </th>
            </tr>
          </thead>
          <tbody>
            {entry.lines.map((l, i) => (
              <tr key={i}>
                <th scope="row">
                  <code>{l.account_code}</code> {names.get(l.account_code) ?? ''}
                </th>
                <td class="num">{l.side === 'debit' ? money(l.amount_cents) : ''}</td>
                <td class="num">{l.side === 'credit' ? money(l.amount_cents) : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

function Source({ e }: { e: JournalEntry }) {
  const route = SOURCE_ROUTES[e.source_type];
  const what = statusText(e.source_type);
  return route ? <RecordLink route={route} id={e.source_id} what={what} /> : <>{`${what} ${shortId(e.source_id)}`}</>;
}

export const ENTRY_COLUMNS: Column<JournalEntry>[] = [
  dayCol('Date', (e: JournalEntry) => e.entry_date),
  { label: 'Source', value: (e) => `${e.source_type} ${e.source_id}`, render: (e) => <Source e={e} /> },
  { label: 'Memo', value: (e) => e.memo, render: (e) => e.memo ?? '—' },
  {
    label: 'Amount',
    value: (e) => entryTotal(e) / 100,
    render: (e) => (entryBalances(e) ? money(entryTotal(e)) : <strong>{money(entryTotal(e))} (unbalanced)</strong>),
    numeric: true,
  },
  { label: 'Lines', value: (e) => linesText(e, (c) => money(c)), render: (e) => <Lines entry={e} /> },
  { label: 'Reverses', value: (e) => e.reverses_entry_id, render: (e) => (e.reverses_entry_id ? <code>{shortId(e.reverses_entry_id)}</code> : '—') },
  { label: 'Entry id', value: (e) => e.id, render: (e) => <code>{shortId(e.id)}</code> },
];

/** A record's journal entries (by source_id), with a link to the same list on the journal page. */
export function EntriesOf({ sourceId }: { sourceId: string }) {
  return (
    <section aria-labelledby="entries-title">
      <h2 id="entries-title">Journal entries</h2>
      <List<JournalEntry>
        title="Journal entries"
        path="/v1/journal-entries"
        columns={ENTRY_COLUMNS}
        query={{ source_id: sourceId }}
        createdFilter={false}
        empty="No journal entry: it has not posted."
      />
      <p>
        <a href={`${href('/journal')}?source_id=${encodeURIComponent(sourceId)}`}>Open these entries in the journal</a>
      </p>
    </section>
  );
}
