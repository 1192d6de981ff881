{{/* Standard labels: (dict "context" $ ["component" "x"] ["customLabels" .Values.commonLabels]). */}}
{{- define "mongo-common.labels.standard" -}}
{{- $labels := dict "app.kubernetes.io/name" (include "mongo-common.names.name" .context) "app.kubernetes.io/instance" .context.Release.Name "app.kubernetes.io/managed-by" .context.Release.Service "helm.sh/chart" (printf "%s-%s" .context.Chart.Name .context.Chart.Version) -}}
{{- with .context.Chart.AppVersion -}}
{{- $_ := set $labels "app.kubernetes.io/version" . -}}
{{- end -}}
{{- with .component -}}
{{- $_ := set $labels "app.kubernetes.io/component" . -}}
{{- end -}}
{{- toYaml (merge $labels (.customLabels | default dict)) -}}
{{- end -}}

{{- define "mongo-common.labels.matchLabels" -}}
app.kubernetes.io/name: {{ include "mongo-common.names.name" .context }}
app.kubernetes.io/instance: {{ .context.Release.Name }}
{{- with .component }}
app.kubernetes.io/component: {{ . }}
{{- end }}
{{- end -}}
