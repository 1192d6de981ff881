{{- define "shared.label" -}}
defined-by: backend
{{- end }}
