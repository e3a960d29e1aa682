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

{{/* Secret data (string values): DATABASE_URL, NATS_URL, WEBHOOK_SECRET_KEY, PROCESSOR_SECRET_KEY, S3 keys. */}}
{{- define "acct.secretData" -}}
{{- $name := printf "%s-secret" (include "acct.fullname" .) -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace $name -}}
{{- $key := .Values.webhooks.secretKey -}}
{{- if not $key -}}
{{- if and $existing $existing.data (hasKey $existing.data "WEBHOOK_SECRET_KEY") -}}
{{- $key = index $existing.data "WEBHOOK_SECRET_KEY" | b64dec -}}
{{- else -}}
{{- $key = randAlphaNum 48 -}}
{{- end -}}
{{- end -}}
{{- $processorKey := .Values.paymentProcessor.secretKey -}}
{{- if not $processorKey -}}
{{- if and $existing $existing.data (hasKey $existing.data "PROCESSOR_SECRET_KEY") -}}
{{- $processorKey = index $existing.data "PROCESSOR_SECRET_KEY" | b64dec -}}
{{- else -}}
{{- $processorKey = randAlphaNum 48 -}}
{{- end -}}
{{- end -}}
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
