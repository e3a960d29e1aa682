#!/usr/bin/env bash
# The README's walk-through, as a script that stops at the first failure: a customer billed, paid
# in two ways, an invoice voided, a vendor bill paid, October closed, a receipt uploaded and
# downloaded, the ledger verified and the reports read. Every request must answer 2xx (curl -f):
# the first that does not prints the API's error and ends the script with a non-zero status.
#
#   KEY=svc_test_… bash docs/walkthrough.sh                 # against `npm start` (127.0.0.1:8080)
#   BASE=https://api.example.com KEY=svc_test_… bash docs/walkthrough.sh
#
# KEY: a test key (`npm run admin -- bootstrap` prints one). RUN: a suffix for the external ids
# (default: the time), so the script can run again on the same organization. Needs curl and node.
set -euo pipefail

BASE=${BASE:-http://127.0.0.1:8080}
BASE=${BASE%/}
: "${KEY:?set KEY to a test API key (npm run admin -- bootstrap prints one)}"
RUN=${RUN:-$(date +%s)}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# A request with the key into a file; on any answer but 2xx (curl --fail-with-body) it prints the
# API's error to stderr and stops the script.
fetch() {
  local to=$1
  shift
  curl -sS --fail-with-body -o "$to" -H "Authorization: Bearer $KEY" "$@" || {
    echo "walkthrough: this request failed: curl $*" >&2
    cat "$to" >&2 2>/dev/null && echo >&2
    exit 1
  }
}
# A request whose JSON answer is printed.
api() {
  fetch "$WORK/body" "$@"
  cat "$WORK/body"
  echo
}
json() { api -H 'Content-Type: application/json' "$@"; }
# The data.id of the JSON answer on stdin.
id_of() { node -e 'const b = JSON.parse(require("fs").readFileSync(0, "utf8")); if (typeof b?.data?.id !== "string") process.exit(1); console.log(b.data.id)'; }
step() { printf '\n== %s\n' "$*" >&2; }

step 'The key in use'
api "$BASE/api/v1/auth/check"

step 'Create a customer (201); the same body again is safe: 200 with Idempotent-Replayed: true'
CUSTOMER_BODY="{\"external_customer_id\":\"cus_$RUN\",\"name\":\"Ada Lovelace\",\"email\":\"ada@example.com\"}"
ID=$(json -X POST "$BASE/api/v1/customers" -d "$CUSTOMER_BODY" | id_of)
json -X POST "$BASE/api/v1/customers" -d "$CUSTOMER_BODY" >/dev/null

step 'Read it back, and list: by page, after and before an item, by creation date, by external id'
api "$BASE/api/v1/customers/$ID"
api "$BASE/api/v1/customers?limit=10&offset=0"
api "$BASE/api/v1/customers?limit=10&starting_after=$ID"
api "$BASE/api/v1/customers?limit=10&ending_before=$ID"
api -g "$BASE/api/v1/customers?created[gte]=2026-11-01&created[lt]=2100-01-01T00:00:00Z"
api "$BASE/api/v1/customers?external_customer_id=cus_$RUN"

step 'Bill the customer: a draft invoice, then post it (Dr A/R / Cr Revenue)'
INV=$(json -X POST "$BASE/api/v1/invoices" \
  -d "{\"external_invoice_id\":\"inv_$RUN\",\"customer_id\":\"$ID\",\"invoice_number\":\"$RUN-1\",\"issue_date\":\"2026-11-01\",\"due_date\":\"2026-12-01\",\"line_items\":[{\"description\":\"Consulting\",\"quantity\":1.5,\"unit_amount_cents\":10000}]}" | id_of)
api -X POST "$BASE/api/v1/invoices/$INV/post"

step 'Take a payment (the invoice becomes partially_paid)'
json -X POST "$BASE/api/v1/payments" \
  -d "{\"external_payment_id\":\"pay_$RUN\",\"invoice_id\":\"$INV\",\"amount_cents\":5000,\"received_at\":\"2026-11-05\"}"

step 'Or let a processor event pay the rest: matched to the invoice by external_invoice_id'
json -X POST "$BASE/api/v1/events" \
  -d "{\"event_type\":\"payment.received\",\"external_event_id\":\"evt_$RUN\",\"payload\":{\"external_payment_id\":\"pay2_$RUN\",\"external_invoice_id\":\"inv_$RUN\",\"amount_cents\":10000,\"received_at\":\"2026-11-06T10:00:00Z\",\"processor\":\"stripe\"}}"

step 'Void an invoice nobody paid: the mirror entry (Dr Revenue / Cr A/R) dated void_date'
OTHER_INV=$(json -X POST "$BASE/api/v1/invoices" \
  -d "{\"external_invoice_id\":\"inv2_$RUN\",\"customer_id\":\"$ID\",\"invoice_number\":\"$RUN-2\",\"issue_date\":\"2026-11-01\",\"due_date\":\"2026-12-01\",\"line_items\":[{\"description\":\"Sent twice\",\"quantity\":1,\"unit_amount_cents\":2500}]}" | id_of)
api -X POST "$BASE/api/v1/invoices/$OTHER_INV/post"
json -X POST "$BASE/api/v1/invoices/$OTHER_INV/void" -d '{"void_date":"2026-11-20"}'

step 'Payables: a vendor, a bill (posted on create: Dr Expenses / Cr A/P), a payment allocated to it'
VEN=$(json -X POST "$BASE/api/v1/vendors" -d "{\"external_vendor_id\":\"ven_$RUN\",\"display_name\":\"Grace Hopper LLC\",\"is_1099_eligible\":true}" | id_of)
BILL=$(json -X POST "$BASE/api/v1/bills" \
  -d "{\"external_bill_id\":\"bill_$RUN\",\"vendor_id\":\"$VEN\",\"bill_number\":\"H-$RUN\",\"issue_date\":\"2026-11-02\",\"due_date\":\"2026-12-02\",\"line_items\":[{\"description\":\"Audit\",\"quantity\":1,\"unit_amount_cents\":50000}]}" | id_of)
json -X POST "$BASE/api/v1/vendor-payments" \
  -d "{\"external_vendor_payment_id\":\"vp_$RUN\",\"vendor_id\":\"$VEN\",\"amount_cents\":20000,\"payment_date\":\"2026-11-10\",\"allocations\":[{\"bill_id\":\"$BILL\",\"amount_cents\":20000}]}"
json -X PATCH "$BASE/api/v1/vendors/$VEN" -d '{"w9_on_file":true}'

step 'Close October: nothing dated on or before the lock date posts any more (409 period_locked)'
json -X PUT "$BASE/api/v1/settings/books-lock" -d '{"lock_date":"2026-10-31"}'

step 'Rename the customer and tag it with your own metadata'
json -X PATCH "$BASE/api/v1/customers/$ID" -d '{"name":"Ada King","metadata":{"crm_id":"42"}}'

step 'Upload a receipt (multipart), linked to the invoice; read it back and download its bytes'
# A one-page PDF of our own, so the upload never depends on a file lying around.
cat >"$WORK/receipt.pdf" <<'PDF'
%PDF-1.4
1 0 obj
<< /Type /Catalog /Pages 2 0 R >>
endobj
2 0 obj
<< /Type /Pages /Kids [3 0 R] /Count 1 >>
endobj
3 0 obj
<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 144] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>
endobj
4 0 obj
<< /Length 89 >>
stream
BT /F1 18 Tf 24 90 Td (Receipt 1001) Tj /F1 12 Tf 0 -28 Td (Consulting: USD 150.00) Tj ET
endstream
endobj
5 0 obj
<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>
endobj
xref
0 6
0000000000 65535 f 
0000000009 00000 n 
0000000058 00000 n 
0000000115 00000 n 
0000000241 00000 n 
0000000380 00000 n 
trailer
<< /Size 6 /Root 1 0 R >>
startxref
450
%%EOF
PDF
DOC=$(api -X POST "$BASE/api/v1/documents" -F "file=@$WORK/receipt.pdf;type=application/pdf" \
  -F document_type=receipt -F source=walkthrough -F record_type=invoice -F "record_id=$INV" | id_of)
api "$BASE/api/v1/documents/$DOC"
fetch "$WORK/copy.pdf" "$BASE/api/v1/documents/$DOC/download"
cmp -s "$WORK/receipt.pdf" "$WORK/copy.pdf" || {
  echo 'walkthrough: the download differs from the upload' >&2
  exit 1
}

step 'The journals are hash-chained: re-compute them'
api "$BASE/api/v1/ledger/verification"

step 'Reports: revenue, A/R and A/P for a period; A/R aging by customer; the trial balance'
api "$BASE/api/v1/reports/summary?from=2026-11-01&to=2026-11-30"
api "$BASE/api/v1/reports/accounts-receivable?as_of=2026-11-30"
api "$BASE/api/v1/reports/trial-balance?as_of=2026-11-30"

step 'The OpenAPI document (no key needed)'
# (Into a file first: `curl | head` would end curl with a broken pipe, a failure under pipefail.)
curl -fsS -o "$WORK/openapi.yaml" "$BASE/developers/openapi.yaml"
head -n 5 "$WORK/openapi.yaml"

step 'Done: every request answered 2xx'
