import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client';
import { ErrorNote, Loading, Notice, PageTitle } from '../components/ui';
import { formatDateTime } from '../format';
import { useAction, useLoad } from '../hooks';
import { can } from '../roles';
import { useSignedIn } from '../session';
import { FiscalYearSetting } from './settings-fiscal';
import { SettingForm, type SettingField } from './settings-form';

const BRANDING: SettingField[] = [
  { key: 'business_name', label: 'Business name', kind: 'text', max: 200, nullable: true },
  { key: 'primary_color', label: 'Primary colour', kind: 'color', nullable: true, hint: 'As #RRGGBB, e.g. #1F5FA8.' },
  { key: 'payment_instructions', label: 'Payment instructions', kind: 'textarea', max: 2000, nullable: true, hint: 'Shown on invoices and the customer portal.' },
  { key: 'logo_document_id', label: 'Logo document id', kind: 'text', nullable: true, hint: 'The id of an uploaded PNG or JPEG document.' },
];
const INVOICE_DEFAULTS: SettingField[] = [
  { key: 'payment_terms_days', label: 'Payment terms (days)', kind: 'integer', min: 0, max: 365, hint: 'Days from issue to due date.' },
  { key: 'default_terms', label: 'Terms', kind: 'text', max: 2000, nullable: true, hint: 'For example: Net 30.' },
  { key: 'default_memo', label: 'Memo', kind: 'textarea', max: 2000, nullable: true },
  { key: 'footer', label: 'Footer', kind: 'textarea', max: 2000, nullable: true },
];
const ESTIMATE_DEFAULTS: SettingField[] = [
  { key: 'validity_days', label: 'Valid for (days)', kind: 'integer', min: 1, max: 365 },
  { key: 'default_terms', label: 'Terms', kind: 'text', max: 2000, nullable: true },
  { key: 'default_memo', label: 'Memo', kind: 'textarea', max: 2000, nullable: true },
];

/** Branding, invoice and estimate defaults, the books’ lock date and the fiscal year, of the scope’s environment. */
export function SettingsPage() {
  const { role } = useSignedIn().member;
  const write = can(role, 'write');
  return (
    <>
      <PageTitle>Settings</PageTitle>
      <LockDate writable={can(role, 'books_lock')} />
      <FiscalYearSetting writable={write} />
      <SettingForm title="Branding" path="/v1/settings/document-branding" fields={BRANDING} writable={write} />
      <SettingForm title="Invoice defaults" path="/v1/settings/invoice-defaults" fields={INVOICE_DEFAULTS} writable={write} />
      <SettingForm title="Estimate defaults" path="/v1/settings/estimate-defaults" fields={ESTIMATE_DEFAULTS} writable={write} />
    </>
  );
}

interface BooksLock {
  lock_date: string | null;
  changes: { id: string; changed_at: string; previous_lock_date: string | null; lock_date: string | null }[];
}

function LockDate({ writable }: { writable: boolean }) {
  const lock = useLoad(() => api.get<{ data: BooksLock }>('/v1/settings/books-lock'), []);
  const [date, setDate] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const action = useAction();
  useEffect(() => setDate(lock.data?.data.lock_date ?? ''), [lock.data]);
  const save = (value: string | null) =>
    void action.run(async () => {
      await api.put('/v1/settings/books-lock', { lock_date: value });
      setDone(value ? `The books are locked up to and including ${value}.` : 'The lock date is cleared.');
      lock.reload();
    });
  const changes = lock.data?.data.changes ?? [];
  return (
    <section aria-labelledby="lock-title">
      <h2 id="lock-title">Lock date</h2>
      <p>No invoice, payment, bill or other posting dated on or before the lock date can be written (it is refused with “period locked”).</p>
      {lock.loading && !lock.data ? <Loading what="the lock date" /> : null}
      <ErrorNote error={lock.error} />
      <form
        class="panel"
        onSubmit={(e) => {
          e.preventDefault();
          save(date || null);
        }}
      >
        <div class="field">
          <label for="lock-date">Lock the books up to</label>
          {/* Until the current lock date is known, a date typed in would be replaced by it (and an empty save would clear it). */}
          <input id="lock-date" type="date" value={date} disabled={!writable || !lock.data} onInput={(e) => setDate(e.currentTarget.value)} />
        </div>
        <ErrorNote error={action.error} />
        {done ? <Notice>{done}</Notice> : null}
        {writable ? (
          <div class="buttons">
            <button type="submit" disabled={action.busy || !lock.data}>
              Save the lock date
            </button>
            <button type="button" class="secondary" disabled={action.busy || !lock.data?.data.lock_date} onClick={() => save(null)}>
              Clear it
            </button>
          </div>
        ) : (
          <p class="hint">Your role cannot change the lock date.</p>
        )}
      </form>
      {changes.length > 0 ? (
        <details>
          <summary>Changes ({changes.length})</summary>
          <ul>
            {changes.map((c) => (
              <li key={c.id}>
                {formatDateTime(c.changed_at)}: {c.previous_lock_date ?? 'none'} → {c.lock_date ?? 'none'}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </section>
  );
}
