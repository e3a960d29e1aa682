import { useEffect, useState } from 'preact/hooks';
import { api, type ListAnswer } from '../../api/client';
import { readScope } from '../../api/scope';
import type { Account } from './types';

/** The chart of accounts' names by code, read once per scope (environment and app) for the tab's life. */
const cache = new Map<string, Promise<Map<string, string>>>();

function load(): Promise<Map<string, string>> {
  const scope = readScope();
  const key = `${scope.environment}:${scope.app ?? ''}`;
  let names = cache.get(key);
  if (!names) {
    names = api.get<ListAnswer<Account>>('/v1/accounts', { limit: 100 }).then(
      (page) => new Map(page.data.map((a) => [a.code, a.name])),
      () => {
        cache.delete(key); // a failed read is tried again next time; the codes show meanwhile
        return new Map<string, string>();
      },
    );
    cache.set(key, names);
  }
  return names;
}

/** Account names by code (empty until read, or when the read failed: the lines then show codes only). */
export function useAccountNames(): Map<string, string> {
  const [names, setNames] = useState<Map<string, string>>(new Map());
  useEffect(() => {
    let live = true;
    void load().then((n) => live && setNames(n));
    return () => {
      live = false;
    };
  }, []);
  return names;
}
