{{/*
Chart name, truncated to the 63 characters Kubernetes allows in names.
*/}}
{{- define "scan-indexer.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Fully qualified app name; room is left for the "-worker" / "-migrate" suffixes.
*/}}
{{- define "scan-indexer.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 55 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 55 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 55 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "scan-indexer.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "scan-indexer.selectorLabels" -}}
app.kubernetes.io/name: {{ include "scan-indexer.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "scan-indexer.labels" -}}
helm.sh/chart: {{ include "scan-indexer.chart" . }}
{{ include "scan-indexer.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: scan-indexer
migration: {{ .Values.migration.id | int | quote }}
{{- end }}

{{/*
Labels of one component. Call with (dict "root" $ "component" "api").
*/}}
{{- define "scan-indexer.componentSelectorLabels" -}}
{{ include "scan-indexer.selectorLabels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "scan-indexer.componentLabels" -}}
{{ include "scan-indexer.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "scan-indexer.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end }}

{{/*
DATABASE_URL from the existing Secret: the whole URL under urlKey, or
assembled from host/port/name/user with the password under passwordKey
(Kubernetes expands $(DATABASE_PASSWORD) because it is defined first).
*/}}
{{- define "scan-indexer.databaseEnv" -}}
{{- $db := .Values.database }}
{{- $secret := required "database.existingSecret is required: the name of a Secret holding the database URL (urlKey) or password (passwordKey)" $db.existingSecret }}
{{- if $db.urlKey }}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ $secret | quote }}
      key: {{ $db.urlKey | quote }}
{{- else }}
{{- $passwordKey := required "database.passwordKey is required when database.urlKey is empty" $db.passwordKey }}
- name: DATABASE_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $secret | quote }}
      key: {{ $passwordKey | quote }}
- name: DATABASE_URL
  value: {{ printf "postgres://%s:$(DATABASE_PASSWORD)@%s:%d/%s%s" $db.user $db.host ($db.port | int) $db.name (ternary (printf "?%s" $db.params) "" (ne $db.params "")) | quote }}
{{- end }}
{{- end }}

{{/*
Environment shared by every container: database, secrets, additional variables.
*/}}
{{- define "scan-indexer.secretEnv" -}}
{{ include "scan-indexer.databaseEnv" . }}
{{- with .Values.ledger.auth.hs256Secret }}
{{- if .existingSecret }}
- name: LEDGER_AUTH_HS256_SECRET
  valueFrom:
    secretKeyRef:
      name: {{ .existingSecret | quote }}
      key: {{ required "ledger.auth.hs256Secret.key is required with ledger.auth.hs256Secret.existingSecret" .key | quote }}
{{- end }}
{{- end }}
{{- with .Values.additionalEnvVars }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
Pod-level settings shared by the api, worker and migrate pods.
*/}}
{{- define "scan-indexer.podSpecCommon" -}}
{{- with .Values.serviceAccountName }}
serviceAccountName: {{ . }}
{{- end }}
automountServiceAccountToken: false
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
{{- range . }}
  - name: {{ . }}
{{- end }}
{{- end }}
{{- with .Values.podSecurityContext }}
securityContext:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
Scheduling of one component: its own value when set, else the top-level one.
Call with (dict "root" $ "component" .Values.api).
*/}}
{{- define "scan-indexer.scheduling" -}}
{{- with (.component.nodeSelector | default .root.Values.nodeSelector) }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with (.component.affinity | default .root.Values.affinity) }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with (.component.tolerations | default .root.Values.tolerations) }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
Pod template annotations: user annotations and a checksum of the ConfigMap, so
that a configuration change rolls the pods.
*/}}
{{- define "scan-indexer.podAnnotations" -}}
checksum/config: {{ include (print .Template.BasePath "/configmap.yaml") . | sha256sum }}
{{- with .Values.pod.annotations }}
{{ toYaml . }}
{{- end }}
{{- end }}
