interface SubscriptionScope {
  organization_id: string;
  connected_app_id: string;
  environment: string;
}

const keyOf = (s: SubscriptionScope) => `${s.organization_id}/${s.connected_app_id}/${s.environment}`;

/**
 * Which event types the enabled endpoints of each (organization, connected app, environment)
 * subscribe to, as of one version of the subscriptions: answers "does any endpoint want this event"
 * with a map lookup.
 */
export class SubscriptionIndex {
  private readonly types = new Map<string, Set<string>>();

  constructor(
    readonly version: string,
    rows: Iterable<SubscriptionScope & { event_types: readonly string[] }>,
  ) {
    for (const r of rows) {
      const key = keyOf(r);
      const set = this.types.get(key) ?? new Set<string>();
      for (const t of r.event_types) set.add(t);
      this.types.set(key, set);
    }
  }

  /** Whether an enabled endpoint of the event's scope subscribes to its type. */
  wants(event: SubscriptionScope & { type: string }): boolean {
    return this.types.get(keyOf(event))?.has(event.type) ?? false;
  }

  /** Scopes with at least one enabled endpoint. */
  get scopes(): number {
    return this.types.size;
  }
}
