{{/* Chart name. */}}
{{- define "acct.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Full name prefix of every resource. */}}
{{- define "acct.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Labels of every resource. */}}
{{- define "acct.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "acct.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Selector labels of one component: (dict "root" $ "component" "gateway"). */}}
{{- define "acct.selector" -}}
app.kubernetes.io/name: {{ include "acct.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "acct.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "acct.secretName" -}}
{{ .Values.existingSecret | default (printf "%s-secret" (include "acct.fullname" .)) }}
{{- end -}}

{{- define "acct.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{ .Values.serviceAccount.name | default (include "acct.fullname" .) }}
{{- else -}}
{{ .Values.serviceAccount.name | default "default" }}
{{- end -}}
{{- end -}}

{{/*
Secret data (string values): DATABASE_URL, NATS_URL, WEBHOOK_SECRET_KEY, PROCESSOR_SECRET_KEY, S3 keys.
The two encryption keys come from the values (acct.checkRequired fails the render without them);
only with development: true does a key left empty fall back to the one this release already has
(lookup) or a random one: under helm template, Argo CD or Flux there is no lookup, and a new random
key on every sync would make every stored endpoint and processor secret undecryptable.
*/}}
{{- define "acct.secretData" -}}
{{- $name := printf "%s-secret" (include "acct.fullname" .) -}}
{{- $key := include "acct.devSecret" (dict "root" . "secret" $name "key" "WEBHOOK_SECRET_KEY" "value" .Values.webhooks.secretKey "length" 48) -}}
{{- $processorKey := include "acct.devSecret" (dict "root" . "secret" $name "key" "PROCESSOR_SECRET_KEY" "value" .Values.paymentProcessor.secretKey "length" 48) -}}
DATABASE_URL: {{ .Values.database.url | quote }}
{{ include "acct.perServiceDatabases" . }}
NATS_URL: {{ .Values.nats.url | quote }}
WEBHOOK_SECRET_KEY: {{ $key | quote }}
PROCESSOR_SECRET_KEY: {{ $processorKey | quote }}
{{- if .Values.s3.accessKeyId }}
S3_ACCESS_KEY_ID: {{ .Values.s3.accessKeyId | quote }}
S3_SECRET_ACCESS_KEY: {{ .Values.s3.secretAccessKey | quote }}
{{- end }}
{{- end -}}

{{/* Non-secret settings every process reads. */}}
{{- define "acct.configData" -}}
NATS_PREFIX: {{ .Values.nats.prefix | quote }}
DB_POOL_MAX: {{ .Values.database.poolMax | toString | quote }}
PUBLIC_BASE_URL: {{ .Values.publicBaseUrl | quote }}
{{- range $k, $v := .Values.config }}
{{ $k }}: {{ $v | toString | quote }}
{{- end }}
{{- end -}}

{{/* S3 settings (non-secret) for services with s3: true. */}}
{{- define "acct.s3Env" -}}
- name: S3_ENDPOINT
  value: {{ .Values.s3.endpoint | quote }}
- name: S3_REGION
  value: {{ .Values.s3.region | quote }}
- name: S3_BUCKET
  value: {{ .Values.s3.bucket | quote }}
- name: S3_FORCE_PATH_STYLE
  value: {{ .Values.s3.forcePathStyle | toString | quote }}
{{- end -}}

{{/* Fails the render when a pod could be killed before it has drained. */}}
{{- define "acct.checkGrace" -}}
{{- $drainMs := int (.Values.config.SHUTDOWN_TIMEOUT_MS | default "15000") -}}
{{- $graceMs := mul (int .Values.terminationGracePeriodSeconds) 1000 -}}
{{- $preStopMs := mul (int .Values.preStopSleepSeconds) 1000 -}}
{{- if le $graceMs (add $drainMs $preStopMs) -}}
{{- fail (printf "terminationGracePeriodSeconds (%d s) must be longer than preStopSleepSeconds + SHUTDOWN_TIMEOUT_MS (%d ms)" (int .Values.terminationGracePeriodSeconds) (add $drainMs $preStopMs)) -}}
{{- end -}}
{{- end -}}

{{/* <SERVICE>_DATABASE_URL of each service with a database of its own (database.perService). */}}
{{- define "acct.perServiceDatabases" -}}
{{- range $name, $url := .Values.database.perService }}
{{ printf "%s_DATABASE_URL" ($name | upper | replace "-" "_") }}: {{ $url | quote }}
{{- end }}
{{- end -}}

{{/*
Settings of every service, by name, as JSON (include "acct.services" . | fromJson): for each entry
of files/services.yaml (generated from SERVICE_MANIFEST), serviceDefaults, then the manifest's
opsPort and s3, then services.<name>; httpPort only for the public service.
*/}}
{{- define "acct.services" -}}
{{- $out := dict -}}
{{- range (.Files.Get "files/services.yaml" | fromYaml).services -}}
{{- $svc := mergeOverwrite (deepCopy $.Values.serviceDefaults) (dict "opsPort" .opsPort "s3" .s3) (deepCopy (index $.Values.services .name | default dict)) -}}
{{- if not .public }}{{ $_ := unset $svc "httpPort" }}{{ end -}}
{{- $_ := set $out .name $svc -}}
{{- end -}}
{{- toJson $out -}}
{{- end -}}

{{/* Names of the services in SERVICE_MANIFEST order (files/services.yaml), as JSON. */}}
{{- define "acct.serviceOrder" -}}
{{- $names := list -}}
{{- range (.Files.Get "files/services.yaml" | fromYaml).services }}{{ $names = append $names .name }}{{ end -}}
{{- toJson $names -}}
{{- end -}}

{{/*
A secret value: the given one; else, with development: true only, the one the Secret of this
release already holds (lookup), else a random one. (dict "root" $ "secret" NAME "key" KEY "value" V "length" N)
*/}}
{{- define "acct.devSecret" -}}
{{- $v := .value | default "" -}}
{{- if and (not $v) .root.Values.development -}}
{{- $existing := lookup "v1" "Secret" .root.Release.Namespace .secret -}}
{{- if and $existing $existing.data (hasKey $existing.data .key) -}}
{{- $v = index $existing.data .key | b64dec -}}
{{- else -}}
{{- $v = randAlphaNum (int .length) -}}
{{- end -}}
{{- end -}}
{{- $v -}}
{{- end -}}

{{/* The chart's placeholders: values that must be set for anything but a local try (development: true). */}}
{{- define "acct.placeholders" -}}
{"image.repository": "ghcr.io/example/accounting-api", "database.url": "postgres://postgres@postgres:5432/accounting"}
{{- end -}}

{{/*
Fails the render, naming every value missing, unless development: true: the image and the
database URL still at the chart's placeholders, the encryption keys (webhooks.secretKey,
paymentProcessor.secretKey; or existingSecret for those and database.url), and with nats.auth
the NATS users' passwords.
*/}}
{{- define "acct.checkRequired" -}}
{{- if not .Values.development -}}
{{- $missing := list -}}
{{- $placeholders := include "acct.placeholders" . | fromJson -}}
{{- if eq .Values.image.repository (index $placeholders "image.repository") -}}
{{- $missing = append $missing "image.repository (the chart's placeholder: your registry's image)" -}}
{{- end -}}
{{- if not .Values.existingSecret -}}
{{- if eq .Values.database.url (index $placeholders "database.url") -}}
{{- $missing = append $missing "database.url (the chart's placeholder: your Postgres; or existingSecret)" -}}
{{- end -}}
{{- if not .Values.webhooks.secretKey -}}
{{- $missing = append $missing "webhooks.secretKey (WEBHOOK_SECRET_KEY, encrypts webhook endpoint secrets; or existingSecret)" -}}
{{- end -}}
{{- if not .Values.paymentProcessor.secretKey -}}
{{- $missing = append $missing "paymentProcessor.secretKey (PROCESSOR_SECRET_KEY, encrypts payment-processor secrets; or existingSecret)" -}}
{{- end -}}
{{- end -}}
{{- if .Values.nats.auth.enabled -}}
{{- range $name := include "acct.natsUsers" . | fromJsonArray -}}
{{- if not (index $.Values.nats.auth.passwords $name) -}}
{{- $missing = append $missing (printf "nats.auth.passwords.%s" $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if $missing -}}
{{- fail (printf "\n\nmissing values (set them, or development: true for a local try, where keys and passwords are generated):\n  - %s\n\nAn upgrade of a release whose keys or passwords the chart generated: copy them from its Secrets into the values first (helm/accounting-api/UPGRADING.md, \"Keys and passwords are values\")." (join "\n  - " $missing)) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The NATS users (nats.auth): every service of files/services.yaml, and admin, as JSON. */}}
{{- define "acct.natsUsers" -}}
{{- $names := include "acct.serviceOrder" . | fromJsonArray -}}
{{- toJson (append $names "admin") -}}
{{- end -}}
