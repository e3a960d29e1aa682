/**
 * Which of the locked candidates (oldest due first) a worker takes: at most `limit` in all and at
 * most `slots(endpoint)` per endpoint, so one endpoint's backlog cannot take the slots of the others.
 */
export function pickClaims(candidates: readonly { id: string; endpoint_id: string }[], limit: number, slots: (endpointId: string) => number): string[] {
  const taken: string[] = [];
  const per = new Map<string, number>();
  for (const c of candidates) {
    if (taken.length >= limit) break;
    const n = per.get(c.endpoint_id) ?? 0;
    if (n >= slots(c.endpoint_id)) continue;
    per.set(c.endpoint_id, n + 1);
    taken.push(c.id);
  }
  return taken;
}

/** Why an endpoint was disabled automatically (its `disabled_reason`). */
export function disabledReason(failingSince: Date, disableAfterMs: number): string {
  return `Disabled automatically: every delivery failed since ${new Date(failingSince).toISOString()} (${Math.round(disableAfterMs / 3_600_000)} h).`;
}
