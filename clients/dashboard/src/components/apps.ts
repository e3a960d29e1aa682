import { api, type ListAnswer } from '../api/client';
import type { Scope } from '../api/scope';
import type { ConnectedApp } from '../api/types';

/** The connected app the scope names, or the organization's first (the server's default too). */
export async function scopedApp(scope: Scope): Promise<ConnectedApp | null> {
  const { data } = await api.get<ListAnswer<ConnectedApp>>('/apps', { limit: 100 });
  return data.find((a) => a.id === scope.app) ?? data[0] ?? null;
}
