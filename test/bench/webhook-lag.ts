import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';

/**
 * Posting → webhook received: a receiver in the bench process, subscribed to invoice.posted through
 * the API (test mode may deliver to loopback), notes when each invoice's webhook arrives; after the
 * run, the lag of each is its arrival less the created_at of the invoice's journal entry (stamped in
 * the posting transaction, before its commit), like the reporting lag.
 */
export class WebhookLag {
  private readonly arrivals = new Map<string, number>();
  private server?: http.Server;
  private endpoint?: { url: string; headers: Record<string, string> };

  /** Starts the receiver and registers it as an endpoint of the key's app and environment. */
  async start(gatewayUrl: string, headers: Record<string, string>): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = Date.now();
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type?: string; data?: { invoice_id?: string } };
          const id = body.data?.invoice_id;
          if (body.type === 'invoice.posted' && id && !this.arrivals.has(id)) this.arrivals.set(id, at);
        } catch {
          // not a delivery: ignored
        }
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const port = (this.server.address() as AddressInfo).port;
    const r = await fetch(`${gatewayUrl}/api/v1/webhook-endpoints`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, event_types: ['invoice.posted'], description: 'bench: posting → webhook lag' }),
    });
    if (r.status !== 201) throw new Error(`registering the bench's webhook endpoint failed: ${r.status} ${await r.text()}`);
    const { data } = (await r.json()) as { data: { id: string } };
    this.endpoint = { url: `${gatewayUrl}/api/v1/webhook-endpoints/${data.id}`, headers };
  }

  /** Waits until the webhook of every one of these invoices that was posted arrived (at most waitMs), then prints the lag. */
  async report(databaseUrl: string, organizationId: string, invoiceIds: string[], waitMs = 60_000): Promise<string> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const postedAt = async () => {
        const { rows } = await client.query<{ id: string; at: Date }>(
          `SELECT source_id AS id, created_at AS at FROM receivables.journal_entries
            WHERE organization_id = $1 AND source_type = 'invoice' AND reverses_entry_id IS NULL AND source_id = ANY($2::uuid[])`,
          [organizationId, invoiceIds],
        );
        return rows;
      };
      const deadline = Date.now() + waitMs;
      let posted = await postedAt();
      while (posted.some((p) => !this.arrivals.has(p.id)) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        posted = await postedAt();
      }
      const lags = posted
        .filter((p) => this.arrivals.has(p.id))
        .map((p) => this.arrivals.get(p.id)! - new Date(p.at).getTime())
        .sort((a, b) => a - b);
      const q = (f: number) => (lags.length ? lags[Math.min(lags.length - 1, Math.floor(f * lags.length))]!.toFixed(0) : '-');
      return `posting → webhook received: ${lags.length} of ${posted.length} posted invoices' webhooks arrived, p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${q(1)} ms`;
    } finally {
      await client.end();
      // No more deliveries to a receiver that is gone.
      if (this.endpoint) await (await fetch(this.endpoint.url, { method: 'DELETE', headers: this.endpoint.headers })).arrayBuffer();
      await new Promise((r) => this.server?.close(r));
    }
  }
}
