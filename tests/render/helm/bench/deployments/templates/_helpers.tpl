{{- define "t.labels" -}}
app: {{ .Chart.Name }}
{{ toYaml .Values.labels }}
{{- end }}
