/** Every limit of the public API in one place (API-DECISIONS §3, §6). Units last in names. */
export const limits = {
  page_limit_default: 25,
  page_limit_max: 100,
  page_offset_max: 100_000,
  amount_cents_max: 100_000_000_000,
  name_length_max: 200,
  email_length_max: 254,
  external_id_length_max: 255,
  number_length_max: 255,
  description_length_max: 1000,
  line_items_max: 500,
  quantity_decimals_max: 4,
  json_body_bytes_max: 1024 * 1024,
  /** A payment-processor webhook body (its base64 and the RPC envelope still fit one bus message). */
  webhook_body_bytes_max: 512 * 1024,
  /** A list page holds fewer than `limit` items when they would pass this many bytes of JSON (has_more says so). */
  list_page_bytes_max: 1024 * 1024,
  idempotency_key_length_max: 255,
  idempotency_ttl_seconds: 24 * 60 * 60,
  /** Every date the API takes lies in this range; a date-time's UTC date (after its offset) too. */
  date_min: '1900-01-01',
  date_max: '9999-12-31',
  /** Objects and arrays nested in a JSON body, counting the body itself (checked before anything recursive runs). */
  json_depth_max: 32,
} as const;

/** Fields only the gateway may set (SPEC.md §4 rule 1). */
export const SCOPE_FIELDS = ['organization_id', 'connected_app_id', 'app_environment_id', 'environment', 'mode'] as const;
