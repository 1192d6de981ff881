{{- define "monitoring-stack.fullname" -}}
{{- printf "%s-%s" .Release.Name (.Chart.Name | trunc 26) | trimSuffix "-" -}}
{{- end -}}

{{- define "monitoring-stack.labels" -}}
app.kubernetes.io/part-of: {{ .Chart.Name }}
chart: {{ .Chart.Name }}-{{ .Chart.Version }}
release: {{ .Release.Name | quote }}
{{- range $key, $value := .Values.global.commonLabels }}
{{ $key }}: {{ $value | quote }}
{{- end }}
{{- end -}}
