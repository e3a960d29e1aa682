import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api } from '../../api/client';
import { List } from '../../components/list';
import { ErrorNote, Field, Loading, PageTitle } from '../../components/ui';
import { useLoad } from '../../hooks';
import { href } from '../../paths';
import { ENTRY_COLUMNS, SOURCE_ROUTES } from './entries';
import { StaticTable, StatusBadge } from './parts';
import { isDay, shortId, statusText } from './shaping';
import type { JournalEntry, LedgerVerification } from './types';

type Chain = LedgerVerification['chains'][number] & { id: string };

const CHAIN_COLUMNS = [
  { label: 'Posting service', value: (c: Chain) => c.service },
  { label: 'Entries', value: (c: Chain) => c.entries, numeric: true },
  { label: 'Head hash', value: (c: Chain) => c.head_hash, render: (c: Chain) => <code>{c.head_hash.slice(0, 16)}…</code> },
  { label: 'First broken entry', value: (c: Chain) => c.first_broken_entry_id, render: (c: Chain) => (c.first_broken_entry_id ? <code>{c.first_broken_entry_id}</code> : '—') },
  { label: 'Reason', value: (c: Chain) => c.reason ?? '', render: (c: Chain) => (c.reason ? statusText(c.reason) : '—') },
];

/** GET /ledger/verification, shown first: the chains re-computed now, intact or where they break. */
function Verification() {
  const v = useLoad(() => api.get<{ data: LedgerVerification }>('/v1/ledger/verification'), []);
  const data = v.data?.data;
  const broken = data?.status === 'broken';
  return (
    <section class={`panel verification${broken ? ' verification-broken' : ''}`} aria-labelledby="verification-title">
      <h2 id="verification-title">Verification</h2>
      {v.loading && !data ? <Loading what="the verification" /> : null}
      <ErrorNote error={v.error} />
      {data ? (
        <>
          <p role="status">
            <StatusBadge status={data.status} />{' '}
            {broken
              ? 'The journal is broken: an entry was changed, removed or added outside the service. The chains below name the first entry affected.'
              : `The journal is intact: ${data.entries_checked} entries checked, every hash chain holds.`}
          </p>
          <StaticTable title="Hash chains" columns={CHAIN_COLUMNS} rows={data.chains.map((c) => ({ ...c, id: c.service }))} empty="No entry posted yet." csv={false} />
          <button type="button" class="secondary" onClick={v.reload} disabled={v.loading}>
            Verify again
          </button>
        </>
      ) : null}
    </section>
  );
}

/** The journal: every entry with its lines, filtered by entry date or by the record it came from. */
export function JournalPage() {
  const { query } = useLocation();
  const sourceId = query.source_id ?? '';
  const [draft, setDraft] = useState({ from: '', to: '' });
  const [dates, setDates] = useState({ from: '', to: '' });
  return (
    <>
      <PageTitle>Journal</PageTitle>
      <Verification />
      <h2>Entries</h2>
      {sourceId ? (
        <p>
          The entries of one record (<code>{shortId(sourceId)}</code>). <a href={href('/journal')}>Show every entry</a>
        </p>
      ) : null}
      <form
        class="report-form"
        aria-label="Entry dates"
        onSubmit={(e) => {
          e.preventDefault();
          setDates(draft);
        }}
      >
        <Field label="Entry date from" id="journal-from" type="date" value={draft.from} onInput={(e) => setDraft({ ...draft, from: e.currentTarget.value })} />
        <Field label="Entry date to" id="journal-to" type="date" value={draft.to} onInput={(e) => setDraft({ ...draft, to: e.currentTarget.value })} />
        <button type="submit">Show</button>
      </form>
      <List<JournalEntry>
        key={`${sourceId}:${dates.from}:${dates.to}`}
        title="Journal entries"
        path="/v1/journal-entries"
        columns={ENTRY_COLUMNS}
        createdFilter={false}
        query={{ source_id: sourceId || undefined, from: isDay(dates.from) ? dates.from : undefined, to: isDay(dates.to) ? dates.to : undefined }}
        empty="No journal entry."
      />
      <p class="hint">Sources: {Object.keys(SOURCE_ROUTES).map(statusText).join(', ')}; a reversal has the same source as the entry it reverses.</p>
    </>
  );
}
