{{- define "argo-cd.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "argo-cd.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := include "argo-cd.name" . -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "argo-cd.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/part-of: argocd
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Where Argo CD finds redis: the HA proxy of the aliased subchart, or the standalone redis. */}}
{{- define "argo-cd.redis.server" -}}
{{- $ha := index .Values "ha-redis" -}}
{{- if $ha.enabled -}}
{{- if $ha.haproxy.enabled -}}
{{- printf "%s-ha-redis-haproxy:6379" .Release.Name -}}
{{- else -}}
{{- printf "%s-ha-redis:6379" .Release.Name -}}
{{- end -}}
{{- else -}}
{{- printf "%s-redis:%v" (include "argo-cd.fullname" .) .Values.redis.servicePort -}}
{{- end -}}
{{- end -}}

{{- define "argo-cd.image" -}}
{{- printf "%s:%s" .Values.global.image.repository (default .Chart.AppVersion .Values.global.image.tag) -}}
{{- end -}}
