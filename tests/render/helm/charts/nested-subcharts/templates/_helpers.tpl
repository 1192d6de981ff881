{{- define "shared.label" -}}
defined-by: parent
{{- end }}
