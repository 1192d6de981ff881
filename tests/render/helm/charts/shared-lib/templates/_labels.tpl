{{/*
Standard labels; (dict "customLabels" .Values.commonLabels "context" $) merges templated custom labels over them.
*/}}
{{- define "shared-lib.labels.standard" -}}
{{- if and (hasKey . "customLabels") (hasKey . "context") -}}
{{- $default := dict "app.kubernetes.io/name" (include "shared-lib.names.name" .context) "helm.sh/chart" (include "shared-lib.names.chart" .context) "app.kubernetes.io/instance" .context.Release.Name "app.kubernetes.io/managed-by" .context.Release.Service -}}
{{- with .context.Chart.AppVersion -}}
{{- $_ := set $default "app.kubernetes.io/version" . -}}
{{- end -}}
{{ template "shared-lib.tplvalues.merge" (dict "values" (list .customLabels $default) "context" .context) }}
{{- else -}}
app.kubernetes.io/name: {{ include "shared-lib.names.name" . }}
helm.sh/chart: {{ include "shared-lib.names.chart" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Chart.AppVersion }}
app.kubernetes.io/version: {{ . | quote }}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Selector labels: never templated custom labels, only the stable pair.
*/}}
{{- define "shared-lib.labels.matchLabels" -}}
{{- $context := default . .context -}}
app.kubernetes.io/name: {{ include "shared-lib.names.name" $context }}
app.kubernetes.io/instance: {{ $context.Release.Name }}
{{- end -}}

{{- define "shared-lib.names.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}
